"""The event loop the widgets run their timers on: the running one of this thread, if any."""

from __future__ import annotations

import asyncio

__all__ = ["running_loop"]


def running_loop() -> asyncio.AbstractEventLoop | None:
    """This thread's running event loop, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
