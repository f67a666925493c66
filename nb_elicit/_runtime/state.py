"""The one owner of this kernel's state (:class:`KernelState`, reached through
:func:`kernel_state`).

It holds the connections, the forms waiting for a person, the tasks followed, the guards of
the hooks, the apps frameworks show, the inputs of configured servers given so far and the
kernel-status bookkeeping, and, as parts kept by their class (see :mod:`.._core.kernel`), the
pure model's state (the history, the recording, the respond policies, the secrets given, the
tokens kept in memory, the language) and the widgets' (their clocks and shared models). The
lower layers reach their parts through :mod:`.._core.kernel` without importing the runtime.

``%load_ext nb_elicit`` makes it, and so does the Python API on first use; ``%unload_ext``
closes it (:func:`close_kernel_state`): the waiting forms close, the connections close, and
the next use starts a new one.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from .._core import kernel
from .._core.policy import Policies
from .._core.records.history import History
from .._core.records.recording import Tape
from .._ui.clock import LoopClocks
from .._ui.kit import SharedModels
from .status import KernelStatus

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from .connection import Connection
    from .framework_apps import FrameworkApps
    from .guard import HookGuards
    from .pending import PendingForms
    from .tasks import Tasks

__all__ = ["KernelState", "close_kernel_state", "kernel_state"]


class KernelState(kernel.Parts):
    """Everything this kernel keeps while nb_elicit is loaded (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        #: Live connections by name, as made by ``connect()`` (and ``%mcp connect``).
        self.connections: dict[str, Connection] = {}
        #: The apps of framework sessions still on screen (see :mod:`.framework_apps`).
        self.framework_apps: list[FrameworkApps] = []
        #: Input values of configured servers asked for, by (config file, input id).
        self.inputs: dict[tuple[str, str], str] = {}

    # (The forms, tasks and guards are parts too, their modules imported on first use, so that
    # %load_ext, which makes the owner, stays quick.)
    @property
    def pending(self) -> PendingForms:
        """The forms still waiting for a person."""
        from .pending import PendingForms

        return self.part(PendingForms)

    @property
    def tasks(self) -> Tasks:
        """The tasks this kernel follows."""
        from .tasks import Tasks

        return self.part(Tasks)

    @property
    def guards(self) -> HookGuards:
        """The guards of the hooks' requests."""
        from .guard import HookGuards

        return self.part(HookGuards)

    @property
    def history(self) -> History:
        return self.part(History)

    @property
    def tape(self) -> Tape:
        return self.part(Tape)

    @property
    def policies(self) -> Policies:
        return self.part(Policies)

    @property
    def status(self) -> KernelStatus:
        """Which cell runs, and the rest of :mod:`.kernel_compat`'s bookkeeping."""
        return self.part(KernelStatus)

    @property
    def clocks(self) -> LoopClocks:
        """The widgets' clock of each event loop."""
        return self.part(LoopClocks)

    @property
    def kit(self) -> SharedModels:
        """The models every widget of the kernel shares (the kit's)."""
        return self.part(SharedModels)

    def close(self, reason: str = "nb_elicit was unloaded.") -> None:
        """Close every waiting form (answered cancel, showing ``reason``) and every connection,
        then the parts. A connection closes on the running loop where there is one (its own
        work ends it), else here."""
        if "nb_elicit._runtime.pending" in sys.modules:  # (else no form was ever shown)
            self.pending.close(reason)
        closing = [conn.close() for conn in list(self.connections.values())]
        self.connections.clear()
        super().close()
        if not closing:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            for coro in closing:
                # Background work: kernel-wide; each close ends its connection's own work.
                loop.create_task(coro)
        else:
            asyncio.run(_gather(closing))


async def _gather(coros: list[Coroutine[object, object, None]]) -> None:
    await asyncio.gather(*coros, return_exceptions=True)


def kernel_state() -> KernelState:
    """This kernel's owner (made now where there is none)."""
    return kernel.owner_of(KernelState)


def close_kernel_state(reason: str = "nb_elicit was unloaded.") -> None:
    """Close this kernel's owner, if any; the next use makes a new one."""
    owner = kernel.install(None)
    if isinstance(owner, KernelState):
        owner.close(reason)
    elif owner is not None:
        owner.close()
