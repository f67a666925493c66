"""MCP Apps in the cell that called the tool (SEP-1865): read the app, show it next to the call's
result, and answer what the app asks of the host.

A tool whose listing names a ``ui://`` resource (``_meta.ui.resourceUri``) comes with an app.
When it is called where a widget frontend shows the cell, and apps are on for its connection,
the app's resource is read through the same connection (once per connection and URI), checked
(:func:`~nb_elicit._core.apps.app_resource`) and shown in a sandboxed frame
(:class:`~nb_elicit._ui.app_frame.AppFrame`). The tool's arguments and then its result go to
the app as they arrive.

What the app asks is answered here, and only for its own connection:

- ``tools/call``: a tool of the same server whose visibility includes ``"app"``, as the
  session's listing says (listed once, and again when the server says its list changed); its
  forms show under the app, in the app's one view of its requests, and a line says what it
  returned: nothing else is displayed for it;
- ``resources/read``: the same server;
- ``ui/open-link``: the same consent card as a URL-mode request (the host in large type; the
  link is opened only after **Open**), on the same way (mute, the respond policy, which never
  consents, the rate limit, the backlog: :func:`~.asking.ask_consent`); a URL nb_elicit refuses
  is an error, a link not opened ``{"isError": true}``;
- ``ui/download-file``: a consent card with the file's name, type and size, on that way too;
  its link shows only after **Save** (a linked file is a link, as above);
- ``ui/message`` and ``ui/update-model-context``: kept on the call's result
  (``result.app_messages``, ``result.model_context``) and shown under the app as plain text;
- ``ui/request-display-mode``: taken; the frame's front end answers the app with the mode in
  effect (inline, or fullscreen once the person clicked the frame's button, which the request
  lights up), and Python's answer, inline, goes nowhere else;
- the notification ``notifications/message`` (the app's log): taken, and nothing more;
- ``ui/notifications/request-teardown``: the app ends;
- anything else: ``METHOD_NOT_FOUND``.

An app whose resource asks for permissions (``_meta.ui.permissions``: geolocation,
clipboard-write; camera and microphone are never offered, and the card, or a line of the call
when it asks for nothing else, says so) first shows a consent card under its frame
(:class:`~nb_elicit._ui.permission_card.PermissionCard`), on the same way as a link card, and
its frame gets no HTML until the card is answered: then exactly what the person allowed, or
nothing (declined, dismissed, muted, a respond policy, nobody to see it). The card's outcome is
told and recorded like a link card's (the cell, ``%mcp history``).

An app ends (:meth:`ShownApp.end`: its widgets close, and its place in the cell becomes a line
saying why) when it asks to, when its frame is torn down or asked for its HTML a second time (a
reloaded page: the HTML goes to one page, once), past :data:`MAX_LIVE_APPS` apps of its
connection (the oldest ends), when apps are turned off and when its connection closes.

At most :data:`MAX_IN_FLIGHT` requests of one app are answered at once (the front end bounds
them too); more are refused at once, so a flood costs the kernel nothing but the refusals.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import dataclasses
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import ipywidgets as widgets

from .._core.apps import (
    NOTIFICATIONS,
    AppRefused,
    AppResource,
    app_resource,
    resource_uri,
    visibility,
)
from .._core.errors import InvalidRequest, NbElicitError, ServerError
from .._core.i18n import t
from .._core.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, SERVER_ERROR
from .._core.notices import NoticeEntry, NoticeKind
from .._core.outcome import Consent, Outcome
from .._core.records.transcript import Asked
from .._core.text import shorten, visible
from .._core.types import ToolResult
from .._core.url import check_url
from .._ui.app_frame import AppFrame, AppRequestError
from .._ui.call_view import CallView
from .._ui.download_card import DownloadCard, SavedFile
from .._ui.prompt import PromptWidget
from . import kernel_compat
from .calls import current_call
from .kernel_compat import (
    Frontend,
    frontend,
    keep_widget_messages_flowing,
)

__all__ = ["AppHost", "AppLog", "Apps"]

#: What an app may keep on the call's result: messages, and the size of its model context.
MAX_MESSAGES = 100
MAX_CONTEXT_CHARS = 100_000
#: Requests of one app answered at once (as many as the front end lets wait).
MAX_IN_FLIGHT = 16
#: The app's forms and cards kept under it once answered (a link card shows its link after
#: **Open**); those still waiting all stay.
MAX_ASKS = 4
#: The largest file an app may hand over to save.
MAX_DOWNLOAD = 10_000_000
#: Apps of one connection live at once; a newer one ends the oldest.
MAX_LIVE_APPS = 4


@dataclass
class AppLog:
    """What an app said and did, kept on the call's result (``result.app``)."""

    tool: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    model_context: dict[str, Any] | None = None
    calls: list[str] = field(default_factory=list)


class AppHost(Protocol):
    """What an app's requests need of whoever shows it: a connection's runner
    (:class:`~.runner.ConnectionHost`) or a framework's session
    (:class:`~.framework_apps.FrameworkSession`). The host answers only for its own server:
    the tools it lists, a call of one of them, a read of its resources, and the consent cards
    of its apps, asked the way every request of that server goes."""

    @property
    def name(self) -> str:
        """The server, as its forms, cards and lines name it."""

    async def listed_tool(self, tool: str) -> dict[str, Any] | None:
        """``tool`` as the server lists it (None: it lists no such tool)."""

    async def call_for_app(self, tool: str, arguments: dict[str, Any],
                           view: CallView) -> ToolResult:
        """A call an app makes: its forms show in ``view`` (the app's view of its requests,
        kept: nothing is displayed, frozen or closed for the call), and no second app is shown
        for it."""

    async def read_for_app(self, uri: str, view: CallView | None) -> dict[str, Any]:
        """``resources/read`` for an app: in ``view`` (the app's view of its requests), or,
        None, for the app's own resource before it shows; nothing is displayed for it."""

    async def ask_consent(self, message: str, target: str, make_card: Callable[[], PromptWidget],
                          view: CallView, consent: Consent = Consent.URL) -> Outcome:
        """A consent card of an app (to open a link, save a file, grant permissions) in
        ``view``, the way a server's URL request goes (see :func:`~.asking.ask_consent`)."""


class Apps:
    """The apps of one host (see :class:`AppHost`): whether they are shown, and their
    resources, read once."""

    def __init__(self, host: AppHost, enabled: bool = True):
        self.host = host
        self.enabled = enabled
        self._resources: dict[str, AppResource] = {}
        self.shown: list[ShownApp] = []

    async def resource(self, uri: str) -> AppResource:
        if uri not in self._resources:
            read = await self.host.read_for_app(uri, None)
            self._resources[uri] = app_resource(uri, read)
        return self._resources[uri]

    async def show_for(self, tool: str, arguments: dict[str, Any] | None) -> ShownApp | None:
        """The app of ``tool`` in the current call's cell, when it has one and it can show."""
        call = current_call.get()
        if (call is None or call.quiet or not self.enabled
                or not kernel_compat.widget_frontend_attached()):
            return None
        if frontend() is Frontend.VOILA:  # (its frame never starts there: the result as text)
            return None
        listed = await self.host.listed_tool(tool)
        if listed is None:
            return None
        return await show_app(self, listed, call.view, arguments)

    async def with_app(self, tool: str, arguments: dict[str, Any] | None,
                       call: Callable[[], Awaitable[ToolResult]]) -> ToolResult:
        """``call()``, a call of ``tool`` that a person started in a cell, with the app of
        ``tool`` (when it has one and it can show) shown in that call's cell first, and the
        call's result (or why it failed) delivered to it; the result keeps the app's log. The
        calls an app makes itself come through :meth:`AppHost.call_for_app`, which shows no
        app."""
        app = await self.show_for(tool, arguments)
        try:
            result = await call()
        except BaseException as error:
            deliver(app, None, error)
            raise
        deliver(app, result)
        return dataclasses.replace(result, app=app.log) if app is not None else result

    def set_enabled(self, enabled: bool) -> None:
        """``%mcp apps on|off``: off ends every app shown now, with a line saying so."""
        self.enabled = enabled
        if not enabled:
            for app in list(self.shown):
                app.end(t("app_ended_off", server=self.host.name))

    def close(self) -> None:
        """The connection closes: every app it shows ends, with a line saying so."""
        for app in list(self.shown):
            app.end(t("app_ended_closed", server=self.host.name))

    def ended(self, app: ShownApp) -> None:
        """``app`` ended (it has left :attr:`shown`). A connection's apps live as long as the
        connection; a framework session's are let go with its last app."""


class ShownApp:
    """One app shown in a cell: its frame, its log, and the answers to its requests."""

    def __init__(self, apps: Apps, tool: dict[str, Any], resource: AppResource,
                 frame: AppFrame):
        self.apps, self.tool, self.resource, self.frame = apps, tool, resource, frame
        self.log = AppLog(tool=tool["name"])
        #: Where the view of the app's own requests shows, once one needs it (under the frame).
        self.asks = widgets.VBox(_dom_classes=("nb-elicit-app-asks",))
        self._requests_view: CallView | None = None
        self.box = widgets.VBox([frame, self.asks], _dom_classes=("nb-elicit-app",))
        #: The call's view, where the app is shown (and its log: see say).
        self.view: CallView | None = None
        #: The call's line that says the app is shown (it says why it ended, later).
        self.shown_line: NoticeEntry | None = None
        self.ended = False
        #: The one line of each tool the app called, and how many times it called it; the
        #: one line of its model context, and how many times it set it.
        self._lines_of: dict[object, tuple[NoticeEntry | None, int]] = {}
        #: Requests being answered now (see :data:`MAX_IN_FLIGHT`).
        self.in_flight = 0
        #: The permissions the person granted the app (keys of ``PERMISSIONS``).
        self.granted: tuple[str, ...] = ()
        #: The consent card for its permissions, while it is asked (see :meth:`ask_permissions`).
        self._permissions_task: asyncio.Task[tuple[str, ...]] | None = None
        frame.on_request(self.answer)
        frame.on_end(self._frame_ended)

    @property
    def host(self) -> AppHost:
        """Whoever answers the app's requests (its connection, or a framework's session)."""
        return self.apps.host

    def said_call(self, tool: str) -> None:
        """The app called ``tool``: one line per tool, counting the calls (an app that polls
        keeps one line, not one per poll). What the tool returned went to the app, which shows
        it: the line does not say it again."""
        self.say_once(("call", tool), lambda n: (
            t("app_called", tool=tool) if n == 1 else t("app_called_again", tool=tool, n=n)))

    def say_once(self, key: object, text: Callable[[int], str],
                 kind: NoticeKind = NoticeKind.INFO) -> None:
        """One line for every event of ``key``: ``text(n)`` says the n-th, in the first one's
        place in the call's log."""
        entry, count = self._lines_of.get(key, (None, 0))
        count += 1
        said = visible(shorten(text(count), 500, one_line=True))
        if self.view is None:
            return
        if entry is None:
            entry = self.view.notice(said, kind)
        else:
            self.view.update_notice(entry, said)
        self._lines_of[key] = (entry, count)

    def say(self, text: str, kind: NoticeKind = NoticeKind.INFO,
            asked: Asked | None = None) -> None:
        """A line of the app in the call's log (plain text: whatever the app sent is escaped,
        and its invisible characters written as escapes), told once, in time order, by the
        call's view and its transcript; ``asked``: the request it answered, as the transcript
        tells it."""
        if self.view is not None:
            self.view.notice(visible(shorten(text, 500, one_line=True)), kind, asked)

    def end(self, reason: str) -> None:
        """The app ends: its requests still open are withdrawn, the front end is told, its
        widgets close, and its place in the cell becomes the line ``reason`` (which the call's
        transcript keeps too)."""
        if self.ended:
            return
        self.ended = True
        with contextlib.suppress(ValueError):
            self.apps.shown.remove(self)
        self.apps.ended(self)
        if self._permissions_task is not None:
            self._permissions_task.cancel()
        with contextlib.suppress(Exception):
            self.frame.teardown()
        self.frame.cancel_requests()
        if self._requests_view is not None:
            self._requests_view.finish()
        if self.view is not None:
            self.view.app_ended(self.box, reason, self.shown_line)

    def _frame_ended(self, why: str) -> None:
        """The frame's front end ended the app (``torn down``: it closed or left its page;
        ``shown again``: a second page asked for the HTML, which goes to one page only)."""
        self.end(t("app_ended_elsewhere" if why == "shown again" else "app_ended_frame"))

    @property
    def requests_view(self) -> CallView:
        """The one view, under the frame, of the app's own requests: the forms its calls bring
        and its consent cards. Made when the first request needs it; never displayed of its
        own (it is in the app's box), kept while the app lives."""
        if self._requests_view is None:
            self._requests_view = CallView(self.host.name, f"{self.log.tool} · app",
                                           show_waiting=False)
            self.asks.children = (self._requests_view,)
            if self.view is not None:
                self.view.apps_ask()  # (the keyboard for what it asks)
        return self._requests_view

    def ask_permissions(self) -> None:
        """Ask the person for the permissions the app's resource asks for, then start the app
        with what they allowed (see :func:`ask_permissions`); runs on its own."""
        task = asyncio.get_running_loop().create_task(ask_permissions(self))
        self._permissions_task = task

    def done_asking(self) -> None:
        """A request of the app is over: of its answered forms and cards, the newest
        :data:`MAX_ASKS` stay; one still waiting always stays."""
        if self._requests_view is not None:
            self._requests_view.drop_answered(MAX_ASKS)

    async def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request of the app; errors go back to it as JSON-RPC errors."""
        if self.ended:
            if method in NOTIFICATIONS:
                return {}  # (nobody to tell)
            raise AppRequestError(SERVER_ERROR, "the app has ended")
        handler = _HANDLERS.get(method)
        if handler is None:
            raise AppRequestError(METHOD_NOT_FOUND, f"nb_elicit does not answer {method!r}")
        if self.in_flight >= MAX_IN_FLIGHT:
            raise AppRequestError(SERVER_ERROR,
                                  f"Too many requests at once: at most {MAX_IN_FLIGHT}")
        self.in_flight += 1
        try:
            return await handler(self, params if isinstance(params, dict) else {})
        finally:
            self.in_flight -= 1


async def _tools_call(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise AppRequestError(INVALID_PARAMS,
                              "tools/call needs a tool name and an arguments object")
    try:
        tool = await app.host.listed_tool(name)
    except NbElicitError as error:  # (the listing failed: one line, as the call's would)
        raise AppRequestError(getattr(error, "code", INTERNAL_ERROR), str(error)) from None
    if tool is None:
        raise AppRequestError(INVALID_PARAMS, f"{app.host.name} has no tool {name!r}")
    if "app" not in visibility(tool):
        raise AppRequestError(INVALID_PARAMS, f"{name} is not for apps (its visibility is "
                                      f"{list(visibility(tool))})")
    app.log.calls.append(name)
    try:
        result: ToolResult = await app.host.call_for_app(name, arguments, app.requests_view)
    except NbElicitError as error:
        app.say(t("app_called_failed", tool=name, error=str(error)), NoticeKind.WARNING)
        raise AppRequestError(getattr(error, "code", INTERNAL_ERROR), str(error)) from None
    finally:
        app.done_asking()
    app.said_call(name)
    return _call_tool_result(result)


def _call_tool_result(result: ToolResult) -> dict[str, Any]:
    answer: dict[str, Any] = {"content": result.content, "isError": result.is_error}
    if result.structured is not None:
        answer["structuredContent"] = result.structured
    return answer


async def _resources_read(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise AppRequestError(INVALID_PARAMS, "resources/read needs a uri")
    try:
        return await app.host.read_for_app(uri, app.requests_view)
    except ServerError as error:
        raise AppRequestError(error.code, error.message) from None
    except NbElicitError as error:  # (its server gone, its session failed: one line)
        raise AppRequestError(INTERNAL_ERROR, str(error)) from None


async def _open_link(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    url = params.get("url")
    try:
        checked = check_url(url)
    except InvalidRequest as error:
        app.say(t("app_link_refused", error=str(error)), NoticeKind.WARNING)
        raise AppRequestError(INVALID_PARAMS, str(error)) from None
    from .._ui.url_card import UrlConsentCard

    message = t("app_asks_link", tool=app.log.tool)
    card = _Made(lambda: UrlConsentCard(message, checked, server=app.host.name))
    try:
        outcome = await app.host.ask_consent(message, checked.url, card, app.requests_view)
    finally:
        app.done_asking()
    return _consented(app, outcome, card, "app_link_opened", "app_link_declined",
                      url=checked.url)


class _Made:
    """A consent card's maker that keeps the card it made."""

    def __init__(self, make: Callable[[], PromptWidget]):
        self.make: Callable[[], PromptWidget] = make
        self.card: PromptWidget | None = None

    def __call__(self) -> PromptWidget:
        self.card = self.make()
        return self.card


def _consented(app: ShownApp, outcome: Outcome, made: _Made, yes: str, no: str,
               keep_agreed: bool = False, **names: str) -> dict[str, Any]:
    """What the app hears of its consent card: ``{}`` once the person agreed; else
    ``{"isError": true}``. What the person chose goes to the call's log, once: the card
    answered leaves the app's view of its requests (the log tells it, with the link to open
    once they agreed), and the line says it as a plain fact, a note. (What nb_elicit answered
    by itself, muted or past the rate limit, is said by the request's own notice.)
    ``keep_agreed``: a card the person agreed to stays (a file's: its link holds the file,
    which the log cannot)."""
    agreed = outcome.answer is not None and outcome.answer.action == "accept"
    if outcome.by_person:
        card = made.card
        asked = card.outcome() if card is not None else None
        app.say(t(yes if agreed else no, **names), NoticeKind.INFO, asked)
        if card is not None and not (agreed and keep_agreed):
            app.requests_view.drop([card])
    return {} if agreed else {"isError": True}


async def _download_file(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    """An embedded file: the download card (nothing saved before **Save**); a linked one
    (``resource_link``): the link card, like ``ui/open-link``."""
    contents = params.get("contents")
    if not isinstance(contents, list) or len(contents) != 1 or not isinstance(contents[0], dict):
        raise AppRequestError(INVALID_PARAMS, "ui/download-file takes one content item in contents")
    item = contents[0]
    if item.get("type") == "resource_link":
        return await _open_link(app, {"url": item.get("uri")})
    try:
        saved = _saved_file(item)
    except ValueError as error:
        app.say(t("app_download_refused", error=str(error)), NoticeKind.WARNING)
        raise AppRequestError(INVALID_PARAMS, str(error)) from None
    message = t("app_asks_download", tool=app.log.tool)
    card = _Made(lambda: DownloadCard(message, saved, server=app.host.name))
    try:
        outcome = await app.host.ask_consent(message, saved.name, card, app.requests_view,
                                             Consent.FILE)
    finally:
        app.done_asking()
    return _consented(app, outcome, card, "app_download_saved", "app_download_declined",
                      keep_agreed=True, name=saved.name)


def _saved_file(item: dict[str, Any]) -> SavedFile:
    resource = item.get("resource") if item.get("type") == "resource" else None
    if not isinstance(resource, dict):
        raise ValueError("the file must be an embedded resource or a resource_link")
    uri = found if isinstance(found := resource.get("uri"), str) else ""
    name = uri.rstrip("/").rsplit("/", 1)[-1] or "download"
    mime = found if isinstance(found := resource.get("mimeType"), str) else ""
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


async def ask_permissions(app: ShownApp) -> tuple[str, ...]:
    """The permission card, under the app's frame, on the way a link card goes; the frame then
    gets what the person ticked and pressed **Allow** for, or nothing. Returns what it got."""
    from .._ui.permission_card import PermissionCard, permission_names

    asked = app.resource.permissions
    message = t("app_asks_permissions", tool=app.log.tool)
    granted: tuple[str, ...] = ()
    card = _Made(lambda: PermissionCard(message, asked, server=app.host.name,
                                        not_offered=app.resource.not_offered))
    try:
        outcome = await app.host.ask_consent(message, permission_names(asked), card,
                                             app.requests_view, Consent.PERMISSION)
        answer = outcome.answer
        if answer is not None and answer.action == "accept":
            chosen = (answer.content or {}).get("granted") or ()
            granted = tuple(key for key in asked if key in chosen)
        if outcome.by_person:
            # (said once: by the call's log, which keeps it; the card answered leaves, as a
            # link card does)
            app.say(t("app_permissions_granted", names=permission_names(granted)) if granted
                    else t("app_permissions_none"))
            if card.card is not None:
                app.requests_view.drop([card.card])
    finally:
        app.done_asking()
        app.granted = granted
        if not app.ended:
            app.frame.release(granted)
    return granted


async def _message(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    if len(app.log.messages) >= MAX_MESSAGES:
        raise AppRequestError(SERVER_ERROR, f"the app sent {MAX_MESSAGES} messages already")
    app.log.messages.append(params)
    app.say(t("app_message", text=_content_text(params.get("content"))))
    return {}


async def _update_model_context(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(params, ensure_ascii=False, default=str)
    if len(text) > MAX_CONTEXT_CHARS:
        raise AppRequestError(INVALID_PARAMS, f"the model context is {len(text):,} characters; the "
                                      f"limit is {MAX_CONTEXT_CHARS:,}")
    app.log.model_context = params
    app.say_once("context", lambda n: t("app_context") if n == 1 else
                 t("app_context_again", n=n))
    return {}


async def _display_mode(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    """Inline, as far as Python knows: the front end, which alone sees the person's click for
    full screen, answers the app with the mode in effect."""
    return {"mode": "inline"}


async def _quietly(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    """A notification nb_elicit takes and does nothing with: the app's log lines (they would
    crowd out the lines that say what the app did)."""
    return {}


async def _teardown(app: ShownApp, params: dict[str, Any]) -> dict[str, Any]:
    """The app asks to be closed (its frame has closed it already): it ends."""
    app.end(t("app_ended_asked"))
    return {}


def _content_text(content: object) -> str:
    """The text of an app's content blocks (a list of ``{"type": "text", "text": ...}``)."""
    blocks = content if isinstance(content, list) else [content]
    texts = [text for b in blocks
             if isinstance(b, dict) and isinstance(text := b.get("text"), str)]
    return " ".join(texts)


#: The handler of each method of :data:`~nb_elicit._core.apps.APP_METHODS`.
_HANDLERS = {
    "tools/call": _tools_call,
    "resources/read": _resources_read,
    "ui/open-link": _open_link,
    "ui/download-file": _download_file,
    "ui/message": _message,
    "ui/update-model-context": _update_model_context,
    "ui/request-display-mode": _display_mode,
    "notifications/message": _quietly,
    "ui/notifications/request-teardown": _teardown,
}


async def show_app(apps: Apps, tool: dict[str, Any], view: CallView,
                   arguments: dict[str, Any] | None,
                   frame_class: type[AppFrame] = AppFrame) -> ShownApp | None:
    """The app of ``tool`` shown in ``view`` (the call's), or None (no app, apps off, nobody
    sees widgets, or the app was refused: the cell says why in one line)."""
    uri = resource_uri(tool)
    if uri is None or not apps.enabled:
        return None
    try:
        resource = await apps.resource(uri)
    except (AppRefused, ServerError) as error:
        view.notice(t("app_refused", error=str(error)), NoticeKind.WARNING)
        return None
    while len(apps.shown) >= MAX_LIVE_APPS:  # (the oldest ends: its place says so)
        apps.shown[0].end(t("app_ended_cap", most=MAX_LIVE_APPS, server=apps.host.name))
    frame = frame_class(html=resource.html, csp=resource.csp,
                        tool=tool, tool_input=arguments or {}, held=bool(resource.permissions))
    app = ShownApp(apps, tool, resource, frame)
    app.view = view
    apps.shown.append(app)
    # (the frame's updates, its size and status, come while the call's cell may still run)
    keep_widget_messages_flowing(app.box)
    app.shown_line = view.show_app(app.box)
    if resource.permissions:
        app.ask_permissions()
    elif resource.not_offered:  # (no card: nothing it asked for can be offered)
        from .._ui.permission_card import permission_names

        app.say(t("app_permissions_not_offered", names=permission_names(resource.not_offered)))
    return app


def deliver(app: ShownApp | None, result: ToolResult | None,
            error: BaseException | None = None) -> None:
    """The call ended: its result (or why it failed) goes to the app."""
    if app is None:
        return
    if result is not None:
        app.frame.tool_result = _call_tool_result(result)
        return
    reason = str(error) if error is not None else "cancelled"
    with contextlib.suppress(Exception):
        app.frame.cancelled = shorten(reason, 300, one_line=True) or "cancelled"


