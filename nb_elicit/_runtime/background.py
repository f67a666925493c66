"""The background work of one connection, with one owner (:class:`Background`).

Work a connection starts and nobody waits for in the same breath (a tool call started with
``start_tool``) is spawned here: the connection keeps a strong reference to each task (the
event loop keeps only weak ones), a failure nobody else hears of goes to the event loop's
exception handler, and :meth:`Background.close` (when the connection closes) cancels what is
left and waits for it, so a closed connection leaves no task of its own running.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["Background"]


class Background:
    """The tasks of one connection that run in the background, and their end."""

    def __init__(self, owner: str):
        #: Whose work this is (the connection's name), in the tasks' names and reports.
        self.owner = owner
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Tasks whose failure their handle tells (it is awaited): not reported again.
        self._told_elsewhere: set[asyncio.Task[Any]] = set()
        self.closed = False

    def spawn(self, work: Coroutine[Any, Any, Any], name: str, *,
              awaited: bool = False) -> asyncio.Task[Any]:
        """Run ``work`` as a task of this owner. ``awaited``: a handle that someone awaits
        tells its failure (the owner reports only a failure nobody else hears of)."""
        if self.closed:
            work.close()
            raise RuntimeError(f"{self.owner!r} is closed; it starts no more work")
        task = asyncio.get_running_loop().create_task(work, name=f"nb_elicit {self.owner}: {name}")
        self._tasks.add(task)
        if awaited:
            self._told_elsewhere.add(task)
        task.add_done_callback(self._finished)
        return task

    @property
    def running(self) -> frozenset[asyncio.Task[Any]]:
        """The tasks not yet done."""
        return frozenset(self._tasks)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        told = task in self._told_elsewhere
        self._told_elsewhere.discard(task)
        if told or task.cancelled():
            return
        error = task.exception()
        if error is not None:
            task.get_loop().call_exception_handler({
                "message": f"nb_elicit: background work of {self.owner!r} failed",
                "exception": error, "task": task})

    async def close(self) -> None:
        """Start nothing more; cancel what is still running and wait until it has ended
        (a task that closes its own owner is not waited for: it is the one waiting)."""
        self.closed = True
        me = asyncio.current_task()
        here = asyncio.get_running_loop()
        left = [task for task in self._tasks if task is not me]
        for task in left:
            task.cancel()
        # A task of another loop (a terminal IPython runs its cells on a loop of its own, and
        # an unload closes on a fresh one) ends when its loop next runs: it cannot be awaited
        # here, where waiting for it would never end.
        mine = [task for task in left if task.get_loop() is here]
        if mine:
            await asyncio.wait(mine)

    def __repr__(self) -> str:
        return f"<Background {self.owner!r}: {len(self._tasks)} running>"
