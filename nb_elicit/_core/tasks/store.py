"""The ids of running tasks, kept in an owner-only file so that a restarted kernel can attach
to them again (``%mcp tasks``, ``%mcp task NAME ID``).

One entry per task still running on a server that outlives the kernel (HTTP; a stdio server is
the kernel's child and stops with it, so its tasks are never written): the connection name,
the server's identity (:class:`ServerIdentity`: its URL with every credential masked, and the
name it gave in the handshake), the tool, the task id, its shape, when it started, and which
kernel follows it now (:func:`this_kernel`; none once detached, or when its kernel stopped
following it). An entry goes when its task ends; a detached task, or one whose kernel died,
stays until it is attached to and ends, or ``%mcp tasks --forget`` drops it.

The file is a :class:`~.json_store.JsonStore`: every change reads, changes and writes it under
a lock that holds across processes, so two kernels never lose each other's entries. What the
file holds that this version cannot read (a row edited by hand, a later version's row, its
keys, the file's other keys) is written back as it was; a file that is not a JSON object of
that shape (not JSON at all) is never written over: a change then fails in one line
(:class:`~.errors.UnreadableFile`, an OSError), and the list is empty, with a warning.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ..errors import UnreadableFile
from ..json_store import JsonStore
from ..private import StoreWarning
from ..secrets.names import redact_url
from .model import TaskShape

__all__ = ["SavedTask", "ServerIdentity", "TaskStore", "kernel_alive", "tasks_file",
           "this_kernel"]

#: Entries kept at most (the oldest go first): a server that made thousands of tasks must not
#: grow the file without end.
KEEP = 200
#: The file's version this one writes (a file of a later version keeps its own).
VERSION = 2
#: Where a server that outlives its kernel is: a URL.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def tasks_file() -> Path:
    """``<Jupyter data dir>/nb_elicit/tasks.json``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "nb_elicit" / "tasks.json"


@dataclass(frozen=True)
class ServerIdentity:
    """Which server a task runs on: where it is (its URL, credentials masked) and the name it
    gave in the handshake (``serverInfo.name``; None when not known)."""

    where: str
    server: str | None = None
    #: Whether the server outlives the kernel (HTTP), so that its tasks are written to the
    #: file; a stdio server is the kernel's child.
    lasting: bool = field(default=True, compare=False)

    def matches(self, other: ServerIdentity) -> bool:
        """The same server: the same place, and the same name where both are known."""
        return self.where == other.where and (
            self.server is None or other.server is None or self.server == other.server)

    def __str__(self) -> str:
        return f"{self.server} at {self.where}" if self.server else self.where


def _process_start(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or "" where that
    cannot be read: with the pid, it tells a process from a later one given the same pid."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return ""


def this_kernel() -> str:
    """This process, as the file names the kernel that follows a task: ``host:pid:start``."""
    return f"{socket.gethostname()}:{os.getpid()}:{_process_start(os.getpid())}"


def kernel_alive(kernel: str | None) -> bool:
    """Whether the kernel named ``kernel`` (:func:`this_kernel`) still runs. One on another
    machine cannot be asked: it counts as gone (its tasks are offered)."""
    if not kernel:
        return False
    host, _, rest = kernel.partition(":")
    pid_text, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # (it runs, as someone else)
    except OSError:
        return False
    return not start or _process_start(pid) in ("", start)


@dataclass(frozen=True)
class SavedTask:
    """One running task, as the file keeps it."""

    connection: str
    where: str
    tool: str
    task_id: str
    shape: TaskShape
    started: float
    #: The name the server gave in the handshake (None: not known, as in older files).
    server: str | None = None
    #: The kernel that follows it now (:func:`this_kernel`), or None.
    kernel: str | None = None
    #: The keys of its row this version does not know (a later one's), written back as they
    #: were.
    unknown: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def row(self) -> dict[str, Any]:
        """The entry as the file keeps it."""
        known = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "unknown"}
        return {**self.unknown, **known}

    @property
    def key(self) -> tuple[str, str]:
        return (self.connection, self.task_id)

    @property
    def identity(self) -> ServerIdentity:
        return ServerIdentity(self.where, self.server)

    @property
    def followed_elsewhere(self) -> bool:
        """Whether another kernel that still runs follows it."""
        return self.kernel not in (None, this_kernel()) and kernel_alive(self.kernel)


class TaskStore:
    """The file of running tasks (a path for tests; by default :func:`tasks_file`)."""

    def __init__(self, path: Path | None = None):
        self._path = path

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else tasks_file()

    def __repr__(self) -> str:
        return f"<nb_elicit TaskStore {self.path}>"

    @property
    def _store(self) -> JsonStore:
        return JsonStore(self.path, version=VERSION)

    def entries(self) -> list[SavedTask]:
        """The entries it can read; none, with a warning (:class:`~.private.StoreWarning`),
        when the file cannot be read at all."""
        store = self._store
        try:
            return _File.of(store, store.look() or {}).entries
        except UnreadableFile as error:
            warnings.warn(str(error), StoreWarning, stacklevel=2)
            return []

    def add(self, task: SavedTask) -> None:
        with self._changing() as file:
            kept = [t for t in file.entries if t.key != task.key]
            file.put([*kept, task][-KEEP:])

    def remove(self, task: SavedTask) -> None:
        """Drop the entry of ``task`` (its connection and id), only if it is of the same
        server: an entry another server's task left under that name stays."""
        with self._changing() as file:
            kept = [t for t in file.entries
                    if not (t.key == task.key and t.identity.matches(task.identity))]
            if len(kept) != len(file.entries):
                file.put(kept)

    def follow(self, task: SavedTask, kernel: str | None) -> None:
        """Say which kernel follows ``task`` now (None: none), if the file has it."""
        with self._changing() as file:
            changed = [replace(t, kernel=kernel) if t.key == task.key
                       and t.identity.matches(task.identity) else t for t in file.entries]
            if changed != file.entries:
                file.put(changed)

    def forget(self, connection: str | None = None, task_id: str | None = None) -> int:
        """Forget entries (of one connection, or one task; every entry when both are None);
        how many went. (Rows it cannot read are not its to forget: they stay.)"""
        with self._changing() as file:
            kept = [t for t in file.entries if not (connection in (None, t.connection)
                                                    and task_id in (None, t.task_id))]
            if len(kept) != len(file.entries):
                file.put(kept)
        return len(file.entries) - len(kept)

    def find(self, connection: str, task_id: str) -> SavedTask | None:
        return next((t for t in self.entries() if t.key == (connection, task_id)), None)

    @contextlib.contextmanager
    def _changing(self) -> Iterator[_File]:
        """The file as read, to change under the lock (:meth:`.JsonStore.changing`): what
        :meth:`_File.put` puts in it is written when the block ends."""
        store = self._store
        with store.changing() as document:
            yield _File.of(store, document)


@dataclass
class _File:
    """The file of running tasks as read: its entries, and its rows this version cannot read,
    in the object read (the rest of the file, written back as it was)."""

    document: dict[str, Any]
    entries: list[SavedTask]
    #: The rows it could not read, written back as they were.
    unread: list[Any]

    @classmethod
    def of(cls, store: JsonStore, document: dict[str, Any]) -> _File:
        """The file read from ``document``. :class:`~.errors.UnreadableFile` when it has no
        list of rows."""
        entries: list[SavedTask] = []
        unread: list[Any] = []
        for row in store.part(document, "tasks", list):
            entry = _entry(row)
            if entry is _GONE:
                continue  # (a stdio server's, from an older file: it died with its kernel)
            if entry is None:
                unread.append(row)  # (a damaged row, or a later version's: kept as it is)
            elif isinstance(entry, SavedTask):  # (what is left: _entry gives nothing else)
                entries.append(entry)
        return cls(document, entries, unread)

    def put(self, entries: list[SavedTask]) -> None:
        """Make ``entries`` the file's, after the rows it could not read."""
        self.document["tasks"] = [*self.unread, *(t.row() for t in entries)]


#: A row left out on purpose (a stdio server's task, from an older file).
_GONE = object()
_FIELDS = ("connection", "where", "tool", "task_id", "shape", "started", "server", "kernel")


def _entry(row: object) -> SavedTask | object | None:
    """A row of the file as an entry; None if this version cannot read it; :data:`_GONE` for a
    stdio server's."""
    if not isinstance(row, dict):
        return None
    try:
        where = str(row["where"])
        if not _URL.match(where):
            return _GONE
        return SavedTask(
            connection=str(row["connection"]),
            where=redact_url(where),  # (an older file's may hold a token)
            tool=str(row["tool"]), task_id=str(row["task_id"]),
            shape=TaskShape(str(row["shape"])), started=float(row["started"]),
            server=_text_or_none(row.get("server")), kernel=_text_or_none(row.get("kernel")),
            unknown={k: v for k, v in row.items() if k not in _FIELDS})
    except (KeyError, TypeError, ValueError):
        return None


def _text_or_none(value: object) -> str | None:
    return str(value) if isinstance(value, (str, int, float)) and value != "" else None


def now() -> float:
    return time.time()
