"""MCP Apps in the cell that called the tool (SEP-1865): read the app, show it next to the call's
result, and answer what the app asks of the host.

A tool whose listing names a ``ui://`` resource (``_meta.ui.resourceUri``) comes with an app.
When it is called where a widget frontend shows the cell, and apps are on for its connection,
the app's resource is read through the same connection (once per connection and URI), checked
(:func:`~nb_elicit._core.apps.app_resource`) and shown in a sandboxed frame
(:class:`~nb_elicit._ui.app_frame.AppFrame`). The tool's arguments and then its result go to
the app as they arrive.

What the app asks is answered here, and only for its own connection:

- ``tools/call``: a tool of the same server whose visibility includes ``"app"``; the call and
  its outcome are written under the app;
- ``resources/read``: the same server;
- ``ui/open-link``: the same consent card as a URL-mode request (the host in large type; the
  link is opened only after **Open**); a URL nb_elicit refuses is an error, a link the person
  did not open ``{"isError": true}``;
- ``ui/message`` and ``ui/update-model-context``: kept on the call's result
  (``result.app_messages``, ``result.model_context``) and shown under the app as plain text;
- ``ui/request-display-mode``: inline (the only mode a cell has);
- the notification ``ui/notifications/request-teardown``: the app ends, with a line saying so;
  ``notifications/message`` (the app's log) is dropped;
- anything else: -32601.

At most :data:`MAX_IN_FLIGHT` requests of one app are answered at once (the front end bounds
them too); more are refused at once, so a flood costs the kernel nothing but the refusals.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from .._core.apps import AppRefused, AppResource, app_resource, resource_uri, visibility
from .._core.errors import InvalidRequest, NbElicitError, ServerError
from .._core.i18n import t
from .._core.text import shorten
from .._core.types import ToolResult
from .._core.url import check_url
from .._ui.app_frame import AppFrame, AppRequestError
from .._ui.controls import text_html
from .kernel_compat import keep_widget_messages_flowing

__all__ = ["AppLog", "Apps"]

#: What an app may keep on the call's result: messages, and the size of its model context.
MAX_MESSAGES = 100
MAX_CONTEXT_CHARS = 100_000
#: How many lines an app's log shows (the rest are counted).
MAX_LINES = 30
#: Requests of one app answered at once (as many as the front end lets wait).
MAX_IN_FLIGHT = 16
#: Views of the app's own requests kept under it (their forms, its link cards).
MAX_ASKS = 5


@dataclass
class AppLog:
    """What an app said and did, kept on the call's result (``result.app``)."""

    tool: str
    messages: list[dict] = field(default_factory=list)
    model_context: dict | None = None
    calls: list[str] = field(default_factory=list)


class Apps:
    """The apps of one connection: whether they are shown, and their resources, read once."""

    def __init__(self, connection, enabled: bool = True):
        self.connection = connection
        self.enabled = enabled
        self._resources: dict[str, AppResource] = {}
        self.shown: list[ShownApp] = []

    async def resource(self, uri: str) -> AppResource:
        if uri not in self._resources:
            read = await self.connection.read_resource(uri)
            self._resources[uri] = app_resource(uri, read)
        return self._resources[uri]

    async def show_for(self, tool: str, arguments: dict | None):
        """The app of ``tool`` in the current call's cell, when it has one and it can show."""
        from .calls import current_call
        from .kernel_compat import widget_frontend_attached

        call = current_call.get()
        if call is None or call.quiet or not self.enabled or not widget_frontend_attached():
            return None
        listed = await self.listed_tool(tool)
        if listed is None:
            return None
        return await show_app(self, listed, call.view, arguments)

    async def listed_tool(self, tool: str, refresh: bool = False) -> dict | None:
        """``tool`` as this connection's server lists it (the listing the session keeps; listed
        again with ``refresh`` when it is not in it), or None."""
        connection = self.connection
        session = await connection._session(connection._tool_eras.get(tool,
                                                                      connection._primary))
        listed = await session.listed_tool(tool)
        if listed is None and refresh:
            with contextlib.suppress(ServerError):
                await session.list_tools()
            listed = await session.listed_tool(tool)
        return listed

    async def call_for_app(self, tool: str, arguments: dict, view) -> ToolResult:
        """A call an app of this connection makes: its forms show in ``view`` (under the app),
        and no second app is shown for it."""
        connection = self.connection
        return await connection._in_call(
            view, connection._call_tool_and_retry(tool, arguments, with_app=False),
            show=False, timeout=connection.timeout)

    async def ask_to_open(self, url, message: str, view) -> bool:
        """The URL consent card in ``view`` (an app asked to open ``url``, a CheckedUrl):
        whether the person pressed Open."""
        from .._ui.url_card import UrlConsentCard
        from .asking import RequestContext, wait_for_person

        connection = self.connection
        card = UrlConsentCard(message, url, server=connection.name)
        context = RequestContext(connection.name, view, connection.guard, connection._gone)
        answer = await wait_for_person(context, card)
        return answer.action == "accept"

    def set_enabled(self, enabled: bool) -> None:
        """``%mcp apps on|off``: off ends every app shown now, with a line saying so."""
        self.enabled = enabled
        if not enabled:
            for app in list(self.shown):
                app.end(t("app_ended_off", server=self.connection.name))

    def close(self) -> None:
        """The connection closes: every app it shows ends, with a line saying so."""
        for app in list(self.shown):
            app.end(t("app_ended_closed", server=self.connection.name))


class ShownApp:
    """One app shown in a cell: its frame, its log, and the answers to its requests."""

    def __init__(self, apps: Apps, tool: dict, resource: AppResource, frame):
        self.apps, self.tool, self.resource, self.frame = apps, tool, resource, frame
        self.log = AppLog(tool=tool["name"])
        self.lines = widgets.VBox(_dom_classes=("nb-elicit-app-log",))
        #: Where the forms and cards of the app's own requests show (under the frame).
        self.asks = widgets.VBox(_dom_classes=("nb-elicit-app-asks",))
        self.box = widgets.VBox([frame, self.asks, self.lines], _dom_classes=("nb-elicit-app",))
        self.view = None  # the call's view, where the app is shown
        self.ended = False
        self._shown_lines = 0
        #: Requests being answered now (see :data:`MAX_IN_FLIGHT`).
        self.in_flight = 0
        #: The views of :meth:`asking_view` whose request is not over yet.
        self._busy: list = []
        frame.on_request(self.answer)

    @property
    def connection(self):
        return self.apps.connection

    def say(self, text: str, kind: str = "info") -> None:
        """A line under the app (plain text: whatever the app sent is escaped)."""
        self._shown_lines += 1
        if self._shown_lines > MAX_LINES:
            return
        line = widgets.HTML(text_html(shorten(text, 500, one_line=True)),
                            _dom_classes=(f"nb-elicit-app-{kind}",))
        self.lines.children = (*self.lines.children, line)

    def end(self, reason: str) -> None:
        """The app ends: its frame is torn down and leaves the cell, and ``reason`` (one line)
        stays there in its place."""
        if self.ended:
            return
        self.ended = True
        with contextlib.suppress(ValueError):
            self.apps.shown.remove(self)
        self.say(reason)
        with contextlib.suppress(Exception):
            self.frame.teardown()
        if self.view is not None:
            self.view.app_ended(self.box, reason)

    def asking_view(self, what: str):
        """A view under the frame for one of the app's requests (its forms, its consent card),
        until :meth:`done_asking`. Of the views whose request is over, the newest few stay (a
        link card shows its link after **Open**); a tool call's view leaves once its models
        close (see :func:`_tools_call`)."""
        from .._ui.call_view import CallView

        view = CallView(self.connection.name, what, show_waiting=False)
        self._busy.append(view)
        self._arrange_asks(extra=view)
        return view

    def done_asking(self, view, drop: bool = False) -> None:
        """The request of ``view`` is over; ``drop``: the view leaves the app's box now."""
        with contextlib.suppress(ValueError):
            self._busy.remove(view)
        self._arrange_asks(without=view if drop else None)

    def _arrange_asks(self, extra=None, without=None) -> None:
        alive = [c for c in self.asks.children if getattr(c, "comm", None) is not None
                 and c is not without]
        over = [c for c in alive if c not in self._busy]
        keep = set(over[-(MAX_ASKS - 1):]) | set(self._busy)
        children = tuple(c for c in alive if c in keep) + ((extra,) if extra is not None else ())
        if children != self.asks.children:
            self.asks.children = children

    async def answer(self, method: str, params: dict) -> dict:
        """One request of the app; errors go back to it as JSON-RPC errors."""
        if self.ended:
            if method in _NOTIFICATIONS:
                return {}  # (nobody to tell)
            raise AppRequestError(-32000, "the app has ended")
        handler = _HANDLERS.get(method)
        if handler is None:
            raise AppRequestError(-32601, f"nb_elicit does not answer {method!r}")
        if self.in_flight >= MAX_IN_FLIGHT:
            raise AppRequestError(-32000, f"Too many requests at once: at most {MAX_IN_FLIGHT}")
        self.in_flight += 1
        try:
            return await handler(self, params if isinstance(params, dict) else {})
        finally:
            self.in_flight -= 1


async def _tools_call(app: ShownApp, params: dict) -> dict:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise AppRequestError(-32602, "tools/call needs a tool name and an arguments object")
    try:
        tool = await app.apps.listed_tool(name, refresh=True)
    except NbElicitError as error:
        raise AppRequestError(-32603, str(error)) from None
    if tool is None:
        raise AppRequestError(-32602, f"{app.connection.name} has no tool {name!r}")
    if "app" not in visibility(tool):
        raise AppRequestError(-32602, f"{name} is not for apps (its visibility is "
                                      f"{list(visibility(tool))})")
    app.log.calls.append(name)
    view = app.asking_view(name)
    try:
        result: ToolResult = await app.apps.call_for_app(name, arguments, view)
    except NbElicitError as error:
        app.say(t("app_called_failed", tool=name, error=str(error)), "warning")
        raise AppRequestError(getattr(error, "code", -32603), str(error)) from None
    finally:
        app.done_asking(view, drop=view.frozen)  # (frozen: its models are closing)
    app.say(t("app_called", tool=name, text=shorten(result.text or "", 200, one_line=True)))
    return _call_tool_result(result)


def _call_tool_result(result: ToolResult) -> dict:
    answer: dict[str, Any] = {"content": result.content, "isError": result.is_error}
    if result.structured is not None:
        answer["structuredContent"] = result.structured
    return answer


async def _resources_read(app: ShownApp, params: dict) -> dict:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise AppRequestError(-32602, "resources/read needs a uri")
    try:
        return await app.connection.read_resource(uri)
    except ServerError as error:
        raise AppRequestError(error.code, error.message) from None


async def _open_link(app: ShownApp, params: dict) -> dict:
    url = params.get("url")
    try:
        checked = check_url(url)
    except InvalidRequest as error:
        app.say(t("app_link_refused", error=str(error)), "warning")
        raise AppRequestError(-32602, str(error)) from None
    view = app.asking_view(t("app_link_what"))
    try:
        opened = await app.apps.ask_to_open(checked, t("app_asks_link", tool=app.log.tool), view)
    finally:
        app.done_asking(view)
    app.say(t("app_link_opened" if opened else "app_link_declined", url=checked.url))
    return {} if opened else {"isError": True}


async def _message(app: ShownApp, params: dict) -> dict:
    if len(app.log.messages) >= MAX_MESSAGES:
        raise AppRequestError(-32000, f"the app sent {MAX_MESSAGES} messages already")
    app.log.messages.append(params)
    app.say(t("app_message", text=_content_text(params.get("content"))))
    return {}


async def _update_model_context(app: ShownApp, params: dict) -> dict:
    text = json.dumps(params, ensure_ascii=False, default=str)
    if len(text) > MAX_CONTEXT_CHARS:
        raise AppRequestError(-32602, f"the model context is {len(text):,} characters; the "
                                      f"limit is {MAX_CONTEXT_CHARS:,}")
    app.log.model_context = params
    app.say(t("app_context", text=_content_text(params.get("content")) or text))
    return {}


async def _display_mode(app: ShownApp, params: dict) -> dict:
    return {"mode": "inline"}


async def _request_teardown(app: ShownApp, params: dict) -> dict:
    app.end(t("app_ended_itself", tool=app.log.tool))
    return {}


async def _log(app: ShownApp, params: dict) -> dict:
    return {}  # (an app's log is its own: not shown, not kept)


def _content_text(content: Any) -> str:
    """The text of an app's content blocks (a list of ``{"type": "text", "text": ...}``)."""
    blocks = content if isinstance(content, list) else [content]
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and isinstance(b.get("text"),
                                                                                 str)]
    return " ".join(texts)


_HANDLERS = {
    "tools/call": _tools_call,
    "resources/read": _resources_read,
    "ui/open-link": _open_link,
    "ui/message": _message,
    "ui/update-model-context": _update_model_context,
    "ui/request-display-mode": _display_mode,
    "ui/notifications/request-teardown": _request_teardown,
    "notifications/message": _log,
}
#: The app's notifications (no answer goes back).
_NOTIFICATIONS = frozenset({"ui/notifications/request-teardown", "notifications/message"})


async def show_app(apps: Apps, tool: dict, view, arguments: dict | None,
                   frame_class=AppFrame):
    """The app of ``tool`` shown in ``view`` (the call's), or None (no app, apps off, nobody
    sees widgets, or the app was refused: the cell says why in one line)."""
    uri = resource_uri(tool)
    if uri is None or not apps.enabled:
        return None
    try:
        resource = await apps.resource(uri)
    except (AppRefused, ServerError) as error:
        view.notice(t("app_refused", error=str(error)), "warning")
        return None
    frame = frame_class(html=resource.html, csp={k: list(v) for k, v in resource.csp.items()},
                        tool=tool, tool_input=arguments or {})
    app = ShownApp(apps, tool, resource, frame)
    app.view = view
    apps.shown.append(app)
    # (the frame's updates, its size and status, come while the call's cell may still run)
    keep_widget_messages_flowing(app.box)
    view.show_app(app.box)
    return app


def deliver(app, result: ToolResult | None, error: BaseException | None = None) -> None:
    """The call ended: its result (or why it failed) goes to the app."""
    if app is None:
        return
    if result is not None:
        app.frame.tool_result = _call_tool_result(result)
        return
    reason = str(error) if error is not None else "cancelled"
    with contextlib.suppress(Exception):
        app.frame.cancelled = shorten(reason, 300, one_line=True) or "cancelled"


