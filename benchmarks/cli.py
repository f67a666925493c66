"""The command line: choose the sections, copy the nb_elicit to measure, run, write RESULTS.md."""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .common import (
    HERE,
    PY,
    QUICK_BUDGET,
    REPO,
    OtherWork,
    Section,
    loadavg,
    log,
    machine_cpu,
)
from .report import load_note, write_report
from .sections import RUNNERS, SECTIONS, choose


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=30,
                          check=True).stdout.strip()


def copy_code(rev: str) -> tuple[str, str]:
    """Copy nb_elicit/ (the working tree's, or a git revision's) to a temporary directory;
    return (that directory, a description of what was copied)."""
    target = Path(tempfile.mkdtemp(prefix="nb-elicit-code-"))
    if rev == "worktree":
        shutil.copytree(REPO / "nb_elicit", target / "nb_elicit",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "nb_elicit")
        state = (f"plus uncommitted changes in {len(dirty.splitlines())} file(s) of nb_elicit/"
                 if dirty else "no uncommitted changes in nb_elicit/")
        return str(target), f"this checkout's nb_elicit/ at commit {head}, {state}"
    commit = git("rev-parse", "--short", f"{rev}^{{commit}}")
    archive = subprocess.run(["git", "archive", commit, "nb_elicit"], cwd=REPO,
                             capture_output=True, timeout=60, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True, timeout=60)
    return str(target), f"nb_elicit/ as committed in {commit} ({rev})"


def source_info(opts) -> str:
    """Which nb_elicit was measured, with a hash of its source files."""
    digest = hashlib.sha256()
    root = Path(opts.nb_elicit)
    for path in sorted((root / "nb_elicit").rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    files = f"sha256 of its .py files: {digest.hexdigest()[:12]}"
    if opts.copied_from:
        return f"{opts.copied_from}, copied when the run began ({files})"
    return f"nb_elicit from {opts.nb_elicit} ({files})"


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="benchmarks/run.py", description=sys.modules[__package__].__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes, for development: the "
                        f"whole run in under {QUICK_BUDGET // 60} minutes")
    parser.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    parser.add_argument("--skip", help="comma-separated sections to leave out")
    parser.add_argument("--rounds", type=int, help="latency: elicitations each way "
                        "(default 200, quick 16)")
    parser.add_argument("--idle", type=float, help="idle: seconds measured (default 30, "
                        "quick 6)")
    parser.add_argument("--task-seconds", type=float, help="task: seconds measured in each state"
                        " (idle, a plain call, each polled task; default 25, quick 6)")
    parser.add_argument("--memory-rounds", type=int, help="memory: elicitations (default 10000,"
                        " quick 100)")
    parser.add_argument("--kernels", type=int, help="startup: fresh kernels (default 5, "
                        "quick 2); first-form: rounds of a fresh kernel and a fresh Python "
                        "(default 5, quick 3)")
    parser.add_argument("--app-rounds", type=int, help="app: rounds of an app's first paint "
                        "(default 10, quick 3)")
    parser.add_argument("--paint-rounds", type=int, help="paint: rounds of each prompt and size "
                        "(default 20, quick 2)")
    parser.add_argument("--held-rounds", type=int, help="held: rounds of each path, free and "
                        "held, with each frontend (default 30, quick 7)")
    parser.add_argument("--no-kernel-build", action="store_true",
                        help="build: skip the in-kernel builds")
    parser.add_argument("--subshells", action="store_true",
                        help="the frontend sends widget messages on a kernel subshell")
    parser.add_argument("--code", default="worktree", metavar="REV",
                        help="which nb_elicit to measure: 'worktree' (default: this checkout's "
                        "nb_elicit/ as it is when the run starts) or a git revision such as "
                        "HEAD. Either way it is copied first, so edits during the run do not "
                        "mix versions.")
    parser.add_argument("--nb-elicit", metavar="DIR",
                        help="measure the nb_elicit package in DIR (a directory holding "
                        "nb_elicit/) instead, as it is")
    parser.add_argument("--out", type=Path, help="where to write the report (default: "
                        "benchmarks/RESULTS.md for a full run of every section, else "
                        "benchmarks/RESULTS-quick.md)")
    return parser


def default_out(opts, chosen: list[str]) -> Path:
    full = not opts.quick and chosen == list(SECTIONS)
    return opts.out or HERE / ("RESULTS.md" if full else "RESULTS-quick.md")


def run_section(name: str, opts, sampler: OtherWork) -> Section:
    """Run one section; a failure is kept in ``section.error`` (the next section still runs)."""
    title, runner = RUNNERS[name]
    sec = Section(name, title)
    log(f"{title} ...")
    t0, (busy0, total0), (_, other0) = time.monotonic(), machine_cpu(), sampler.totals()
    try:
        runner(opts, sec)
    except Exception as exc:  # noqa: BLE001 - reported, and the next section runs
        detail = "".join(traceback.format_exception_only(type(exc), exc))
        where = traceback.extract_tb(exc.__traceback__)[-1]
        sec.error = f"{detail}(at {Path(where.filename).name}:{where.lineno})"
        log(f"  FAILED: {sec.error}")
    gc.collect()
    sec.seconds = time.monotonic() - t0
    busy1, total1 = machine_cpu()
    sec.machine_busy = (busy1 - busy0) / max(1, total1 - total0)
    sec.others = (sampler.totals()[1] - other0) / os.sysconf("SC_CLK_TCK") / sec.seconds
    for t in sec.targets:
        verdict = {True: "pass", False: "MISS", None: "info"}[t.passed]
        log(f"  {verdict:4}  {t.what}: {t.measured} (target {t.target})")
    log(f"  ({sec.title}: {sec.seconds:.0f} s)")
    return sec


def main(argv: list[str] | None = None) -> int:
    args = parser()
    opts = args.parse_args(argv)
    try:
        chosen = choose(opts.only, opts.skip)
    except ValueError as error:
        args.error(str(error))
    opts.copied_from = None
    if not opts.nb_elicit:
        try:
            opts.nb_elicit, opts.copied_from = copy_code(opts.code)
        except (OSError, subprocess.SubprocessError) as exc:
            args.error(f"could not copy nb_elicit ({opts.code}): {exc}")
    if opts.nb_elicit:
        opts.nb_elicit = os.path.abspath(opts.nb_elicit)
        if not (Path(opts.nb_elicit) / "nb_elicit" / "__init__.py").exists():
            args.error(f"{opts.nb_elicit} holds no nb_elicit package")
        sys.path.insert(0, opts.nb_elicit)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (opts.nb_elicit, os.environ.get("PYTHONPATH")) if p)
    import nb_elicit

    if opts.nb_elicit and not Path(nb_elicit.__file__).is_relative_to(opts.nb_elicit):
        args.error(f"imported {nb_elicit.__file__}, not the nb_elicit in {opts.nb_elicit}")
    for name in ("NB_ELICIT_RESPOND", "NB_ELICIT_HEADLESS_WAIT"):
        os.environ.pop(name, None)
    out = default_out(opts, chosen)

    python = os.path.relpath(PY, REPO) if PY.startswith(str(REPO)) else PY
    info = {
        "command": shlex.join([python, "benchmarks/run.py",
                               *(sys.argv[1:] if argv is None else argv)]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": loadavg(),
        "source": source_info(opts),
    }
    log(f"nb_elicit benchmarks: {', '.join(chosen)}{' (quick)' if opts.quick else ''}; "
        f"load {info['load_before']}")
    started = time.monotonic()
    sampler = OtherWork()
    sampler.start()
    sections = [run_section(name, opts, sampler) for name in chosen]
    sampler.stop()
    info["elapsed"] = time.monotonic() - started
    ours, other = sampler.totals()
    tick = os.sysconf("SC_CLK_TCK")
    info["ours"], info["other"] = ours / tick / info["elapsed"], other / tick / info["elapsed"]
    info["load_after"] = loadavg()
    info["load_note"] = load_note(info, sections)
    write_report(out, opts, sections, info)
    log(f"wrote {out}")
    log(f"run time {info['elapsed']:.0f} s: "
        + ", ".join(f"{s.name} {s.seconds:.0f} s" for s in sections)
        + (f" (quick mode's budget: {QUICK_BUDGET} s)" if opts.quick else ""))
    failed = [s.name for s in sections if s.error]
    missed = [t.what for s in sections for t in s.targets if t.passed is False]
    if failed:
        log(f"failed sections: {', '.join(failed)}")
    if missed:
        log(f"missed targets: {len(missed)}")
    return 1 if failed else 0
