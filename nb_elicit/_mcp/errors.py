"""The error table: what the SDK and its transports raise, as nb_elicit's exceptions.

Every request of a :class:`~.session.ServerSession` goes through :func:`map_request_errors`,
and a failed connect through :func:`connect_error`; nothing else above the adapter sees an SDK
exception. A sign-in that fails comes back as the answer to the request that met it
(:func:`sign_in_failed`), and leaves here as the :class:`SignInError` it was.
"""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
import mcp_types as types
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_REQUEST, URL_ELICITATION_REQUIRED
from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import ValidationError

from .._core.errors import (
    ConnectError,
    NbElicitError,
    ServerDisconnected,
    ServerError,
    SignInError,
    UrlElicitationRequired,
)
from .._core.text import shorten
from .._core.types import ElicitationRequest
from .era import Era

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

__all__ = ["GONE", "connect_error", "describe", "from_mcp_error", "malformed",
           "map_request_errors", "needs_other_era", "request_of", "sign_in_failed"]

#: What a transport raises when its server is gone.
GONE = (httpx2.HTTPError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError,
        anyio.EndOfStream)


@contextlib.contextmanager
def map_request_errors(answer_to: str | None = None,
                       gone: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Inside: an SDK or transport failure of a request leaves as nb_elicit's exception
    (:class:`ServerError`, :class:`UrlElicitationRequired`, :class:`ServerDisconnected`, the
    :class:`SignInError` of a sign-in that failed), and an answer that does not fit the
    protocol as one line (:func:`malformed`; ``answer_to`` names the request). ``gone()``
    hears that the server went away.
    """
    try:
        yield
    except MCPError as exc:
        error = from_mcp_error(exc)
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
    first: ErrorDetails | dict[str, Any] = error.errors()[0] if error.errors() else {}
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


#: Where the JSON-RPC error that stands for a failed sign-in keeps its step, with this
#: process's key: made by the client itself (:func:`sign_in_failed`), never sent, so a
#: server's error cannot pass for one.
_SIGN_IN = "nb_elicit/signInFailed"
_KEY = secrets.token_hex(16)


def sign_in_failed(error: SignInError) -> dict[str, object]:
    """A sign-in that failed, as the JSON-RPC error its HTTP client answers the request that
    met it with (the transport carries no exception of its HTTP client to the request; it
    passes a JSON-RPC error on): raised again for that request by :func:`from_mcp_error`."""
    return {"code": INTERNAL_ERROR, "message": str(error),
            "data": {_SIGN_IN: {"step": error.step, "key": _KEY}}}


def _sign_in_error(exc: MCPError) -> SignInError | None:
    mark = exc.data.get(_SIGN_IN) if isinstance(exc.data, dict) else None
    if isinstance(mark, dict) and mark.get("key") == _KEY:
        return SignInError(exc.message, str(mark.get("step") or ""))
    return None


def from_mcp_error(exc: MCPError) -> NbElicitError:
    """One JSON-RPC error of the SDK as nb_elicit's exception."""
    signing_in = _sign_in_error(exc)
    if signing_in is not None:
        return signing_in
    if exc.code == CONNECTION_CLOSED:
        return ServerDisconnected(f"the server went away ({exc.message})")
    if exc.code == URL_ELICITATION_REQUIRED:
        requests = url_requests(exc.data)
        if requests:
            return UrlElicitationRequired(exc.code, exc.message, exc.data, requests)
    return ServerError(exc.code, exc.message, exc.data)


def url_requests(data: object) -> list[ElicitationRequest]:
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


def connect_error(exc: BaseException) -> ConnectError:
    """Why a connect failed, in one line: the sign-in that failed on its way (wherever it is
    among the SDK's exception groups and causes), else the innermost cause."""
    return _sign_in_within(exc, set()) or ConnectError(describe(exc))


def _sign_in_within(exc: BaseException | None, seen: set[int]) -> SignInError | None:
    if exc is None or id(exc) in seen:
        return None
    seen.add(id(exc))
    if isinstance(exc, MCPError) and (found := _sign_in_error(exc)) is not None:
        return found
    inner = list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else []
    for other in (*inner, exc.__cause__, exc.__context__):
        found = _sign_in_within(other, seen)
        if found is not None:
            return found
    return None


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


def request_of(params: types.ElicitRequestParams,
               related_task: str | None = None) -> ElicitationRequest:
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
