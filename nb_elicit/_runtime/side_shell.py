"""Forms while the kernel's main thread is held by a synchronous call: a subshell of our own.

A synchronous agent call (ADK's ``Runner.run``, strands' ``agent(...)``, LangGraph's
``graph.invoke``, a thread the cell joins) holds the kernel's main thread while the framework's
MCP session asks on another thread. The kernel's loop cannot run a form then, but ipykernel 7.4
can run one elsewhere (measured: docs/kernels.md, "Forms while the main thread is held"):

- **A private subshell.** The kernel makes a subshell for nb_elicit itself (the same kind a
  frontend asks for), with its own thread and event loop. :class:`SideShell` is that subshell;
  the request is answered there, by the same code as on the kernel's loop (views, forms,
  clocks: each runs on the loop of the thread it was made on).
- **The form's messages come to it.** ipykernel routes a frontend's message for a comm to the
  subshell the comm last sent from. The form's widgets are made with the kernel's parent set to
  the running cell's request marked with this subshell, and displayed with the running cell as
  their parent: the form shows in the running cell, and what the person types comes to this
  thread. Each comm of the form is then *pinned* to this subshell (ipywidgets answers each update
  with an echo sent under the frontend's message, which would send the next keystroke back to the
  held main thread: with JupyterLab's ``commsOverSubshells: disabled`` only "A" of "Ada" arrived).
  Widgets made while a message is handled are pinned when it has been (IPython's
  ``post_execute``, which the comm package fires around each widget message).
- **Output of the framework's threads** still goes to the running cell: each message handled on a
  subshell makes the kernel's process-wide fallback parent that message; after each of ours, it
  is the running cell's again.
- **Interrupt** (Kernel > Interrupt) ends the held cell; the framework's thread lives on, so the
  forms asked while that cell ran are answered ``cancel`` when it ends in an error.

Every private ipykernel name is used here and probed once (:func:`side_shell`); where one is
missing (ipykernel older than 7.4, Python 3.10) there is no side shell, and a held kernel's
request is answered by the rules or ``cancel`` with a line, as before.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
import weakref
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

import ipywidgets as widgets

from .._core.kernel import process_part
from .kernel_compat import (
    Message,
    current_kernel,
    kernel_parent,
    kernel_shell,
    running_cell,
    walk_widgets,
)

if TYPE_CHECKING:  # (the kernel's type only: ipykernel is the kernel that runs us)
    from ipykernel.ipkernel import IPythonKernel

__all__ = ["SideShell", "held_here", "in_context", "side_shell"]

T = TypeVar("T")

#: Seconds to wait for the kernel's shell-channel thread to make (or end) the subshell.
OPEN_WAIT = 10.0


class SideShell:
    """A subshell of the kernel's own, where requests asked while the main thread is held are
    answered (see the module's docstring). One per kernel, made when first needed, kept."""

    def __init__(self, kernel: IPythonKernel, subshell_id: str, loop: asyncio.AbstractEventLoop,
                 thread: threading.Thread):
        self.kernel = kernel
        self.id = subshell_id
        self.loop = loop
        self.thread = thread
        #: The views shown from here, walked after each message for comms to pin.
        self._roots: weakref.WeakSet[widgets.Widget] = weakref.WeakSet()
        self._pinned: weakref.WeakSet[widgets.Widget] = weakref.WeakSet()
        #: The requests answered here, by the execute request of the cell they were asked in.
        self._asked: dict[str, set[concurrent.futures.Future[Any]]] = {}
        #: The running cell's request and kernel context, for output of plain threads.
        self._cell: tuple[Message, contextvars.Context] | None = None
        kernel_shell(kernel).events.register("post_execute", self._after_message)
        kernel_shell(kernel).events.register("post_run_cell", self._after_cell)

    # -- running a request here -----------------------------------------------------------

    def run(self, context: contextvars.Context,
            work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``work`` as a task of this shell's loop, in a copy of ``context`` in which the
        kernel's parent is the running cell's request marked with this subshell (so that the
        widgets it makes answer here) and outputs go to the running cell."""
        cell = running_cell()
        if cell is None:
            work.close()
            raise RuntimeError("no cell is running")
        context = context.copy()
        context.run(self.kernel._shell_parent.set, _marked(cell, self.id))
        self._cell = (cell, _cell_context(self.kernel, cell))
        done: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(
            in_context(context, work), self.loop)
        asked = self._asked.setdefault(cell["header"]["msg_id"], set())
        asked.add(done)
        done.add_done_callback(asked.discard)
        return done

    def here(self) -> bool:
        """Whether the caller runs on this shell's thread."""
        return threading.current_thread() is self.thread

    def hold(self, root: widgets.Widget) -> None:
        """Pin every comm below ``root`` to this subshell, now and after each message handled
        here (widgets made meanwhile). Only on this shell's thread; elsewhere nothing."""
        if not self.here():
            return
        self._roots.add(root)
        self._pin(root)

    def _pin(self, root: widgets.Widget) -> None:
        for widget in walk_widgets(root):
            comm = getattr(widget, "comm", None)
            if comm is None or widget in self._pinned:
                continue
            comm._reply_subshell_for = self._route
            self._pinned.add(widget)

    def _route(self, data: object, default: str | None) -> str:
        return self.id

    # -- after each message, after each cell ------------------------------------------------

    def _after_message(self) -> None:
        """On this thread, after a widget message: pin what it made, and let plain threads'
        output go to the running cell again."""
        if not self.here():
            return
        for root in list(self._roots):
            self._pin(root)
        if self._cell is not None:
            parent, context = self._cell
            with contextlib.suppress(Exception):
                kernel_shell(self.kernel).set_parent(parent)  # type: ignore[no-untyped-call]
                # (ipykernel's set_parent has no annotations)
                self.kernel._shell_context = context

    def _after_cell(self, result: object) -> None:
        """A cell ended (on the main thread). Ended by an error (an interrupt among them), its
        requests still open here are answered ``cancel``: its framework's thread lives on, and
        nobody waits in the cell for its answer."""
        cell = kernel_parent(self.kernel, "shell") or {}
        asked = self._asked.pop(cell.get("header", {}).get("msg_id"), set())
        if getattr(result, "success", True):
            return
        for done in list(asked):
            done.cancel()  # (run_coroutine_threadsafe cancels the task on this shell's loop)


def _marked(parent: Message, subshell_id: str) -> Message:
    return {**parent, "header": {**parent["header"], "subshell_id": subshell_id}}


def _cell_context(kernel: IPythonKernel, cell: Message) -> contextvars.Context:
    """The kernel's context for threads that have none of their own, with the running cell as
    its parent."""
    context = kernel._shell_context.copy()
    context.run(kernel._shell_parent.set, cell)
    return context


async def in_context(context: contextvars.Context, work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` as a task of the current loop in ``context`` (and wait for it)."""
    # Background work: a task only to run in ``context``; awaited here.
    return await context.run(asyncio.get_running_loop().create_task, work)


class _Probe:
    """The kernel's side shell, made once (None where this kernel cannot have one): a part of
    the process (:func:`nb_elicit._core.kernel.process_part`), since the subshell lives as
    long as the kernel process, whichever owner of nb_elicit's state asked for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: The kernel probed, and its side shell.
        self.kernel: IPythonKernel | None = None
        self.made: SideShell | None = None

    def get(self) -> SideShell | None:
        kernel = current_kernel()
        if kernel is None:
            return None
        with self.lock:
            if self.kernel is not kernel:
                self.kernel, self.made = kernel, _open(kernel)
            return self.made


def _open(kernel: IPythonKernel) -> SideShell | None:
    """A new subshell of ``kernel`` for nb_elicit, or None where a name it needs is missing."""
    try:
        from ipykernel.comm.comm import BaseComm
    except ImportError:
        return None
    channel = getattr(kernel, "shell_channel_thread", None)
    manager = getattr(channel, "manager", None) if channel is not None else None
    needed = (getattr(manager, "_create_subshell", None), getattr(manager, "_cache", None),
              getattr(manager, "_lock_cache", None), getattr(channel, "io_loop", None),
              getattr(kernel, "_shell_parent", None), getattr(kernel, "_shell_context", None),
              getattr(BaseComm, "_reply_subshell_for", None),
              getattr(kernel.shell, "set_parent", None))
    if any(name is None for name in needed):
        return None
    assert channel is not None and manager is not None  # (both read above, neither None)
    made: concurrent.futures.Future[str] = concurrent.futures.Future()

    def create() -> None:  # (on the shell-channel thread, as the subshell manager requires)
        try:
            made.set_result(manager._create_subshell())
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            made.set_exception(error)

    try:
        channel.io_loop.add_callback(create)
        subshell_id = made.result(OPEN_WAIT)
        with manager._lock_cache:
            thread = manager._cache[subshell_id]
        loop = thread.io_loop.asyncio_loop
    except Exception:  # noqa: BLE001 - no side shell: the held kernel's fallback applies
        return None
    return SideShell(kernel, subshell_id, loop, thread)


def _probe() -> _Probe:
    return process_part(_Probe)


def side_shell() -> SideShell | None:
    """This kernel's side shell (made on first use), or None where it cannot have one."""
    return _probe().get()


def held_here(root: widgets.Widget) -> None:
    """Where the caller runs on a side shell's thread, pin ``root``'s comms to it (see
    :meth:`SideShell.hold`); elsewhere nothing (and no side shell is made)."""
    side = _probe().made
    if side is not None:
        side.hold(root)  # (nothing where the caller is not on its thread)
