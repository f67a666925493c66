"""When the validator is made ahead of the first Submit: at a quiet moment, never on the way to
the first form.

Making it imports jsonschema, which takes about a second of CPU where ``rfc3987-syntax`` is
installed (as every Jupyter server install has it; see ``_core/validate.py``). A background
thread does it, but in a kernel that thread holds the GIL against everything else: started by
``%load_ext``, it slowed the SDK's import, the first connect and the first form by about half a
second. So it starts at the first of:

- the kernel idle for :data:`IDLE` seconds after a cell, once a connection is up
  (:func:`when_idle`, which :func:`~.connection.connect` calls): the next cell, if one is
  already waiting, starts before that and the wait begins again after it;
- a form shown, :data:`AFTER_SHOWN` seconds later (:func:`after_shown`), once its widget
  messages are on their way: a person takes longer than that to read a form and press Submit.

A Submit (or an answer of a respond policy or a recording) that comes before the validator is
made waits for it, and is checked exactly the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

from .._core.validate import warm_up, warming_or_warm

__all__ = ["AFTER_SHOWN", "IDLE", "after_shown", "cancel", "when_idle"]

#: Seconds the kernel must be idle after a cell before the validator is made.
IDLE = 0.5
#: Seconds after a form is shown before the validator is made (if it is not yet).
AFTER_SHOWN = 0.1


def after_shown() -> None:
    """A form was just shown: make the validator a moment later (in the background)."""
    if not warming_or_warm():
        asyncio.get_running_loop().call_later(AFTER_SHOWN, warm_up)


def when_idle() -> None:
    """Make the validator once the kernel has been idle for :data:`IDLE` seconds after a cell.

    Outside IPython this does nothing: there, the first form shown starts it.
    """
    global _watch
    if _watch is not None or warming_or_warm():
        return
    shell = _shell()
    if shell is None:
        return
    _watch = _IdleWatch(shell)


def cancel() -> None:
    """Stop waiting for an idle kernel (``%unload_ext``); a warm-up under way goes on."""
    if _watch is not None:
        _watch.stop()


class _IdleWatch:
    """Between cells, a timer of :data:`IDLE` seconds; a cell that starts stops it."""

    def __init__(self, shell):
        self.shell = shell
        self.timer: asyncio.TimerHandle | None = None
        shell.events.register("pre_run_cell", self.busy)
        shell.events.register("post_run_cell", self.idle)

    def busy(self, info=None) -> None:
        self._stop_timer()
        if warming_or_warm():  # (a form started it)
            self.stop()

    def idle(self, result=None) -> None:
        self._stop_timer()
        if warming_or_warm():
            self.stop()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (a shell without an event loop: the first form starts it)
            return
        self.timer = loop.call_later(IDLE, self.fire)

    def fire(self) -> None:
        self.timer = None
        self.stop()
        warm_up()

    def stop(self) -> None:
        global _watch
        self._stop_timer()
        for event, callback in (("pre_run_cell", self.busy), ("post_run_cell", self.idle)):
            with contextlib.suppress(ValueError):
                self.shell.events.unregister(event, callback)
        if _watch is self:
            _watch = None

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


_watch: _IdleWatch | None = None


def _shell():
    """The running IPython shell, or None."""
    if "IPython" not in sys.modules:
        return None
    from IPython import get_ipython

    return get_ipython()
