"""Tables from a profile of the kernel's main thread (:func:`in_kernel.profile_stop`)."""

from __future__ import annotations

from .common import Section, ms


def profile_tables(sec: Section, what: str, per: str, prof: dict) -> None:
    """Where the main thread's CPU time went, ``per`` one round (or the whole run): by group,
    the functions with the most time of their own, and inside a few telling functions."""
    total = prof["total_ms"] or 1.0
    rows = [[name, ms(value, 2), f"{100 * value / total:.0f}%"]
            for name, value in prof["groups"] if value >= 0.005]
    rows.append(["all (the main thread's CPU time)", ms(prof["total_ms"], 2), "100%"])
    sec.table(f"Profile, {what}: the kernel's main thread, CPU time {per}, by where it was "
              "spent", ["where", "CPU time", "share"], rows)
    sec.table(f"Profile, {what}: the functions with the most time of their own, {per}",
              ["function", "own time", "with what it calls", "calls"],
              [[f"`{name}`", ms(own, 3), ms(cum, 3), f"{calls:g}"]
               for name, own, cum, calls in prof["top"]])
    if prof["inside"]:
        sec.table(f"Profile, {what}: time inside, {per}", ["function", "time (with what it "
                  "calls)", "calls"],
                  [[name, ms(value, 2), f"{calls:g}"]
                   for name, (value, calls) in prof["inside"].items()])


PROFILE_NOTE = (
    "Profiles: cProfile in the kernel, on its main thread (where IPython runs cells, ipykernel "
    "handles widget messages and the SDK's connection runs: the whole elicitation), timed by "
    "that thread's CPU clock, so the time the thread spent idle (waiting for the frontend, the "
    "server or the next message) is not in it, nor is the work of the kernel's other threads "
    "(the IOPub thread that puts messages on the wire, the heartbeat). A built-in function's "
    "time goes to the groups of the functions that called it, in proportion. The profiler "
    "slows every Python call, so its times are larger than unprofiled ones: read the shares.")
