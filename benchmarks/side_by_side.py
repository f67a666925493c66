"""One-field latency of several revisions of nb_elicit, measured one kernel after the other.

    .venv/bin/python -m benchmarks.side_by_side 40da648 HEAD            # stdio, 3 runs each
    .venv/bin/python -m benchmarks.side_by_side 40da648 HEAD --http --runs 2

Section 2 measures one code per run, and its medians move by about a millisecond between runs
of the same code. This puts revisions next to each other instead: each run measures every
revision in turn (the order rotates from run to run), each in a fresh kernel with the same bench
server, 5 warm-up rounds and then ``--rounds`` rounds of the one-field form answered by the
scripted frontend. It prints, per run and revision, the medians of (a) server sends the
request -> form shown and (b) Submit click -> server holds the answer, end to end (no floor
subtracted).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .cli import copy_code
from .common import CELL, BenchError, median
from .harness import HttpServer, Journal, Kernel, answer_form, wait_shown

WARM = 5


def measure(code: str, http: bool, rounds: int) -> tuple[float, float]:
    """Medians (ms) of (a) and (b) over ``rounds`` rounds of the nb_elicit in ``code``."""
    os.environ["PYTHONPATH"] = code
    opts = argparse.Namespace(subshells=False, nb_elicit=code)
    journal = Journal(Path(tempfile.mkdtemp(prefix="nb-elicit-side-")) / "journal.jsonl")
    a: list[float] = []
    b: list[float] = []
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(HttpServer(journal.path)).url if http else None
        kernel = stack.enter_context(Kernel(opts))
        fe = kernel.fe
        kernel.connect("conn", journal.path, url=url)
        for i in range(WARM + rounds):
            tag = f"r{i}"
            fe.mark()
            cell = fe.execute(f"await conn.call_tool('ask', {{'tag': {tag!r}, 'kind': 'name'}});")
            (shown,) = wait_shown(fe, 1, kernel, cell)[:1]
            clicked = answer_form(fe, shown, "nb-elicit-submit", "ada")
            entry = fe.wait_for(lambda tag=tag: journal.get(tag), CELL, f"the answer to {tag}")
            if fe.wait_reply(cell, CELL).get("status") != "ok":
                raise BenchError(f"round {tag} failed: {kernel.cell_text(cell)}")
            fe.wait_for(lambda cell=cell: cell in fe.idle_sent, CELL, "the cell's idle")
            if i >= WARM:
                a.append((shown.kernel_at - entry["sent"]) * 1000)
                b.append((entry["answered"] - clicked) * 1000)
            time.sleep(0.05)
    return median(a), median(b)


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(prog="python -m benchmarks.side_by_side",
                                   description=__doc__.split("\n\n")[0])
    args.add_argument("revisions", nargs="+", help="git revisions, or 'worktree'")
    args.add_argument("--http", action="store_true", help="streamable HTTP (default: stdio)")
    args.add_argument("--runs", type=int, default=3)
    args.add_argument("--rounds", type=int, default=35)
    opts = args.parse_args(argv)
    codes = {}
    for rev in opts.revisions:
        try:
            codes[rev] = copy_code(rev)[0]
        except (OSError, subprocess.SubprocessError):
            args.error(f"could not copy nb_elicit at {rev!r}: is it a revision of this repository?")
    for name in ("NB_ELICIT_RESPOND", "NB_ELICIT_HEADLESS_WAIT"):
        os.environ.pop(name, None)
    print(f"one-field form, {'streamable HTTP' if opts.http else 'stdio'}, {opts.rounds} rounds "
          f"after {WARM}; medians in ms, (a) request sent -> form shown, (b) click -> answer held")
    revs = list(codes)
    for run in range(opts.runs):
        for k in range(len(revs)):
            rev = revs[(k + run) % len(revs)]
            a, b = measure(codes[rev], opts.http, opts.rounds)
            print(f"run {run + 1}  {rev:>10}  (a) {a:5.2f}  (b) {b:5.2f}  sum {a + b:5.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
