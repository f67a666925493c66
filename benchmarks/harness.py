"""Driving a kernel: a fresh kernel with a scripted frontend, the bench server's journal, the
forms the frontend sees and answers, and the SDK floor client."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime as dt
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import CELL, HERE, NOTICES, PY, REPO, SERVER, BenchError

if str(REPO / "tests") not in sys.path:
    sys.path.insert(0, str(REPO / "tests"))

from helpers.frontend import Frontend  # noqa: E402


class Journal:
    """The bench server's file of every answer it received, read incrementally: tag -> entry."""

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


def server_command(journal: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """The command that starts the bench server, writing its answers to ``journal`` (``extra``:
    more of its options)."""
    return [PY, str(SERVER), "--journal", str(journal), *extra]


class HttpServer:
    """The bench server over streamable HTTP on a free port of 127.0.0.1, in a process of its
    own (started by the runner); ``url`` once it accepts connections. Stopped on exit."""

    def __init__(self, journal: Path, timeout: float = CELL):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.proc = subprocess.Popen([*server_command(journal), "--http", str(port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise BenchError(f"the HTTP bench server exited ({self.proc.returncode})")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline:
                self.close()
                raise BenchError(f"the HTTP bench server did not listen within {timeout:g} s")
            time.sleep(0.05)

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def header_time(msg: dict) -> float:
    """A Jupyter message's header date (when its sender sent it) as a Unix time."""
    date = msg["header"].get("date")
    if isinstance(date, str):
        date = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    if date.tzinfo is None:
        date = date.replace(tzinfo=dt.timezone.utc)
    return date.timestamp()


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@dataclass
class Shown:
    """A form as the frontend got it: attached to a container it shows in."""

    form_id: str
    kernel_at: float  # header date of the message that made it shown (kernel clock)
    frontend_at: float  # when the frontend handled that message


class BenchFrontend(Frontend):
    """The tests' scripted frontend, plus: which models opened lately, and when each form
    became shown (an nb_elicit form attached, through its containers, to a model displayed in a
    cell; a floor's prompt displayed in its cell), by kernel send time and frontend receive
    time."""

    FORM = "nb-elicit-form"
    #: The class of a floor's prompt (bench_prompts.BOX): shown when it is displayed.
    PROMPT = "bench-prompt"

    def __init__(self, *args, **kwargs):
        # (all set before the frontend starts: with subshells, it reads IOPub while it asks
        # the kernel for one)
        self.opened: list[str] = []
        self.shown: list[Shown] = []
        self._shown_ids: set[str] = set()
        #: A model's container (the last that listed it among its children), the models
        #: displayed in a cell, and the forms not yet shown.
        self._parent: dict[str, str] = {}
        self._displayed: set[str] = set()
        self._forms_waiting: set[str] = set()
        #: msg_id of a request -> when the kernel said it was idle after it (header date).
        self.idle_sent: dict[str, float] = {}
        #: IOPub messages received so far, and how many of them were comm_msg (widget updates).
        self.iopub_count = self.comm_msg_count = 0
        #: comm_msg received so far, by comm (model) id.
        self.comm_msgs: collections.Counter[str] = collections.Counter()
        super().__init__(*args, **kwargs)

    def _on_iopub(self, msg: dict) -> None:
        super()._on_iopub(msg)
        kind = msg["header"]["msg_type"]
        self.iopub_count += 1
        if kind == "comm_msg":
            self.comm_msg_count += 1
            self.comm_msgs[msg["content"].get("comm_id")] += 1
        if kind == "status" and msg["content"].get("execution_state") == "idle":
            parent = msg["parent_header"].get("msg_id")
            if parent is not None:
                self.idle_sent.setdefault(parent, header_time(msg))
        if kind == "display_data":
            view = msg["content"].get("data", {}).get(WIDGET_VIEW) or {}
            mid = view.get("model_id")
            model = self.models.get(mid)
            if (model is not None and mid not in self._shown_ids
                    and self.PROMPT in model.dom_classes):
                self._shown_ids.add(mid)
                self.shown.append(Shown(mid, header_time(msg), time.time()))
            if mid is not None:
                self._displayed.add(mid)
                self._see_forms_shown(msg)
        if kind not in ("comm_open", "comm_msg"):
            return
        comm_id = msg["content"].get("comm_id")
        if kind == "comm_open":
            self.opened.append(comm_id)
        state = msg["content"].get("data", {}).get("state", {})
        if "children" in state:
            for kid in state["children"] or ():
                self._parent[kid.removeprefix("IPY_MODEL_")] = comm_id
        model = self.models.get(comm_id)
        if ("_dom_classes" in state and model is not None and comm_id not in self._shown_ids
                and self.FORM in model.dom_classes):
            self._forms_waiting.add(comm_id)
        if "children" in state or "_dom_classes" in state:
            self._see_forms_shown(msg)

    def _see_forms_shown(self, msg: dict) -> None:
        """The forms that ``msg`` made shown: attached, through their containers, to a model
        displayed in a cell (a form in a box that is not displayed yet is not shown)."""
        for mid in [m for m in self._forms_waiting if self._displayed_through(m)]:
            self._forms_waiting.discard(mid)
            self._shown_ids.add(mid)
            self.shown.append(Shown(mid, header_time(msg), time.time()))

    def _displayed_through(self, mid: str | None) -> bool:
        seen: set[str] = set()
        while mid is not None and mid not in seen:
            if mid in self._displayed:
                return True
            seen.add(mid)
            mid = self._parent.get(mid)
        return False

    def forget_closed(self) -> None:
        """Stop waiting for the idle of a message to a model closed since: a bare ipywidgets
        prompt's click, handled while its cell awaits, gets none on ipykernel 7.4, and
        JupyterLab drops a closed model with whatever it had in flight."""
        for mid in [m for m in self._in_flight if m in self.models and self.models[m].closed]:
            del self._in_flight[mid]

    def forget_closed_models(self) -> int:
        """Drop every closed model and all this frontend keeps of it (its messages and their
        statuses, its place among containers, roots and shown forms), as JupyterLab drops a
        closed model. A long run keeps otherwise every model it ever saw, about 16 a round:
        165,000 models after section 5's 11,000 rounds, whose bookkeeping walks grow with them
        and whose full garbage collections paused this process for up to 1.8 s. Returns how
        many models were dropped."""
        gone = {mid for mid, model in self.models.items() if model.closed}
        if not gone:
            return 0
        for mid in gone:
            del self.models[mid]
            self._queues.pop(mid, None)
            self._in_flight.pop(mid, None)
            self.comm_msgs.pop(mid, None)
        self.messages[:] = [out for out in self.messages if out.model_id not in gone]
        for msg_id in [k for k, out in self._by_msg_id.items() if out.model_id in gone]:
            del self._by_msg_id[msg_id]
            self._statuses.pop(msg_id, None)
            self.idle_sent.pop(msg_id, None)
        self._roots[:] = [mid for mid in self._roots if mid not in gone]
        self._counting -= gone
        self._counted -= gone
        self._parent = {kid: box for kid, box in self._parent.items()
                        if kid not in gone and box not in gone}
        self._displayed -= gone
        self._shown_ids -= gone
        self._forms_waiting -= gone
        return len(gone)

    def forget_cell(self, msg_id: str) -> None:
        """Drop what this frontend kept of a cell that has ended: its outputs (every nb_elicit
        round updates its transcript there, four updates of some kB each), its statuses and its
        reply. Section 5's frontend grew by about 21 kB a round with them."""
        self._outputs.pop(msg_id, None)
        self._statuses.pop(msg_id, None)
        self._replies.pop(msg_id, None)
        self.idle_sent.pop(msg_id, None)

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
    """A fresh kernel with a BenchFrontend; closed (and its servers stopped) on exit.

    The kernel can import :mod:`in_kernel` (this folder is put at the end of its sys.path):
    :meth:`call` runs one of its functions in a one-line cell and returns what it returned.
    """

    def __init__(self, opts: argparse.Namespace, check: bool = True):
        self.opts = opts
        self.fe = BenchFrontend.start(subshells=opts.subshells)
        try:
            self.run(f"__import__('sys').path.append({str(HERE)!r})")
            if check:
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
            self.fe.run("import in_kernel as _bench; await _bench.close_connections()",
                        timeout=20)
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

    def call(self, function: str, *args: Any, awaited: bool = False,
             timeout: float = CELL) -> Any:
        """``in_kernel.function(*args)`` (awaited if asked) in the kernel; its result."""
        call = f"_bench.{function}({', '.join(repr(a) for a in args)})"
        return self.json(f"import in_kernel as _bench; "
                         f"_bench.emit({'await ' if awaited else ''}{call})", timeout)

    def connect(self, name: str, journal: Path, timeout: float = CELL,
                url: str | None = None, extra: tuple[str, ...] = ()) -> None:
        """Connect ``name`` to a bench server: a new stdio one writing to ``journal`` (started
        with the options ``extra``), or the one already serving streamable HTTP at ``url``."""
        if url is not None:
            self.run(f"import nb_elicit; {name} = await nb_elicit.connect({name!r}, "
                     f"url={url!r})", timeout)
        else:
            command = server_command(journal, extra)
            env = {"PYTHONPATH": self.opts.nb_elicit} if self.opts.nb_elicit else None
            self.run(f"import nb_elicit; {name} = await nb_elicit.connect({name!r}, "
                     f"{command!r}, env={env!r})", timeout)
        self.unlimited([name])

    def unlimited(self, names: list[str]) -> None:
        """Turn off these connections' rate limits, and say so in the report."""
        before = self.call("unlimited", names)
        if before:
            NOTICES.add(f"Each connection's rate limit on how often a server may ask (default "
                        f"{next(iter(before.values()))}) was turned off (`conn.rate_limit = "
                        "None`): these benchmarks ask hundreds of times a minute on purpose.")

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


def settle_seconds() -> float:
    """How long nb_elicit's form holds a Submit that comes right after a field's change sent by
    the page (``nb_elicit._ui.form.SETTLE``; 0 for a revision without it)."""
    try:
        from nb_elicit._ui import form
    except ImportError:
        return 0.0
    return float(getattr(form, "SETTLE", 0.0))


#: Beyond the form's settle time, what the frontend also waits after its last keystroke.
SETTLE_MARGIN = 0.02


def answer_form(fe: BenchFrontend, shown: Shown, button: str, text: str | None = None,
                pause: bool = False) -> float:
    """Type ``text`` into the form's first text box (if given), then click; return click time.

    After typing, the frontend waits (handling messages) for the form's settle time before it
    clicks: a Submit that came sooner would wait out the rest of it in the kernel, and the
    timed leg, from the click, would hold a pause meant for keystrokes still on their way.
    ``pause``: wait as long before the click with nothing typed, so that a prompt compared with
    nb_elicit's is clicked after the same idle time (a kernel left idle a third of a second
    answers its next message more slowly than one still busy)."""
    if text is None and pause and (settle := settle_seconds()) > 0:
        fe.pump_for(settle + SETTLE_MARGIN)
    if text is not None:
        box = next((m for m in fe.descendants(shown.form_id)
                    if fe.models[m].model_name == "TextModel"), None)
        if box is None:
            raise BenchError("the form has no text box")
        fe.type_text(box, text)
        if not fe.flush(CELL):
            raise BenchError(f"typing into the form stalled: {fe.stalled()}")
        if (settle := settle_seconds()) > 0:
            fe.pump_for(settle + SETTLE_MARGIN)
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


class FloorClient:
    """A plain SDK 2.x Client on a thread of its own, whose elicitation callback accepts at once.

    It calls the same bench server the kernel calls (a stdio one of its own writing to
    ``journal``, or the one serving streamable HTTP at ``url``); ``rounds(tags)`` asks one
    question per tag and keeps (callback entered, callback returned) Unix times per tag in
    ``stamps``.
    """

    def __init__(self, journal: Path, content: dict, url: str | None = None):
        self.journal = journal
        self.url = url
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
        command, *args = server_command(self.journal)
        params = StdioServerParameters(command=command, args=args, env=env)
        errlog = open(os.devnull, "w")  # noqa: SIM115 - closed below
        if self.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            transport = streamable_http_client(self.url)
        else:
            transport = stdio_client(params, errlog=errlog)
        try:
            async with Client(transport, mode="legacy",
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
