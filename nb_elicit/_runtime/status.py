"""What this kernel's owner keeps of the kernel's status (:class:`KernelStatus`): which cell
runs, which the published status says runs, the widgets whose messages the missing-idle
workaround handles, and whether a frontend counted a view of ours. The rules that use it are
:mod:`.kernel_compat`'s."""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.events import EventManager

__all__ = ["KernelStatus"]


class KernelStatus:
    """The kernel-status bookkeeping of one owner (see :mod:`.kernel_compat`): a part of the
    kernel's owner (:mod:`nb_elicit._core.kernel`)."""

    def __init__(self) -> None:
        #: kernel -> the execute request of the cell it runs now (None between cells).
        self.running: dict[object, dict[str, Any] | None] = {}
        #: kernel -> the execute request of the cell its main shell runs, as its published
        #: status says ({} for a cell that began before nb_elicit watched; None between cells).
        self.shown: dict[object, dict[str, Any] | None] = {}
        #: One lock orders the kernel's published statuses (see kernel_compat).
        self.lock = threading.Lock()
        #: The widgets whose messages the missing-idle workaround already handles.
        self.idle_fixed: weakref.WeakSet[object] = weakref.WeakSet()
        #: Whether a frontend counted a displayed view of one of our widgets in this kernel.
        self.seen = False
        self._watching: list[tuple[EventManager, str, Callable[[], None]]] = []

    def saw(self, change: dict[str, object]) -> None:
        if change.get("new"):
            self.seen = True

    def watch(self, events: EventManager, name: str, callback: Callable[[], None]) -> None:
        """Register ``callback`` for IPython's event ``name``, until this owner closes."""
        events.register(name, callback)
        self._watching.append((events, name, callback))

    def owner_closed(self) -> None:
        """Stop following cells (the next owner follows them again)."""
        watching, self._watching = self._watching, []
        for events, name, callback in watching:
            with contextlib.suppress(ValueError):
                events.unregister(name, callback)
