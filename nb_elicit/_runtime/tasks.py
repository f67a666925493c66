"""The tasks this kernel follows (:class:`Tasks`, kept by the kernel's owner: see
:mod:`.state`): each one's record (:class:`TaskRun`), a
light record of those that ended, and the owner-only file of those still running.

A task on a server that outlives the kernel (HTTP) is kept in the owner-only file of running
tasks (:mod:`nb_elicit._core.tasks.store`) with its server's identity and the kernel that
follows it, so that ``%mcp task NAME ID`` can attach to it again (:mod:`.task_attach`), in this
kernel or the next one, and only on the same server. A task of a stdio server is not written:
it dies with the kernel. A run that ended leaves :class:`Tasks`, which keeps a light record of
the last :data:`FINISHED_KEPT` (:class:`FinishedTask`). Following one to its end is
:mod:`.task_follow`'s.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .._core.errors import UnreadableFile
from .._core.private import StoreWarning
from .._core.tasks.model import TaskShape, TaskStart, TaskState
from .._core.tasks.store import SavedTask, ServerIdentity, TaskStore, this_kernel
from .._core.types import HttpTarget, StdioTarget
from .._ui.task_card import TaskCard

if TYPE_CHECKING:
    from .._mcp.tasks import RemoteTask
    from .calls import Call

__all__ = ["FinishedTask", "TaskRun", "Tasks", "identity"]

#: How many finished runs :class:`Tasks` keeps a light record of (the oldest go first).
FINISHED_KEPT = 100


@dataclass
class TaskRun:
    """One task this kernel follows (or followed)."""

    connection: str
    remote: RemoteTask
    card: TaskCard | None = None
    #: The call that follows it (its forms show in that call's cell).
    call: Call | None = None
    #: When the task began: the server's ``createdAt`` once a state gave one that can be
    #: believed, else when this run was made; its card's, when it has one (kept once: the
    #: card's clock and ``%mcp tasks`` tell the same age).
    start: TaskStart = field(default_factory=TaskStart)
    state: TaskState | None = None
    #: When the server last told its state (seconds since the epoch; None: not yet).
    seen_at: float | None = None
    detached: bool = False
    ended: bool = False
    #: Which server it runs on (None: not known).
    identity: ServerIdentity | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)
    #: The person's Cancel and Detach, not yet acted on (the follower's, see
    #: :mod:`.task_follow`: set here, taken there).
    cancel_asked: bool = False
    detach_asked: bool = False
    #: A cancel was asked (and has not failed): no tasks/update goes out.
    cancelling: bool = False
    #: The card's last note on the poll interval (said once).
    poll_note: str | None = None
    #: The registry that follows it (set by :meth:`Tasks.begin`).
    registry: Tasks | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.card is not None:
            self.start = self.card.start
        first = getattr(self.remote, "first", None)
        if isinstance(first, TaskState):
            self.start.date(first)

    @property
    def started(self) -> float:
        """When the task began (seconds since the epoch, see :attr:`start`)."""
        return self.start.wall

    def saw(self, state: TaskState) -> None:
        """The server told ``state`` now."""
        self.state, self.seen_at = state, time.time()
        registry = self.registry
        if self.start.date(state) and registry is not None \
                and registry.find(self.connection, self.task_id) is self:
            registry.begin(self)  # (the file keeps when it began)

    @property
    def task_id(self) -> str:
        return self.remote.task_id

    @property
    def tool(self) -> str:
        return self.remote.tool

    @property
    def shape(self) -> TaskShape:
        return self.remote.shape

    @property
    def status(self) -> str:
        return self.state.status if self.state is not None else "working"

    @property
    def terminal(self) -> bool:
        """Whether the server reported a final status."""
        return self.state is not None and self.state.terminal

    def ask_cancel(self) -> None:
        """Cancel (from the card's button, maybe on another thread): done by the follower."""
        self.cancelling = True  # (at once: an answer given from now on is not sent)
        self.cancel_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def woken(self) -> asyncio.Future[bool]:
        """A wait, from now, for the next click on Cancel or Detach (for the follower)."""
        self._wake.clear()
        # Background work: owned by the follower's wait, which cancels it.
        return asyncio.ensure_future(self._wake.wait())

    def ask_detach(self) -> None:
        self.detach_asked = True
        self._loop.call_soon_threadsafe(self._wake.set)

    def saved(self) -> SavedTask | None:
        """Its entry in the file of running tasks (None for a stdio server's task)."""
        if self.identity is None or not self.identity.lasting:
            return None
        return SavedTask(connection=self.connection, where=self.identity.where, tool=self.tool,
                         task_id=self.task_id, shape=self.shape, started=self.started,
                         server=self.identity.server, kernel=this_kernel())

    def __repr__(self) -> str:
        return f"<nb_elicit task {self.connection} · {self.tool} {self.task_id}: {self.status}>"


@dataclass(frozen=True)
class FinishedTask:
    """What :class:`Tasks` keeps of a run that ended (its card, call and view are let go)."""

    connection: str
    tool: str
    task_id: str
    shape: TaskShape
    status: str
    started: float
    #: Whether the server reported that final status (else: no longer followed).
    terminal: bool
    #: When the server last told its state (None: never).
    seen_at: float | None = None
    ended_at: float = field(default_factory=time.time)
    detached: bool = False
    ended: bool = True

    def __repr__(self) -> str:
        return f"<nb_elicit task {self.connection} · {self.tool} {self.task_id}: {self.status}>"


class Reaches(Protocol):
    """What :func:`identity` reads of a connection (or of its sessions)."""

    @property
    def target(self) -> StdioTarget | HttpTarget: ...

    @property
    def server_name(self) -> str | None: ...


def identity(connection: Reaches) -> ServerIdentity:
    """Which server ``connection`` reaches, as a task keeps it: where (``where()``, no
    credential) and the handshake's server name; a stdio server's is not ``lasting`` (its
    tasks end with the kernel, and are not written to the file)."""
    return ServerIdentity(connection.target.where(), connection.server_name,
                          lasting=not isinstance(connection.target, StdioTarget))


class Tasks:
    """The tasks this kernel follows, a light record of those that ended, and the file of those
    still running."""

    def __init__(self, store: TaskStore | None = None):
        self.store = store or TaskStore()
        self._runs: dict[tuple[str, str], TaskRun] = {}
        self._finished: deque[FinishedTask] = deque(maxlen=FINISHED_KEPT)

    def runs(self, connection: str | None = None) -> list[TaskRun | FinishedTask]:
        """The runs this kernel follows (or detached) and the records of those that ended, in
        the order they started."""
        every: list[TaskRun | FinishedTask] = [*self._runs.values(), *self._finished]
        return sorted((r for r in every if connection in (None, r.connection)),
                      key=lambda r: r.started)

    def find(self, connection: str, task_id: str) -> TaskRun | None:
        return self._runs.get((connection, task_id))

    def saved(self, connection: str | None = None) -> list[SavedTask]:
        """Running tasks the file knows of that no kernel follows now: an earlier kernel's,
        or detached (not those another kernel that still runs follows)."""
        return [s for s in self.store.entries()
                if connection in (None, s.connection)
                and not (s.key in self._runs and not self._runs[s.key].detached)
                and not s.followed_elsewhere]

    def begin(self, run: TaskRun, identity: ServerIdentity | None = None) -> None:
        """Follow ``run`` (on the server ``identity``); written to the file if that server
        outlives the kernel."""
        if identity is not None:
            run.identity = identity
        run.registry = self
        self._runs[(run.connection, run.task_id)] = run
        if run.card is not None:
            run.card.run = run  # (``ToolCall.task``: as long as the card lives, not longer)
        saved = run.saved()
        if saved is not None:
            _change_file(self.store.add, saved)

    def end(self, run: TaskRun) -> None:
        """The task is over (a final status, or its server no longer knows it): the run leaves
        the registry and its entry the file."""
        self._finish(run)
        saved = run.saved()
        if saved is not None:
            _change_file(self.store.remove, saved)

    def stop(self, run: TaskRun) -> None:
        """This kernel follows the task no more, though it may run on (an error of the
        server's): the run leaves the registry; its entry stays in the file, followed by
        nobody, to attach to later."""
        self._finish(run)
        self._unfollow(run)

    def detach(self, run: TaskRun) -> None:
        """Detached: kept, to attach to again, but its card and call are let go."""
        run.detached = True
        run.card = run.call = None
        self._unfollow(run)

    def _unfollow(self, run: TaskRun) -> None:
        saved = run.saved()
        if saved is not None:
            _change_file(self.store.follow, saved, None)

    def _finish(self, run: TaskRun) -> None:
        run.ended = True
        key = (run.connection, run.task_id)
        if self._runs.get(key) is run:
            del self._runs[key]
            self._finished.append(FinishedTask(
                connection=run.connection, tool=run.tool, task_id=run.task_id,
                shape=run.shape, status=run.status, started=run.started,
                terminal=run.terminal, seen_at=run.seen_at))


def _change_file(change: Callable[..., object], *args: object) -> None:
    """Change the file of running tasks: one that cannot be written is passed over (the task
    runs on, unsaved); one that cannot be read is said in one line, a warning, and left as it
    is."""
    try:
        change(*args)
    except UnreadableFile as error:
        warnings.warn(str(error), StoreWarning, stacklevel=3)
    except OSError:
        pass

