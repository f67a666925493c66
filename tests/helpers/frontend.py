"""A scripted Jupyter frontend that drives a real kernel the way JupyterLab's widget manager does.

Why this exists: a test that fires widget updates at a kernel back to back proves nothing about a
real browser. JupyterLab's widget manager keeps at most ONE message in flight per widget model and
sends the next one only after the kernel publishes an IOPub ``status: idle`` whose parent is the
message in flight. A kernel that handles a widget message without publishing that status (ipykernel
7.4.0 does so for comm messages dispatched while an async cell holds the shell) silently stalls
every later update for that model. See docs/kernels.md.

Everything here is single-threaded. All kernel traffic that arrives (IOPub and shell replies) is
read and dispatched by ONE loop, :meth:`Frontend.pump`; every wait is built on it and has a
timeout. Typical use::

    with Frontend.start(subshells=True) as fe:
        cell = fe.execute("import ipywidgets as w; t = w.Text(); t.add_class('x'); display(t)")
        (text,) = fe.wait_for(lambda: fe.find("x"), timeout=10)
        fe.type_text(text, "Ada")          # "A", "Ad", "Ada": one update per keystroke
        assert fe.flush(timeout=5)         # every queued message was sent and answered by idle
        reply, outputs = fe.run("print(t.value)")

API (short):

- ``Frontend.start(subshells=False, coalesce=False)`` starts a kernel it owns (closed on exit);
  ``Frontend(km, kc=None, ...)`` attaches to a kernel someone else owns.
- Model table: ``models``, ``state(id)``, ``value(id)``, ``find(css_class)``, ``find_by(**attrs)``,
  ``children(id)``.
- Waiting: ``pump(timeout)``, ``pump_for(seconds)``, ``wait_for(predicate, timeout)``,
  ``flush(timeout)``.
- Widget input (throttled): ``set_value``, ``type_text``, ``click``, ``press_enter``, ``send``.
- Throttle state: ``in_flight(id)``, ``pending(id)``, ``stalled(min_age)``, ``messages`` (log).
- Status bookkeeping: ``statuses(msg_id)``, ``idle_count(msg_id)``; ``kernel_status``, what
  JupyterLab's status bar would say.
- Code: ``execute``, ``wait_reply``, ``outputs``, ``stdout``, ``run``, ``interrupt``.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from queue import Empty
from typing import Any, TypeVar

import zmq
from jupyter_client import KernelManager
from jupyter_client.blocking import BlockingKernelClient


def _untracked_message_types() -> frozenset[str]:
    """The parent message types whose status JupyterLab's kernel status ignores: the notebook
    server's ``untracked_message_types`` (passed to the page; ``kernel/default.ts`` reads it)."""
    from jupyter_server.services.kernels.kernelmanager import MappingKernelManager

    return frozenset(MappingKernelManager.class_traits()["untracked_message_types"].default())


UNTRACKED_MESSAGE_TYPES = _untracked_message_types()

WIDGET_TARGET = "jupyter.widget"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
"""The output mimetype that displays a widget view."""
"""The comm target of ipywidgets models (the only one this frontend mirrors)."""

KERNEL_CMD = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
"""The command used when the ``python3`` kernelspec would not run this interpreter."""

_OUTPUT_TYPES = {
    "stream",
    "display_data",
    "execute_result",
    "update_display_data",
    "error",
    "clear_output",
}
_MODEL_REF = "IPY_MODEL_"

T = TypeVar("T")


@dataclass
class Model:
    """One widget model as the frontend sees it (state synced from ``comm_open``/``comm_msg``)."""

    comm_id: str
    state: dict[str, Any]
    parent_id: str | None
    """msg_id of the request (usually an execute_request) that made the kernel open the comm."""
    closed: bool = False

    @property
    def model_name(self) -> str | None:
        return self.state.get("_model_name")

    @property
    def dom_classes(self) -> list[str]:
        return list(self.state.get("_dom_classes") or [])


@dataclass
class Outgoing:
    """A widget message the frontend wants to send, and what happened to it."""

    model_id: str
    data: dict[str, Any]
    """The comm_msg ``data``: ``{"method": "update", ...}`` or ``{"method": "custom", ...}``."""
    queued_at: float
    msg_id: str | None = None
    """Set when the message is actually sent."""
    sent_at: float | None = None
    idle_at: float | None = None
    """When the first ``status: idle`` with this message as parent arrived."""
    throttled: bool = True
    """False for custom messages in ``coalesce`` mode (JupyterLab sends those unthrottled)."""

    @property
    def kind(self) -> str:
        return self.data.get("method", "?")

    @property
    def value(self) -> Any:
        """The ``value`` this update carries (None for other messages)."""
        return self.data.get("state", {}).get("value")

    def __repr__(self) -> str:
        what = repr(self.value) if self.kind == "update" else repr(self.data.get("content"))
        if self.sent_at is None:
            where = "queued"
        elif self.idle_at is None:
            where = f"in flight {self.msg_id}"
        else:
            where = f"done in {1000 * (self.idle_at - self.sent_at):.1f} ms"
        return f"<{self.kind} {what} {where}>"


def start_kernel(startup_timeout: float = 60.0, env: dict[str, str] | None = None,
                 python: str | None = None) -> tuple[KernelManager, BlockingKernelClient]:
    """Start a ``python3`` kernel that runs THIS interpreter (the test venv's python).

    The kernelspec's argv[0] is usually ``python``, which jupyter_client replaces with
    ``sys.executable``. If the spec names some other interpreter, it is overridden with
    :data:`KERNEL_CMD` so the kernel always sees the same ipykernel/ipywidgets as the tests.
    """
    km = KernelManager(kernel_name="python3")
    argv = km.kernel_spec.argv
    if python is not None:
        km.kernel_spec.argv = [python, *KERNEL_CMD[1:]]
    elif not _runs_this_python(argv[0]):
        km.kernel_spec.argv = list(KERNEL_CMD)
    # (not pytest's marker: ipykernel then leaves file descriptors 1 and 2 alone, and
    # sys.stderr has no fileno(), which a kernel that JupyterLab starts has)
    inherited = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    km.start_kernel(env={**inherited, **(env or {})})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=startup_timeout)
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return km, kc


def _runs_this_python(exe: str) -> bool:
    major, minor = sys.version_info[:2]
    if exe in {"python", f"python{major}", f"python{major}.{minor}"}:
        return True  # jupyter_client substitutes sys.executable for these
    found = shutil.which(exe) or exe
    return os.path.realpath(found) == os.path.realpath(sys.executable)


class Frontend:
    """A JupyterLab-like widget frontend over a jupyter_client ``BlockingKernelClient``.

    Parameters
    ----------
    km, kc:
        The kernel's manager (used for interrupt/shutdown) and a client; ``kc`` defaults to
        ``km.client()`` with channels started.
    subshells:
        Create a kernel subshell and tag every widget comm message with its ``subshell_id``, as
        JupyterLab's ``commsOverSubshells: "perCommTarget"`` does. False is JupyterLab's
        ``"disabled"``: no tag. Execute requests are never tagged (they run on the main shell).
    coalesce:
        False (default): every message for a model waits its turn in order, custom messages
        (clicks) included, one in flight per model. True: closer to ``@jupyter-widgets/base``:
        state updates that wait are merged into one buffered update (so "A" is sent, then
        "Ada Lovelace" once idle arrives), and custom messages bypass the throttle.
    owns_kernel:
        Shut the kernel down on :meth:`close` (set by :meth:`start`).
    """

    def __init__(
        self,
        km: KernelManager,
        kc: BlockingKernelClient | None = None,
        *,
        subshells: bool = False,
        coalesce: bool = False,
        owns_kernel: bool = False,
        timeout: float = 10.0,
        renders: bool = True,
    ) -> None:
        self.km = km
        if kc is None:
            kc = km.client()
            kc.start_channels()
            kc.wait_for_ready(timeout=timeout)
        self.kc = kc
        self.coalesce = coalesce
        self.owns_kernel = owns_kernel
        self.renders = renders
        self._roots: list[str] = []
        """The models displayed in an output (widget-view outputs), in order."""
        self._counting: set[str] = set()
        """Models whose ``_view_count`` is a number, not yet counted as displayed."""
        self._counted: set[str] = set()
        self.models: dict[str, Model] = {}
        self.messages: list[Outgoing] = []
        """Every widget message, in the order the test asked for it (sent or not)."""
        self._queues: dict[str, deque[Outgoing]] = defaultdict(deque)
        self._in_flight: dict[str, Outgoing] = {}
        self._by_msg_id: dict[str, Outgoing] = {}
        self._statuses: dict[str, list[str]] = defaultdict(list)
        self.kernel_status = "unknown"
        """The kernel's status as JupyterLab shows it: the last status published, whatever its
        parent, except a parent of :data:`UNTRACKED_MESSAGE_TYPES`."""
        self._outputs: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._replies: dict[str, dict[str, Any]] = {}
        self._poller = zmq.Poller()
        self._poller.register(kc.iopub_channel.socket, zmq.POLLIN)
        self._poller.register(kc.shell_channel.socket, zmq.POLLIN)
        self.subshell_id: str | None = None
        if subshells:
            self.subshell_id = self._create_subshell(timeout)

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def start(
        cls, *, subshells: bool = False, coalesce: bool = False, startup_timeout: float = 60.0,
        env: dict[str, str] | None = None, python: str | None = None, renders: bool = True,
    ) -> Frontend:
        """Start a fresh kernel (see :func:`start_kernel`) with a frontend that owns it.

        Like a notebook server, it gives the kernel ``JPY_SESSION_NAME`` (override or drop it
        through ``env``), which is how a kernel tells that a person may be watching.
        ``renders=False`` is a headless executor (nbclient, papermill): it displays no view.
        """
        km, kc = start_kernel(startup_timeout, {"JPY_SESSION_NAME": "frontend.ipynb",
                                                **(env or {})}, python)
        try:
            return cls(km, kc, subshells=subshells, coalesce=coalesce, owns_kernel=True,
                       renders=renders)
        except BaseException:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            raise

    def close(self) -> None:
        """Stop the channels; shut the kernel down if this frontend owns it.

        On a kernel someone else owns, the subshell this frontend created is deleted first.
        """
        try:
            if self.subshell_id is not None and not self.owns_kernel:
                msg = self.kc.session.msg(
                    "delete_subshell_request", {"subshell_id": self.subshell_id}
                )
                self.kc.control_channel.send(msg)
                self._control_reply(msg["header"]["msg_id"], timeout=5.0)
            self.kc.stop_channels()
        finally:
            if self.owns_kernel and self.km.has_kernel:
                self.km.shutdown_kernel(now=True)

    def __enter__(self) -> Frontend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _create_subshell(self, timeout: float) -> str:
        features = self._kernel_info(timeout).get("supported_features", [])
        if "kernel subshells" not in features:
            raise RuntimeError(f"kernel does not support subshells (features: {features})")
        msg = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(msg)
        reply = self._control_reply(msg["header"]["msg_id"], timeout)
        if reply["content"].get("status") != "ok":
            raise RuntimeError(f"create_subshell_request failed: {reply['content']}")
        return reply["content"]["subshell_id"]

    def _kernel_info(self, timeout: float) -> dict[str, Any]:
        msg_id = self.kc.kernel_info()
        return self.wait_reply(msg_id, timeout)

    def _control_reply(self, msg_id: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                reply = self.kc.control_channel.get_msg(timeout=remaining)
            except Empty:
                break
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
        raise TimeoutError(f"no control reply to {msg_id} within {timeout}s")

    # ------------------------------------------------------------------ the one receive loop

    def pump(self, timeout: float = 0.0) -> int:
        """Wait up to ``timeout`` s for kernel traffic, then dispatch everything that is ready.

        This is the only place that reads IOPub and shell replies. Each IOPub message updates
        the model table, the status/idle bookkeeping (which releases the throttle) and the
        outputs of its parent. Returns the number of messages handled (0 on timeout).
        """
        if not self._poller.poll(max(0.0, timeout) * 1000):
            return 0
        # Not channel.get_msgs(): in jupyter_client 8.10 it blocks forever once drained.
        handled = 0
        iopub, shell = self.kc.iopub_channel, self.kc.shell_channel
        while iopub.msg_ready():
            self._on_iopub(iopub.get_msg(timeout=0))
            handled += 1
        while shell.msg_ready():
            reply = shell.get_msg(timeout=0)
            parent_id = reply["parent_header"].get("msg_id")
            if parent_id is not None:
                self._replies[parent_id] = reply["content"]
            handled += 1
        return handled

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        msg_type = msg["header"]["msg_type"]
        content = msg["content"]
        parent_id = msg["parent_header"].get("msg_id")
        if msg_type == "status":
            if msg["parent_header"].get("msg_type") not in UNTRACKED_MESSAGE_TYPES:
                self.kernel_status = content["execution_state"]
            if parent_id is not None:
                self._statuses[parent_id].append(content["execution_state"])
                if content["execution_state"] == "idle":
                    self._on_idle(parent_id)
        elif msg_type == "comm_open":
            if content.get("target_name") == WIDGET_TARGET:
                state = dict(content.get("data", {}).get("state", {}))
                self.models[content["comm_id"]] = Model(content["comm_id"], state, parent_id)
                self._may_count(content["comm_id"])
        elif msg_type == "comm_msg":
            model = self.models.get(content.get("comm_id"))
            data = content.get("data", {})
            if model is not None and data.get("method") in {"update", "echo_update"}:
                model.state.update(data.get("state", {}))
                self._may_count(model.comm_id)
        elif msg_type == "comm_close":
            model = self.models.get(content.get("comm_id"))
            if model is not None:
                model.closed = True
                self._queues.pop(model.comm_id, None)
        elif msg_type in _OUTPUT_TYPES and parent_id is not None:
            self._outputs[parent_id].append({"output_type": msg_type, **content})
            view = (content.get("data") or {}).get(WIDGET_VIEW)
            if isinstance(view, dict) and view.get("model_id"):
                self._roots.append(view["model_id"])
        if self._counting and msg_type != "status":
            self._count_views()

    # ------------------------------------------------------------------ views

    def _may_count(self, model_id: str) -> None:
        if (self.renders and model_id not in self._counted
                and isinstance(self.models[model_id].state.get("_view_count"), int)):
            self._counting.add(model_id)

    def _count_views(self) -> None:
        """What @jupyter-widgets/base does when a view is displayed: a model whose
        ``_view_count`` is a number (the kernel asked for the count) gets one more, sent to the
        kernel as an update. A model is displayed when an output shows it, or a displayed
        container holds it; each is counted once here (one view each)."""
        shown: set[str] = set()
        stack = list(self._roots)
        while stack:
            model_id = stack.pop()
            if model_id in shown or model_id not in self.models:
                continue
            shown.add(model_id)
            if not self.models[model_id].closed:
                stack.extend(self.children(model_id))
        for model_id in sorted(self._counting & shown):
            self._counting.discard(model_id)
            self._counted.add(model_id)
            model = self.models[model_id]
            if model.closed:
                continue
            count = model.state["_view_count"] + 1
            model.state["_view_count"] = count
            self.send(model_id, {"method": "update", "state": {"_view_count": count},
                                 "buffer_paths": []})

    def _on_idle(self, parent_id: str) -> None:
        out = self._by_msg_id.get(parent_id)
        if out is None:
            return
        if out.idle_at is None:
            out.idle_at = time.monotonic()
        if self._in_flight.get(out.model_id) is out:
            del self._in_flight[out.model_id]
            self._send_next(out.model_id)

    def pump_for(self, seconds: float) -> None:
        """Keep dispatching kernel traffic for ``seconds`` (a frontend idling, not sleeping)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            self.pump(remaining)

    def wait_for(
        self, predicate: Callable[[], T], timeout: float = 10.0, what: str = "",
        poll: float = 0.05,
    ) -> T:
        """Pump until ``predicate()`` is truthy and return its value; TimeoutError otherwise.

        The predicate is re-checked after each batch of kernel messages and at least every
        ``poll`` seconds, so it may also watch things outside the kernel (a server's log).
        """
        deadline = time.monotonic() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what or predicate}")
            self.pump(min(remaining, poll))

    # ------------------------------------------------------------------ model table

    def state(self, model_id: str) -> dict[str, Any]:
        return self.models[model_id].state

    def value(self, model_id: str) -> Any:
        """The model's ``value`` as this frontend currently shows it."""
        return self.models[model_id].state.get("value")

    def find(self, css_class: str) -> list[str]:
        """Ids of open models whose ``_dom_classes`` contain ``css_class``."""
        return [
            mid for mid, m in self.models.items() if not m.closed and css_class in m.dom_classes
        ]

    def find_by(self, **attrs: Any) -> list[str]:
        """Ids of open models whose state matches every attribute.

        ``model_name`` stands for ``_model_name``; other keys are state keys (``description``,
        ``value``, ``placeholder``, ...).
        """
        keys = {("_model_name" if k == "model_name" else k): v for k, v in attrs.items()}
        return [
            mid
            for mid, m in self.models.items()
            if not m.closed and all(k in m.state and m.state[k] == v for k, v in keys.items())
        ]

    def children(self, model_id: str) -> list[str]:
        """The ids a container's ``children`` refer to (``"IPY_MODEL_<id>"`` references)."""
        refs = self.models[model_id].state.get("children") or []
        return [r[len(_MODEL_REF):] if r.startswith(_MODEL_REF) else r for r in refs]

    # ------------------------------------------------------------------ widget input

    def set_value(self, model_id: str, value: Any) -> Outgoing:
        """What a browser sends when the user changes a widget's value."""
        self.models[model_id].state["value"] = value  # the browser's model changes at once
        return self.send(model_id, {"method": "update", "state": {"value": value},
                                    "buffer_paths": []})

    def type_text(self, model_id: str, text: str, delay: float = 0.0) -> list[Outgoing]:
        """Type ``text`` key by key: one update per keystroke with the value so far.

        ``delay`` > 0 pumps between keystrokes (a person types, the kernel answers meanwhile).
        """
        sent = []
        for i in range(1, len(text) + 1):
            sent.append(self.set_value(model_id, text[:i]))
            if delay > 0:
                self.pump_for(delay)
        return sent

    def click(self, model_id: str) -> Outgoing:
        return self.send(model_id, {"method": "custom", "content": {"event": "click"}})

    def press_enter(self, model_id: str) -> Outgoing:
        return self.send(model_id, {"method": "custom", "content": {"event": "submit"}})

    def send(self, model_id: str, data: dict[str, Any]) -> Outgoing:
        """Queue a comm message for a model; it goes out when the model has none in flight."""
        model = self.models[model_id]
        if model.closed:
            raise RuntimeError(f"model {model_id} is closed")
        queue = self._queues[model_id]
        if self.coalesce and data.get("method") == "update" and queue:
            # @jupyter-widgets/base keeps one buffer: a waiting update absorbs this one.
            queue[-1].data["state"].update(data["state"])
            return queue[-1]
        out = Outgoing(model_id, data, queued_at=time.monotonic())
        self.messages.append(out)
        if self.coalesce and data.get("method") == "custom":
            out.throttled = False  # custom messages are not throttled by @jupyter-widgets/base
            self._transmit(out)
            return out
        queue.append(out)
        self._send_next(model_id)
        return out

    def _send_next(self, model_id: str) -> None:
        if model_id in self._in_flight:
            return
        queue = self._queues.get(model_id)
        if not queue:
            return
        out = queue.popleft()
        self._in_flight[model_id] = out
        self._transmit(out)

    def _transmit(self, out: Outgoing) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": out.model_id, "data": out.data})
        if self.subshell_id is not None:
            msg["header"]["subshell_id"] = self.subshell_id
        out.msg_id = msg["header"]["msg_id"]
        out.sent_at = time.monotonic()
        self._by_msg_id[out.msg_id] = out
        self.kc.shell_channel.send(msg)

    # ------------------------------------------------------------------ throttle state

    def in_flight(self, model_id: str) -> Outgoing | None:
        """The message sent for this model that is still waiting for its idle, if any."""
        return self._in_flight.get(model_id)

    def pending(self, model_id: str) -> list[Outgoing]:
        """Messages for this model that wait behind the one in flight (not sent yet)."""
        return list(self._queues.get(model_id, ()))

    def stalled(self, min_age: float = 0.0) -> dict[str, list[Outgoing]]:
        """Models whose in-flight message has waited at least ``min_age`` s for its idle.

        Maps model id -> [the message in flight, *the messages queued behind it].
        """
        now = time.monotonic()
        return {
            mid: [out, *self._queues.get(mid, ())]
            for mid, out in self._in_flight.items()
            if out.sent_at is not None and now - out.sent_at >= min_age
        }

    def flush(self, timeout: float = 5.0) -> bool:
        """Pump until every widget message has been sent and answered by its idle.

        That is: no model has a message in flight or queued (and, in ``coalesce`` mode, every
        unthrottled custom message got its idle too). False on timeout.
        """

        def done() -> bool:
            return (
                not self._in_flight
                and not any(self._queues.values())
                and all(m.throttled or m.idle_at is not None for m in self.messages)
            )

        try:
            self.wait_for(done, timeout, what="every widget message to be answered")
        except TimeoutError:
            return False
        return True

    def statuses(self, msg_id: str) -> list[str]:
        """Every ``execution_state`` published with ``msg_id`` as parent, in order."""
        return list(self._statuses.get(msg_id, ()))

    def idle_count(self, msg_id: str) -> int:
        return self._statuses.get(msg_id, []).count("idle")

    # ------------------------------------------------------------------ code

    def execute(self, code: str, wait: bool = False, timeout: float = 30.0) -> str:
        """Send an execute_request on the main shell; return its msg_id.

        ``wait=True`` also waits (up to ``timeout``) for its reply and its idle.
        """
        msg_id = self.kc.execute(code, allow_stdin=False)
        if wait:
            self.wait_reply(msg_id, timeout)
        return msg_id

    def wait_reply(self, msg_id: str, timeout: float = 30.0) -> dict[str, Any]:
        """The shell reply's content for ``msg_id``, once its idle has also arrived on IOPub.

        Waiting for the idle too makes :meth:`outputs` complete when this returns.
        """
        self.wait_for(
            lambda: msg_id in self._replies and "idle" in self._statuses.get(msg_id, ()),
            timeout,
            what=f"the reply to {msg_id}",
        )
        return self._replies[msg_id]

    def transcripts(self) -> list[str]:
        """The transcripts finished calls left (their ``text/html``), oldest first."""
        return [out["data"]["text/html"] for outs in self._outputs.values() for out in outs
                if out["output_type"] == "update_display_data"
                and "nb-elicit-transcript" in out.get("data", {}).get("text/html", "")]

    def outputs(self, msg_id: str) -> list[dict[str, Any]]:
        """IOPub outputs with ``msg_id`` as parent, as ``{"output_type": ..., **content}``."""
        return list(self._outputs.get(msg_id, ()))

    def stdout(self, msg_id: str) -> str:
        """All stdout text printed under ``msg_id``."""
        return "".join(
            o["text"] for o in self.outputs(msg_id)
            if o["output_type"] == "stream" and o.get("name") == "stdout"
        )

    def run(self, code: str, timeout: float = 30.0) -> tuple[dict[str, Any], list[dict]]:
        """Execute ``code`` and wait for it: ``(reply content, outputs)``."""
        msg_id = self.execute(code)
        reply = self.wait_reply(msg_id, timeout)
        return reply, self.outputs(msg_id)

    def interrupt(self, wake: bool = True) -> None:
        """Interrupt the kernel (SIGINT through the KernelManager).

        An async cell that awaits only notices the interrupt when its event loop wakes up, so
        ``wake`` also sends a harmless ``kernel_info_request`` (answered once the cell ends).
        """
        self.km.interrupt_kernel()
        if wake:
            self.kc.kernel_info()

