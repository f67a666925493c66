"""The requests a session sends on its open SDK client (:class:`ClientRequests`), each one's
failures as nb_elicit's exceptions (the error table, :func:`~.errors.map_request_errors`)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import mcp_types as types
from mcp import Client
from pydantic import BaseModel

from .._core.errors import ServerDisconnected
from .errors import map_request_errors
from .tool_listing import plain

if TYPE_CHECKING:
    from .sdk_patches import TaughtSession

__all__ = ["ClientRequests"]

T = TypeVar("T")
ResultT = TypeVar("ResultT", bound=BaseModel)


class ClientRequests:
    """What :class:`~.session.ServerSession` sends on its SDK client once it is open (its
    subclass opens and closes the client): the requests themselves, and the one way each goes
    out (:meth:`_request`). A request that finds the server gone marks the session
    :attr:`lost`."""

    #: The open client (None: not yet; closed: see :attr:`closed`).
    _client: Client | None
    #: The client has ended (closed, or its server exited).
    closed: bool = False
    #: A request found the server gone; the client may still be winding down.
    lost: bool = False

    @property
    def usable(self) -> bool:
        """Whether requests can go out on this session."""
        return not self.closed and not self.lost

    async def request(self, request: types.Request[Any, Any],
                      result_type: type[ResultT]) -> ResultT:
        """One request of a shape the SDK's client has no method for (the tasks' requests)."""
        return await self._request(self._live().session.send_request(request, result_type),
                                   answer_to=request.method)

    async def raw_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request whose answer the caller checks itself, as a dict: the SDK's check of a
        2025-11-25 task refuses a status it does not know, which nb_elicit shows as a warning
        instead (see ``_core/tasks/model.py``)."""
        # (the SDK's session, taught send_raw by sdk_patches.teach_tasks)
        session = cast("TaughtSession", self._live().session)
        return await self._request(session.send_raw(method, params), answer_to=method)

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        await self._live().session.validate_tool_result(name, result)

    async def list_prompts(self) -> list[dict[str, Any]]:
        return [plain(p) for p in (await self._request(self._live().list_prompts())).prompts]

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> dict[str, Any]:
        return plain(await self._request(self._live().get_prompt(name, arguments)))

    async def list_resources(self) -> list[dict[str, Any]]:
        result = await self._request(self._live().list_resources())
        return [plain(r) for r in result.resources]

    async def read_resource(self, uri: str) -> dict[str, Any]:
        return plain(await self._request(self._live().read_resource(uri)))

    def _live(self) -> Client:
        if self.closed or self._client is None:
            raise ServerDisconnected("the connection is closed")
        return self._client

    async def _request(self, sent: Awaitable[T], answer_to: str | None = None) -> T:
        """The answer to ``sent`` (a request on :meth:`_live`), its failures as nb_elicit's
        exceptions; ``answer_to`` names the request in the line of an answer that does not fit
        the protocol."""
        with map_request_errors(answer_to, self._went_away):
            return await sent

    def _went_away(self) -> None:
        self.lost = True
