"""An MCP App in a notebook output: the widget `AppFrame` (an anywidget).

A tool whose ``_meta.ui.resourceUri`` names a ``ui://`` resource (the ``io.modelcontextprotocol/ui``
extension) comes with an app: HTML that a host shows in a sandboxed frame and speaks to by
JSON-RPC over ``postMessage``. The front end, ``static/app_host.js``, is built from
``scripts/app-host/src/app_host.js`` with the official host side (``AppBridge`` of
``@modelcontextprotocol/ext-apps``) inside; its docstring tells how the app is framed (a
sandbox proxy and an inner frame, neither with ``allow-same-origin``) and which Content
Security Policy it gets.

What the app asks for that needs the server or the person reaches Python as one custom message
per request, and goes to the handler given to :meth:`AppFrame.on_request`:

- from the front end: ``{"kind": "request", "id": N, "method": M, "params": {...}}``, for the
  app's requests (:data:`~nb_elicit._core.apps.REQUESTS`); ``{"kind": "notification",
  "method": M, "params": {...}}`` for its notifications (no answer); ``{"kind": "cancel",
  "id": N}`` when the app gave up on request ``N``;
- from Python: ``{"kind": "response", "id": N, "result": {...}}`` or ``{"kind": "response",
  "id": N, "error": {"code": C, "message": "..."}}``; ``{"kind": "teardown"}`` (close the app);
  ``{"kind": "tool-input-partial", "arguments": {...}}``.

The app's HTML is not synced state: a page, or a saved notebook's widget state, never carries
it. It goes once, by message. A frame that is not held sends it right after its comm_open,
before it is shown, ``{"kind": "html", "html": "...", "pushed": true}``: the page that makes
the model keeps it (the loader's ``initialize``, under the frame's `_key`) until the view
renders, so the app's frame starts as soon as its view does, with no round trip to the kernel
between them (anywidget hands a model a message only once its ``initialize`` ran, so the
message is never missed). A held frame's front end asks for it, ``{"kind": "html"}``, and gets
it once :meth:`AppFrame.release` ran, ``{"kind": "html", "html": "..."}``. Asked again (a
reloaded page, a second view) it answers ``{"kind": "html", "gone": true}`` and the app ends
(:meth:`AppFrame.on_end`). So does it when the front end says the frame was torn down or left
its page (`status`).

The Content Security Policy is built here, by
:func:`~nb_elicit._core.apps.content_security_policy` from the resource's ``_meta.ui.csp`` as
:func:`~nb_elicit._core.apps.app_csp` checked it (`csp` holds only what it kept): `policy` is
that text, and the front end writes it into the frame as it is, with no rule of its own.
`permissions` holds what the person granted (geolocation, clipboard-write; checked by
:func:`~nb_elicit._core.apps.granted_permissions`), ``{}`` by default: the front end puts
exactly those in both frames' ``allow`` attribute (none at all when nothing is granted) and
tells the app of them. A frame made with ``held=True`` (its app asks for permissions) gets its
HTML only after :meth:`AppFrame.release`, which sets `permissions` first: the app never runs
before the person answered, and an ``allow`` attribute is read only when a frame loads.
`side_doors` follows `csp` and `permissions` (:func:`~nb_elicit._core.apps.side_doors`): what
the app may do that no policy governs (WebRTC, clipboard writes), which the front end shuts,
with a guard script run first in the app's document, unless it is open.

The front end also keeps the app's display mode and height: a fullscreen button in a bar above
the frame, never over the app's own controls (lit up when the app asks for ``fullscreen``; the
person's click is the consent the browser needs), Escape back inline, ``host-context-changed``
with the mode and the container's size each time; and a frame as tall as the app (`height`), in
a box that shows at most `max_height` pixels and 80% of the window and scrolls. A held frame is
hidden until :meth:`AppFrame.release`: its permission card shows with no blank frame above it.

The front end bounds what it sends: params over 1 MB, more than 50 messages a second or more
than 16 requests waiting at once are answered there with an error and never reach Python.

The host code travels once per page. The widget's ``_esm`` is only a loader (`loader`,
``static/app_loader.js``, about 2 kB); the host module itself (625 kB) is asked of the kernel
by the page's first frame (from anywidget's ``initialize``, as soon as its model is made),
``{"kind": "host-code", "sha": S}``, answered with ``{"kind": "host-code", "sha": S, "code":
"..."}`` (S: the bundle's sha256, `HOST_SHA`), imported once and kept on ``globalThis`` under a
key that names S, so that two versions of nb_elicit in one page never mix. Frames that render
while it comes wait for the same reply; the loader takes it only from its own model's messages
and only with its own S. Without it within `HOST_CODE_WAIT` seconds (the kernel busy or gone),
the frame says that the app did not start.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import inspect
import json
import logging
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from .._core.apps import (
    NOTIFICATIONS,
    REQUESTS,
    app_csp,
    content_security_policy,
    granted_permissions,
    side_doors,
)
from .._core.i18n import t
from .._core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from .loop import running_loop

MIN_HEIGHT = 40
#: The tallest app the frame takes at its full height (px); the frame's box, at most
#: `AppFrame.max_height` and 80% of the window tall, scrolls over it.
MAX_CONTENT_HEIGHT = 50_000
#: The frame's texts (``app_<key>`` in ``_core/locale/``'s catalogues).
TEXTS = ("title", "closed", "left_page", "not_started", "elsewhere", "fullscreen",
         "fullscreen_asked", "exit_fullscreen")
BUNDLE = Path(__file__).parent / "static" / "app_host.js"
LOADER = Path(__file__).parent / "static" / "app_loader.js"
_HOST_BYTES = BUNDLE.read_bytes()
#: The host module's text, and the sha256 of its file (what the page keeps it under).
HOST_CODE = _HOST_BYTES.decode("utf-8")
HOST_SHA = hashlib.sha256(_HOST_BYTES).hexdigest()
del _HOST_BYTES
#: How long a frame waits for the host code before it says the app did not start (s).
HOST_CODE_WAIT = 30

Handler = Callable[[str, dict[str, Any]],
                   "dict[str, Any] | Awaitable[dict[str, Any]] | None"]
#: A request's handler under way: a task on the frame's loop, or a future of another thread's.
_Running = asyncio.Future[object] | concurrent.futures.Future[object]
#: What the front end says when the frame is gone for good (see `status`).
ENDED_STATUSES = ("torn down", "failed: the app left its page")

log = logging.getLogger(__name__)


class AppRequestError(Exception):
    """A deliberate JSON-RPC error for the app: raise it from a handler."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = int(code)
        self.message = str(message)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nb-elicit")
    except PackageNotFoundError:
        return "0"


def loader(wait: float = HOST_CODE_WAIT) -> str:
    """The widget's ``_esm``: ``static/app_loader.js`` for this bundle (its sha filled in) and
    this wait, without its comments and indentation."""
    lines = (line.strip() for line in LOADER.read_text(encoding="utf-8").splitlines())
    text = "\n".join(line for line in lines if line and not line.startswith("//"))
    return (text.replace("__SHA256__", HOST_SHA)
            .replace("__WAIT_MS__", str(max(1, round(wait * 1000)))) + "\n")


class AppFrame(anywidget.AnyWidget):
    """One MCP App, framed and sandboxed; its requests go to :meth:`on_request`'s handler.

    Python gives ``html`` (the resource's HTML: sent once, by message, not synced) and sets
    `csp` (from its ``_meta.ui``, checked; `policy` follows it), `tool` (the tool's
    definition, for the app's host context), and then `tool_input`, `tool_result` (a
    ``CallToolResult`` as a plain dict) or `cancelled` (the reason) as the call goes. The front
    end sets `height` (the app's height as it asked, clamped to [40, 50,000]: the frame is that
    tall, in a box that shows at most `max_height` pixels and 80% of the window, and scrolls;
    0 until it says) and `status` (``"loading"``, ``"ready"``, ``"failed: ..."``, ``"torn down"``).
    `host_code_requests` counts the times its front end asked for the host code (at most once
    per page for all frames, unless a load failed).
    """

    _esm = loader()

    csp = traitlets.Dict().tag(sync=True)
    #: The frame's Content Security Policy, built from `csp` (set with it, never by hand).
    policy = traitlets.Unicode(content_security_policy({})).tag(sync=True)
    #: The permissions the person granted (``{"geolocation": {}}``); none by default.
    permissions = traitlets.Dict().tag(sync=True)
    #: What the frame may do beyond its policy (WebRTC, clipboard writes), from `csp` and
    #: `permissions` (:func:`~nb_elicit._core.apps.side_doors`; never set by hand).
    side_doors = traitlets.Dict(side_doors()).tag(sync=True)
    tool = traitlets.Dict().tag(sync=True)
    tool_input = traitlets.Dict(default_value=None, allow_none=True).tag(sync=True)
    tool_result = traitlets.Dict(default_value=None, allow_none=True).tag(sync=True)
    cancelled = traitlets.Unicode("").tag(sync=True)
    max_height = traitlets.Int(800).tag(sync=True)
    theme = traitlets.Enum(["", "light", "dark"], default_value="").tag(sync=True)
    height = traitlets.Int(0).tag(sync=True)
    status = traitlets.Unicode("loading").tag(sync=True)
    _host_version = traitlets.Unicode(_version()).tag(sync=True)
    #: The frame's own name in its page, random: where the loader keeps the pushed HTML for
    #: the view (anywidget hands ``initialize`` and ``render`` different proxies of the model).
    _key = traitlets.Unicode().tag(sync=True)
    #: The frame's own texts, in nb_elicit's language.
    _texts = traitlets.Dict().tag(sync=True)

    def __init__(self, html: str = "", held: bool = False, **kwargs: Any):
        kwargs.setdefault("_texts", {key: t(f"app_{key}") for key in TEXTS})
        kwargs.setdefault("_key", secrets.token_hex(8))
        super().__init__(**kwargs)
        #: The app's HTML until its front end took it (None after: it goes to one page, once).
        self._html: str | None = str(html)
        #: The HTML waits for :meth:`release` (the person has yet to answer for permissions).
        self.held = bool(held)
        self._html_asked = False
        if self.held:  # (no blank frame above the permission card: it shows once released)
            self.layout.display = "none"
        #: Guards `held`, `_html_asked` and `_html`: :meth:`release` runs on the kernel's loop
        #: and the ask for the HTML on the thread of its message (a subshell's).
        self._html_lock = threading.RLock()
        self._on_end: Callable[[str], None] | None = None
        self._handler: Handler | None = None
        self._loop = running_loop()
        #: The requests under way, by their id (an int: see _request; a cancel's id is
        #: looked up as it came).
        self._running: dict[object, _Running] = {}
        self.host_code_requests = 0
        self.on_msg(self._on_front_end_msg)
        if not self.held:
            self._push_html()

    # -- the traits ----------------------------------------------------------------------------

    @traitlets.validate("csp")
    def _valid_csp(self, proposal: traitlets.Bunch) -> dict[str, Any]:
        return app_csp(proposal["value"])

    @traitlets.observe("csp")
    def _csp_changed(self, change: traitlets.Bunch) -> None:
        self.policy = content_security_policy(change["new"])

    @traitlets.observe("csp", "permissions")
    def _doors_changed(self, _change: traitlets.Bunch) -> None:
        self.side_doors = side_doors(self.csp, self.permissions)

    @traitlets.validate("side_doors")
    def _valid_side_doors(self, _proposal: traitlets.Bunch) -> dict[str, bool]:
        return side_doors(self.csp, self.permissions)

    @traitlets.validate("policy")
    def _valid_policy(self, proposal: traitlets.Bunch) -> str:
        return content_security_policy(self.csp)

    @traitlets.validate("permissions")
    def _valid_permissions(self, proposal: traitlets.Bunch) -> dict[str, dict[str, Any]]:
        return granted_permissions(proposal["value"])

    @traitlets.observe("status")
    def _status_changed(self, change: traitlets.Bunch) -> None:
        if change["new"] in ENDED_STATUSES:
            self._ended("torn down")

    @traitlets.validate("max_height")
    def _valid_max_height(self, proposal: traitlets.Bunch) -> int:
        return max(MIN_HEIGHT, int(proposal["value"]))

    @traitlets.validate("height")
    def _valid_height(self, proposal: traitlets.Bunch) -> int:
        value = int(proposal["value"])
        return 0 if value <= 0 else min(MAX_CONTENT_HEIGHT, max(MIN_HEIGHT, value))

    # -- Python to the app -------------------------------------------------------------------

    def on_request(self, handler: Handler | None,
                   loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Answer the app's requests with ``handler(method, params) -> result dict``.

        The handler may be a coroutine function: it then runs on ``loop``, else on the loop
        that was running where this was called (or where the frame was made), else on the
        running loop of the thread the request arrived on. `AppRequestError` becomes that JSON-RPC
        error; any other exception ``INTERNAL_ERROR`` with its class name only (its text may
        quote what the app or the server sent).
        """
        self._handler = handler
        self._loop = loop or running_loop() or self._loop

    def release(self, granted: Iterable[str] = ()) -> None:
        """The person answered for the app's permissions: its frame gets ``granted`` (keys of
        :data:`~nb_elicit._core.apps.PERMISSIONS`; none by default), then its HTML, if its
        front end has asked for it already (else when it asks). Once only."""
        with self._html_lock:  # (the front end's ask may come on a subshell's thread)
            if not self.held:
                return
            self.permissions = granted_permissions(list(granted))
            self.held = False
            self.layout.display = None
            if self._html_asked:
                self._send_html_now()  # (asked once only: never "gone" here)

    def send_tool_input_partial(self, arguments: dict[str, Any]) -> None:
        """Partial tool arguments while they stream in (dropped once the whole input is sent)."""
        self.send({"kind": "tool-input-partial", "arguments": dict(arguments)})

    def teardown(self) -> None:
        """Ask the app to close (``ui/resource-teardown``), then remove its frame."""
        self.send({"kind": "teardown"})

    def on_end(self, callback: Callable[[str], None] | None) -> None:
        """Call ``callback(why)`` on the frame's loop when the front end ends the app: ``"torn
        down"`` (its frame closed, or left its page) or ``"shown again"`` (a second page asked
        for the HTML)."""
        self._on_end = callback

    def cancel_requests(self) -> None:
        """Stop answering the requests under way (the app ended)."""
        for running in list(self._running.values()):
            running.cancel()

    # -- the app to Python -------------------------------------------------------------------

    def _on_front_end_msg(self, _widget: object, content: object, _buffers: object) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        if kind == "request":
            self._request(content)
        elif kind == "notification":
            self._notification(content)
        elif kind == "cancel":
            running = self._running.pop(content.get("id"), None)
            if running is not None:
                running.cancel()
        elif kind == "host-code":
            self.host_code_requests += 1
            self._send_host_code()
        elif kind == "html":
            self._send_html()

    def _push_html(self) -> None:
        """The app's HTML, sent unasked right after the comm_open (a frame not held): the page
        that makes the model keeps it for the view, which then asks for nothing. Any later ask
        is a later front end, told that it is gone."""
        with self._html_lock:
            html, self._html = self._html, None
        if html is not None:
            self.send({"kind": "html", "html": html, "pushed": True})

    def _send_html(self) -> None:
        """The app's HTML, to the first front end that asks; any later one hears it is gone
        (and the app ends: it runs in one page)."""
        with self._html_lock:
            gone = self._send_html_now()
        if gone:
            self._ended("shown again")

    def _send_html_now(self) -> bool:
        """:meth:`_send_html` under `_html_lock`: whether the frame is held and whether its front
        end asked are read and changed in one step with :meth:`release`. True when the HTML was
        asked for again (it is gone, and the app ends)."""
        if self.held:  # (sent by release, once the person answered)
            if not self._html_asked:
                self._html_asked = True
                return False
            self._html, self._html_asked = None, False
        else:
            html, self._html = self._html, None
            if html is not None:
                self.send({"kind": "html", "html": html})
                return False
        self.send({"kind": "html", "gone": True})
        return True

    def _ended(self, why: str) -> None:
        """Tell :meth:`on_end`'s callback, on the frame's loop (a message may come on another
        thread)."""
        callback = self._on_end
        if callback is None:
            return
        here = running_loop()
        loop = self._loop if self._loop is not None and not self._loop.is_closed() else here
        if loop is None or loop is here:
            callback(why)
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(callback, why)

    def _send_host_code(self) -> None:
        """The host module, to the loader that asked (answered at once, from the thread the
        message came on: also while the calling cell still runs)."""
        self.send({"kind": "host-code", "sha": HOST_SHA, "code": HOST_CODE})

    def _request(self, content: dict[str, Any]) -> None:
        request_id = content.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return  # (nothing to answer to)
        method, params = content.get("method"), content.get("params")
        if method not in REQUESTS or self._handler is None:
            self.send(_error_reply(request_id, METHOD_NOT_FOUND, "Method not found"))
            return
        if not isinstance(params, dict):
            self.send(_error_reply(request_id, INVALID_PARAMS, "Invalid params"))
            return
        try:
            outcome = self._handler(method, params)
        except Exception as exc:  # noqa: BLE001 - becomes the app's JSON-RPC error
            self.send(_failure_reply(request_id, method, exc))
            return
        if inspect.isawaitable(outcome):
            self._later(outcome, method, request_id)
        else:
            self.send(_result_reply(request_id, method, outcome))

    def _notification(self, content: dict[str, Any]) -> None:
        method, params = content.get("method"), content.get("params")
        if method not in NOTIFICATIONS or self._handler is None or not isinstance(params, dict):
            return
        try:
            outcome = self._handler(method, params)
        except Exception:  # noqa: BLE001 - a notification has no one to tell
            log.warning("the handler of %s failed", method, exc_info=True)
            return
        if inspect.isawaitable(outcome):
            self._later(outcome, method, None)

    def _later(self, awaitable: Awaitable[object], method: str, request_id: int | None) -> None:
        """Run the handler's awaitable on an event loop; answer when it ends."""

        async def run() -> object:
            return await awaitable

        here = running_loop()
        loop = self._loop if self._loop is not None and not self._loop.is_closed() else here
        try:
            if loop is None:
                raise RuntimeError("no event loop")
            if loop is here:
                # Background work: the frame's; one app message's handler, answered when it ends.
                running: _Running = loop.create_task(run())
            else:  # (a message handled on another thread: the kernel's loop runs it)
                running = asyncio.run_coroutine_threadsafe(run(), loop)
        except RuntimeError:
            with contextlib.suppress(AttributeError):
                awaitable.close()  # type: ignore[attr-defined]
            if request_id is not None:
                self.send(_error_reply(request_id, INTERNAL_ERROR,
                                        "Internal error (no event loop)"))
            return

        def done(finished: _Running) -> None:
            if request_id is not None:
                self._running.pop(request_id, None)
            if finished.cancelled():
                return  # (the app gave up: its side has answered already)
            error = finished.exception()
            if request_id is None:
                if error is not None:
                    log.warning("the handler of %s failed", method, exc_info=error)
            elif error is not None:
                self.send(_failure_reply(request_id, method, error))
            else:
                self.send(_result_reply(request_id, method, finished.result()))

        if request_id is not None:
            self._running[request_id] = running
        running.add_done_callback(done)


# -- the app's JSON-RPC responses ----------------------------------------------------------------

def _result_reply(request_id: int, method: str, result: object) -> dict[str, object]:
    """The response that carries a handler's ``result`` (None: an empty one); a result that is
    no JSON object is the handler's failure."""
    if result is None:
        result = {}
    if not isinstance(result, dict):
        return _error_reply(request_id, INTERNAL_ERROR,
                            f"Internal error (the handler returned {type(result).__name__})")
    try:
        json.dumps(result)
    except (TypeError, ValueError) as exc:
        return _failure_reply(request_id, method, exc)
    return {"kind": "response", "id": request_id, "result": result}


def _failure_reply(request_id: int, method: str, exc: BaseException) -> dict[str, object]:
    """The response to a request whose handler raised ``exc``: an `AppRequestError` is that
    JSON-RPC error; anything else is logged and ``INTERNAL_ERROR`` with its class name only
    (its text may quote what the app or the server sent)."""
    if isinstance(exc, AppRequestError):
        return _error_reply(request_id, exc.code, exc.message)
    log.warning("the handler of %s failed", method, exc_info=exc)
    return _error_reply(request_id, INTERNAL_ERROR, f"Internal error ({type(exc).__name__})")


def _error_reply(request_id: int, code: int, message: str) -> dict[str, object]:
    return {"kind": "response", "id": request_id, "error": {"code": code, "message": message}}
