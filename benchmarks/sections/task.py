"""4. A cell awaits a tool call that the server runs as a task: the kernel's CPU and wake-ups
while the task card polls ``tasks/get``, next to the same kernel idle; and the intervals
between the polls as the server received them, next to the ``pollInterval`` it asked for."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

from ..common import (
    CELL,
    BenchError,
    Section,
    Target,
    context_switches,
    cpu_seconds,
    log,
    median,
    pct,
)
from ..harness import BenchFrontend, Journal, Kernel

TITLE = "4. Polling a running task"

#: The poll intervals the bench server asks for, one connection (and server) each.
INTERVALS_MS = (1000, 2000)
#: The kernel CPU that following a task may add (% of one core): over the same cell awaiting a
#: plain call of the same tool, measured in the same run (its floor). A waiting cell's own cost
#: (its wake-ups, its waiting line) is the plain call's too; what one wake-up costs varies with
#: the machine (the same code measured 0.27% and 0.73% waiting with a form on two days).
CPU_TARGET = 0.5
#: How far the median interval may be from the one asked for (share of it), and how much
#: shorter than asked any one interval may be (ms; the client waits the interval after each
#: answer, so no interval at the server can be shorter unless the client waited less).
MEDIAN_SHARE = 0.10
SHORT_MS = 10.0
CARD = "nb-elicit-task-card"


def server_pid(kernel_pid: int, poll_ms: int) -> int | None:
    """The kernel's child that is the bench server asking for ``poll_ms`` (None if not found)."""
    wanted = f"--task-poll-ms\0{poll_ms}\0"
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
            if int(stat[1]) != kernel_pid:
                continue
            if wanted in Path(f"/proc/{entry.name}/cmdline").read_text() + "\0":
                return int(entry.name)
    return None


def measure(fe: BenchFrontend, pid: int, seconds: float, server: int | None = None) -> dict:
    """As the idle section: 1 s of pumping, then ``seconds`` measured: the kernel's CPU (% of
    one core) and wake-ups (voluntary context switches of all its threads) per second, its
    widget messages per second, and the server's CPU if ``server`` is given."""
    fe.pump_for(1.0)
    srv0 = cpu_seconds(server) if server else None
    msgs0, comm0, by0 = fe.iopub_count, fe.comm_msg_count, fe.comm_msgs.copy()
    cpu0, (vol0, inv0, thr), t0 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    fe.pump_for(seconds)
    cpu1, (vol1, inv1, thr1), t1 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    elapsed = t1 - t0
    srv = 100 * (cpu_seconds(server) - srv0) / elapsed if server else None
    by: collections.Counter[str] = collections.Counter()
    for mid, n in (fe.comm_msgs - by0).items():
        model = fe.models.get(mid)
        classes = model.dom_classes if model else ()
        by[classes[0] if classes else (model.model_name if model else "?")] += n
    return {"cpu": 100 * (cpu1 - cpu0) / elapsed, "wakeups": (vol1 - vol0) / elapsed,
            "involuntary": (inv1 - inv0) / elapsed, "threads": max(thr, thr1),
            "messages": (fe.iopub_count - msgs0) / elapsed,
            "widget": (fe.comm_msg_count - comm0) / elapsed, "server": srv,
            "by": {k: v / elapsed for k, v in by.most_common()},
            "seconds": elapsed, "t0": time.time() - (time.monotonic() - t0),
            "t1": time.time() - (time.monotonic() - t1)}


def call_cell(name: str, tag: str, seconds: float, task: bool = True) -> str:
    plain = "" if task else ", task=False"
    return (f"await {name}.call_tool('long_task', {{'tag': {tag!r}, 'seconds': {seconds!r}}}"
            f"{plain});")


def polls(journal: Journal, tag: str) -> dict:
    """What the server journaled of the task ``tag``: its id, start and end, and the times of
    the ``tasks/get`` it received."""
    entries = journal.poll()
    start, end = entries.get(tag), entries.get(f"{tag} end")
    if start is None or end is None or start.get("task") is None:
        raise BenchError(f"the server did not journal the task {tag} (start {start}, end {end})")
    gets = sorted(e["at"] for e in entries.values()
                  if e.get("event") == "tasks/get" and e.get("task") == start["task"])
    return {"task": start["task"], "started": start["started"], "ended": end["ended"],
            "gets": gets}


def await_call(kernel: Kernel, journal: Journal, ms: int, tag: str, seconds: float,
               call_seconds: int, task: bool = True) -> tuple[dict, str | None]:
    """A cell awaits ``long_task`` on the connection ``t{ms}`` (as a task, or a plain call);
    once the call runs (and its card shows), :func:`measure` for ``seconds``; then the call's
    end. Returns the measure and the shape the card named (None for a plain call)."""
    fe = kernel.fe
    fe.mark()
    seen = set(fe.models)  # (the earlier calls' cards close in their own time)
    cell = fe.execute(call_cell(f"t{ms}", tag, call_seconds, task))

    def running():
        if cell in fe._replies:
            raise BenchError("the call ended before it ran (or before its card showed):\n"
                             + kernel.cell_text(cell))
        return journal.get(tag) and (not task or set(fe.find(CARD)) - seen)

    fe.wait_for(running, CELL, "the task card" if task else "the call")
    shape = None
    ids = [m for m in fe.find("nb-elicit-task-id") if m not in seen]
    if ids:
        found = re.search(r"task \(([^)]+)\)", str(fe.state(ids[-1]).get("value", "")))
        shape = found[1] if found else "?"
    window = measure(fe, kernel.pid, seconds, server_pid(kernel.pid, ms))
    if cell in fe._replies:
        raise BenchError(f"the {call_seconds} s call ended before the {seconds:g} s window did")
    reply = fe.wait_reply(cell, call_seconds + CELL)
    if reply.get("status") != "ok":
        raise BenchError(f"the call failed: {reply.get('evalue')}\n" + kernel.cell_text(cell))
    if not fe.wait_for(lambda: journal.get(f"{tag} end"), CELL, "the call's end"):
        raise BenchError("the server did not journal the call's end")
    if task and (shape is None or not (journal.get(tag) or {}).get("task")):
        raise BenchError("the call did not run as a task (no card, or no task on the server)")
    if not task and (shape is not None or (journal.get(tag) or {}).get("task")):
        raise BenchError("the plain call ran as a task")
    return window, shape


def run(opts, sec: Section) -> None:
    seconds = getattr(opts, "task_seconds", None) or (6.0 if opts.quick else 25.0)
    # (the call outlasts the window: the card appears, 1 s of pumping, the window, a margin)
    call_seconds = round(seconds + 6.0)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    journal = Journal(tmp / "task.jsonl")
    measured: dict[int, dict] = {}
    with Kernel(opts) as kernel:
        fe = kernel.fe
        for ms in INTERVALS_MS:
            kernel.connect(f"t{ms}", journal.path, extra=("--task-poll-ms", str(ms)))
        # A short task on each connection first, so that everything is imported and warm.
        for ms in INTERVALS_MS:
            cell = fe.execute(call_cell(f"t{ms}", f"warm-{ms}", 1.5))
            reply = fe.wait_reply(cell, CELL)
            if reply.get("status") != "ok":
                raise BenchError(f"the warm-up task failed: {reply.get('evalue')}\n"
                                 + kernel.cell_text(cell))
            if not (journal.get(f"warm-{ms}") or {}).get("task"):
                raise BenchError("the warm-up call did not run as a task")
        log(f"  task: {seconds:g} s idle, {seconds:g} s while a plain {call_seconds} s call "
            f"waits, then {seconds:g} s while a {call_seconds} s task is polled, for each of "
            f"{', '.join(f'{ms} ms' for ms in INTERVALS_MS)}")
        floor = measure(fe, kernel.pid, seconds)
        plain, _ = await_call(kernel, journal, INTERVALS_MS[0], "plain", seconds, call_seconds,
                              task=False)
        for ms in INTERVALS_MS:
            window, shape = await_call(kernel, journal, ms, f"poll-{ms}", seconds, call_seconds)
            measured[ms] = {**window, **polls(journal, f"poll-{ms}"), "shape": shape}
    report(sec, seconds, call_seconds, floor, plain, measured)


def intervals(run: dict) -> tuple[list[float], int]:
    """The gaps (ms) between the polls made while the task ran, and how many ``tasks/get``
    came once it had ended (the final read of its state, which is no poll)."""
    during = [g for g in run["gets"] if g < run["ended"]]
    gaps = [1000 * (b - a) for a, b in zip(during, during[1:], strict=False)]
    return gaps, len(run["gets"]) - len(during)


def report(sec: Section, seconds: float, task_seconds: int, floor: dict, plain: dict,
           measured: dict[int, dict]) -> None:
    rows = [["idle kernel, both connections open, no cell running (floor)",
             f"{floor['cpu']:.2f}%", "", f"{floor['wakeups']:.1f}",
             f"{floor['involuntary']:.1f}", f"{floor['widget']:.1f}", "", floor["threads"]]]
    states = [("a cell awaits a plain call of the same tool (`task=False`): no card, no "
               "polls", plain)]
    states += [(f"a cell awaits a task; its card polls every {ms / 1000:g} s", m)
               for ms, m in measured.items()]
    for what, m in states:
        server = f"{m['server']:.2f}%" if m["server"] is not None else "?"
        rows.append([what, f"{m['cpu']:.2f}%", f"{m['cpu'] - floor['cpu']:+.2f}",
                     f"{m['wakeups']:.1f}", f"{m['involuntary']:.1f}", f"{m['widget']:.1f}",
                     server, m["threads"]])
    sec.table(f"Kernel process, {seconds:g} s each (CPU from /proc/PID/stat; wake-ups = "
              "voluntary context switches of all its threads; widget messages = comm_msg on "
              "IOPub as the frontend got them)",
              ["state", "CPU (% of one core)", "over the floor (points)", "wake-ups / s",
               "involuntary switches / s", "widget messages / s", "server CPU", "threads"],
              rows)
    poll_rows = []
    for ms, m in measured.items():
        gaps, after = intervals(m)
        in_window = [g for g in m["gets"] if m["t0"] <= g <= m["t1"]]
        first = 1000 * (m["gets"][0] - m["started"]) if m["gets"] else float("nan")
        poll_rows.append([f"{ms} ms", len(gaps) + 1 if gaps else 0, f"{median(gaps):.1f}",
                          f"{min(gaps, default=float('nan')):.1f}", f"{pct(gaps, 95):.1f}",
                          f"{max(gaps, default=float('nan')):.1f}", f"{first:.0f}",
                          f"{len(in_window) / m['seconds']:.2f}", after])
        m["gaps"] = gaps
    sec.table(f"tasks/get as the server received them (time.time() as its handler began), "
              f"over each {task_seconds} s task; intervals in ms",
              ["pollInterval asked", "polls", "median interval", "min", "p95", "max",
               "task start -> first poll", "polls / s in the window", "reads after the end"],
              poll_rows)
    for ms, m in measured.items():
        added = m["cpu"] - plain["cpu"]
        missed = added - CPU_TARGET
        sec.targets.append(Target(
            f"Kernel CPU that polling a task every {ms / 1000:g} s adds to a cell awaiting a "
            f"plain call of the same tool ({seconds:g} s each)",
            f"≤ {CPU_TARGET}% of a core over the plain call",
            f"{added:+.2f} points ({m['cpu']:.2f}% next to the plain call's "
            f"{plain['cpu']:.2f}%; idle kernel: {floor['cpu']:.2f}%)", missed <= 0,
            f"{missed:.2f} points" if missed > 0 else None))
    for ms, m in measured.items():
        gaps = m["gaps"]
        if not gaps:
            sec.targets.append(Target(f"Poll interval kept ({ms} ms asked)", "-",
                                      "fewer than two polls", False, "no interval"))
            continue
        mid, low = median(gaps), min(gaps)
        off_median = abs(mid - ms) - MEDIAN_SHARE * ms
        short = (ms - SHORT_MS) - low
        misses = []
        if off_median > 0:
            misses.append(f"median {off_median:.1f} ms")
        if short > 0:
            misses.append(f"min {short:.1f} ms")
        sec.targets.append(Target(
            f"Poll interval kept ({ms} ms asked)",
            f"median within {MEDIAN_SHARE:.0%} of {ms} ms, none < {ms - SHORT_MS:g} ms",
            f"median {mid:.1f} ms, min {low:.1f} ms ({len(gaps)} intervals)",
            not misses, ", ".join(misses) or None))
    for ms, m in measured.items():
        sec.targets.append(Target(f"Kernel wake-ups while a task is polled every {ms / 1000:g} s",
                                  "(info)", f"{m['wakeups']:.1f}/s (idle kernel: "
                                  f"{floor['wakeups']:.1f}/s)", None))
    notes(sec, seconds, task_seconds, plain, measured)


def notes(sec: Section, seconds: float, task_seconds: int, plain: dict,
          measured: dict[int, dict]) -> None:
    shape = next(iter(measured.values()))["shape"]
    a, b = INTERVALS_MS[0], INTERVALS_MS[-1]
    sec.notes.append(
        f"One kernel, driven by the scripted frontend, with two stdio connections to the bench "
        f"server (`benchmarks/bench_server.py --task-poll-ms MS`, on the official `mcp` SDK, "
        f"with the demo server's task engine), one asking for {a} ms between polls and one for "
        f"{b} ms (in the task it creates and in every `tasks/get` answer). Its `long_task` tool "
        f"sleeps {task_seconds} s as a task and says nothing meanwhile (no status change, no "
        f"notification), so the only traffic is nb_elicit's polling. The card named the shape "
        f"`task ({shape})`: nb_elicit sent a task-augmented `tools/call`, keeps `tasks/result` "
        "open and polls `tasks/get`.")
    sec.notes.append(
        f"The floor: the same kernel, both connections open and warm (a 1.5 s task run on each "
        f"first), no cell running, {seconds:g} s. Then a cell awaits the same tool as a plain "
        f"call (`task=False`: the server just sleeps in `tools/call`), then, for each interval, "
        f"a cell awaits `call_tool('long_task', ...)` as a task. Each time, once the call runs "
        f"(and its task card shows), 1 s of pumping, then {seconds:g} s measured with the call "
        "still running (the section fails if it ended first). Kernel CPU is user + system time "
        "of all its threads from /proc/PID/stat over the window; the server's CPU is that of "
        "the call's stdio server process (the kernel's child) over the same window. CPU time "
        f"comes in clock ticks of {1000 / os.sysconf('SC_CLK_TCK'):g} ms: over {seconds:g} s, "
        f"steps of {100 / os.sysconf('SC_CLK_TCK') / seconds:.2f} points.")
    sec.notes.append(
        "Intervals are taken between consecutive `tasks/get` the server received while the "
        "task ran (from its journal). The client waits the interval after each answer, so an "
        "interval at the server is the one asked for plus one round trip; one shorter than asked "
        "would mean the client waited less. The `tasks/get` that comes once the task has ended "
        "(nb_elicit reads the final state when `tasks/result` answers) is no poll: it is counted "
        "apart.")
    with contextlib.suppress(Exception):
        from ..in_kernel import nb_module

        calls = nb_module("nb_elicit._runtime.calls", "nb_elicit._calls")
        clock = nb_module("nb_elicit._ui.clock")
        sec.notes.append(
            f"What a waiting call costs without any task: its cell wakes every {calls.WAKE:g} s "
            f"(so that Kernel > Interrupt lands) and its waiting line ticks every "
            f"{clock.TICK:g} s (one widget message each); a task adds its card's clock (every "
            f"{clock.TICK:g} s, one widget message) and the polls. Over the plain call: "
            + "; ".join(f"every {ms / 1000:g} s, {m['cpu'] - plain['cpu']:+.2f} points of CPU "
                        f"and {m['wakeups'] - plain['wakeups']:+.1f} wake-ups/s"
                        for ms, m in measured.items())
            + f". Polling every {a / 1000:g} s instead of {b / 1000:g} s (0.5 more polls/s): "
            f"{measured[a]['cpu'] - measured[b]['cpu']:+.2f} points, "
            f"{measured[a]['wakeups'] - measured[b]['wakeups']:+.1f} wake-ups/s.")
    for what, m in [("the plain call waited", plain)] + [
            (f"the task was polled every {ms / 1000:g} s", m) for ms, m in measured.items()]:
        parts = ", ".join(f"`{k}` {v:.1f}/s" for k, v in m["by"].items()) or "none"
        sec.notes.append(f"Widget messages while {what}, by the widget updated (its first CSS "
                         f"class): {parts}.")
