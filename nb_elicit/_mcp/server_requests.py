"""The seam between a session and its connection: what a server asks of the client, and what
the client must hear of it (:class:`ServerRequests`), and the SDK's callbacks that pass them on
(:class:`Listener`).

A :class:`~.session.ServerSession` is given its connection's :class:`ServerRequests` when it is
made, as the SDK's ``Client`` is given its callbacks (its ``ElicitationFnT`` is a Protocol too):
nothing is plugged in later, and a session never runs without someone to answer its server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import mcp_types as types
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from .._core.answer import Answer
from .._core.errors import InvalidRequest, SchemaError
from .._core.types import ElicitationRequest, ToolResult
from .errors import request_of
from .tasks import RemoteTask, related_task_of

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext, IncomingMessage

    from .auth import SignInFlow

__all__ = ["Listener", "ServerRequests"]

#: Protocol versions that have no URL mode (a client on them cannot have declared it).
FORM_ONLY_VERSIONS = ("2025-06-18",)


class ServerRequests(Protocol):
    """What a server asks of the client, and what the client must hear of it: the runtime's
    side of a session (a connection's), given to the session when it is made."""

    @property
    def sign_in(self) -> SignInFlow | None:
        """How an HTTP server that asks for it is signed in to (None: never; stdio)."""
        ...

    async def elicit(self, request: ElicitationRequest) -> Answer:
        """The answer to one elicitation of the server (what it raises is turned into a
        JSON-RPC error by :class:`Listener`, and only there)."""
        ...

    async def follow(self, task: RemoteTask) -> ToolResult:
        """A call the server runs as a task, followed to its end: the tool's result."""
        ...

    def completed(self, elicitation_id: str) -> None:
        """The server says the URL interaction ``elicitation_id`` is done."""
        ...

    def ended(self) -> None:
        """A session ended: its server went away (exited, closed its stream) or it closed."""
        ...


class Listener:
    """The SDK's elicitation callback and message handler of one session, passing what its
    server asks and says on to the connection's :class:`ServerRequests`.

    ``protocol_version()`` is the session's, as its handshake said; ``tools_changed()`` hears
    that the server's tool list changed."""

    def __init__(self, requests: ServerRequests, protocol_version: Callable[[], str | None],
                 tools_changed: Callable[[], None]):
        self._requests = requests
        self._protocol_version = protocol_version
        self._tools_changed = tools_changed

    async def elicitation(self, context: ClientRequestContext | None,
                          params: types.ElicitRequestParams,
                          ) -> types.ElicitResult | types.ErrorData:
        """The single place where what answering an elicitation raises becomes a JSON-RPC
        error (the SDK's ``ElicitationFnT``)."""
        request = request_of(params, related_task=related_task_of(
            getattr(context, "meta", None)) or related_task_of(getattr(params, "meta", None)))
        version = self._protocol_version()
        if request.mode == "url" and version in FORM_ONLY_VERSIONS:
            return types.ErrorData(code=INVALID_PARAMS, message=(
                f"URL mode does not exist in protocol {version}, so nb_elicit did not declare "
                "it"))
        try:
            answer = await self._requests.elicit(request)
        except (SchemaError, InvalidRequest) as exc:
            return types.ErrorData(code=INVALID_PARAMS, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug of ours is an internal error
            return types.ErrorData(code=INTERNAL_ERROR, message=f"nb_elicit failed: {exc!r}")
        return types.ElicitResult(**answer.to_result())

    async def message(self, message: IncomingMessage) -> None:
        """The server's notifications (the SDK's ``MessageHandlerFnT``): a URL interaction
        done, its tool list changed; the others are not nb_elicit's."""
        if isinstance(message, types.ElicitCompleteNotification):
            self._requests.completed(message.params.elicitation_id)
        elif isinstance(message, types.ToolListChangedNotification):
            self._tools_changed()
