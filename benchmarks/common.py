"""What every section shares: paths, results, statistics, and readings from /proc."""

from __future__ import annotations

import contextlib
import os
import re
import statistics
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SERVER = HERE / "bench_server.py"
PY = sys.executable
CELL = 60.0  # seconds any one cell, form or answer may take before the section fails
#: Seconds a ``--quick`` run of every section may take on a loaded 2-core machine.
QUICK_BUDGET = 300

NOTICES: set[str] = set()  # things the report should say about how the runs were set up


class BenchError(RuntimeError):
    """A section could not measure what it should (a clear, one-paragraph reason)."""


# ---------------------------------------------------------------------------------- results


@dataclass
class Target:
    what: str
    target: str
    measured: str
    passed: bool | None  # None: measured, but no verdict (informational)
    #: How far a missed target was missed ("0.04 ms"), shown next to the verdict.
    missed_by: str | None = None


@dataclass
class Section:
    name: str
    title: str
    targets: list[Target] = field(default_factory=list)
    tables: list[tuple[str, list[str], list[list[str]]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    machine_busy: float | None = None  # share of all cores busy (any process) during the section
    others: float | None = None  # cores used on average by processes not of this run

    def table(self, caption: str, headers: list[str], rows: list[list[Any]]) -> None:
        self.tables.append((caption, headers, [[str(c) for c in row] for row in rows]))


# ---------------------------------------------------------------------------------- statistics


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (0..100), linear between closest ranks."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f} ms"


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- /proc


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a whole process (all threads), from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> tuple[int, int, int]:
    """(voluntary, involuntary, threads), summed over /proc/PID/task/*/status."""
    vol = invol = threads = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(OSError):
            text = status.read_text()
            vol += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", text, re.M)[1])
            invol += int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", text, re.M)[1])
            threads += 1
    return vol, invol, threads


def rss_mb(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)[1]) / 1024


def machine_cpu() -> tuple[int, int]:
    """(busy, total) jiffies of all cores, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class OtherWork(threading.Thread):
    """Samples /proc every second: CPU used by this run (this process and everything it
    started) and by every other process on the machine, in clock ticks."""

    def __init__(self, interval: float = 1.0):
        super().__init__(daemon=True)
        self.interval = interval
        self.ours = self.other = 0
        self._seen: dict[int, tuple[int, int]] = {}  # pid -> (start time, ticks)
        self._begin = self._boot_ticks()
        self._stop_event = threading.Event()
        self._sample()
        self.ours = self.other = 0

    @staticmethod
    def _boot_ticks() -> int:
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return int(uptime * os.sysconf("SC_CLK_TCK"))

    def _sample(self) -> None:
        procs = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()
                procs[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]),
                                          int(fields[19]))
        me = os.getpid()

        def ours(pid: int) -> bool:
            for _ in range(50):
                if pid == me:
                    return True
                if pid not in procs or pid <= 1:
                    return False
                pid = procs[pid][0]
            return False

        for pid, (_, ticks, start) in procs.items():
            before = self._seen.get(pid)
            if before is not None and before[0] == start:
                delta = ticks - before[1]
            else:
                delta = ticks if start >= self._begin else 0
            self._seen[pid] = (start, ticks)
            if ours(pid):
                self.ours += delta
            else:
                self.other += delta

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self._sample()

    def totals(self) -> tuple[int, int]:
        return self.ours, self.other

    def stop(self) -> None:
        self._stop_event.set()
