"""The protocol eras a session can speak."""

from __future__ import annotations

from enum import Enum

__all__ = ["Era"]


class Era(str, Enum):
    """A session's protocol era, by the value the SDK's ``Client(mode=...)`` takes for it."""

    #: The handshake era (2025-06-18, 2025-11-25): ``initialize`` first, then a session in
    #: which the server may send its own requests (``ctx.elicit``) at any time.
    HANDSHAKE = "legacy"
    #: The 2026-07-28 era: the SDK's "auto" mode tries it first, and falls back to the
    #: handshake only where the server does not speak it.
    V2026 = "auto"

    @property
    def other(self) -> Era:
        """The era a session of this one is not: where a tool that needs it is retried."""
        return Era.V2026 if self is Era.HANDSHAKE else Era.HANDSHAKE
