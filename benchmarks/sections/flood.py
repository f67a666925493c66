"""8. A flood: one tool asks 200 questions at once, in a real kernel. The person keeps up
(Submit on every form as it appears) while the kernel runs small cells throughout; the section
measures backpressure (forms open at once, requests waiting, requests cancelled), whether the
kernel stays responsive, and kernel memory and widget models before and after."""

from __future__ import annotations

import collections
import json
import tempfile
import time
from pathlib import Path

from ..common import CELL, BenchError, Section, Target, log, ms, pct, rss_mb
from ..harness import Journal, Kernel
from ..profiling import PROFILE_NOTE, profile_tables

TITLE = "8. A flood of 200 requests at once"

#: Milliseconds within which the kernel must answer a small cell throughout the flood.
CELL_TARGET = 50
#: Of which the kernel's part: execute_request sent -> the kernel publishes idle (ms).
KERNEL_TARGET = 20
#: Event-loop callbacks longer than this (ms) are listed, in the timed flood.
SLOW_MS = 5.0
#: How long the call's view may take to close its models once the call has ended (s).
CLOSE_WAIT = 30.0

PROBE = ("import json as _j; _b = conn.guard.backlog; "
         "print(_j.dumps([_b.open, _b.waiting, flood.done()]))")


def flood(kernel: Kernel, n: int, tag: str) -> tuple[set, list, list, list]:
    """One flood of ``n`` requests, the person pressing Submit on each form as it appears and
    small cells run throughout, until the call has ended: (buttons clicked, each small cell's
    ms, of which in the kernel, the backlog's state each small cell read)."""
    fe = kernel.fe
    # Started without waiting, so that the kernel takes other cells while the flood runs.
    kernel.run(f"flood = conn.start_tool('ask_many', {{'count': {n}, 'tag': {tag!r}, "
               f"'kind': 'click'}})")
    clicked: set[str] = set()
    probes: list[float] = []
    in_kernel: list[float] = []  # the same, until the kernel said it was idle (its clock)
    states: list[list] = []
    deadline = time.monotonic() + 4 * CELL
    log(f"  flood: {n} requests at once; Submit on each form as it appears")
    while True:
        for button in fe.find("nb-elicit-submit"):
            if button not in clicked:
                clicked.add(button)
                fe.click(button)
        sent, started = time.time(), time.perf_counter()
        cell = fe.execute(PROBE)  # a small cell: how long the kernel takes to answer
        reply = fe.wait_reply(cell, CELL)
        probes.append(1000 * (time.perf_counter() - started))  # ms
        if reply.get("status") != "ok":
            raise BenchError(f"a small cell failed: {kernel.cell_text(cell)}")
        in_kernel.append(1000 * (fe.idle_sent[cell] - sent))
        state = json.loads(fe.stdout(cell).strip().splitlines()[-1])
        states.append(state)
        if state[2]:
            return clicked, probes, in_kernel, states
        if time.monotonic() > deadline:
            raise BenchError(f"the flood did not end within {4 * CELL:g} s: {state}")


#: Small cells timed on the idle kernel before the flood, the measure's floor.
IDLE_CELLS = 10


def idle_cells(kernel: Kernel, count: int) -> tuple[float, float]:
    """The median ms of ``count`` small cells on the idle kernel (the flood's small cell, the
    flood not started): end to end, and until the kernel published idle."""
    fe = kernel.fe
    code = PROBE.replace("flood.done()", "False")
    total, inside = [], []
    for _ in range(count):
        sent, started = time.time(), time.perf_counter()
        cell = fe.execute(code)
        if fe.wait_reply(cell, CELL).get("status") != "ok":
            raise BenchError(f"a small cell failed: {kernel.cell_text(cell)}")
        total.append(1000 * (time.perf_counter() - started))
        fe.wait_for(lambda cell=cell: cell in fe.idle_sent, CELL, "the small cell's idle")
        inside.append(1000 * (fe.idle_sent[cell] - sent))
    return pct(total, 50), pct(inside, 50)


def next_to_idle(took: float, idle: float) -> str:
    """A time in the flood, and its ratio to the same small cell's on the idle kernel."""
    if idle <= 0:
        return f"{ms(took)} (the idle kernel's {ms(idle)}: no ratio)"
    return f"{ms(took)} ({took / idle:.1f}x the idle kernel's {ms(idle)}, median)"


def own(stats: dict) -> int:
    """Live widget models but the layout and style models every prompt of the kernel shares
    (made by the first prompt, the flood's in a fresh kernel; never closed with one)."""
    return stats["widgets"] - stats.get("shared", 0)


def run(opts, sec: Section) -> None:
    n = 200
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    journal = Journal(tmp / "flood.jsonl")
    with Kernel(opts) as kernel:
        kernel.connect("conn", journal.path)
        idle = idle_cells(kernel, IDLE_CELLS)
        before = kernel.call("stats")
        rss_before = rss_mb(kernel.pid)
        clicked, probes, in_kernel, states = flood(kernel, n, "flood")
        # (the tool's list comes back as one text block per action)
        actions = kernel.json("import json as _j; print(_j.dumps(flood.result().text.split()))")
        most_open = kernel.json("print(conn.guard.backlog.most_open)")
        # The call's view turns into its transcript and closes its models (one message each):
        # wait for them, up to CLOSE_WAIT s.
        ended = time.monotonic()
        after = kernel.call("stats")
        while own(after) > own(before) and time.monotonic() - ended < CLOSE_WAIT:
            time.sleep(0.2)
            after = kernel.call("stats")
        closed_in = time.monotonic() - ended
        rss_after = rss_mb(kernel.pid)
        # Where the kernel's time goes in a flood: two more, not counted above. In the first,
        # every event-loop callback is timed (a small cell waits for the one running); the
        # second runs under a profiler.
        log("  flood: again, every event-loop callback timed")
        kernel.call("callbacks_start", SLOW_MS)
        flood(kernel, n, "timed")
        callbacks = kernel.call("callbacks_stop")
        log("  flood: again, profiled")
        kernel.call("profile_start")
        flood(kernel, n, "profiled")
        profile = kernel.call("profile_stop", 1)
    counts = collections.Counter(actions)
    most_waiting = max(s[1] for s in states)
    shown = len(clicked)
    if sum(counts.values()) != n:
        raise BenchError(f"the server got {sum(counts.values())} answers of {n}: {counts}")
    if counts.get("decline"):
        raise BenchError(f"{counts['decline']} requests were declined: only a person declines")
    sec.table(f"One tool asks {n} questions at once; the person presses Submit on each form "
              "as it appears",
              ["forms open at most", "requests waiting at most", "forms shown (and answered)",
               "answered accept", "answered cancel (past the 100 waiting)", "declined"],
              [[most_open, most_waiting, shown, counts.get("accept", 0),
                counts.get("cancel", 0), counts.get("decline", 0)]])
    sec.table("The kernel and its memory",
              ["", "kernel RSS", "live widget models", "of which every prompt shares",
               "forms pending"],
              [["before the flood", f"{rss_before:.1f} MB", before["widgets"],
                before.get("shared", 0), before["pending"]],
               ["after it ended", f"{rss_after:.1f} MB", after["widgets"],
                after.get("shared", 0), after["pending"]]])
    sec.table(f"Small cells run while the flood was on ({len(probes)} of them)",
              ["", "median", "p95", "max"],
              [["execute_request sent -> reply and idle handled by the frontend",
                ms(pct(probes, 50)), ms(pct(probes, 95)), ms(max(probes))],
               ["of which: sent -> the kernel publishes idle (its send time)",
                ms(pct(in_kernel, 50)), ms(pct(in_kernel, 95)), ms(max(in_kernel))]])
    sec.notes.append("Each small cell reads the connection's backlog (open, waiting) and is "
                     "timed from execute_request to its reply, through the scripted frontend "
                     "(the target). The second line ends when the kernel made its idle status "
                     "(the message's header date); the rest is the trip to the frontend, which "
                     "handles every widget message of the flood before that idle (one Python "
                     "process, on the same cores as the kernel and the server).")
    slowest = probes.index(max(probes))
    over = sum(p > CELL_TARGET for p in probes)
    open_then, waiting_then = states[slowest][:2]
    sec.notes.append(f"The slowest small cell, number {slowest + 1} of {len(probes)} (then "
                     f"{open_then} forms open and {waiting_then} requests waiting), took "
                     f"{ms(probes[slowest])}: {ms(in_kernel[slowest])} until the kernel "
                     f"published idle, the rest on the way to and through the frontend. {over} "
                     f"of {len(probes)} small cells took more than {CELL_TARGET} ms; in the "
                     f"kernel, the slowest took {ms(max(in_kernel))}.")
    sec.targets.append(Target("Flood of 200: forms open at once", "<= 3", str(most_open),
                              most_open <= 3))
    sec.targets.append(Target("Flood of 200: nothing declined for the person", "0 declined",
                              f"{counts.get('decline', 0)} declined", not counts.get("decline")))
    sec.targets.append(Target("Flood of 200: live widget models after (but the few every "
                              "prompt shares)", "back to baseline",
                              f"{own(before)} -> {own(after)} "
                              f"({closed_in:.1f} s after the call ended)",
                              own(after) <= own(before)))
    sec.targets.append(Target("Flood of 200: the kernel answers a small cell, max",
                              f"<= {CELL_TARGET} ms", next_to_idle(max(probes), idle[0]),
                              max(probes) <= CELL_TARGET, ms(max(probes) - CELL_TARGET)))
    sec.targets.append(Target("Flood of 200: the kernel's part of a small cell, max",
                              f"<= {KERNEL_TARGET} ms", next_to_idle(max(in_kernel), idle[1]),
                              max(in_kernel) <= KERNEL_TARGET,
                              ms(max(in_kernel) - KERNEL_TARGET)))
    report_callbacks(sec, n, callbacks)
    profile_tables(sec, f"a third flood of {n} (not counted above)", "in the whole flood",
                   profile)
    sec.notes.append(PROFILE_NOTE)


def report_callbacks(sec: Section, n: int, cb: dict) -> None:
    """The event loop's longest callbacks in the timed flood: a small cell waits for them."""
    sec.table(f"A second flood of {n} (not counted above), every callback of the kernel's event"
              f" loop timed: the longest ones, by what they ran (over {cb['over']:g} ms)",
              ["callback", "over the limit", "their time", "longest"],
              [[f"`{name}`", count, ms(total), ms(longest)]
               for name, count, total, longest in cb["by_name"]])
    sec.notes.append(
        f"While a callback of the kernel's event loop runs, nothing else does: a small cell's "
        f"execute_request waits for it to return. In the timed flood the loop ran "
        f"{cb['count']} callbacks ({cb['ms'] / 1000:.2f} s in all); the longest took "
        + ", ".join(f"{ms(took)} ({name})" for took, name in cb["longest"][:5])
        + ". Timed by wrapping asyncio's Handle._run in the kernel (a perf_counter pair per "
        "callback). A task's callback is named by its coroutine: one step of it, from one "
        "await to the next.")
