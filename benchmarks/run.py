"""nb_elicit's benchmark suite: what nb_elicit costs, next to the floor, in one run.

    .venv/bin/python benchmarks/run.py                  # everything, full size (~5 minutes)
    .venv/bin/python benchmarks/run.py --quick          # everything, small (~2 minutes)
    .venv/bin/python benchmarks/run.py --only latency,idle
    .venv/bin/python benchmarks/run.py --skip scale,startup

Sections (each independent, with its own kernels and servers, and its own timeouts):

build     Form build without a kernel: ElicitationForm for 1, 10, 50 and 200 string fields and
          20 fields of each kind; median of several builds, ms per field. Floor: one bare
          ipywidgets control per field in a VBox. Also the same builds inside a kernel.
latency   Added latency per elicitation in a real kernel, answered by a scripted JupyterLab-like
          frontend: server sends the request -> the form is shown, and Submit click -> the
          server holds the answer. Floor: a plain SDK Client whose elicitation callback accepts
          at once, against the same server, in the same run (interleaved blocks).
idle      Kernel CPU and wake-ups (voluntary context switches, all threads) while a form waits,
          next to the same kernel idle without a form.
memory    Kernel RSS and live widget models before and after many answered elicitations.
scale     10 stdio servers, each asking 20 questions at once (200 forms); the frontend clicks
          Submit or Decline on every one; all 200 answers must reach the servers.
startup   %load_ext nb_elicit and the first %mcp connect in fresh kernels. Floor: a fresh
          Python that imports the SDK and connects a plain Client to the demo server.

The results table (and the machine, versions and load) is written to benchmarks/RESULTS.md for a
full run of every section, otherwise to benchmarks/RESULTS-quick.md (not committed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gc
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))

from frontend import Frontend  # noqa: E402

SERVER = HERE / "bench_server.py"
SECTIONS = ("build", "latency", "idle", "memory", "scale", "startup")
PY = sys.executable
CELL = 60.0  # seconds any one cell, form or answer may take before the section fails


class BenchError(RuntimeError):
    """A section could not measure what it should (a clear, one-paragraph reason)."""


# ---------------------------------------------------------------------------------- results


@dataclass
class Target:
    what: str
    target: str
    measured: str
    passed: bool | None  # None: measured, but no verdict (informational)


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


# ---------------------------------------------------------------------------------- helpers


class Record:
    """The bench server's record file, read incrementally: tag -> entry."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, dict] = {}
        self._offset = 0
        self._partial = ""

    def poll(self) -> dict[str, dict]:
        if self.path.exists():
            with open(self.path, encoding="utf-8") as f:
                f.seek(self._offset)
                data = f.read()
                self._offset = f.tell()
            data = self._partial + data
            *lines, self._partial = data.split("\n")
            for line in lines:
                if line.strip():
                    entry = json.loads(line)
                    self.entries[entry["tag"]] = entry
        return self.entries

    def get(self, tag: str) -> dict | None:
        return self.poll().get(tag)


def header_time(msg: dict) -> float:
    """A Jupyter message's header date (when its sender sent it) as a Unix time."""
    date = msg["header"].get("date")
    if isinstance(date, str):
        date = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    if date.tzinfo is None:
        date = date.replace(tzinfo=dt.timezone.utc)
    return date.timestamp()


@dataclass
class Shown:
    """A form as the frontend got it: attached to a container it shows in."""

    form_id: str
    kernel_at: float  # header date of the message that made it shown (kernel clock)
    frontend_at: float  # when the frontend handled that message


class BenchFrontend(Frontend):
    """The tests' scripted frontend, plus: which models opened lately, and when each form
    became shown (attached to a container), by kernel send time and frontend receive time."""

    FORM = "nb-elicit-form"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opened: list[str] = []
        self.shown: list[Shown] = []
        self._shown_ids: set[str] = set()
        self._child_ids: set[str] = set()

    def _on_iopub(self, msg: dict) -> None:
        super()._on_iopub(msg)
        kind = msg["header"]["msg_type"]
        if kind not in ("comm_open", "comm_msg"):
            return
        comm_id = msg["content"].get("comm_id")
        if kind == "comm_open":
            self.opened.append(comm_id)
            state = msg["content"].get("data", {}).get("state", {})
        else:
            state = msg["content"].get("data", {}).get("state", {})
        candidates = []
        if "children" in state:
            kids = [c.removeprefix("IPY_MODEL_") for c in state["children"] or ()]
            self._child_ids.update(kids)
            candidates += kids
        if "_dom_classes" in state:
            candidates.append(comm_id)
        for mid in candidates:
            model = self.models.get(mid)
            if (model is not None and mid not in self._shown_ids and mid in self._child_ids
                    and self.FORM in model.dom_classes):
                self._shown_ids.add(mid)
                self.shown.append(Shown(mid, header_time(msg), time.time()))

    def mark(self) -> None:
        """Forget models and forms seen so far (start of a round)."""
        self.opened.clear()
        self.shown.clear()

    def descendants(self, model_id: str) -> Iterator[str]:
        todo = [model_id]
        while todo:
            mid = todo.pop(0)
            yield mid
            if mid in self.models:
                todo += self.children(mid)

    def in_form(self, form_id: str, css_class: str) -> str:
        for mid in self.descendants(form_id):
            if css_class in self.models[mid].dom_classes:
                return mid
        raise BenchError(f"the form has no widget with class {css_class!r}")

    def form_text(self, form_id: str) -> str:
        return " ".join(str(self.models[m].state.get("value", ""))
                        for m in self.descendants(form_id)
                        if self.models[m].model_name == "HTMLModel")


class Kernel:
    """A fresh kernel with a BenchFrontend; closed (and its servers stopped) on exit."""

    def __init__(self, opts: argparse.Namespace, check: bool = True):
        self.opts = opts
        self.fe = BenchFrontend.start(subshells=opts.subshells)
        if check:
            try:
                self.check_code()
            except BaseException:
                self.fe.close()
                raise

    def check_code(self) -> None:
        """Make sure the kernel runs the nb_elicit being measured."""
        where = self.json("import json, nb_elicit\nprint(json.dumps(nb_elicit.__file__))")
        if self.opts.nb_elicit and not Path(where).is_relative_to(self.opts.nb_elicit):
            raise BenchError(f"the kernel imported {where}, not the nb_elicit in "
                             f"{self.opts.nb_elicit}")

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(Exception):
            self.fe.run("import nb_elicit, asyncio\n"
                        "for _c in list(nb_elicit.connections.values()):\n"
                        "    await _c.close()", timeout=20)
        self.fe.close()

    @property
    def pid(self) -> int:
        return self.fe.km.provisioner.process.pid

    def run(self, code: str, timeout: float = CELL) -> str:
        reply, outputs = self.fe.run(code, timeout=timeout)
        if reply.get("status") != "ok":
            detail = f"{reply.get('ename')}: {reply.get('evalue')}"
            text = "".join(o.get("text", "") for o in outputs)
            raise BenchError(f"a cell failed ({detail}). Cell:\n{code}\nOutput:\n{text}")
        return "".join(o.get("text", "") for o in outputs
                       if o["output_type"] == "stream" and o.get("name") == "stdout")

    def json(self, code: str, timeout: float = CELL) -> Any:
        """Run code whose last stdout line is JSON; return it."""
        out = self.run(code, timeout).strip().splitlines()
        if not out:
            raise BenchError(f"no output from:\n{code}")
        return json.loads(out[-1])

    def connect(self, name: str, record: Path, timeout: float = CELL) -> None:
        command = [PY, str(SERVER), "--record", str(record)]
        env = {"PYTHONPATH": self.opts.nb_elicit} if self.opts.nb_elicit else None
        out = self.run(f"import nb_elicit, asyncio, json\n"
                       f"{name} = await nb_elicit.connect({name!r}, {command!r}, env={env!r})"
                       f"\n{UNLIMITED.format(conn=name)}", timeout)
        self.note_unlimited(out)
        self.run(SETUP_CODE)

    @staticmethod
    def note_unlimited(out: str) -> None:
        match = re.search(r"rate limit turned off: (.+)", out)
        if match:
            NOTICES.add(f"Each connection's rate limit on how often a server may ask (default "
                        f"{match[1].strip()}) was turned off (`conn.rate_limit = None`): these "
                        "benchmarks ask hundreds of times a minute on purpose.")

    def cell_text(self, msg_id: str) -> str:
        """What a cell showed, as text (for error messages): its outputs, and the text of
        the widgets opened since the frontend's last mark() (notices, results)."""
        parts = []
        for o in self.fe.outputs(msg_id):
            parts.append(o.get("text") or o.get("evalue")
                         or str(o.get("data", {}).get("text/plain", "")))
        for mid in self.fe.opened:
            model = self.fe.models.get(mid)
            if model is not None and model.model_name == "HTMLModel":
                parts.append(re.sub(r"<[^>]+>", "", str(model.state.get("value", ""))))
        return "\n".join(p.strip() for p in parts if p and p.strip())


# A connection's rate limit (how often a server may ask) would decline most of the hundreds of
# questions these benchmarks ask within seconds; it is turned off where the connection has one.
UNLIMITED = """\
if hasattr(type({conn}), "rate_limit"):
    print("nb_elicit rate limit turned off:", {conn}.rate_limit)
    {conn}.rate_limit = None"""
NOTICES: set[str] = set()  # things the report should say about how the runs were set up

SETUP_CODE = """\
def _bench_stats():
    import gc, json, collections, ipywidgets, nb_elicit
    gc.collect()
    names = collections.Counter(type(w).__name__ for w in list(ipywidgets.Widget.widgets.values()))
    try:
        from nb_elicit._runtime.pending import PENDING
        pending = len(PENDING)
    except Exception:
        pending = None
    try:
        from nb_elicit._core.history import HISTORY
        history = len(HISTORY.entries) if hasattr(HISTORY, "entries") else len(HISTORY)
    except Exception:
        history = None
    def reach(roots, seen):
        todo = list(roots)
        while todo:
            w = todo.pop()
            if id(w) in seen or not isinstance(w, ipywidgets.Widget):
                continue
            seen.add(id(w))
            todo += [getattr(w, "layout", None), getattr(w, "style", None)]
            todo += list(getattr(w, "children", None) or ())
        return seen
    live = list(ipywidgets.Widget.widgets.values())
    used = set()
    for w in live:
        used.update(id(x) for x in (getattr(w, "layout", None), getattr(w, "style", None)))
    orphans = sum(1 for w in live if id(w) not in used
                  and (isinstance(w, ipywidgets.Layout) or type(w).__name__.endswith("Style")))
    in_forms = reach([w for w in live if type(w).__name__ == "ElicitationForm"], set())
    in_views = reach([w for w in live if type(w).__name__ == "CallView"], set(in_forms))
    print(json.dumps({"widgets": sum(names.values()), "forms": names.get("ElicitationForm", 0),
                      "views": names.get("CallView", 0), "pending": pending,
                      "in_forms": len(in_forms), "in_views": len(in_views) - len(in_forms),
                      "orphans": orphans,
                      "history": history, "by_type": dict(names.most_common(12))}))
"""


def answer_form(fe: BenchFrontend, shown: Shown, button: str, text: str | None = None) -> float:
    """Type ``text`` into the form's first text box (if given), then click; return click time."""
    if text is not None:
        box = next((m for m in fe.descendants(shown.form_id)
                    if fe.models[m].model_name == "TextModel"), None)
        if box is None:
            raise BenchError("the form has no text box")
        fe.type_text(box, text)
        if not fe.flush(CELL):
            raise BenchError(f"typing into the form stalled: {fe.stalled()}")
    target = fe.in_form(shown.form_id, button)
    clicked = time.time()
    fe.click(target)
    return clicked


def wait_shown(fe: BenchFrontend, count: int, kernel: Kernel, cell: str,
               timeout: float = CELL) -> list[Shown]:
    def ready():
        if cell in fe._replies and len(fe.shown) < count:
            reply = fe._replies[cell]
            raise BenchError(f"the call ended ({reply.get('status')}: {reply.get('evalue', '')})"
                             f" before its form was shown; the cell showed:\n"
                             + kernel.cell_text(cell))
        return len(fe.shown) >= count and fe.shown

    try:
        return fe.wait_for(ready, timeout, f"{count} form(s)")
    except TimeoutError:
        raise BenchError(f"only {len(fe.shown)} of {count} forms appeared within {timeout:g} s;"
                         f" the cell showed:\n{kernel.cell_text(cell)}") from None


# ---------------------------------------------------------------------------------- floor


class FloorClient:
    """A plain SDK 2.x Client on a thread of its own, whose elicitation callback accepts at once.

    It calls the same bench server the kernel calls; ``rounds(tags)`` asks one question per tag
    and returns (callback entered, callback returned) Unix times per tag.
    """

    def __init__(self, record: Path, content: dict):
        self.record = record
        self.content = content
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.stamps: dict[str, tuple[float, float]] = {}
        self._stop: asyncio.Event | None = None
        self._ready = self._submit(self._open(), 60)

    def _submit(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _open(self) -> None:
        self._stop = asyncio.Event()
        ready = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready))
        await ready

    async def _run(self, ready: asyncio.Future) -> None:
        import mcp_types as types
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        async def on_elicit(context, params):
            entered = time.time()
            tag = params.message.rsplit(" ", 1)[-1]
            result = types.ElicitResult(action="accept", content=self.content)
            self.stamps[tag] = (entered, time.time())
            return result

        env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
        params = StdioServerParameters(command=PY, args=[str(SERVER), "--record",
                                                         str(self.record)], env=env)
        errlog = open(os.devnull, "w")  # noqa: SIM115 - closed below
        try:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                              elicitation_callback=on_elicit) as client:
                self.client = client
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise
        finally:
            errlog.close()

    def rounds(self, tags: list[str], kind: str = "name", timeout: float = 120) -> None:
        async def go():
            for tag in tags:
                await self.client.call_tool("ask", {"tag": tag, "kind": kind})

        self._submit(go(), timeout)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.call_soon_threadsafe(self._stop.set)
            self._submit(asyncio.wait_for(asyncio.shield(self._task), 10), 15)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


# ---------------------------------------------------------------------------------- 1. build

OPTIONS = ["red", "green", "blue"]
KINDS: dict[str, Callable[[int], dict]] = {
    "string": lambda i: {"type": "string", "title": f"Text {i}"},
    "string email": lambda i: {"type": "string", "format": "email", "title": f"Email {i}"},
    "string uri": lambda i: {"type": "string", "format": "uri", "title": f"Link {i}"},
    "string date": lambda i: {"type": "string", "format": "date", "title": f"Day {i}"},
    "string date-time": lambda i: {"type": "string", "format": "date-time",
                                   "title": f"Moment {i}"},
    "number": lambda i: {"type": "number", "minimum": 0, "maximum": 100, "title": f"Amount {i}"},
    "integer": lambda i: {"type": "integer", "minimum": 1, "title": f"Count {i}"},
    "boolean": lambda i: {"type": "boolean", "title": f"Flag {i}"},
    "enum": lambda i: {"type": "string", "enum": OPTIONS, "title": f"Colour {i}"},
    "titled oneOf": lambda i: {"type": "string", "title": f"Plan {i}", "oneOf": [
        {"const": c, "title": c.title()} for c in OPTIONS]},
    "legacy enumNames": lambda i: {"type": "string", "enum": OPTIONS, "title": f"Size {i}",
                                   "enumNames": [c.title() for c in OPTIONS]},
    "multi-select untitled": lambda i: {"type": "array", "title": f"Picks {i}",
                                        "items": {"type": "string", "enum": OPTIONS}},
    "multi-select titled": lambda i: {"type": "array", "title": f"Days {i}", "items": {
        "anyOf": [{"const": c, "title": c.title()} for c in OPTIONS]}},
}


def make_schema(kind: str, n: int) -> dict:
    """``n`` fields of one kind; every second one required (booleans stay optional)."""
    props = {f"f{i}": KINDS[kind](i) for i in range(n)}
    required = [] if kind == "boolean" else [f"f{i}" for i in range(0, n, 2)]
    return {"type": "object", "properties": props, "required": required}


BUILD_CODE = r'''
def _bench_build(sizes, kinds, reps_small, reps_large, lifted):
    import gc, json, time, statistics, ipywidgets, nb_elicit
    import nb_elicit._core.schema as schema_module
    from nb_elicit import ElicitationForm, SchemaError
    KINDS, make_schema = _bench_kinds()

    @contextlib.contextmanager
    def no_limit():
        old = getattr(schema_module, "MAX_PROPERTIES", None)
        if old is not None:
            schema_module.MAX_PROPERTIES = 10**6
        try:
            yield
        finally:
            if old is not None:
                schema_module.MAX_PROPERTIES = old

    def once(build):
        gc.collect()
        t0 = time.perf_counter()
        form = build()
        elapsed = time.perf_counter() - t0
        ipywidgets.Widget.close_all()
        return elapsed * 1000

    def measure(build, reps):
        once(build)  # warm-up
        return statistics.median(once(build) for _ in range(reps))

    def floor(n):
        return ipywidgets.VBox([ipywidgets.Text(description=f"Text {i}") for i in range(n)])

    rows, limit = [], None
    for kind, n in [("string", s) for s in sizes] + [(k, 20) for k in kinds]:
        schema = make_schema(kind, n)
        reps = reps_large if n > 50 else reps_small
        refused = None
        try:
            nb_elicit.parse_schema(schema)
        except SchemaError as error:
            refused = str(error)
        if refused and not lifted:
            rows.append({"kind": kind, "n": n, "refused": refused})
            continue
        with (no_limit() if refused else contextlib.nullcontext()):
            parse = measure(lambda: nb_elicit.parse_schema(schema), reps)
            form = measure(lambda: ElicitationForm("Benchmark", schema, server="bench"), reps)
            built = ElicitationForm("Benchmark", schema, server="bench")
            count = len(ipywidgets.Widget.widgets)
            ipywidgets.Widget.close_all()
        rows.append({"kind": kind, "n": n, "parse": parse, "form": form, "widgets": count,
                     "floor": measure(lambda: floor(n), reps) if kind == "string" else None,
                     "refused": refused})
    return rows
'''


def bench_kinds():
    return KINDS, make_schema


def section_build(opts, sec: Section) -> None:
    import ipywidgets

    sizes = [1, 10, 50, 200]
    reps_small, reps_large = (5, 3) if opts.quick else (15, 7)
    namespace: dict[str, Any] = {"contextlib": contextlib, "_bench_kinds": bench_kinds}
    exec(BUILD_CODE, namespace)
    ipywidgets.Widget.close_all()
    log(f"  build: no kernel, {reps_small}/{reps_large} builds per size")
    rows = namespace["_bench_build"](sizes, list(KINDS), reps_small, reps_large, True)

    in_kernel = None
    if not opts.no_kernel_build:
        log("  build: the same inside a kernel")
        with Kernel(opts) as kernel:
            kernel.run("import contextlib, json\n" + KINDS_SOURCE + BUILD_CODE)
            in_kernel = kernel.json(
                f"print(json.dumps(_bench_build({sizes!r}, [], {reps_small}, {reps_large}, "
                "True)))", timeout=600)

    limited = [r for r in rows if r["refused"]]
    string_rows = [r for r in rows if r["kind"] == "string" and r["n"] in sizes]
    kernel_by_n = {r["n"]: r for r in in_kernel or []}
    table = []
    for r in string_rows:
        k = kernel_by_n.get(r["n"])
        table.append([r["n"], r["widgets"], ms(r["parse"], 2), ms(r["form"]),
                      f"{r['form'] / r['n']:.2f}", ms(r["floor"]),
                      f"{r['form'] / r['floor']:.1f}x", ms(k["form"]) if k else "-",
                      ms(k["floor"]) if k else "-"])
    sec.table("String fields (median of several builds; 'in a kernel' also sends every widget's"
              " comm_open)",
              ["fields", "widgets", "parse_schema", "ElicitationForm", "ms / field",
               "floor: bare Text per field", "form / floor", "form, in a kernel",
               "floor, in a kernel"], table)
    kinds_table = [[r["kind"], r["widgets"], ms(r["form"]), f"{r['form'] / r['n']:.2f}"]
                   for r in rows if r["n"] == 20]
    sec.table("20 fields of each kind", ["kind", "widgets", "ElicitationForm",
                                         "ms / field"], kinds_table)

    # Linearity: a least-squares line through (fields, ms), and ms/field at 200 vs 50.
    xs = [r["n"] for r in string_rows]
    ys = [r["form"] for r in string_rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
             / sum((x - mx) ** 2 for x in xs))
    intercept = my - slope * mx
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    ss_tot = sum((y - my) ** 2 for y in ys) or 1.0
    by_n = {r["n"]: r for r in string_rows}
    sec.notes.append(
        f"Growth is linear: a straight line through (fields, ms) gives {slope:.2f} ms per field"
        f" + {intercept:.1f} ms fixed (R² = {1 - ss_res / ss_tot:.4f}); ms per field is "
        f"{by_n[200]['form'] / 200:.2f} at 200 fields and {by_n[50]['form'] / 50:.2f} at 50.")
    if limited:
        first = limited[0]["refused"]
        sec.notes.append(
            f"nb_elicit refuses a form of {', '.join(str(r['n']) for r in limited)} fields "
            f"({first}); those builds were measured with that limit lifted for the benchmark, "
            "to show the cost curve. A server that sends such a schema gets an error, no form.")
    f200 = by_n[200]["form"]
    sec.targets.append(Target("Form build, 200 string fields (no kernel)", "< 150 ms", ms(f200),
                              f200 < 150))
    if kernel_by_n.get(200):
        sec.targets.append(Target("Form build, 200 string fields, in a kernel", "(info)",
                                  ms(kernel_by_n[200]["form"]), None))


KINDS_SOURCE = ""  # filled in below from this file's own text, so the kernel builds the same


def _kinds_source() -> str:
    text = Path(__file__).read_text(encoding="utf-8")
    start = text.index("OPTIONS = [")
    end = text.index("BUILD_CODE = r'''")
    return ("from collections.abc import Callable\n" + text[start:end]
            + "\ndef _bench_kinds():\n    return KINDS, make_schema\n")


KINDS_SOURCE = _kinds_source()


# ---------------------------------------------------------------------------------- 2. latency


# The same form as in the latency rounds, built in the kernel but not shown: how much of (a) is
# building it.
FORM_IN_KERNEL = """\
import gc as _gc, statistics as _st, time as _t, ipywidgets as _w, nb_elicit as _nb
_schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}},
           "required": ["name"]}
_times, _before, _keep = [], len(_w.Widget.widgets), set(_w.Widget.widgets)
for _i in range(31):
    _gc.collect()
    _t0 = _t.perf_counter()
    _f = _nb.ElicitationForm("Benchmark question x", _schema, server="conn")
    _times.append((_t.perf_counter() - _t0) * 1000)
    if _i == 0:
        _count = len(_w.Widget.widgets) - _before
    for _m in [m for k, m in list(_w.Widget.widgets.items()) if k not in _keep]:
        _m.close()
print(json.dumps({"ms": _st.median(_times[1:]), "widgets": _count}))
"""


def section_latency(opts, sec: Section) -> None:
    n = opts.rounds or (30 if opts.quick else 200)
    warm = 5
    blocks = 2 if opts.quick else 4
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    nb_record, floor_record = Record(tmp / "nb.jsonl"), Record(tmp / "floor.jsonl")
    nb: dict[str, dict] = {}
    log(f"  latency: {n} elicitations each way (+{warm} warm-up), {blocks} interleaved blocks")
    floor = FloorClient(floor_record.path, {"name": "ada"})
    try:
        with Kernel(opts) as kernel:
            fe = kernel.fe
            kernel.connect("conn", nb_record.path)

            def nb_round(tag: str) -> None:
                fe.mark()
                cell = fe.execute(f"await conn.call_tool('ask', {{'tag': {tag!r}, "
                                  f"'kind': 'name'}});")
                (shown,) = wait_shown(fe, 1, kernel, cell)[:1]
                clicked = answer_form(fe, shown, "nb-elicit-submit", "ada")
                entry = fe.wait_for(lambda: nb_record.get(tag), CELL, f"the answer to {tag}")
                reply = fe.wait_reply(cell, CELL)
                if reply["status"] != "ok":
                    raise BenchError(f"round {tag} failed: {kernel.cell_text(cell)}")
                if entry["action"] != "accept" or entry["content"] != {"name": "ada"}:
                    raise BenchError(f"round {tag}: the server got {entry}")
                nb[tag] = {"shown": shown, "clicked": clicked}

            for i in range(warm):
                nb_round(f"warm-{i}")
                floor.rounds([f"warm-{i}"])
            per_block = [n // blocks + (1 if b < n % blocks else 0) for b in range(blocks)]
            done = 0
            for b, size in enumerate(per_block):
                tags = [f"r{done + i}" for i in range(size)]
                floor.rounds(tags)
                for tag in tags:
                    nb_round(tag)
                done += size
                log(f"    block {b + 1}/{blocks} done ({done}/{n})")
            build = kernel.json(FORM_IN_KERNEL)
    finally:
        floor.close()

    tags = [f"r{i}" for i in range(n)]
    nb_entries, floor_entries = nb_record.poll(), floor_record.poll()
    a_kernel, a_front, b_nb, a_floor, b_floor = [], [], [], [], []
    for tag in tags:
        e, x = nb_entries[tag], nb[tag]
        a_kernel.append((x["shown"].kernel_at - e["sent"]) * 1000)
        a_front.append((x["shown"].frontend_at - e["sent"]) * 1000)
        b_nb.append((e["answered"] - x["clicked"]) * 1000)
        f = floor_entries.get(tag)
        entered, returned = floor.stamps[tag]
        if f is None or f["action"] != "accept":
            raise BenchError(f"the floor client's round {tag} did not arrive: {f}")
        a_floor.append((entered - f["sent"]) * 1000)
        b_floor.append((f["answered"] - returned) * 1000)
    total_nb = [a + b for a, b in zip(a_kernel, b_nb, strict=True)]
    total_front = [a + b for a, b in zip(a_front, b_nb, strict=True)]
    total_floor = [a + b for a, b in zip(a_floor, b_floor, strict=True)]

    def row(what, values, floor_values):
        m, p = median(values), pct(values, 95)
        fm, fp = median(floor_values), pct(floor_values, 95)
        return [what, ms(m), ms(p), ms(fm, 2), ms(fp, 2), ms(m - fm), ms(p - fp),
                f"{m / fm:.0f}x" if fm > 0 else "-"]

    sec.table(f"Per elicitation, {n} rounds each (median, p95); floor = plain SDK Client "
              "answering in its callback",
              ["leg", "nb_elicit median", "nb_elicit p95", "floor median", "floor p95",
               "added median", "added p95", "ratio (median)"],
              [row("(a) request sent -> form shown, kernel side", a_kernel, a_floor),
               row("(a') request sent -> form at the frontend", a_front, a_floor),
               row("(b) Submit click -> server holds the answer", b_nb, b_floor),
               row("(a)+(b) total", total_nb, total_floor),
               row("(a')+(b) total, frontend side", total_front, total_floor)])
    sec.notes.append(
        f"For comparison with (a) (median {ms(median(a_kernel))}): the same one-field "
        f"ElicitationForm, built in the same kernel without showing it, takes "
        f"{ms(build['ms'])} (median of 30) and makes {build['widgets']} widget models, each "
        "announced to the frontend with a comm_open message of its own.")
    sec.notes.append(
        "(a) ends at the kernel's send time of the widget message that attaches the built form "
        "to its cell (header date); (a') when the frontend received it. The floor's (a) ends "
        "when its callback is entered, its (b) starts when its callback returns. (b) for "
        "nb_elicit starts when the frontend sends the click, so it includes the trip from the "
        "frontend to the kernel, which the floor has no counterpart for. Typing into the form "
        "(3 keystrokes, each answered before the click) is not timed. All times are Unix "
        "times of one machine (server, kernel, frontend).")
    added_med = median(total_nb) - median(total_floor)
    added_p95 = pct(total_nb, 95) - pct(total_floor, 95)
    sec.targets.append(Target("Added latency per elicitation (a)+(b), median", "< 15 ms",
                              ms(added_med), added_med < 15))
    sec.targets.append(Target("Added latency per elicitation (a)+(b), p95", "< 50 ms",
                              ms(added_p95), added_p95 < 50))


# ---------------------------------------------------------------------------------- 3. idle


def measure_idle(fe: Frontend, pid: int, seconds: float) -> dict[str, float]:
    fe.pump_for(1.0)
    cpu0, (vol0, inv0, thr), t0 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    fe.pump_for(seconds)
    cpu1, (vol1, inv1, thr1), t1 = cpu_seconds(pid), context_switches(pid), time.monotonic()
    elapsed = t1 - t0
    return {"cpu": 100 * (cpu1 - cpu0) / elapsed, "wakeups": (vol1 - vol0) / elapsed,
            "involuntary": (inv1 - inv0) / elapsed, "threads": max(thr, thr1),
            "seconds": elapsed}


def section_idle(opts, sec: Section) -> None:
    seconds = opts.idle or (10.0 if opts.quick else 30.0)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    record = Record(tmp / "idle.jsonl")
    with Kernel(opts) as kernel:
        fe = kernel.fe
        kernel.connect("conn", record.path)
        # One answered form first, so that everything is imported and warm.
        fe.mark()
        cell = fe.execute("await conn.call_tool('ask', {'tag': 'warm', 'kind': 'click'});")
        answer_form(fe, wait_shown(fe, 1, kernel, cell)[0], "nb-elicit-submit")
        fe.wait_reply(cell, CELL)
        log(f"  idle: {seconds:g} s without a form, then {seconds:g} s with a form waiting")
        without = measure_idle(fe, kernel.pid, seconds)
        fe.mark()
        cell = fe.execute("await conn.call_tool('ask', {'tag': 'idle', 'kind': 'name'});")
        shown = wait_shown(fe, 1, kernel, cell)[0]
        waiting = measure_idle(fe, kernel.pid, seconds)
        answer_form(fe, shown, "nb-elicit-dismiss")
        fe.wait_reply(cell, CELL)
        if not fe.wait_for(lambda: record.get("idle"), CELL, "the dismissal"):
            raise BenchError("the dismissal did not reach the server")
    sec.table(f"Kernel process, {seconds:g} s each (CPU from /proc/PID/stat; wake-ups = "
              "voluntary context switches of all its threads)",
              ["state", "CPU (% of one core)", "wake-ups / s", "involuntary switches / s",
               "threads"],
              [["idle kernel, connection open, no cell running (floor)",
                f"{without['cpu']:.2f}%", f"{without['wakeups']:.1f}",
                f"{without['involuntary']:.1f}", without["threads"]],
               ["a cell awaits call_tool; its form waits for nobody", f"{waiting['cpu']:.2f}%",
                f"{waiting['wakeups']:.1f}", f"{waiting['involuntary']:.1f}",
                waiting["threads"]]])
    why = ""
    with contextlib.suppress(Exception):
        from nb_elicit._runtime import calls as _calls
        from nb_elicit._ui import call_view as _call_view

        why = (f" A waiting cell wakes every {_calls.WAKE:g} s (so that Kernel > Interrupt "
               f"lands), and its waiting line updates the elapsed time every "
               f"{_call_view._TICK:g} s (one widget message each).")
    sec.notes.append(
        f"Added by a waiting form: {waiting['cpu'] - without['cpu']:+.2f} percentage points of a "
        f"core and {waiting['wakeups'] - without['wakeups']:+.1f} wake-ups per second.{why}")
    sec.targets.append(Target(f"Kernel CPU while a form waits ({seconds:g} s)",
                              "< 0.5% of a core", f"{waiting['cpu']:.2f}%",
                              waiting["cpu"] < 0.5))
    sec.targets.append(Target("Kernel wake-ups while a form waits", "(info)",
                              f"{waiting['wakeups']:.1f}/s (idle kernel: "
                              f"{without['wakeups']:.1f}/s)", None))


# ---------------------------------------------------------------------------------- 4. memory


FLOOR_IN_KERNEL = """\
import asyncio, os
import mcp_types as _ft
from mcp import Client as _FClient, StdioServerParameters as _FParams
from mcp.client.stdio import stdio_client as _fstdio

async def _floor_accept(context, params):
    return _ft.ElicitResult(action="accept", content={{}})

_floor_stop = asyncio.Event()

async def _floor_main(ready):
    with open(os.devnull, "w") as errlog:
        params = _FParams(command={py!r}, args={args!r})
        async with _FClient(_fstdio(params, errlog=errlog), mode="legacy",
                            elicitation_callback=_floor_accept) as client:
            ready.set_result(client)
            await _floor_stop.wait()

_floor_ready = asyncio.get_running_loop().create_future()
_floor_task = asyncio.create_task(_floor_main(_floor_ready))
floor_client = await asyncio.wait_for(_floor_ready, 60)
"""


def section_memory(opts, sec: Section) -> None:
    n = opts.memory_rounds or (100 if opts.quick else 1000)
    warm = 10
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    record, floor_record = Record(tmp / "memory.jsonl"), Record(tmp / "floor.jsonl")
    with Kernel(opts) as kernel:
        fe = kernel.fe
        kernel.connect("conn", record.path)
        kernel.run(FLOOR_IN_KERNEL.format(py=PY, args=[str(SERVER), "--record",
                                                       str(floor_record.path)]))

        def one_round(tag: str) -> None:
            fe.mark()
            cell = fe.execute(f"await conn.call_tool('ask', {{'tag': {tag!r}, "
                              f"'kind': 'click'}});")
            answer_form(fe, wait_shown(fe, 1, kernel, cell)[0], "nb-elicit-submit")
            reply = fe.wait_reply(cell, CELL)
            if reply["status"] != "ok":
                raise BenchError(f"round {tag} failed: {kernel.cell_text(cell)}")

        def floor_round(tag: str) -> None:
            kernel.run(f"await floor_client.call_tool('ask', {{'tag': {tag!r}, "
                       f"'kind': 'click'}});")

        for i in range(warm):
            one_round(f"warm-{i}")
            floor_round(f"warm-{i}")
        before = kernel.json("_bench_stats()")
        rss_start = rss_mb(kernel.pid)
        log(f"  memory: {n} elicitations answered by a plain SDK client in the kernel (floor)")
        for i in range(n):
            floor_round(f"f{i}")
        kernel.json("_bench_stats()")  # the same gc.collect() as before and after
        rss_before = rss_mb(kernel.pid)
        open_before = sum(not m.closed for m in fe.models.values())
        log(f"  memory: {n} elicitations answered with Submit in nb_elicit forms")
        started = time.monotonic()
        checkpoints = []
        for i in range(n):
            one_round(f"m{i}")
            if (i + 1) % max(1, n // 5) == 0:
                checkpoints.append((i + 1, rss_mb(kernel.pid)))
                log(f"    {i + 1}/{n}, kernel RSS {checkpoints[-1][1]:.1f} MB")
        elapsed = time.monotonic() - started
        after = kernel.json("_bench_stats()")
        rss_after = rss_mb(kernel.pid)
        open_after = sum(not m.closed for m in fe.models.values())
        kernel.run("_floor_stop.set()\nawait asyncio.wait_for(_floor_task, 10)")
    entries, floor_entries = record.poll(), floor_record.poll()
    got = [entries.get(f"m{i}", {}).get("action") for i in range(n)]
    if got.count("accept") != n:
        raise BenchError(f"only {got.count('accept')} of {n} answers reached the server as "
                         f"accept: {[g for g in got if g != 'accept'][:5]}")
    floor_got = sum(1 for i in range(n) if floor_entries.get(f"f{i}", {}).get("action")
                    == "accept")
    if floor_got != n:
        raise BenchError(f"only {floor_got} of {n} floor answers reached the server")
    growth, floor_growth = rss_after - rss_before, rss_before - rss_start
    sec.table(f"Kernel RSS over {n} elicitations each (after {warm} warm-up rounds of both; "
              "gc.collect() before each reading)",
              ["", "RSS growth", "per elicitation"],
              [["floor: plain SDK Client in the kernel, accepting at once",
                f"{floor_growth:+.1f} MB", f"{1024 * floor_growth / n:.1f} kB"],
               ["nb_elicit: a form per elicitation, answered with Submit",
                f"{growth:+.1f} MB", f"{1024 * growth / n:.1f} kB"]])
    kept = ""
    with contextlib.suppress(Exception):
        from nb_elicit._core.history import HISTORY

        kept = f" (nb_elicit's history keeps the last {HISTORY.limit:,} entries)"
    sec.table(f"Kernel before and after the {n} nb_elicit elicitations{kept}",
              ["", "kernel RSS", "live widget models (kernel)", "ElicitationForm",
               "CallView", "open models (frontend)", "history entries"],
              [["before", f"{rss_before:.1f} MB", before["widgets"], before["forms"],
                before["views"], open_before, before["history"]],
               ["after", f"{rss_after:.1f} MB", after["widgets"], after["forms"],
                after["views"], open_after, after["history"]],
               ["per elicitation", f"{1024 * growth / n:.1f} kB",
                f"{(after['widgets'] - before['widgets']) / n:.1f}",
                f"{(after['forms'] - before['forms']) / n:.2f}",
                f"{(after['views'] - before['views']) / n:.2f}",
                f"{(open_after - open_before) / n:.1f}",
                f"{(after['history'] - before['history']) / n:.2f}"
                if before["history"] is not None else "-"]])
    grown = {k: after["by_type"].get(k, 0) - before["by_type"].get(k, 0)
             for k in after["by_type"]}
    top = ", ".join(f"{k} {v:+d}" for k, v in sorted(grown.items(), key=lambda kv: -kv[1])
                    if v)
    per_form = (after["in_forms"] - before["in_forms"]) / n
    per_view = (after["in_views"] - before["in_views"]) / n
    orphans = (after["orphans"] - before["orphans"]) / n
    sec.notes.append(f"Widget models added (the most common types): {top or 'none'}. Per "
                     f"elicitation, {per_form:.0f} models of the answered form (its children, "
                     f"layouts and styles) and {per_view:.0f} more of the call's output view "
                     "(waiting line, result) are still alive after the call ended, and "
                     f"{orphans:.0f} layout or style models that no live widget uses any more "
                     "(replaced, but never closed).")
    sec.notes.append("Kernel RSS along the way (no gc.collect()): "
                     + ", ".join(f"{rss:.1f} MB after {i}" for i, rss in checkpoints)
                     + f" (from {rss_before:.1f} MB).")
    sec.notes.append(f"The {n} nb_elicit rounds took {elapsed:.1f} s ({1000 * elapsed / n:.0f} "
                     "ms each: run a cell, wait for the form, click Submit, wait for the cell "
                     "to end). The form has one optional checkbox, so Submit needs no typing.")
    sec.targets.append(Target(f"Kernel RSS growth over {n} elicitations", "< 10 MB",
                              f"{growth:+.1f} MB (floor {floor_growth:+.1f} MB)", growth < 10))
    sec.targets.append(Target(f"Live widget models after {n} elicitations", "back to baseline",
                              f"{before['widgets']} -> {after['widgets']}",
                              after["widgets"] <= before["widgets"]))


# ---------------------------------------------------------------------------------- 5. scale


def section_scale(opts, sec: Section) -> None:
    servers, each = 10, 20
    total = servers * each
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    records = [Record(tmp / f"s{i}.jsonl") for i in range(servers)]
    env = {"PYTHONPATH": opts.nb_elicit} if opts.nb_elicit else None
    with Kernel(opts) as kernel:
        fe = kernel.fe
        commands = [[PY, str(SERVER), "--record", str(r.path)] for r in records]
        t0 = time.monotonic()
        kernel.run("import asyncio, json, nb_elicit\n"
                   f"conns = await asyncio.gather(*(nb_elicit.connect(f's{{i}}', c, env={env!r})"
                   f" for i, c in enumerate({commands!r})))", timeout=120)
        connected = time.monotonic() - t0
        kernel.note_unlimited(kernel.run("for c in conns:\n"
                                         + textwrap.indent(UNLIMITED.format(conn="c"), "    ")))
        kernel.run(SETUP_CODE)
        log(f"  scale: {servers} servers connected in {connected:.1f} s; {total} forms at once")
        fe.mark()
        started = time.time()
        cell = fe.execute(
            "results = await asyncio.gather(*(c.call_tool('ask_many', {'count': "
            f"{each}, 'tag': c.name, 'kind': 'click'}}) for c in conns))")
        clicked: dict[str, tuple[str, float]] = {}  # form id -> (action, click time)
        deadline = time.monotonic() + 180
        while len(clicked) < total:
            if time.monotonic() > deadline:
                raise BenchError(f"{len(fe.shown)} of {total} forms appeared and {len(clicked)}"
                                 f" were clicked within 180 s; cell: {kernel.cell_text(cell)}")
            if cell in fe._replies and len(fe.shown) < total:
                raise BenchError(f"the cell ended with {len(fe.shown)} of {total} forms shown:"
                                 f"\n{kernel.cell_text(cell)}")
            for shown in list(fe.shown):
                if shown.form_id not in clicked:
                    action = "accept" if len(clicked) % 2 == 0 else "decline"
                    button = "nb-elicit-submit" if action == "accept" else "nb-elicit-decline"
                    clicked[shown.form_id] = (action, answer_form(fe, shown, button))
            fe.pump(0.05)
        all_shown = max(s.frontend_at for s in fe.shown)
        reply = fe.wait_reply(cell, 120)
        if reply["status"] != "ok":
            raise BenchError(f"the calls failed: {kernel.cell_text(cell)}")
        ended = time.time()
        stats = kernel.json("_bench_stats()")
        results = kernel.json("print(json.dumps([r.text for r in results]))")
        tags = {}
        for shown in fe.shown:
            match = re.search(r"Benchmark question (s\d+-\d+)", fe.form_text(shown.form_id))
            if match is None:
                raise BenchError("a form does not show its question")
            tags[shown.form_id] = match[1]
    entries = {}
    for r in records:
        entries.update(r.poll())
    lost = [tags[f] for f in clicked if tags[f] not in entries]
    wrong = [tags[f] for f, (action, _) in clicked.items()
             if tags[f] in entries and entries[tags[f]]["action"] != action]
    by_tag = {tags[f]: (action, at) for f, (action, at) in clicked.items()}
    click_to_server = [(entries[t]["answered"] - at) * 1000 for t, (_, at) in by_tag.items()
                       if t in entries]
    last_answer = max(e["answered"] for e in entries.values())
    first_sent = min(e["sent"] for e in entries.values())
    accepts = sum(1 for e in entries.values() if e["action"] == "accept")
    declines = sum(1 for e in entries.values() if e["action"] == "decline")
    ok = (len(entries) == total and not lost and not wrong and stats["pending"] == 0)
    sec.table(f"{servers} stdio servers x {each} concurrent questions = {total} forms",
              ["", "value"],
              [["connect 10 servers (concurrently)", f"{connected:.2f} s"],
               ["first request sent -> all forms shown at the frontend",
                f"{all_shown - first_sent:.2f} s"],
               ["cell started -> every answer held by its server",
                f"{last_answer - started:.2f} s"],
               ["cell started -> the cell ended (all 10 calls returned)",
                f"{ended - started:.2f} s"],
               ["click -> server holds the answer, median / p95 (clicks wait while the "
                "kernel builds the other forms)",
                f"{ms(median(click_to_server))} / {ms(pct(click_to_server, 95))}"],
               ["answers at the servers (accept / decline)",
                f"{len(entries)} of {total} ({accepts} / {declines})"],
               ["lost, or a different answer than clicked", f"{len(lost)}, {len(wrong)}"],
               ["forms still pending in the kernel (nb_elicit._runtime.pending.PENDING)",
                stats["pending"]],
               ["tool results returned", f"{len(results)} calls, "
                f"{sum(str(t).count('accept') + str(t).count('decline') for t in results)}"
                " actions echoed"]])
    sec.notes.append("The frontend clicks each form as soon as it is shown, alternating Submit "
                     "and Decline; all forms wait in their calls' cells at the same time.")
    sec.targets.append(Target(f"{total} concurrent forms from {servers} servers",
                              "all answered, none lost or pending",
                              f"{len(entries)}/{total} in {last_answer - started:.1f} s", ok))


# ---------------------------------------------------------------------------------- 6. startup

FLOOR_CONNECT = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from mcp import Client, StdioServerParameters
t1 = time.perf_counter()
async def main():
    params = StdioServerParameters(command=sys.executable, args=["-m", "nb_elicit.demo"])
    async with Client(params, mode="legacy") as client:
        t2 = time.perf_counter()
        await client.list_tools()
    return t2
t2 = asyncio.run(main())
print(json.dumps({"import": t1 - t0, "connect": t2 - t1}))
"""


IMPORTS = r"""
import json, sys, time
steps = {}
for name in ("ipywidgets", "mcp", "jsonschema", "nb_elicit._runtime.connection"):
    t0 = time.perf_counter()
    __import__(name)
    steps[name] = time.perf_counter() - t0
steps["rfc3987_syntax"] = "rfc3987_syntax" in sys.modules
print(json.dumps(steps))
"""


def section_startup(opts, sec: Section) -> None:
    kernels = opts.kernels or (2 if opts.quick else 5)
    loads, connects, imported = [], [], []
    env = f" --env PYTHONPATH={shlex.quote(opts.nb_elicit)}" if opts.nb_elicit else ""
    for k in range(kernels):
        log(f"  startup: fresh kernel {k + 1}/{kernels}")
        with Kernel(opts, check=False) as kernel:
            kernel.run("import sys as _bs")  # nothing of nb_elicit yet
            out = kernel.json(
                "import time as _bt, json as _bj\n"
                "_bt0 = _bt.perf_counter()\n"
                "%load_ext nb_elicit\n"
                "_bt1 = _bt.perf_counter()\n"
                "print(_bj.dumps({'load': _bt1 - _bt0, "
                "'sdk': 'mcp' in _bs.modules, 'widgets': 'ipywidgets' in _bs.modules}))")
            loads.append(out["load"] * 1000)
            imported.append(out)
            out = kernel.json(
                "_bt2 = _bt.perf_counter()\n"
                f"%mcp connect demo{env} -- {shlex.quote(PY)} -m nb_elicit.demo\n"
                "_bt3 = _bt.perf_counter()\n"
                "print(_bj.dumps({'connect': _bt3 - _bt2}))", timeout=120)
            connects.append(out["connect"] * 1000)
            kernel.check_code()
    floor_imports, floor_connects = [], []
    for _ in range(kernels):
        proc = subprocess.run([PY, "-c", FLOOR_CONNECT], capture_output=True, text=True,
                              timeout=120, cwd=REPO)
        if proc.returncode != 0:
            raise BenchError(f"the SDK floor failed: {proc.stderr[-500:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        floor_imports.append(out["import"] * 1000)
        floor_connects.append(out["connect"] * 1000)
    steps: dict[str, list[float]] = {}
    for _ in range(kernels):
        proc = subprocess.run([PY, "-c", IMPORTS], capture_output=True, text=True,
                              timeout=120, cwd=REPO)
        if proc.returncode != 0:
            raise BenchError(f"the import breakdown failed: {proc.stderr[-500:]}")
        for name, value in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            steps.setdefault(name, []).append(value)
    sec.table(f"Fresh kernels: {kernels} (median, max)", ["step", "median", "max"],
              [["%load_ext nb_elicit", ms(median(loads), 0), ms(max(loads), 0)],
               ["first %mcp connect demo (imports the SDK, starts the server, handshake)",
                ms(median(connects), 0), ms(max(connects), 0)],
               ["floor: fresh Python, import mcp", ms(median(floor_imports), 0),
                ms(max(floor_imports), 0)],
               ["floor: then a plain Client connects to the demo server",
                ms(median(floor_connects), 0), ms(max(floor_connects), 0)],
               ["floor: import + connect", ms(median(
                   [a + b for a, b in zip(floor_imports, floor_connects, strict=True)]), 0), "-"]])
    sec.table("What the first connect imports: a fresh Python imports these one after the "
              "other (median)", ["import", "time"],
              [[f"`{name}`" + (" (the rest of nb_elicit)" if name.startswith("nb_") else ""),
                ms(1000 * median(values), 0)]
               for name, values in steps.items() if name != "rfc3987_syntax"])
    if steps.get("rfc3987_syntax", [False])[0]:
        sec.notes.append(
            "`import jsonschema` also imports `rfc3987_syntax` when it is installed (it comes "
            "with `jsonschema[format-nongpl]`, which jupyter-events, and so every Jupyter "
            "server install, requires), and that module builds a grammar when imported.")
    first = imported[0]
    sec.notes.append(f"After %load_ext: the SDK imported: {first['sdk']}; ipywidgets imported: "
                     f"{first['widgets']}.")
    load = median(loads)
    sec.targets.append(Target("%load_ext nb_elicit in a fresh kernel", "< 0.3 s",
                              ms(load, 0), load < 300))
    floor_total = [a + b for a, b in zip(floor_imports, floor_connects, strict=True)]
    sec.targets.append(Target("First %mcp connect to the demo server", "(info)",
                              f"{ms(median(connects), 0)} (SDK floor: "
                              f"{ms(median(floor_total), 0)})", None))


# ---------------------------------------------------------------------------------- report

RUNNERS = {
    "build": ("1. Form build", section_build),
    "latency": ("2. End-to-end added latency per elicitation", section_latency),
    "idle": ("3. Idle cost of a waiting form", section_idle),
    "memory": ("4. Memory over many elicitations", section_memory),
    "scale": ("5. Scale: 10 servers x 20 concurrent forms", section_scale),
    "startup": ("6. Start-up", section_startup),
}


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


def write_report(path: Path, opts, sections: list[Section], info: dict[str, str]) -> None:
    out = ["# nb_elicit benchmark results", ""]
    out.append(f"Written by `{info['command']}` on {info['date']}"
               + (" (quick mode: small sizes, for development)." if opts.quick else "."))
    out += ["", "## Machine", "", "| | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out.append(f"| Code | {info['source']} |")
    out.append(f"| Load average (1, 5, 15 min) | before: {info['load_before']}; after: "
               f"{info['load_after']} |")
    out.append(f"| Run time | {info['elapsed']:.0f} s |")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (about 2 minutes)")
    parser.add_argument("--only", help=f"comma-separated sections: {','.join(SECTIONS)}")
    parser.add_argument("--skip", help="comma-separated sections to leave out")
    parser.add_argument("--rounds", type=int, help="latency: elicitations each way "
                        "(default 200, quick 30)")
    parser.add_argument("--idle", type=float, help="idle: seconds measured (default 30, "
                        "quick 10)")
    parser.add_argument("--memory-rounds", type=int, help="memory: elicitations (default 1000,"
                        " quick 100)")
    parser.add_argument("--kernels", type=int, help="startup: fresh kernels (default 5, "
                        "quick 2)")
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
    opts = parser.parse_args(argv)
    chosen = list(SECTIONS)
    if opts.only:
        chosen = [s.strip() for s in opts.only.split(",") if s.strip()]
    if opts.skip:
        skipped = {s.strip() for s in opts.skip.split(",")}
        chosen = [s for s in chosen if s not in skipped]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; choose from "
                     f"{', '.join(SECTIONS)}")
    opts.copied_from = None
    if not opts.nb_elicit:
        try:
            opts.nb_elicit, opts.copied_from = copy_code(opts.code)
        except (OSError, subprocess.SubprocessError) as exc:
            parser.error(f"could not copy nb_elicit ({opts.code}): {exc}")
    if opts.nb_elicit:
        opts.nb_elicit = os.path.abspath(opts.nb_elicit)
        if not (Path(opts.nb_elicit) / "nb_elicit" / "__init__.py").exists():
            parser.error(f"{opts.nb_elicit} holds no nb_elicit package")
        sys.path.insert(0, opts.nb_elicit)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (opts.nb_elicit, os.environ.get("PYTHONPATH")) if p)
    import nb_elicit

    if opts.nb_elicit and not Path(nb_elicit.__file__).is_relative_to(opts.nb_elicit):
        parser.error(f"imported {nb_elicit.__file__}, not the nb_elicit in {opts.nb_elicit}")
    for name in ("NB_ELICIT_RESPOND", "NB_ELICIT_HEADLESS_WAIT"):
        os.environ.pop(name, None)
    full = not opts.quick and chosen == list(SECTIONS)
    out = opts.out or HERE / ("RESULTS.md" if full else "RESULTS-quick.md")

    python = os.path.relpath(PY, REPO) if PY.startswith(str(REPO)) else PY
    info = {
        "command": shlex.join([python, "benchmarks/run.py", *(argv or sys.argv[1:])]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_before": loadavg(),
        "source": source_info(opts),
    }
    log(f"nb_elicit benchmarks: {', '.join(chosen)}{' (quick)' if opts.quick else ''}; "
        f"load {info['load_before']}")
    started = time.monotonic()
    sampler = OtherWork()
    sampler.start()
    sections = []
    for name in chosen:
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
        sections.append(sec)
    sampler.stop()
    info["elapsed"] = time.monotonic() - started
    ours, other = sampler.totals()
    tick = os.sysconf("SC_CLK_TCK")
    info["ours"], info["other"] = ours / tick / info["elapsed"], other / tick / info["elapsed"]
    info["load_after"] = loadavg()
    before = float(info["load_before"].split()[0])
    cores = os.cpu_count() or 1
    if info["other"] > 0.1 or (before > 0.3 * cores and info["other"] > 0.05):
        info["load_note"] = (
            f"**Note: the machine was not idle.** Other processes used {info['other']:.2f} "
            f"cores on average during the run (of {cores}), and the 1-minute load average was "
            f"{info['load_before'].split()[0]} when it began. Other work shared the CPU with "
            "these measurements; tail latencies (p95) suffer first.")
    else:
        info["load_note"] = (
            f"The machine was otherwise quiet: other processes used {info['other']:.2f} cores "
            f"on average during the run (of {cores}). The 1-minute load average was "
            f"{info['load_before'].split()[0]} when it began (it lags: earlier work still "
            "counts in it) and this run raises it.")
    busy = [f"{s.name} ({s.others:.2f} cores)" for s in sections
            if s.others is not None and s.others > 0.1]
    if busy and "not idle" not in info["load_note"]:
        info["load_note"] = (
            f"**Note: the machine was not idle throughout.** Other processes used "
            f"{info['other']:.2f} cores on average over the whole run (of {cores}), but more "
            f"during these sections: {', '.join(busy)}; their tail latencies (p95) suffer "
            "first.")
    write_report(out, opts, sections, info)
    log(f"wrote {out}")
    failed = [s.name for s in sections if s.error]
    missed = [t.what for s in sections for t in s.targets if t.passed is False]
    if failed:
        log(f"failed sections: {', '.join(failed)}")
    if missed:
        log(f"missed targets: {len(missed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
