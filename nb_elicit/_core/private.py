"""Owner-only files: the folder 0700, the file 0600, written atomically, and changed under a
lock that holds across threads and processes (:func:`locked`); read by :func:`read_json_object`,
which never lets a file it could not read be taken for an empty one (a store that writes back
what it read would wipe it)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .kernel import process_part

try:
    import fcntl
except ImportError:  # (Windows: the thread lock only)
    fcntl = None  # type: ignore[assignment]

__all__ = ["HeldLocks", "StoreWarning", "locked", "read_json_object", "write_json_owner_only"]

class HeldLocks:
    """Threads of this process take turns at ``threads`` first; ``held.paths``: the locks the
    calling thread holds. A part of the process (:func:`.kernel.process_part`), not of the
    kernel's owner: a lock is held by the process, whichever owner asked for it."""

    def __init__(self) -> None:
        self.threads = threading.RLock()
        self.held = threading.local()


class StoreWarning(UserWarning):
    """A file nb_elicit keeps could not be read (:class:`~.errors.UnreadableFile`): nothing of
    it is shown, and it is left as it is."""


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; None where there is none yet (no file, or an empty one).
    :class:`~.errors.UnreadableFile` (one line) when it is there but cannot be read, is not
    JSON or not an object: a store then writes nothing over it."""
    from .errors import UnreadableFile

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        reason = (error.strerror if isinstance(error, OSError) and error.strerror
                  else type(error).__name__)
        raise UnreadableFile(path, f"cannot be read ({reason})") from None
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except ValueError as error:
        where = (f" at line {error.lineno}, column {error.colno}"
                 if isinstance(error, json.JSONDecodeError) else "")
        raise UnreadableFile(path, f"not JSON{where}") from None
    if not isinstance(data, dict):
        raise UnreadableFile(path, "not a JSON object")
    return data


def write_json_owner_only(path: Path, data: object) -> None:
    """Write ``data`` as JSON to ``path``, readable by its owner only, in one step."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    temporary = path.parent / f".{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=1, sort_keys=True)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def lock_file(path: Path) -> Path:
    """The lock file beside the owner-only file ``path``: ``.<name>.lock``."""
    return path.parent / f".{path.name}.lock"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of the owner-only file ``path`` while reading, changing and writing it, so
    that two kernels (two processes) never lose each other's changes: an exclusive ``flock`` on
    :func:`lock_file` (0600, in the 0700 folder, made if need be) where ``fcntl`` exists, and a
    lock of this process's threads everywhere. A thread that holds it may take it again."""
    key = str(path)
    locks = process_part(HeldLocks)
    with locks.threads:
        held = locks.held.__dict__.setdefault("paths", set())
        if fcntl is None or key in held:
            yield
            return
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(lock_file(path), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held.add(key)
            yield
        finally:
            held.discard(key)
            os.close(fd)  # (closing releases the lock)
