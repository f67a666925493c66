"""3. Kernel CPU and wake-ups (voluntary context switches, all threads) while a form waits,
next to the same cell awaiting a call that asks nothing (its floor: what a waiting cell costs
with no form), and the same kernel idle."""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path

from ..common import CELL, BenchError, Section, Target, context_switches, cpu_seconds, log
from ..harness import BenchFrontend, Journal, Kernel, answer_form, wait_shown

TITLE = "3. Idle cost of a waiting form"
#: A waiting form's kernel CPU at most this many times that of the same cell awaiting a call
#: that asks nothing (measured in the same run: a waiting cell's own wake-ups and waiting line
#: are in both; what one wake-up costs varies with the machine).
RATIO_TARGET = 1.25


def measure_idle(fe: BenchFrontend, pid: int, seconds: float) -> dict[str, float]:
    fe.pump_for(1.0)
    cpu0, (vol0, inv0, thr), t0 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    fe.pump_for(seconds)
    cpu1, (vol1, inv1, thr1), t1 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    elapsed = t1 - t0
    return {"cpu": 100 * (cpu1 - cpu0) / elapsed, "wakeups": (vol1 - vol0) / elapsed,
            "involuntary": (inv1 - inv0) / elapsed, "threads": max(thr, thr1),
            "seconds": elapsed}


def run(opts, sec: Section) -> None:
    seconds = opts.idle or (6.0 if opts.quick else 30.0)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    journal = Journal(tmp / "idle.jsonl")
    with Kernel(opts) as kernel:
        fe = kernel.fe
        kernel.connect("conn", journal.path)
        # One answered form first, so that everything is imported and warm.
        fe.mark()
        cell = fe.execute("await conn.call_tool('ask', {'tag': 'warm', 'kind': 'click'});")
        answer_form(fe, wait_shown(fe, 1, kernel, cell)[0], "nb-elicit-submit")
        fe.wait_reply(cell, CELL)
        log(f"  idle: {seconds:g} s without a form, then {seconds:g} s with a form waiting")
        without = measure_idle(fe, kernel.pid, seconds)
        fe.mark()
        cell = fe.execute(f"await conn.call_tool('pause', {{'seconds': {seconds + 2:g}}});")
        plain = measure_idle(fe, kernel.pid, seconds)
        if fe.wait_reply(cell, CELL)["status"] != "ok":
            raise BenchError(f"the call that asks nothing failed: {kernel.cell_text(cell)}")
        fe.mark()
        cell = fe.execute("await conn.call_tool('ask', {'tag': 'idle', 'kind': 'name'});")
        shown = wait_shown(fe, 1, kernel, cell)[0]
        waiting = measure_idle(fe, kernel.pid, seconds)
        answer_form(fe, shown, "nb-elicit-dismiss")
        fe.wait_reply(cell, CELL)
        if not fe.wait_for(lambda: journal.get("idle"), CELL, "the dismissal"):
            raise BenchError("the dismissal did not reach the server")
    sec.table(f"Kernel process, {seconds:g} s each (CPU from /proc/PID/stat; wake-ups = "
              "voluntary context switches of all its threads)",
              ["state", "CPU (% of one core)", "wake-ups / s", "involuntary switches / s",
               "threads"],
              [["idle kernel, connection open, no cell running (floor)",
                f"{without['cpu']:.2f}%", f"{without['wakeups']:.1f}",
                f"{without['involuntary']:.1f}", without["threads"]],
               ["a cell awaits call_tool of a tool that asks nothing (`pause`)",
                f"{plain['cpu']:.2f}%", f"{plain['wakeups']:.1f}", f"{plain['involuntary']:.1f}",
                plain["threads"]],
               ["a cell awaits call_tool; its form waits for nobody", f"{waiting['cpu']:.2f}%",
                f"{waiting['wakeups']:.1f}", f"{waiting['involuntary']:.1f}",
                waiting["threads"]]])
    why = ""
    with contextlib.suppress(Exception):
        from ..in_kernel import nb_module

        calls = nb_module("nb_elicit._runtime.calls", "nb_elicit._calls")
        clock = nb_module("nb_elicit._ui.clock")
        why = (f" A waiting cell wakes every {calls.WAKE:g} s (so that Kernel > Interrupt "
               f"lands), and its waiting line updates the elapsed time every "
               f"{clock.TICK:g} s (one widget message each).")
    sec.notes.append(
        f"Added by a waiting form: {waiting['cpu'] - without['cpu']:+.2f} percentage points of a "
        f"core and {waiting['wakeups'] - without['wakeups']:+.1f} wake-ups per second.{why}")
    sec.targets.append(ratio_target(seconds, without, plain, waiting))
    sec.targets.append(Target("Kernel wake-ups while a form waits", "(info)",
                              f"{waiting['wakeups']:.1f}/s (idle kernel: "
                              f"{without['wakeups']:.1f}/s)", None))


def ratio_target(seconds: float, without: dict[str, float], plain: dict[str, float],
                 waiting: dict[str, float]) -> Target:
    """The waiting form's kernel CPU next to the same cell awaiting a call that asks nothing."""
    ratio = waiting["cpu"] / plain["cpu"] if plain["cpu"] > 0 else float("inf")
    passed = ratio <= RATIO_TARGET
    return Target(f"Kernel CPU while a form waits, next to the same cell awaiting a call that "
                  f"asks nothing ({seconds:g} s each)", f"<= {RATIO_TARGET:g}x that call",
                  f"{ratio:.2f}x ({waiting['cpu']:.2f}% vs {plain['cpu']:.2f}%; idle kernel: "
                  f"{without['cpu']:.2f}%)", passed,
                  None if passed else f"{ratio - RATIO_TARGET:.2f}x")
