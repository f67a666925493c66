"""9. The first form in a fresh kernel: ``%load_ext nb_elicit``, ``%mcp connect`` to a stdio
server and ``%mcp call`` of a tool that asks at once, until the form is shown; next to the SDK
floor, a fresh Python that imports the SDK, connects a plain Client to the same server and
calls the same tool, until its elicitation callback is entered."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

from ..common import CELL, PY, SERVER, BenchError, Section, Target, log, median, ms
from ..harness import Journal, Kernel, answer_form, wait_shown
from .startup import fresh_python

TITLE = "9. First form in a fresh kernel"

#: The first form may take this many times the floor's connect + first elicitation.
RATIO_TARGET = 1.3


def run(opts, sec: Section) -> None:
    kernels = opts.kernels or (2 if opts.quick else 5)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    rows, floors = [], []
    for k in range(kernels):
        log(f"  first form: fresh kernel {k + 1}/{kernels}, then a fresh Python (floor)")
        rows.append(nb_first_form(opts, Journal(tmp / f"nb-{k}.jsonl")))
        floors.append(fresh_python(opts, f"first_elicitation({str(SERVER)!r}, "
                                         f"{str(tmp / f'floor-{k}.jsonl')!r})"))
    first = [1000 * r["first"] for r in rows]
    floor_first = [1000 * f["first"] for f in floors]
    def step(what: str, values: list[float]) -> list[str]:
        return [what, ms(median(values), 0), ms(max(values), 0)]

    sec.table(f"Fresh kernels and fresh Pythons: {kernels} of each (median, max; ms from the "
              "clock's start)", ["step", "median", "max"],
              [step("nb_elicit: %load_ext nb_elicit done", [1000 * r["load"] for r in rows]),
               step("nb_elicit: %mcp connect done", [1000 * r["connect"] for r in rows]),
               step("nb_elicit: the first form shown", first),
               step("floor: import mcp done", [1000 * f["import"] for f in floors]),
               step("floor: connected", [1000 * f["connect"] for f in floors]),
               step("floor: the first elicitation callback entered", floor_first)])
    sec.notes.append(
        "nb_elicit's clock starts in a running kernel, just before `%load_ext nb_elicit` (three "
        "cells sent at once: `%load_ext`, `%mcp connect`, `%mcp call`); the form is shown when "
        "the kernel sends the widget message that attaches it to its cell. The floor's clock "
        "starts in a fresh Python, just before `import mcp`. Neither counts starting the "
        "interpreter. Both start the bench server over stdio and call its tool `ask`, which "
        "asks at once (one required text field).")
    ratio = median(first) / median(floor_first)
    sec.targets.append(Target("First form in a fresh kernel (%load_ext, connect, call), next "
                              "to the SDK floor (import, connect, first elicitation)",
                              f"<= {RATIO_TARGET:g}x the floor",
                              f"{ms(median(first), 0)} ({ratio:.2f}x the floor's "
                              f"{ms(median(floor_first), 0)})", ratio <= RATIO_TARGET))


def nb_first_form(opts, journal: Journal) -> dict:
    """Seconds from just before %load_ext to: %load_ext done, connect done, form shown."""
    command = shlex.join([PY, str(SERVER), "--journal", str(journal.path)])
    with Kernel(opts, check=False) as kernel:
        fe = kernel.fe
        kernel.run("import in_kernel as _bench")  # nothing of nb_elicit yet
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
