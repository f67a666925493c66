"""9. The first form in a fresh kernel: ``%load_ext nb_elicit``, ``%mcp connect`` to a stdio
server and ``%mcp call`` of a tool that asks at once, until the form is shown; next to the SDK
floor, a fresh Python that imports the SDK, connects a plain Client to the same server and
calls the same tool, until its elicitation callback is entered."""

from __future__ import annotations

import json
import shlex
import tempfile
import time
from pathlib import Path

from ..common import CELL, PY, SERVER, BenchError, Section, Target, cpu_seconds, log, median, ms
from ..harness import Journal, Kernel, answer_form, wait_shown
from .startup import fresh_python

TITLE = "9. First form in a fresh kernel"

#: The first form may take this many times the floor's connect + first elicitation.
RATIO_TARGET = 1.3
#: A fresh kernel is left to settle until its process used less than this share of a core
#: over SETTLE_STEP seconds (at most SETTLE_MAX s): the floor's fresh Python starts its clock
#: with nothing else to do, so ours does too.
SETTLE_SHARE, SETTLE_STEP, SETTLE_MAX = 0.05, 0.1, 3.0


def order(rounds: int) -> list[tuple[str, str]]:
    """Which goes first in each round: nb_elicit ("nb") and the floor ("floor") take turns
    at going first, so that neither is always the one measured after the other's work (a
    warm disk cache, a machine still busy with the last process)."""
    return [("nb", "floor") if k % 2 == 0 else ("floor", "nb") for k in range(rounds)]


def run(opts, sec: Section) -> None:
    rounds = opts.kernels or (3 if opts.quick else 5)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    rows, floors = [], []

    def one(who: str, k: int | str) -> dict:
        if who == "nb":
            return nb_first_form(opts, Journal(tmp / f"nb-{k}.jsonl"))
        return fresh_python(opts, f"first_elicitation({str(SERVER)!r}, "
                                  f"{str(tmp / f'floor-{k}.jsonl')!r})")

    if not opts.quick:  # (in quick mode the median of three rounds takes a cold one out)
        log("  first form: a warm-up round of each (not counted: it fills the disk cache)")
        for who in ("nb", "floor"):
            one(who, "warm")
    sec.notes.append("Before the rounds: " + ("none warming up (quick mode)." if opts.quick else
                                              "one of each to warm up, not counted."))
    for k, pair in enumerate(order(rounds)):
        log(f"  first form: round {k + 1}/{rounds}: {' then '.join(pair)} (a fresh kernel; a "
            "fresh Python for the floor)")
        for who in pair:
            (rows if who == "nb" else floors).append(one(who, k))
    report(sec, rows, floors)


def report(sec: Section, rows: list[dict], floors: list[dict]) -> None:
    """The table of each side's steps and the target, from the rounds' seconds."""
    first = [1000 * r["first"] for r in rows]
    floor_first = [1000 * f["first"] for f in floors]

    def step(what: str, values: list[float]) -> list[str]:
        return [what, ms(median(values), 0), ms(min(values), 0), ms(max(values), 0)]

    sec.table(f"Fresh kernels and fresh Pythons: {len(rows)} of each, taking turns at going "
              "first (median, min, max; ms from the clock's start)",
              ["step", "median", "min", "max"],
              [step("nb_elicit: %load_ext nb_elicit done", [1000 * r["load"] for r in rows]),
               step("nb_elicit: %mcp connect done", [1000 * r["connect"] for r in rows]),
               step("nb_elicit: the first form shown", first),
               step("floor: import mcp done", [1000 * f["import"] for f in floors]),
               step("floor: connected", [1000 * f["connect"] for f in floors]),
               step("floor: the first elicitation callback entered", floor_first)])
    sec.notes.append(
        "nb_elicit's clock starts in a running kernel, once its process has settled (under "
        f"{SETTLE_SHARE:.0%} of a core over {SETTLE_STEP:g} s), just before `%load_ext "
        "nb_elicit` (three cells sent at once: `%load_ext`, `%mcp connect`, `%mcp call`); the "
        "form is shown when the kernel sends the widget message that attaches it to its cell. "
        "The floor's clock starts in a fresh Python, just before `import mcp`. Neither counts "
        "starting the interpreter. Both start the bench server over stdio and call its tool "
        "`ask`, which asks at once (one required text field). The two take turns at going "
        "first in each round, and each side's median is taken over the same number of rounds.")
    ratio = median(first) / median(floor_first)
    sec.targets.append(Target("First form in a fresh kernel (%load_ext, connect, call), next "
                              "to the SDK floor (import, connect, first elicitation)",
                              f"<= {RATIO_TARGET:g}x the floor",
                              f"{ratio:.2f}x ({ms(median(first), 0)} vs "
                              f"{ms(median(floor_first), 0)}, median of {len(first)})",
                              ratio <= RATIO_TARGET,
                              ms(median(first) - RATIO_TARGET * median(floor_first), 0)
                              if ratio > RATIO_TARGET else None))


def settle(kernel: Kernel) -> float:
    """Wait until the kernel's process is nearly idle (see SETTLE_SHARE); the seconds it
    took."""
    began = time.monotonic()
    used = cpu_seconds(kernel.pid)
    while time.monotonic() - began < SETTLE_MAX:
        time.sleep(SETTLE_STEP)
        now = cpu_seconds(kernel.pid)
        if now - used < SETTLE_SHARE * SETTLE_STEP:
            break
        used = now
    return time.monotonic() - began


def nb_first_form(opts, journal: Journal) -> dict:
    """Seconds from just before %load_ext to: %load_ext done, connect done, form shown."""
    command = shlex.join([PY, str(SERVER), "--journal", str(journal.path)])
    with Kernel(opts, check=False) as kernel:
        fe = kernel.fe
        kernel.run("import in_kernel as _bench")  # nothing of nb_elicit yet
        settle(kernel)
        fe.mark()
        load = fe.execute("_bench.wall_tick()\n%load_ext nb_elicit\n"
                          "_bench.emit(_bench.wall_lap())")
        conn = fe.execute(f"%mcp connect bench -- {command}\n_bench.emit(_bench.wall_lap())")
        call = fe.execute('%mcp call bench ask {"tag": "first", "kind": "name"}')
        shown = wait_shown(fe, 1, kernel, call, timeout=2 * CELL)[0]
        answer_form(fe, shown, "nb-elicit-submit", "ada")
        if not fe.wait_for(lambda: journal.get("first"), CELL, "the first answer"):
            raise BenchError("the first answer did not reach the server")
        fe.wait_reply(call, CELL)
        laps = [kernel.fe.stdout(cell).strip().splitlines() for cell in (load, conn)]
        if not all(laps):
            raise BenchError(f"the first cells printed nothing: {kernel.cell_text(conn)}")
        started = kernel.json("_bench.emit(_bench._wall[0])")
        kernel.check_code()
    return {"load": json.loads(laps[0][-1]), "connect": json.loads(laps[1][-1]),
            "first": shown.kernel_at - started}
