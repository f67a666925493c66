"""The error table: what the SDK and its transports raise, as nb_elicit's exceptions.

Every request of a :class:`~.session.ServerSession` goes through :func:`map_request_errors`,
and a failed connect through :func:`describe`; nothing else above the adapter sees an SDK
exception.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_REQUEST, URL_ELICITATION_REQUIRED
from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import ValidationError

from .._core.errors import NbElicitError, ServerDisconnected, ServerError, UrlElicitationRequired
from .._core.text import shorten
from .._core.types import ElicitationRequest
from .era import Era

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

__all__ = ["GONE", "describe", "from_mcp_error", "malformed", "map_request_errors",
           "needs_other_era", "request_of"]

#: What a transport raises when its server is gone.
GONE = (httpx2.HTTPError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError,
        anyio.EndOfStream)


@contextlib.contextmanager
def map_request_errors(answer_to: str | None = None,
                       reason: Callable[[], NbElicitError | None] = lambda: None,
                       gone: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Inside: an SDK or transport failure of a request leaves as nb_elicit's exception
    (:class:`ServerError`, :class:`UrlElicitationRequired`, :class:`ServerDisconnected`), and
    an answer that does not fit the protocol as one line (:func:`malformed`; ``answer_to``
    names the request).

    ``reason()``, when it gives one, stands for a JSON-RPC error: the real cause that the
    transport could not say (a failed sign-in); ``gone()`` hears that the server went away.
    """
    try:
        yield
    except MCPError as exc:
        error = reason() or from_mcp_error(exc)
    except ValidationError as exc:  # (the SDK checks every answer against its schema)
        raise malformed(f"the server's answer to {answer_to}" if answer_to else
                        "the server's answer", exc) from None
    except GONE as exc:
        error = ServerDisconnected(f"the server went away ({describe(exc)})")
    else:
        return
    if isinstance(error, ServerDisconnected):
        gone()
    raise error from None


#: Characters of a malformed answer's one line.
MALFORMED_LIMIT = 300


def malformed(what: str, error: ValidationError) -> ServerError:
    """A server's answer that does not fit its schema, as one line: ``what`` "is malformed",
    the first field that is wrong and why ("taskId: Field required")."""
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()))
    why = first.get("msg", "it does not fit the protocol")
    text = f"{what} is malformed: {where}: {why}" if where else f"{what} is malformed: {why}"
    return ServerError(INTERNAL_ERROR, shorten(text, MALFORMED_LIMIT, one_line=True))


def needs_other_era(error: ServerError, era: Era) -> bool:
    """Whether a call that failed this way would work on a session of the other protocol era.

    SDK 2.x servers that call ``ctx.elicit`` need a legacy session (the 2026-07-28 protocol has
    no back-channel for server-initiated requests); tools that return input-required results
    need a 2026-07-28 session (on a legacy one the SDK calls their result invalid), and so do
    tools that run only as tasks of the ``io.modelcontextprotocol/tasks`` extension (a legacy
    session cannot declare it: -32021, a missing client capability).
    """
    if error.code == INVALID_REQUEST and "no back-channel" in error.message:
        return True
    if era == Era.HANDSHAKE and error.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
        return True
    return (era == Era.HANDSHAKE and error.code == INTERNAL_ERROR
            and error.message == "Handler returned an invalid result")


def from_mcp_error(exc: MCPError) -> NbElicitError:
    """One JSON-RPC error of the SDK as nb_elicit's exception."""
    if exc.code == CONNECTION_CLOSED:
        return ServerDisconnected(f"the server went away ({exc.message})")
    if exc.code == URL_ELICITATION_REQUIRED:
        requests = url_requests(exc.data)
        if requests:
            return UrlElicitationRequired(exc.code, exc.message, exc.data, requests)
    return ServerError(exc.code, exc.message, exc.data)


def url_requests(data: Any) -> list[ElicitationRequest]:
    """The URL requests listed in a -32042 error's data (entries that are not are dropped)."""
    entries = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    requests = []
    for entry in entries[:20]:
        try:
            params = types.ElicitRequestURLParams.model_validate(entry)
        except Exception:  # noqa: BLE001 - a malformed entry is simply not shown
            continue
        requests.append(request_of(params))
    return requests


def describe(exc: BaseException) -> str:
    """The innermost cause of an SDK failure, in one line (ExceptionGroups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.message
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, NbElicitError) else f"{type(exc).__name__}: {text}"


def request_of(params, related_task: str | None = None) -> ElicitationRequest:
    """The SDK's elicitation params as nb_elicit's plain request (no ``mode``: form mode);
    ``related_task``: the server's task it was asked in (2025-11-25)."""
    return ElicitationRequest(
        mode=getattr(params, "mode", None) or "form",
        message=params.message,
        requested_schema=getattr(params, "requested_schema", None),
        url=getattr(params, "url", None),
        elicitation_id=getattr(params, "elicitation_id", None),
        related_task=related_task,
    )
