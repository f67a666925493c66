"""jsonschema, imported off the event loop for the SDK, which checks a tool's structured result
with it (nb_elicit's own checks need no jsonschema: see ``_core/schema/validate.py``).

Its import takes a second or more (with ``rfc3987-syntax`` installed, as every Jupyter server
install has it, it builds a grammar): on the event loop, a second in which the kernel answers
nothing.
"""

from __future__ import annotations

import concurrent.futures
import sys
import threading

from .._core.kernel import process_part

__all__ = ["jsonschema_imported"]


class _Importing:
    """The one import of jsonschema, once started: a part of the process
    (:func:`~nb_elicit._core.kernel.process_part`), as the import is."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done: concurrent.futures.Future[None] | None = None


def jsonschema_imported() -> concurrent.futures.Future[None]:
    """A future done once jsonschema is imported: at once if it is, else on a thread of its
    own (started by the first call), so that code on an event loop can wait for the import
    without stopping the loop for the second it takes. Done even if the import failed:
    whoever imports it next gets that error."""
    importing = process_part(_Importing)
    with importing.lock:
        if importing.done is None:
            importing.done = concurrent.futures.Future()
            if "jsonschema" in sys.modules:
                importing.done.set_result(None)
            else:
                threading.Thread(target=_import_jsonschema, args=(importing.done,), daemon=True,
                                 name="nb_elicit-jsonschema").start()
        return importing.done


def _import_jsonschema(done: concurrent.futures.Future[None]) -> None:
    try:
        import jsonschema  # noqa: F401
    except BaseException:  # noqa: BLE001, S110 - the next import raises it where it matters
        pass
    finally:
        done.set_result(None)
