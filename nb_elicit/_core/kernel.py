"""The one slot that holds this kernel's state, and the one that holds this process's.

Kernel-wide state (the connections, the history, the waiting forms, the secrets given, the
language chosen, the clocks of the widgets...) lives in one owner object, never in module
globals, so that ``%unload_ext`` can close it as one thing and each test can start from a
fresh one. The owner is the runtime's ``KernelState`` (``nb_elicit._runtime.state``). A lower
layer, which may not import the runtime, reaches its own part of the owner here, by the part's
class: :func:`part` makes the part on first use (``Kind()``) and keeps it in the current owner,
so the pure model and the widgets work without the runtime (a bare :class:`Parts` is made then,
which the runtime's owner adopts when it is made).

What lives as long as the process, not the kernel session, is kept apart, as the process's
parts (:func:`process_part`): the patches nb_elicit makes in other libraries' modules (the
SDK's session class, its request clocks), which cannot be undone and must not be made twice,
the one import of jsonschema, the kernel's side shell (a subshell lives as long as its
kernel), and the locks of files this process holds. A new owner starts with none of the
first kind of state and all of the second.

This module imports nothing of nb_elicit, so that every module (the errors first) can use it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TypeVar

__all__ = ["Parts", "current", "install", "owner_of", "part", "process_part"]

P = TypeVar("P")


class Parts:
    """Kernel-wide state held by its class: one instance of each, made on first use. A part
    with an ``owner_closed()`` is told, newest first, when its owner closes."""

    def __init__(self) -> None:
        self._parts: dict[type, object] = {}
        self._parts_lock = threading.RLock()

    def part(self, kind: type[P]) -> P:
        """This owner's ``kind`` (made now if it has none yet)."""
        with self._parts_lock:
            found = self._parts.get(kind)
            if found is None:
                found = self._parts[kind] = kind()
            return found  # type: ignore[return-value]

    def adopt(self, other: Parts) -> None:
        """Take over the parts ``other`` made (the runtime's owner, made after the pure model
        or the widgets already kept state in a bare :class:`Parts`)."""
        made = other.made()
        with self._parts_lock:
            for kind, found in made.items():
                self._parts.setdefault(kind, found)

    def made(self) -> dict[type, object]:
        """The parts made so far, by class."""
        with self._parts_lock:
            return dict(self._parts)

    def close(self) -> None:
        """Tell each part that asks (``owner_closed()``, newest first) that its owner closes;
        a failing one does not stop the rest."""
        for found in reversed(list(self.made().values())):
            closing = getattr(found, "owner_closed", None)
            if callable(closing):
                with contextlib.suppress(Exception):
                    closing()


class _Slots:
    """The two slots: the kernel's owner (replaced by :func:`install`) and the process's
    parts (never replaced)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owner: Parts | None = None
        self.process = Parts()


#: The only module-level state of the package's kernel side (see the module's docstring).
_SLOTS = _Slots()


def current() -> Parts:
    """The kernel's owner (a bare :class:`Parts`, made now, where none was installed)."""
    with _SLOTS.lock:
        if _SLOTS.owner is None:
            _SLOTS.owner = Parts()
        return _SLOTS.owner


def install(owner: Parts | None) -> Parts | None:
    """Make ``owner`` the kernel's owner (None: none, until next used); the one it replaces
    is returned, not closed (closing it is the caller's)."""
    with _SLOTS.lock:
        replaced, _SLOTS.owner = _SLOTS.owner, owner
        return replaced


def owner_of(kind: type[P]) -> P:
    """The kernel's owner as a ``kind`` (a :class:`Parts`): the current one if it is one,
    else a new ``kind()`` that adopts the current one's parts and takes its place."""
    with _SLOTS.lock:
        owner = _SLOTS.owner
        if not isinstance(owner, kind):
            made = kind()
            if owner is not None:
                made.adopt(owner)  # type: ignore[attr-defined]
            _SLOTS.owner = owner = made  # type: ignore[assignment]
        return owner  # type: ignore[return-value]


def part(kind: type[P]) -> P:
    """The kernel's ``kind`` (see :class:`Parts`)."""
    return current().part(kind)


def process_part(kind: type[P]) -> P:
    """The process's ``kind`` (see the module's docstring), made on first use."""
    return _SLOTS.process.part(kind)
