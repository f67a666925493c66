"""Kernel workarounds, in one small, documented, version-gated place.

**Lost keystrokes on ipykernel 7.4.** While a cell awaits, ipykernel 7.4 handles widget
``comm_msg`` messages on a concurrent path that publishes no ``status: idle`` for them. JupyterLab
sends the next update of a widget only after the idle of the previous one, so a person typing
"Ada" into a form while ``await conn.call_tool(...)`` runs delivers only "A", and every later
edit of that field is silently lost. :func:`keep_widget_messages_flowing` publishes the missing
idle, with the handled message as its parent, after one of our widgets handled a message on that
path, and only then: where the kernel publishes the status itself, nothing extra is sent.

JupyterLab's kernel status (the status bar, the toolbar's circle) is the last status the kernel
published, whatever its parent (``@jupyterlab/services`` ``kernel/default.ts``; it skips only
parents of the server's ``untracked_message_types``, and ``comm_msg`` is not one). So that idle
alone would make a kernel whose cell still waits for a form read "Idle", and so would every
other idle the kernel publishes while a cell runs: a subshell's for each widget message there
(JupyterLab's default ``commsOverSubshells``, and nb_elicit's own subshell for a held kernel),
the control channel's for JupyterLab's ``create_subshell_request`` and ``debug_request``. While
the main shell runs a cell, every such idle is followed at once by ``busy``, parented on that
cell's execute request (:func:`_keep_status_true`, which wraps the kernel's one way to publish a
status; the widget's throttle counts only idles, and only for its own message): the kernel
reads busy for as long as its cell runs, whatever waits in it, and idle once it ends; the
notebook server's record of the kernel's state agrees.

**Blocking style needs ipykernel >= 7.4.** Older kernels handle no widget message while a cell
awaits, so ``await conn.call_tool(...)`` would wait forever for a click that cannot arrive.
:func:`check_blocking_supported` says so in one line instead. Voilà shows a notebook's page only
once its cells have run, so a cell that waits for a form there would wait for a page never
shown: refused in one line too.

**Which frontend shows the widgets** (:func:`frontend`, :func:`widget_frontend_attached`). A
person may see a form when a widget manager opened ipywidgets' control channel, when a notebook
server started the kernel (``JPY_SESSION_NAME``), when the kernel runs under a frontend known to
render widgets without either (VS Code's own local kernel, Voilà, Colab), or once the frontend
counted a displayed view of one of our forms (``_view_count``, which every widget manager built on
``@jupyter-widgets/base`` keeps: :func:`count_views`). Executors (nbclient, nbconvert, papermill)
do none of these.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import enum
import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, version
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

import ipywidgets as widgets

from .._core.errors import BlockingNotSupported
from .._core.kernel import part
from .status import KernelStatus

if TYPE_CHECKING:  # (types only: ipykernel and IPython are the kernel that runs us)
    from ipykernel.ipkernel import IPythonKernel
    from ipykernel.zmqshell import ZMQInteractiveShell
    from IPython.core.interactiveshell import InteractiveShell

#: A Jupyter message as ipykernel hands it (an execute request, a comm message).
Message = dict[str, Any]

__all__ = ["BLOCKING_MIN_IPYKERNEL", "Frontend", "cell_code_runs", "check_blocking_supported",
           "count_views", "current_kernel", "enable_frontend", "frontend", "in_running_cell",
           "keep_widget_messages_flowing", "kernel_loop", "kernel_parent", "kernel_shell",
           "kernel_thread_stack", "running_cell", "shows_display_updates", "walk_widgets",
           "watch_cells", "widget_frontend_attached"]

BLOCKING_MIN_IPYKERNEL = (7, 4)
#: The ipykernel releases whose concurrent comm path publishes no status (re-check on upgrade).
_SILENT_CONCURRENT_PATH = ((7, 4), (8, 0))


@functools.lru_cache(maxsize=1)
def _ipykernel_version() -> tuple[int, ...] | None:
    try:
        text = version("ipykernel")
    except PackageNotFoundError:
        return None
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


def _kernel() -> IPythonKernel | None:
    """The running ipykernel, or None outside a kernel."""
    shell = sys.modules.get("IPython") and _get_ipython()
    # (IPython's shell class names no ``kernel``: ipykernel's shell sets it)
    kernel: IPythonKernel | None = getattr(shell, "kernel", None) if shell is not None else None
    return kernel


def current_kernel() -> IPythonKernel | None:
    """The running ipykernel (its kernel object), or None outside a kernel."""
    return _kernel()


def kernel_shell(kernel: IPythonKernel) -> ZMQInteractiveShell:
    """``kernel``'s shell."""
    # ipykernel's trait allows None, which a running kernel's shell never is.
    return cast("ZMQInteractiveShell", kernel.shell)


def kernel_parent(kernel: IPythonKernel, channel: str) -> Message | None:
    """The message ``kernel`` handles on ``channel`` now (None: none)."""
    parent: Message | None = kernel.get_parent(channel)  # type: ignore[no-untyped-call]
    # (ipykernel's get_parent has no annotations)
    return parent


def _get_ipython() -> InteractiveShell | None:
    from IPython import get_ipython

    shell: InteractiveShell | None = get_ipython()
    return shell


class Frontend(enum.Enum):
    """The frontends recognised by the kernel they run, where they set no session."""

    VSCODE = "VS Code"
    VOILA = "Voilà"
    COLAB = "Colab"


def frontend() -> Frontend | None:
    """The frontend this kernel runs under, where it tells (None where it does not, and outside
    a kernel): VS Code's start-up code sets ``__vsc_ipynb_file__`` in the person's namespace,
    Voilà sets ``VOILA_KERNEL_ID`` in the kernel's environment, and Colab's kernel has
    ``google.colab`` loaded (and ``COLAB_RELEASE_TAG`` set)."""
    kernel = _kernel()
    if kernel is None:
        return None
    if os.environ.get("VOILA_KERNEL_ID"):
        return Frontend.VOILA
    if "google.colab" in sys.modules or os.environ.get("COLAB_RELEASE_TAG"):
        return Frontend.COLAB
    namespace = getattr(getattr(kernel, "shell", None), "user_ns", None) or {}
    if "__vsc_ipynb_file__" in namespace:
        return Frontend.VSCODE
    return None


def count_views(widget: widgets.Widget) -> None:
    """Ask the frontend to count ``widget``'s displayed views (ipywidgets' ``_view_count``: a
    manager built on ``@jupyter-widgets/base`` adds one when a view is displayed, and syncs it);
    the first one counted tells :func:`widget_frontend_attached` that a person sees widgets."""
    if widget._view_count is None:
        widget._view_count = 0
    widget.observe(_status().saw, names="_view_count")


def widget_frontend_attached() -> bool:
    """Whether a person may see widgets from this kernel.

    The rule: yes when a widget manager has opened ipywidgets' control channel to this kernel,
    when a notebook server started the kernel (it sets ``JPY_SESSION_NAME``: JupyterLab,
    Notebook 7, Binder, JupyterHub), under a frontend that renders widgets and is known by
    what it sets (:func:`frontend`: VS Code's local kernel, Voilà, Colab), and once a frontend
    counted a displayed view of one of our widgets (:func:`count_views`). No for kernels
    started by executors such as nbclient, nbconvert and papermill, which render no widgets,
    and outside a kernel.
    """
    if _kernel() is None:
        return False
    module = sys.modules.get("ipywidgets")
    if module is not None and getattr(module.Widget, "_control_comm", None) is not None:
        return True
    if os.environ.get("JPY_SESSION_NAME") or _status().seen:
        return True
    return frontend() is not None


def shows_display_updates() -> bool:
    """Whether the frontend applies ``update_display_data`` to an output already shown: Voilà
    does not (a view replaced by its transcript there would just vanish)."""
    return frontend() is not Frontend.VOILA


def enable_frontend() -> None:
    """Make the frontend render ipywidgets 8, where it needs telling: Colab renders only the
    widgets displayed after ``google.colab.output.enable_custom_widget_manager()``."""
    if frontend() is not Frontend.COLAB:
        return
    with contextlib.suppress(Exception):  # (an older or changed Colab: widgets as it has them)
        from google.colab import output

        output.enable_custom_widget_manager()


def check_blocking_supported(*, tell: bool = True) -> None:
    """Raise :class:`BlockingNotSupported` in a kernel that cannot serve a waiting cell.

    Voilà shows neither a cell's error nor its stderr (unless it was started with
    ``--show_tracebacks=True``), only a line saying that the cell failed: there the refusal's
    one line is also printed on the cell's stdout, which the page shows, unless ``tell`` is
    False (``%mcp call``, which then calls without blocking)."""
    if _kernel() is None:
        return
    if frontend() is Frontend.VOILA:
        refusal = BlockingNotSupported(
            "Voilà shows the page only once every cell has run, so a cell that waits for a form "
            "would wait for a page never shown: use conn.start_tool(...) instead")
        if tell:
            print(f"{type(refusal).__name__}: {refusal}", flush=True)
        raise refusal
    found = _ipykernel_version()
    if found is not None and found < BLOCKING_MIN_IPYKERNEL:
        need = ".".join(map(str, BLOCKING_MIN_IPYKERNEL))
        have = ".".join(map(str, found))
        raise BlockingNotSupported(
            f"await conn.call_tool(...) needs ipykernel >= {need} (this kernel has {have}); "
            "use conn.start_tool(...) instead, or upgrade ipykernel")


def keep_widget_messages_flowing(root: widgets.Widget) -> None:
    """Install the missing-idle workaround on ``root`` and every widget below it."""
    kernel = _kernel()
    found = _ipykernel_version()
    if kernel is None or found is None:
        return
    low, high = _SILENT_CONCURRENT_PATH
    if not low <= found < high:
        return
    fixed = _status().idle_fixed  # (the widgets whose messages it already handles)
    for widget in walk_widgets(root):
        comm = getattr(widget, "comm", None)
        if comm is None or widget in fixed:
            continue
        handle = widget._handle_msg

        def handle_then_idle(msg: Message, handle: Callable[[Message], None] = handle) -> None:
            try:
                handle(msg)
            finally:
                if _on_concurrent_path():
                    # The widget may send its next update (and busy follows: the kernel
                    # still runs its cell, see _keep_status_true).
                    _publish_status(kernel, "idle", msg)

        comm.on_msg(handle_then_idle)
        fixed.add(widget)
    _watch_cells(kernel)


def _status() -> KernelStatus:
    return part(KernelStatus)  # (the kernel's owner's: see nb_elicit._runtime.state)


def _watch_cells(kernel: IPythonKernel) -> None:
    """Keep the owner's running cells (:attr:`KernelStatus.running`) up to date, from IPython's
    pre/post_execute events.

    The comm package fires the same two events around each comm message it hands to a widget;
    those (their parent is no execute request) say nothing about the cell and are ignored.
    """
    status = _status()
    running = status.running
    if kernel in running:
        return
    events = kernel_shell(kernel).events

    def started() -> None:
        request = _execute_request(kernel)
        if request is not None:
            running[kernel] = request

    def ended() -> None:
        if _execute_request(kernel) is not None:
            running[kernel] = None

    status.watch(events, "pre_execute", started)
    status.watch(events, "post_execute", ended)
    # The cell that runs now began before this watch did. (In a task that a finished cell
    # started, this is that cell: then only the label of a busy is stale, never the state,
    # which comes from the shell's lock.)
    running[kernel] = _execute_request(kernel)
    _keep_status_true(kernel)


def _keep_status_true(kernel: IPythonKernel) -> None:
    """While the main shell runs a cell, follow every other idle the kernel publishes (a
    subshell's, the control channel's, the concurrent comm path's) with busy, parented on that
    cell; idempotent. The cell's own busy and idle say when it runs: they are the main shell's
    status for an execute request. One lock orders them, so no busy follows the cell's end."""
    original = getattr(kernel, "_publish_status", None)
    if original is None or getattr(original, "nb_elicit_true_status", False):
        return
    kept = _status()  # (the owner's when this was installed: the publisher keeps it)
    shown, lock = kept.shown, kept.lock

    def publish(status: str, channel: str, parent: Message | None = None) -> None:
        parent = parent or kernel_parent(kernel, channel)
        header = (parent or {}).get("header") or {}
        cell = (channel == "shell" and header.get("msg_type") == "execute_request"
                and not header.get("subshell_id"))
        with lock:
            original(status, channel, parent)
            if cell:
                shown[kernel] = parent if status == "busy" else None
            elif status == "idle" and shown.get(kernel) is not None:
                original("busy", channel, shown[kernel] or parent)

    publish.nb_elicit_true_status = True  # type: ignore[attr-defined]
    # (a mark on the function, which Callable does not name)
    with lock:
        running = _cell_running(kernel)
        shown[kernel] = (kept.running.get(kernel) or {}) if running else None
        kernel._publish_status = publish  # type: ignore[method-assign]
        # (the kernel's method replaced on purpose, see above)


def _cell_running(kernel: IPythonKernel) -> bool:
    """Whether the main shell runs a cell: it holds the lock that sends comm messages down
    the concurrent path (feature-detected; without it, what pre/post_execute said)."""
    lock = getattr(kernel, "_main_asyncio_lock", None)
    if lock is not None and hasattr(lock, "locked"):
        return bool(lock.locked())
    return _status().running.get(kernel) is not None


def _execute_request(kernel: IPythonKernel) -> Message | None:
    parent = kernel_parent(kernel, "shell")
    msg_type = (parent or {}).get("header", {}).get("msg_type")
    return parent if msg_type == "execute_request" else None


def _publish_status(kernel: IPythonKernel, state: str, parent: Message) -> None:
    """Publish ``state`` with ``parent``, the kernel's way (then busy follows an idle while a
    cell runs, see :func:`_keep_status_true`)."""
    kernel._publish_status(state, "shell", parent)  # type: ignore[no-untyped-call]
    # (ipykernel's _publish_status has no annotations)


def _on_concurrent_path() -> bool:
    """Whether the message being handled came through ``dispatch_shell(concurrent=True)``."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "dispatch_shell" and "concurrent" in frame.f_locals:
            return frame.f_locals["concurrent"] is True
        frame = frame.f_back
    return False


# -- the running cell, for requests that come from outside nb_elicit's own calls -------------------

def watch_cells() -> None:
    """Start following which cell the kernel runs (see :func:`running_cell`); idempotent."""
    kernel = _kernel()
    if kernel is not None:
        _watch_cells(kernel)


def running_cell() -> Message | None:
    """The execute request of the cell the kernel runs now (None: none, or outside a kernel).

    This is the kernel's view, not the caller's context: a framework's session started in an
    earlier cell calls its elicitation hook in that cell's context (ipykernel picks a
    ``display()``'s cell from a ContextVar), while the person looks at the cell that runs."""
    kernel = _kernel()
    if kernel is None:
        return None
    _watch_cells(kernel)
    return _status().running.get(kernel) if _cell_running(kernel) else None


def in_running_cell(context: contextvars.Context | None = None) -> contextvars.Context:
    """A copy of ``context`` (default: the current one) in which displays and prints go to the
    running cell (:func:`running_cell`); with no cell running, the copy as it is."""
    copied = (context or contextvars.copy_context()).copy()
    parent = running_cell()
    kernel = _kernel()
    if parent is not None and kernel is not None:
        copied.run(_aim_outputs, kernel, parent)
    return copied


def _aim_outputs(kernel: IPythonKernel, parent: Message) -> None:
    """In the current context, send displays and prints with ``parent`` (each publisher's own
    per-context parent: the kernel's other contexts and threads are left as they are)."""
    shell = kernel_shell(kernel)
    for publisher in (getattr(shell, "display_pub", None), getattr(shell, "displayhook", None),
                      sys.stdout, sys.stderr):
        aim = getattr(publisher, "set_thread_parent", None)
        if aim is not None:
            with contextlib.suppress(Exception):
                aim(parent)


def kernel_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop the kernel runs its cells and widget messages on (None outside a kernel)."""
    kernel = _kernel()
    io_loop = getattr(kernel, "io_loop", None) if kernel is not None else None
    loop = getattr(io_loop, "asyncio_loop", None)
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


def kernel_thread_stack() -> list[tuple[str, str]]:
    """What the thread of the kernel's loop is running, innermost first, as (module, function)
    pairs (to name a synchronous call that holds it)."""
    thread = threading.main_thread()
    frame = sys._current_frames().get(thread.ident) if thread.ident is not None else None
    stack = []
    while frame is not None:
        stack.append((frame.f_globals.get("__name__", ""), frame.f_code.co_name))
        frame = frame.f_back
    return stack


def cell_code_runs() -> bool:
    """Whether the kernel's thread is running a cell's code right now (IPython's ``run_code``
    on its stack): a synchronous call in the cell holds it. A cell that awaits is off that
    thread's stack while it waits (the thread is back in its event loop)."""
    return ("IPython.core.interactiveshell", "run_code") in kernel_thread_stack()


def walk_widgets(widget: widgets.Widget) -> Iterator[widgets.Widget]:
    """``widget`` and every widget below it (through ``children``)."""
    yield widget
    for child in getattr(widget, "children", ()) or ():
        if isinstance(child, widgets.Widget):
            yield from walk_widgets(child)
