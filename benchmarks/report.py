"""The machine description and RESULTS.md."""

from __future__ import annotations

import contextlib
import os
import platform
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .common import NOTICES, QUICK_BUDGET, Section


def pkg(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine() -> list[tuple[str, str]]:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    mem = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
    osname = platform.platform()
    with contextlib.suppress(OSError):
        pretty = re.search(r'^PRETTY_NAME="?([^"\n]+)', Path("/etc/os-release").read_text(),
                           re.M)
        if pretty:
            osname = f"{pretty[1]}, Linux {platform.release()}"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    return [
        ("CPU", model[1].strip() if model else platform.processor() or "?"),
        ("Cores", f"{os.cpu_count()} (usable by this run: {usable})"),
        ("RAM", f"{int(mem[1]) / 1024 / 1024:.1f} GiB" if mem else "?"),
        ("OS", osname),
        ("Python", platform.python_version()),
        ("Packages", ", ".join(f"{p} {pkg(p)}" for p in (
            "ipykernel", "ipywidgets", "mcp", "jupyter_client", "pyzmq", "anyio", "nb-elicit"))),
    ]


def load_note(info: dict, sections: list[Section]) -> str:
    """A sentence on how busy the machine was with other work during the run; ``info`` holds
    ``other`` (cores used by other processes, on average) and ``load_before``."""
    cores = os.cpu_count() or 1
    before = float(info["load_before"].split()[0])
    if info["other"] > 0.1 or (before > 0.3 * cores and info["other"] > 0.05):
        note = (
            f"**Note: the machine was not idle.** Other processes used {info['other']:.2f} "
            f"cores on average during the run (of {cores}), and the 1-minute load average was "
            f"{info['load_before'].split()[0]} when it began. Other work shared the CPU with "
            "these measurements; tail latencies (p95) suffer first.")
    else:
        note = (
            f"The machine was otherwise quiet: other processes used {info['other']:.2f} cores "
            f"on average during the run (of {cores}). The 1-minute load average was "
            f"{info['load_before'].split()[0]} when it began (it lags: earlier work still "
            "counts in it) and this run raises it.")
    busy = [f"{s.name} ({s.others:.2f} cores)" for s in sections
            if s.others is not None and s.others > 0.1]
    if busy and "not idle" not in note:
        note = (
            f"**Note: the machine was not idle throughout.** Other processes used "
            f"{info['other']:.2f} cores on average over the whole run (of {cores}), but more "
            f"during these sections: {', '.join(busy)}; their tail latencies (p95) suffer "
            "first.")
    return note


def write_report(path: Path, opts, sections: list[Section], info: dict) -> None:
    """Write RESULTS.md: the machine, the load, one row per target, then each section's
    tables and notes (or its error). ``info`` holds command, date, source, load_before,
    load_after, elapsed, ours, other and (optionally) load_note."""
    out = ["# nb_elicit benchmark results", ""]
    out.append(f"Written by `{info['command']}` on {info['date']}"
               + (" (quick mode: small sizes, for development)." if opts.quick else "."))
    out += ["", "## Machine", "", "| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out.append(f"| Code | {info['source']} |")
    out.append(f"| Load average (1, 5, 15 min) | before: {info['load_before']}; after: "
               f"{info['load_after']} |")
    budget = f" (quick mode's budget: {QUICK_BUDGET} s)" if opts.quick else ""
    out.append(f"| Run time | {info['elapsed']:.0f} s{budget} |")
    out.append("| Section times | " + "; ".join(f"{s.name} {s.seconds:.0f} s" for s in sections)
               + " |")
    out.append("")
    busy = [s for s in sections if s.machine_busy is not None]
    if info.get("load_note"):
        out += [info["load_note"], ""]
    out += [f"{n}\n" for n in sorted(NOTICES)]
    out += ["## Results", "", "| section | measure | target | measured | result |",
            "|---|---|---|---|---|"]
    for s in sections:
        if s.error:
            out.append(f"| {s.title} | (section failed) | | see below | ERROR |")
        for t in s.targets:
            verdict = {True: "pass", False: "**miss**", None: "-"}[t.passed]
            if t.passed is False and t.missed_by:
                verdict += f" (by {t.missed_by})"
            out.append(f"| {s.title} | {t.what} | {t.target} | {t.measured} | {verdict} |")
    out.append("")
    if busy:
        out.append("Other work on the machine during each section (CPU used by processes that "
                   "are not part of this run, sampled from /proc every second, in cores): "
                   + "; ".join(f"{s.name} {s.others:.2f}" for s in busy)
                   + f". Whole run: this run {info['ours']:.2f} cores on average, other "
                   f"processes {info['other']:.2f} (of {os.cpu_count()}).")
        out.append("")
    for s in sections:
        other = (f"; other processes used {s.others:.2f} cores on average"
                 if s.others is not None else "")
        out += [f"## {s.title}", "", f"({s.seconds:.0f} s{other})", ""]
        if s.error:
            out += ["**The section failed:**", "", "```", s.error.strip(), "```", ""]
        for caption, headers, rows in s.tables:
            out += [f"{caption}:", "", "| " + " | ".join(headers) + " |",
                    "|" + "---|" * len(headers)]
            out += ["| " + " | ".join(r) + " |" for r in rows]
            out.append("")
        out += [f"- {n}" for n in s.notes]
        if s.notes:
            out.append("")
    path.write_text("\n".join(out), encoding="utf-8")
