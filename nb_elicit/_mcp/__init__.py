"""The SDK adapter: the one package that imports the MCP SDK (``mcp`` 2.x).

Everything above it speaks in plain Python: targets, :class:`ElicitationRequest`,
:class:`~nb_elicit.Answer`, :class:`ToolResult` and nb_elicit's own exceptions. When the SDK
changes its API, this package is what changes:

- :mod:`.session`: :class:`ServerSession`, one SDK ``Client`` on one transport, in one
  protocol era (:class:`Era`), made with its connection's :class:`ServerRequests`
  (:mod:`.server_requests`: what the server asks of the client, and what the client must
  hear);
- :mod:`.auth`: signing in, with the SDK's OAuth 2.1 providers over nb_elicit's token store;
- :mod:`.errors`: the one table that turns the SDK's and the transports' failures into
  nb_elicit's exceptions;
- :mod:`.tasks`: tasks in both wire shapes (2025-11-25 and the 2026-07-28 extension), as
  :class:`~.tasks.RemoteTask` handles; :mod:`.client_tasks`: a server's forms run as tasks of
  the client (2025-11-25).
"""

import typing

from .._core.types import ElicitationRequest, HttpTarget, SseTarget, StdioTarget, ToolResult

if typing.TYPE_CHECKING:  # (what a type checker sees of the names below that load on first use)
    from .era import Era
    from .errors import needs_other_era
    from .server_requests import ServerRequests
    from .session import ServerSession

# The SDK is imported with the first of these, not with the package: `%load_ext nb_elicit` can
# set up :mod:`.every_session` without the second the SDK takes to import.
_LAZY = {"Era": ".era", "needs_other_era": ".errors", "ServerRequests": ".server_requests",
         "ServerSession": ".session"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ElicitationRequest", "Era", "HttpTarget", "ServerRequests", "ServerSession",
           "SseTarget", "StdioTarget", "ToolResult", "needs_other_era"]
