"""Kernel workarounds, in one small, documented, version-gated place.

**Lost keystrokes on ipykernel 7.4.** While a cell awaits, ipykernel 7.4 handles widget
``comm_msg`` messages on a concurrent path that publishes no ``status: idle`` for them. JupyterLab
sends the next update of a widget only after the idle of the previous one, so a person typing
"Ada" into a form while ``await conn.call_tool(...)`` runs delivers only "A", and every later
edit of that field is silently lost. :func:`keep_widget_messages_flowing` publishes the missing
idle, with the handled message as its parent, after one of our widgets handled a message on that
path, and only then: where the kernel publishes the status itself, nothing extra is sent.

**Blocking style needs ipykernel >= 7.4.** Older kernels handle no widget message while a cell
awaits, so ``await conn.call_tool(...)`` would wait forever for a click that cannot arrive.
:func:`check_blocking_supported` says so in one line instead.
"""

from __future__ import annotations

import functools
import os
import sys
from importlib.metadata import PackageNotFoundError, version

import ipywidgets as widgets

from .._core.errors import BlockingNotSupported

__all__ = ["BLOCKING_MIN_IPYKERNEL", "check_blocking_supported", "keep_widget_messages_flowing",
           "widget_frontend_attached"]

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


def _kernel():
    """The running ipykernel, or None outside a kernel."""
    shell = sys.modules.get("IPython") and _get_ipython()
    return getattr(shell, "kernel", None) if shell is not None else None


def _get_ipython():
    from IPython import get_ipython

    return get_ipython()


def widget_frontend_attached() -> bool:
    """Whether a person may see widgets from this kernel.

    The rule: yes when a widget manager has opened ipywidgets' control channel to this kernel,
    or when a notebook server started the kernel (it sets ``JPY_SESSION_NAME``: JupyterLab,
    Notebook 7, Binder, JupyterHub). No for kernels started by executors such as nbclient,
    nbconvert and papermill, which render no widgets, and outside a kernel.
    """
    if _kernel() is None:
        return False
    module = sys.modules.get("ipywidgets")
    if module is not None and getattr(module.Widget, "_control_comm", None) is not None:
        return True
    return bool(os.environ.get("JPY_SESSION_NAME"))


def check_blocking_supported() -> None:
    """Raise :class:`BlockingNotSupported` in a kernel that cannot serve a waiting cell."""
    if _kernel() is None:
        return
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
    for widget in _walk(root):
        comm = getattr(widget, "comm", None)
        if comm is None or getattr(widget, "_nb_elicit_idle_fix", False):
            continue
        handle = widget._handle_msg

        def handle_then_idle(msg, handle=handle):
            try:
                handle(msg)
            finally:
                if _on_concurrent_path():
                    kernel.session.send(kernel.iopub_socket, "status",
                                        {"execution_state": "idle"}, parent=msg,
                                        ident=kernel._topic("status"))

        comm.on_msg(handle_then_idle)
        widget._nb_elicit_idle_fix = True


def _on_concurrent_path() -> bool:
    """Whether the message being handled came through ``dispatch_shell(concurrent=True)``."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "dispatch_shell" and "concurrent" in frame.f_locals:
            return frame.f_locals["concurrent"] is True
        frame = frame.f_back
    return False


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()) or ():
        if isinstance(child, widgets.Widget):
            yield from _walk(child)
