"""The transport of a session, by its target: stdio, streamable HTTP (signed in where its
server asks for it) or HTTP+SSE."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

import httpx2
from mcp import StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from .._core.types import HttpTarget, SseTarget, StdioTarget
from .auth import SignInFlow, SigningClient, oauth_provider

if TYPE_CHECKING:
    from mcp.client._transport import Transport

__all__ = ["transport_to"]


def transport_to(target: StdioTarget | HttpTarget, sign_in: SignInFlow | None,
                 errlog: TextIO | None) -> tuple[Transport, SigningClient | None]:
    """The SDK's transport to ``target``, and the HTTP client its caller closes once the
    transport has ended (streamable HTTP only: it signs in with ``sign_in``); a stdio server's
    stderr goes to ``errlog``."""
    if isinstance(target, SseTarget):
        # HTTP+SSE: no read timeout on the event stream (a form may stay open long).
        # (the SDK types the read timeout a float, but passes it to httpx's Timeout, where None
        # is no timeout)
        return sse_client(target.url, headers=target.headers, timeout=30,
                          sse_read_timeout=None), None  # type: ignore[arg-type]
    if isinstance(target, HttpTarget):
        http = SigningClient(sign_in, target.url, headers=target.headers,
                             timeout=httpx2.Timeout(30, read=None),
                             auth=oauth_provider(target.url, sign_in))
        return streamable_http_client(target.url, http_client=http), http
    command, *args = target.command
    params = StdioServerParameters(command=command, args=list(args), env=target.env,
                                   cwd=target.cwd)
    return (stdio_client(params, errlog=errlog) if errlog else stdio_client(params)), None
