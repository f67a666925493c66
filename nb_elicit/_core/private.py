"""Owner-only files: the folder 0700, the file 0600, written atomically, and changed under a
lock that holds across threads and processes (:func:`locked`)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # (Windows: the thread lock only)
    fcntl = None  # type: ignore[assignment]

__all__ = ["locked", "write_json_owner_only"]

#: Threads of this process take turns here first; ``_HELD.paths``: the locks this thread holds.
_THREADS = threading.RLock()
_HELD = threading.local()


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
    with _THREADS:
        held = _HELD.__dict__.setdefault("paths", set())
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
