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
- ``ui/download-file``: a consent card with the file's name, type and size; its link shows
  only after **Save** (a linked file is a link, as above);
- ``ui/message`` and ``ui/update-model-context``: kept on the call's result
  (``result.app_messages``, ``result.model_context``) and shown under the app as plain text;
- ``ui/request-display-mode``: inline (the only mode a cell has);
- the notifications ``notifications/message`` (the app's log) and
  ``ui/notifications/request-teardown`` (its frame closes it): taken, and nothing more;
- anything else: -32601.

At most :data:`MAX_IN_FLIGHT` requests of one app are answered at once (the front end bounds
them too); more are refused at once, so a flood costs the kernel nothing but the refusals.
"""

from __future__ import annotations

import base64
import binascii
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
from .._ui.download_card import DownloadCard, SavedFile
from .kernel_compat import keep_widget_messages_flowing

__all__ = ["AppLog", "Apps"]

#: What an app may keep on the call's result: messages, and the size of its model context.
MAX_MESSAGES = 100
MAX_CONTEXT_CHARS = 100_000
#: How many lines an app's log shows (the rest are counted).
MAX_LINES = 30
#: Requests of one app answered at once (as many as the front end lets wait).
MAX_IN_FLIGHT = 16
#: Views of the app's own requests kept under it once their request is over (a link card
#: shows its link after **Open**); those still waiting all stay.
MAX_ASKS = 4
#: The largest file an app may hand over to save.
MAX_DOWNLOAD = 10_000_000


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
        connection = self.connection
        session = await connection._session(connection._tool_eras.get(tool,
                                                                      connection._primary))
        listed = await session.listed_tool(tool)
        if listed is None:
            return None
        return await show_app(self, listed, call.view, arguments)

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

        return await self.ask_person(UrlConsentCard(message, url, server=self.connection.name),
                                     view)

    async def ask_person(self, card, view) -> bool:
        """A consent card (a link, a file) shown in ``view``: whether the person agreed."""
        from .asking import RequestContext, wait_for_person

        connection = self.connection
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
        #: The one line of each tool the app called, and how many times it called it.
        self._calls_of: dict[str, tuple] = {}
        #: The last line, once more lines came than are shown: how many more.
        self._more: widgets.HTML | None = None
        #: Requests being answered now (see :data:`MAX_IN_FLIGHT`).
        self.in_flight = 0
        #: The views of :meth:`asking_view` whose request is not over yet.
        self._busy: list = []
        frame.on_request(self.answer)

    @property
    def connection(self):
        return self.apps.connection

    def said_call(self, tool: str, text: str) -> None:
        """The app called ``tool``: one line per tool, counting the calls (an app that polls
        keeps one line, not one per poll)."""
        count = self._calls_of.get(tool, (None, 0))[1] + 1
        said = (t("app_called", tool=tool, text=text) if count == 1 else
                t("app_called_again", tool=tool, n=count, text=text))
        line = self._calls_of.get(tool, (None, 0))[0]
        if line is None:
            line = widgets.HTML(_dom_classes=("nb-elicit-app-info",))
            self.lines.children = (*self.lines.children, line)
        line.value = text_html(shorten(said, 500, one_line=True))
        self._calls_of[tool] = (line, count)
        if self.view is not None:
            self.view.app_note(shorten(said, 500, one_line=True), key=("call", id(self), tool))

    def say(self, text: str, kind: str = "info") -> None:
        """A line under the app (plain text: whatever the app sent is escaped)."""
        self._shown_lines += 1
        if self._shown_lines > MAX_LINES:
            if self._more is None:
                self._more = widgets.HTML(_dom_classes=("nb-elicit-app-info",))
                self.lines.children = (*self.lines.children, self._more)
            self._more.value = text_html(t("app_lines_more", n=self._shown_lines - MAX_LINES))
            return
        text = shorten(text, 500, one_line=True)
        line = widgets.HTML(text_html(text), _dom_classes=(f"nb-elicit-app-{kind}",))
        self.lines.children = (*self.lines.children, line)
        if self.view is not None:
            self.view.app_note(text)

    def end(self, reason: str) -> None:
        if self.ended:
            return
        self.ended = True
        with contextlib.suppress(ValueError):
            self.apps.shown.remove(self)
        self.say(reason)
        with contextlib.suppress(Exception):
            self.frame.teardown()
        if self.view is not None:
            self.view.app_ended(self.box)

    def asking_view(self, what: str):
        """A view under the frame for one of the app's requests (its forms, its consent card),
        until :meth:`done_asking`."""
        from .._ui.call_view import CallView

        view = CallView(self.connection.name, what, show_waiting=False)
        self._busy.append(view)
        self._arrange_asks(extra=view)
        return view

    def done_asking(self, view) -> None:
        """The request of ``view`` (an :meth:`asking_view`) is over."""
        with contextlib.suppress(ValueError):
            self._busy.remove(view)
        self.drop_finished()

    def drop_finished(self) -> None:
        """The views of the app's finished calls leave the box: each froze, and closes its
        widgets. (A closed widget left among the box's children would break the box: its
        state could no longer be sent, to this page or to one that loads later.) Of the other
        views whose request is over, the newest :data:`MAX_ASKS` stay; a view whose request
        still waits (a card not answered yet) always stays."""
        self._arrange_asks()

    def _arrange_asks(self, extra=None) -> None:
        alive = [c for c in self.asks.children if not c.frozen and c.comm is not None]
        over = [c for c in alive if c not in self._busy]
        keep = {id(c) for c in over[-MAX_ASKS:]} | {id(c) for c in self._busy}
        kept = tuple(c for c in alive if id(c) in keep) + ((extra,) if extra is not None else ())
        if kept != self.asks.children:
            self.asks.children = kept

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
    tools = {t["name"]: t for t in await app.connection.list_tools()}
    tool = tools.get(name)
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
        app.done_asking(view)
    app.said_call(name, shorten(result.text or "", 200, one_line=True))
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


async def _download_file(app: ShownApp, params: dict) -> dict:
    """An embedded file: the download card (nothing saved before **Save**); a linked one
    (``resource_link``): the link card, like ``ui/open-link``."""
    contents = params.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        raise AppRequestError(-32602, "ui/download-file takes one content item in contents")
    item = contents[0]
    if item.get("type") == "resource_link":
        return await _open_link(app, {"url": item.get("uri")})
    try:
        saved = _saved_file(item)
    except ValueError as error:
        app.say(t("app_download_refused", error=str(error)), "warning")
        raise AppRequestError(-32602, str(error)) from None
    card = DownloadCard(t("app_asks_download", tool=app.log.tool), saved,
                        server=app.connection.name)
    view = app.asking_view(t("app_download_what"))
    try:
        saved_it = await app.apps.ask_person(card, view)
    finally:
        app.done_asking(view)
    app.say(t("app_download_saved" if saved_it else "app_download_declined", name=saved.name))
    return {} if saved_it else {"isError": True}


def _saved_file(item: dict) -> SavedFile:
    resource = item.get("resource") if item.get("type") == "resource" else None
    if not isinstance(resource, dict):
        raise ValueError("the file must be an embedded resource or a resource_link")
    uri = resource.get("uri") if isinstance(resource.get("uri"), str) else ""
    name = uri.rstrip("/").rsplit("/", 1)[-1] or "download"
    mime = resource.get("mimeType") if isinstance(resource.get("mimeType"), str) else ""
    if isinstance(resource.get("text"), str):
        data = resource["text"].encode("utf-8", "replace")
    elif isinstance(resource.get("blob"), str):
        if len(resource["blob"]) > MAX_DOWNLOAD * 4 // 3 + 4:
            raise ValueError(f"the file is over {MAX_DOWNLOAD // 1_000_000} MB")
        try:
            data = base64.b64decode(resource["blob"], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("the file's blob is not base64") from None
    else:
        raise ValueError("the file has neither text nor blob")
    if len(data) > MAX_DOWNLOAD:
        raise ValueError(f"the file is over {MAX_DOWNLOAD // 1_000_000} MB")
    return SavedFile(name, mime, data)


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


async def _quietly(app: ShownApp, params: dict) -> dict:
    """A notification nb_elicit takes and does nothing with: the app's log lines (they would
    crowd out the lines that say what the app did), and its request to be closed (its frame
    has closed it already)."""
    return {}


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
    "ui/download-file": _download_file,
    "ui/message": _message,
    "ui/update-model-context": _update_model_context,
    "ui/request-display-mode": _display_mode,
    "notifications/message": _quietly,
    "ui/notifications/request-teardown": _quietly,
}
#: The app's notifications (no answer goes back).
_NOTIFICATIONS = frozenset({"notifications/message", "ui/notifications/request-teardown"})


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


