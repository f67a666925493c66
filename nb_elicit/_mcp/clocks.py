"""A framework's request timeouts stop while a person reads a form.

An agent framework's MCP session times each request it sends (ADK's stdio read timeout is 5 s,
openai-agents' session timeout 5 s, ``Client(read_timeout_seconds=...)``), and a server's
question arrives while its tool call is in flight: without help, the framework withdraws the
call, and the form with it, while the person still reads. The SDK keeps each request's timeout
as a clock that can be stopped (``mcp/shared/_request_clock.py``: it stops it while a request
waits on a person for its OAuth redirect), but only from the request's own context, which an
elicitation handler is not in.

So each clock the SDK's dispatcher starts is also noted here, by the event loop it runs on
(:func:`install`), and :func:`paused` stops every clock of the current loop (the framework's
session and its requests in flight run there; the question cannot tell which of them it came
from) for as long as a form is open, and starts them again with the time they had left.

The clock is private to the SDK: :func:`install` checks the names it needs once, and where they
are missing nothing is paused (the framework's own timeout then applies, and docs/agents.md
says how to raise it).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from .._core.kernel import part, process_part

if TYPE_CHECKING:
    from mcp.shared._request_clock import RequestClock

__all__ = ["RequestClocks", "install", "paused"]


class _Clock(Protocol):
    """What this module needs of the SDK's ``RequestClock`` (private to the SDK: checked by
    :func:`install` before any is noted)."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class _Installed:
    """Whether :func:`install` patched the SDK's dispatcher (None: not tried yet): a part of
    the process (:func:`~nb_elicit._core.kernel.process_part`), as the patch is."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.installed: bool | None = None


class RequestClocks:
    """The SDK's request clocks that run now, by event loop (both held weakly): a part of the
    kernel's owner (:mod:`nb_elicit._core.kernel`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, weakref.WeakSet[_Clock]] = (
            weakref.WeakKeyDictionary())

    def add(self, clock: _Clock) -> asyncio.AbstractEventLoop | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (not asyncio: trio)
            return None
        with self.lock:
            self.live.setdefault(loop, weakref.WeakSet()).add(clock)
        return loop

    def discard(self, loop: asyncio.AbstractEventLoop | None, clock: _Clock) -> None:
        if loop is None:
            return
        with self.lock:
            running = self.live.get(loop)
            if running is not None:
                running.discard(clock)

    def here(self) -> list[_Clock]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return []
        with self.lock:
            return list(self.live.get(loop, ()))


def _clocks() -> RequestClocks:
    return part(RequestClocks)


def install() -> bool:
    """Note each clock the SDK's dispatcher starts (once per process); False where the SDK
    has not the clock this needs."""
    patch = process_part(_Installed)
    with patch.lock:
        if patch.installed is not None:
            return patch.installed
        try:
            from mcp.shared import _request_clock, jsonrpc_dispatcher
        except ImportError:
            patch.installed = False
            return False
        original = getattr(jsonrpc_dispatcher, "request_clock", None)
        clock_type = getattr(_request_clock, "RequestClock", None)
        if original is None or clock_type is None or not all(
                callable(getattr(clock_type, name, None)) for name in ("pause", "resume")):
            patch.installed = False
            return False

        @contextlib.contextmanager
        def noted(timeout: float | None) -> Iterator[RequestClock]:
            with original(timeout) as clock:
                noting = _clocks()  # (the owner of the kernel when the clock started)
                loop = noting.add(clock)
                try:
                    yield clock
                finally:
                    noting.discard(loop, clock)

        # (the dispatcher's own import of the SDK's private clock, replaced: no hook for it)
        jsonrpc_dispatcher.request_clock = noted  # type: ignore[attr-defined]
        patch.installed = True
        return True


@contextlib.contextmanager
def paused() -> Iterator[int]:
    """Stop every SDK request clock of the current event loop while the block runs (each
    resumes with the time it had left); yields how many were stopped."""
    clocks = _clocks().here()
    stopped = []
    for clock in clocks:
        with contextlib.suppress(Exception):  # (a clock whose request just ended)
            clock.pause()
            stopped.append(clock)
    try:
        yield len(stopped)
    finally:
        for clock in stopped:
            with contextlib.suppress(Exception):
                clock.resume()
