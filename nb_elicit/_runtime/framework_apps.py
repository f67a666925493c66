"""An MCP App that a framework's tool call came with, in the cell: ``nb_elicit.show_app(...)``.

    result = await agent.run("What time is it?")
    for part in result.new_messages()[-2].parts:                   # pydantic-ai
        await nb_elicit.show_app(part, toolset)
    await nb_elicit.show_app(widget, mcp_session)                  # ADK's UiWidget

The app is shown through the same frame and host as a connection's
(:func:`~.apps.show_app`: the sandbox, its Content Security Policy, the consent cards), in the
cell that runs. What the app asks of its server goes through the framework's own session
(``via``): pydantic-ai's ``MCPToolset`` (``call_tool_for_app``, ``read_resource_for_app``), a
FastMCP ``Client``, or the SDK's ``Client``/``ClientSession`` (ADK's and others' sessions).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .._core.errors import NbElicitError
from .._core.i18n import t
from .._core.notices import NoticeKind
from .._core.outcome import Consent, Outcome
from .._core.text import shorten
from .._core.types import ToolResult
from .._mcp.errors import map_request_errors
from .._mcp.hooks import wire
from .._ui.call_view import CallView
from .._ui.prompt import PromptWidget
from . import kernel_compat
from .apps import Apps, ShownApp, deliver
from .apps import show_app as show_in_view
from .asking import RequestContext, ask_consent
from .hooks import Asker
from .kernel_compat import in_running_cell, shows_display_updates
from .state import kernel_state

__all__ = ["AppRecord", "FrameworkSession", "Via", "app_record", "show_app"]


class AppToolset(Protocol):
    """What nb_elicit reads of pydantic-ai's ``MCPToolset`` (``client``: its SDK client, which
    lists the tools)."""

    client: SdkSession

    async def call_tool_for_app(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...

    async def read_resource_for_app(self, uri: str) -> dict[str, Any]: ...


class FastMcpClient(Protocol):
    """What nb_elicit reads of FastMCP's ``Client``: its requests that answer in the SDK's
    types."""

    async def call_tool_mcp(self, name: str, arguments: dict[str, Any]) -> object: ...

    async def read_resource_mcp(self, uri: str) -> object: ...

    async def list_tools(self) -> object: ...


class SdkSession(Protocol):
    """What nb_elicit reads of the SDK's ``Client`` or ``ClientSession`` (ADK's and others'
    sessions); what they answer, the SDK's models, goes through :func:`~.._mcp.hooks.wire`."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> object: ...

    async def read_resource(self, uri: str) -> object: ...

    async def list_tools(self) -> object: ...


#: A framework's session that an app's requests go through (``via``), told apart by the
#: methods it has.
Via = AppToolset | FastMcpClient | SdkSession


class AppRecord:
    """What a framework handed over about one call with an app: the tool, the ``ui://`` URI,
    the arguments and (when it says) the result, in the wire's shape."""

    def __init__(self, tool: str, resource_uri: str, arguments: dict[str, Any],
                 result: dict[str, Any] | None):
        self.tool, self.resource_uri = tool, resource_uri
        self.arguments, self.result = arguments, result

    def listing(self) -> dict[str, Any]:
        """The tool as a listing names its app."""
        return {"name": self.tool, "_meta": {"ui": {"resourceUri": self.resource_uri}}}


def app_record(app: object, tool: str | None = None) -> AppRecord:
    """``app`` as an :class:`AppRecord`: pydantic-ai's ``ToolReturnPart`` (or its
    ``metadata["mcp_app"]``), or ADK's ``UiWidget`` (``provider="mcp"``, its ``payload``), or
    either as a dict. ValueError (one line) for anything else."""
    metadata = getattr(app, "metadata", None)
    if isinstance(metadata, dict) and isinstance(metadata.get("mcp_app"), dict):
        tool = tool or getattr(app, "tool_name", None)
        app = metadata["mcp_app"]
    payload = getattr(app, "payload", None)
    if isinstance(payload, dict):
        provider = getattr(app, "provider", "mcp")
        if provider != "mcp":
            raise ValueError(f"show_app shows MCP Apps; this widget's provider is {provider!r}")
        app = payload
    if not isinstance(app, dict):
        raise ValueError("show_app takes pydantic-ai's ToolReturnPart (or its "
                         "metadata['mcp_app']) or ADK's UiWidget")
    uri = app.get("resource_uri") or app.get("resourceUri")
    tool = tool or app.get("tool") or app.get("tool_name")
    arguments = app.get("tool_input", app.get("tool_args")) or {}
    result = app.get("result", app.get("tool_result"))
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        raise ValueError("the app record names no ui:// resource (resource_uri)")
    if not isinstance(tool, str) or not tool:
        raise ValueError("the app record names no tool: pass tool='NAME'")
    if not isinstance(arguments, dict):
        raise ValueError("the app record's arguments are not an object")
    return AppRecord(tool, uri, arguments, result if isinstance(result, dict) else None)


class FrameworkSession:
    """The host of the apps shown through a framework's session ``via``
    (:class:`~.apps.AppHost`): what an app asks of its server (its tools, its resources) is
    sent through ``via``; its consent cards go the way every request of that label goes.
    Whatever the framework's session raises leaves as one line (:meth:`answering`)."""

    def __init__(self, asker: Asker, via: Via):
        #: Who asks: the label the person gave (``server=``), else the server's claim.
        self.asker = asker
        self.name = asker.server
        self.via = via
        self.guard = asker.guard
        self._listing: dict[str, dict[str, Any]] | None = None

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """Inside: a failure of the framework's session leaves as nb_elicit's exception, one
        line (an SDK's error as the error table says, :func:`~.._mcp.errors.map_request_errors`;
        anything else as :class:`NbElicitError` naming the session and the failure), never
        with the framework's traceback; a cancel goes through as it is."""
        try:
            with map_request_errors():
                yield
        except NbElicitError:
            raise
        except Exception as error:  # noqa: BLE001 - any framework's failure, as one line
            said = shorten(str(error), 300, one_line=True)
            kind = type(error).__name__
            raise NbElicitError(t("framework_session_failed", server=self.name,
                                  error=f"{kind}: {said}" if said else kind)) from None

    async def read_resource(self, uri: str) -> dict[str, Any]:
        via = self.via
        with self.answering():
            if hasattr(via, "read_resource_for_app"):  # pydantic-ai's MCPToolset
                return await via.read_resource_for_app(uri)
            read: dict[str, Any]  # (the wire's shape of a ReadResourceResult)
            if hasattr(via, "read_resource_mcp"):  # FastMCP's Client
                read = wire(await via.read_resource_mcp(uri))
                return read
            read = wire(await via.read_resource(uri))  # the SDK's Client or ClientSession
            return read

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        via = self.via
        with self.answering():
            if hasattr(via, "call_tool_for_app"):
                answer = await via.call_tool_for_app(name, arguments)
            elif hasattr(via, "call_tool_mcp"):
                answer = wire(await via.call_tool_mcp(name, arguments))
            else:
                answer = wire(await via.call_tool(name, arguments))
        return tool_result(answer)

    async def list_tools(self) -> list[dict[str, Any]]:
        via = self.via
        client = getattr(via, "client", None) if hasattr(via, "call_tool_for_app") else via
        with self.answering():
            # (a toolset without its client fails here, as one line)
            listed = await client.list_tools()  # type: ignore[union-attr]
        tools: list[dict[str, Any]] = wire(getattr(listed, "tools", listed))
        return tools

    # -- as the host of its apps ----------------------------------------------------------

    async def listed_tool(self, tool: str) -> dict[str, Any] | None:
        """``tool`` as the framework's session lists it: listed once, and again when the app
        names a tool the last listing lacked (a framework tells of no list change)."""
        if self._listing is None or tool not in self._listing:
            self._listing = {t["name"]: t for t in await self.list_tools()
                             if isinstance(t, dict) and isinstance(t.get("name"), str)}
        return self._listing.get(tool)

    async def call_for_app(self, tool: str, arguments: dict[str, Any],
                           view: CallView) -> ToolResult:
        return await self.call_tool(tool, arguments)

    async def read_for_app(self, uri: str, view: CallView | None) -> dict[str, Any]:
        return await self.read_resource(uri)

    async def ask_consent(self, message: str, target: str, make_card: Callable[[], PromptWidget],
                          view: CallView, consent: Consent = Consent.URL) -> Outcome:
        asker = self.asker
        return await ask_consent(RequestContext(asker.server, view, asker.guard,
                                                named=asker.named),
                                 message, target, make_card, consent)


class FrameworkApps(Apps):
    """The apps shown through one framework's session (``session``, their host), let go with
    the last of them."""

    def __init__(self, session: FrameworkSession):
        super().__init__(session)
        self.session = session

    def ended(self, app: ShownApp) -> None:
        """An app of this session ended: once none lives, the session is let go, with the
        resources read through it."""
        if not self.shown:
            _forget(self)


def tool_result(answer: object) -> ToolResult:
    """A ``CallToolResult`` in the wire's shape as a :class:`ToolResult`."""
    if not isinstance(answer, dict):
        return ToolResult(content=[], is_error=True)
    content = answer.get("content")
    return ToolResult(content=[b for b in content if isinstance(b, dict)]
                      if isinstance(content, list) else [],
                      structured=answer.get("structuredContent"),
                      is_error=bool(answer.get("isError")))


def _apps_of(via: Via, asker: Asker) -> FrameworkApps:
    """The apps of the session ``via``: those of its apps still living, or new ones.

    The kernel's owner keeps the apps of each framework session one of whose apps lives (its
    resources read once meanwhile), found by the session object itself: a session is let go,
    and the HTML read through it, when its last app ends (or none could be shown), so that
    nothing here outlives the apps on screen."""
    live = kernel_state().framework_apps
    for apps in live:
        if apps.session.via is via:
            return apps
    apps = FrameworkApps(FrameworkSession(asker, via))
    live.append(apps)
    return apps


def _forget(apps: FrameworkApps) -> None:
    with contextlib.suppress(ValueError):
        kernel_state().framework_apps.remove(apps)


async def show_app(app: object, via: Via, *, tool: str | None = None,
                   server: str | None = None) -> ShownApp | None:
    """Show the MCP App of a framework's tool call in the running cell; the app's requests go
    through ``via``, the framework's session (pydantic-ai's ``MCPToolset``, a FastMCP
    ``Client``, the SDK's ``Client`` or ``ClientSession``). ``server`` labels it (default: the
    session's server name, shown as the server's claim, which selects no policy set for a
    name). Returns the shown app, or None where it cannot show (no widget
    frontend; an app refused: the cell says why in one line)."""
    record = app_record(app, tool)
    # (a name the person gives labels it; the server's own name is only its claim)
    asker = Asker.labelled(server) if server else Asker.unlabelled(via, _server_name(via), "app")
    cell = in_running_cell()
    # Background work: a task only to run in the cell's context; awaited here.
    return await cell.run(asyncio.get_running_loop().create_task, _show(record, via, asker))


async def _show(record: AppRecord, via: Via, asker: Asker) -> ShownApp | None:
    """In the running cell's context: the view, the app under it, its result."""
    name = asker.server
    if not kernel_compat.widget_frontend_attached():
        print(t("app_not_shown_headless", server=name, tool=record.tool))
        return None
    view = CallView(name, record.tool, show_waiting=False)
    view.show(keyboard=False, in_place=not shows_display_updates())
    apps = _apps_of(via, asker)
    try:
        shown = await show_in_view(apps, record.listing(), view, record.arguments)
    except Exception as error:  # noqa: BLE001 - the session failed to read it: one line
        view.notice(t("app_refused", error=shorten(str(error) or repr(error), 300)),
                    NoticeKind.WARNING)
        shown = None
    finally:
        if not apps.shown:  # (none shown: nothing to keep the session for)
            _forget(apps)
    result = tool_result(record.result) if record.result is not None else None
    if shown is not None and result is not None:
        deliver(shown, result)
    if result is not None:
        view.show_result(result, render=not view.can_freeze())
    view.finish()
    view.freeze_when_answered()
    return shown


def _server_name(via: object) -> str | None:
    for holder in (via, getattr(via, "client", None), getattr(via, "session", None)):
        info = getattr(holder, "server_info", None) if holder is not None else None
        name = getattr(info, "name", None)
        if isinstance(name, str) and name.strip():
            return shorten(name, 60, one_line=True)  # (a claim: Asker shows it escaped)
    return None
