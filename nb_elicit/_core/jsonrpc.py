"""The JSON-RPC error codes nb_elicit sends, reads or raises, by name.

The numbers the SDK's ``mcp_types`` also names carry its names and values (a test checks that
they agree); the adapter itself uses the SDK's. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

__all__ = ["CONNECTION_CLOSED", "INTERNAL_ERROR", "INVALID_PARAMS", "INVALID_REQUEST",
           "METHOD_NOT_FOUND", "MISSING_REQUIRED_CLIENT_CAPABILITY", "NOT_FOUND", "PARSE_ERROR",
           "REQUEST_TIMEOUT", "SERVER_ERROR", "URL_ELICITATION_REQUIRED"]

# JSON-RPC 2.0's own codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# The implementation-defined range (-32000 to -32099), as MCP uses it.
#: A server's error with no more particular code (an app that has ended, too many requests).
SERVER_ERROR = -32000
#: The same number, as the SDK raises it when the connection closed under a request.
CONNECTION_CLOSED = -32000
#: A request that waited longer than its timeout.
REQUEST_TIMEOUT = -32001
#: What was asked for is not there (a task the server does not know).
NOT_FOUND = -32002
#: The server needs a capability the client did not declare (2026-07-28).
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
#: The server needs the person to open web pages first, then the request may be retried.
URL_ELICITATION_REQUIRED = -32042
