"""The SDK adapter: the one package that imports the MCP SDK (``mcp`` 2.x).

Everything above it speaks in plain Python: targets, :class:`ElicitationRequest`,
:class:`~nb_elicit.Answer`, :class:`ToolResult` and nb_elicit's own exceptions. When the SDK
changes its API, this package is what changes:

- :mod:`.session`: :class:`ServerSession`, one SDK ``Client`` on one transport, in one
  protocol era (:class:`Era`);
- :mod:`.auth`: signing in, with the SDK's OAuth 2.1 providers over nb_elicit's token store;
- :mod:`.errors`: the one table that turns the SDK's and the transports' failures into
  nb_elicit's exceptions;
- :mod:`.tasks`: tasks in both wire shapes (2025-11-25 and the 2026-07-28 extension), as
  :class:`~.tasks.RemoteTask` handles; :mod:`.client_tasks`: a server's forms run as tasks of
  the client (2025-11-25).
"""

from .._core.types import ElicitationRequest, HttpTarget, SseTarget, StdioTarget, ToolResult
from .era import Era
from .errors import needs_other_era
from .session import ServerSession

__all__ = ["ElicitationRequest", "Era", "HttpTarget", "ServerSession", "SseTarget", "StdioTarget",
           "ToolResult", "needs_other_era"]
