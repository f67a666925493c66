"""The SDK's side of the elicitation hooks that other MCP clients call
(``nb_elicit.elicitation_callback``, ``nb_elicit.elicitation_handler``).

The SDK's ``Client`` and ``ClientSession``, and every framework built on them (FastMCP,
pydantic-ai, ADK, strands, mcp-use, ``langchain.mcp``), hand an elicitation to their hook as
the SDK's params (``ElicitRequestFormParams`` or ``ElicitRequestURLParams``) with a context
whose ``session`` is the SDK's client session; they take back an ``ElicitResult`` or an
``ErrorData``. This module turns those into nb_elicit's plain values and back, duck-typed
where it can (mcp 1.x's params, and copies of them, have the same attribute names; mcp-use's
``requestedSchema`` is read too), so nothing above it sees an SDK type.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from .._core.answer import Answer
from .._core.errors import InvalidRequest, SchemaError
from .._core.text import shorten
from .._core.types import ElicitationRequest
from .tasks import related_task_of

__all__ = ["HookReply", "error_result", "plain_request", "result_of", "server_name_of", "wire"]

#: Characters of an error message sent back to the server.
ERROR_LIMIT = 300


#: What an elicitation hook answers the SDK: the answer, or the JSON-RPC error it sends back.
HookReply = types.ElicitResult | types.ErrorData


def plain_request(params: object, context: object = None) -> ElicitationRequest:
    """The SDK's elicitation params (or a dict of them) as nb_elicit's request; InvalidRequest
    when they are not elicitation params at all."""
    if isinstance(params, dict):
        get = params.get
    else:
        def get(name: str, default: object = None) -> Any:
            return getattr(params, name, default)
    message = get("message")
    if message is None:
        raise InvalidRequest("the framework passed no elicitation (no message)")
    schema = get("requested_schema")
    if schema is None:
        schema = get("requestedSchema")
    related = related_task_of(getattr(context, "meta", None)) or related_task_of(get("meta"))
    return ElicitationRequest(
        mode=get("mode") or "form", message=message, requested_schema=schema,
        url=get("url"), elicitation_id=get("elicitation_id") or get("elicitationId"),
        related_task=related)


def server_name_of(context: object) -> str | None:
    """The name the server gave itself in the handshake (or its 2026-07-28 discover result),
    from a hook's context (the SDK's ``ClientRequestContext``: ``context.session``)."""
    session = getattr(context, "session", None)
    try:
        info = getattr(session, "server_info", None)
    except Exception:  # noqa: BLE001 - a session that cannot tell has no name
        return None
    name = getattr(info, "name", None)
    return shorten(name, 60, one_line=True) if isinstance(name, str) and name.strip() else None


def result_of(answer: Answer) -> types.ElicitResult:
    """An answer as the SDK's ``ElicitResult`` (FastMCP passes one through unchanged)."""
    return types.ElicitResult(**answer.to_result())


def error_result(error: BaseException) -> types.ErrorData:
    """What nb_elicit could not do, as the JSON-RPC error the SDK sends back: invalid params
    for a request it refused, an internal error for a failure of its own."""
    if isinstance(error, (SchemaError, InvalidRequest)):
        return types.ErrorData(code=INVALID_PARAMS, message=shorten(str(error), ERROR_LIMIT))
    return types.ErrorData(code=INTERNAL_ERROR, message=shorten(
        f"nb_elicit failed: {error!r}", ERROR_LIMIT))


def wire(value: object) -> Any:
    """An SDK model (or a list of them) as the JSON-shaped dicts of the wire (camelCase keys);
    anything else as it is."""
    if isinstance(value, (list, tuple)):
        return [wire(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return value
