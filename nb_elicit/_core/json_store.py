"""One JSON object kept in an owner-only file, read and changed under a lock that holds across
processes (:class:`JsonStore`): the one store under the file of running tasks, the consents
and the sign-in tokens.

What each of them shares is here: the folders 0700 and the file 0600, written in one step
(:func:`~.private.write_json_owner_only`); a change read, made and written under
:func:`~.private.locked`, so that two kernels never lose each other's changes; a file that is
there but cannot be read (:class:`~.errors.UnreadableFile`, one line) never written over by a
change; a look that makes no folder and no lock file; and the file's ``version``, which a later
version's file keeps. What a store keeps in the object (its keys, its records, its rules) is
its own.
"""

from __future__ import annotations

import contextlib
import copy
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, overload

from .errors import UnreadableFile
from .private import locked, read_json_object, write_json_owner_only

__all__ = ["JsonStore"]


class JsonStore:
    """The JSON object in the owner-only file ``path``.

    ``version``: the number written as the object's ``"version"`` (None: none is written); a
    file of a later version keeps its own. ``top``: the highest folder that is the store's own
    (by default the file's folder): it and every folder below it down to the file's are made
    0700 and set 0700 at each write; the folders above it are made as ``mkdir -p`` makes them.
    """

    def __init__(self, path: Path, version: int | None = None, top: Path | None = None):
        self.path = Path(path)
        self.version = version
        self.top = self.path.parent if top is None else Path(top)
        if self.top != self.path.parent and self.top not in self.path.parents:
            raise ValueError(f"{self.top} is not a folder above {self.path}")

    def __repr__(self) -> str:
        return f"<nb_elicit JsonStore {self.path}>"

    def look(self) -> dict[str, Any] | None:
        """The object as it is now, for reading only; None where there is none yet (no file,
        or an empty one). :class:`~.errors.UnreadableFile` when it is there but cannot be read.

        Read under the lock, but a look makes nothing: without its folder there is nothing to
        read, and where the lock file cannot be made (a folder that is not writable) the file
        is read as it is: it is only ever replaced whole, in one step, so a read never sees
        half a write."""
        if not self.path.parent.is_dir():
            return None
        with contextlib.ExitStack() as lock:
            with contextlib.suppress(OSError):  # (the lock file cannot be made)
                lock.enter_context(locked(self.path))
            return read_json_object(self.path)

    @contextlib.contextmanager
    def changing(self) -> Iterator[dict[str, Any]]:
        """Read, change and write the object in one step under the lock: the block gets the
        object as read (an empty one where there is none yet) and changes it in place; it is
        written when the block ends without an exception, if it changed.

        :class:`~.errors.UnreadableFile` (an OSError, one line) when the file is there but
        cannot be read: the block does not run, and nothing is written over the file. Any
        other OSError when it cannot be written."""
        self._make_folders(chmod=False)
        with locked(self.path):
            document = read_json_object(self.path) or {}
            before = copy.deepcopy(document)
            yield document
            if document != before:
                self._write(document)

    def write(self, document: dict[str, Any]) -> None:
        """Replace the object with ``document``, under the lock (what was there, read or not,
        goes: for a store whose every write is a whole new value)."""
        self._make_folders(chmod=False)
        with locked(self.path):
            self._write(document)

    @overload
    def part(self, document: dict[str, Any], key: str, kind: type[list[Any]]) -> list[Any]: ...

    @overload
    def part(self, document: dict[str, Any], key: str,
             kind: type[dict[str, Any]]) -> dict[str, Any]: ...

    def part(self, document: dict[str, Any], key: str,
             kind: type[list[Any]] | type[dict[str, Any]]) -> list[Any] | dict[str, Any]:
        """The value of ``key`` in ``document``, a list or an object by ``kind`` (empty where
        it has none). :class:`~.errors.UnreadableFile` when it is of another type: the file
        is then no file of this store, and no change writes over it."""
        value = document.get(key, kind())
        if not isinstance(value, kind):
            raise UnreadableFile(
                self.path, f'"{key}" is not {"a list" if kind is list else "an object"}')
        return value

    def _write(self, document: dict[str, Any]) -> None:
        if self.version is not None:
            version = document.get("version")
            later = (isinstance(version, int) and not isinstance(version, bool)
                     and version > self.version)
            document = {**document, "version": version if later else self.version}
        self._make_folders(chmod=True)
        write_json_owner_only(self.path, document)

    def _make_folders(self, chmod: bool) -> None:
        """Make the store's folders (:attr:`top` down to the file's) 0700 where missing; with
        ``chmod``, set each of them 0700 too."""
        folders = [self.path.parent]
        while folders[-1] != self.top:
            folders.append(folders[-1].parent)
        for folder in reversed(folders):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if chmod:
                os.chmod(folder, 0o700)
