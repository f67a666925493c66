"""The ids of running tasks, kept in an owner-only file so that a restarted kernel can attach
to them again (``%mcp tasks``, ``%mcp task NAME ID``).

One entry per task still running on its server: the connection name, where the server is (its
command or URL, as ``where()`` shows it: no env values, no header values), the tool, the task
id, its shape and when it started. An entry goes when its task ends; a detached task, or one
whose kernel died, stays until it is attached to and ends, or `%mcp tasks --forget` drops it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .private import write_json_owner_only

__all__ = ["SavedTask", "TaskStore", "tasks_file"]

_LOCK = threading.Lock()
#: Entries kept at most (the oldest go first): a server that made thousands of tasks must not
#: grow the file without end.
KEEP = 200


def tasks_file() -> Path:
    """``<Jupyter data dir>/nb_elicit/tasks.json``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "nb_elicit" / "tasks.json"


@dataclass(frozen=True)
class SavedTask:
    """One running task, as the file keeps it."""

    connection: str
    where: str
    tool: str
    task_id: str
    shape: str
    started: float

    @property
    def key(self) -> tuple[str, str]:
        return (self.connection, self.task_id)


class TaskStore:
    """The file of running tasks (a path for tests; by default :func:`tasks_file`)."""

    def __init__(self, path: Path | None = None):
        self._path = path

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else tasks_file()

    def __repr__(self) -> str:
        return f"<nb_elicit TaskStore {self.path}>"

    def entries(self) -> list[SavedTask]:
        with _LOCK:
            return self._read()

    def add(self, task: SavedTask) -> None:
        with _LOCK:
            kept = [t for t in self._read() if t.key != task.key]
            self._write([*kept, task][-KEEP:])

    def remove(self, connection: str, task_id: str) -> None:
        with _LOCK:
            entries = self._read()
            kept = [t for t in entries if t.key != (connection, task_id)]
            if len(kept) != len(entries):
                self._write(kept)

    def forget(self, connection: str | None = None, task_id: str | None = None) -> int:
        """Forget entries (of one connection, or one task; every entry when both are None);
        how many went."""
        with _LOCK:
            entries = self._read()
            kept = [t for t in entries if not (connection in (None, t.connection)
                                               and task_id in (None, t.task_id))]
            if len(kept) != len(entries):
                self._write(kept)
            return len(entries) - len(kept)

    def find(self, connection: str, task_id: str) -> SavedTask | None:
        return next((t for t in self.entries() if t.key == (connection, task_id)), None)

    def _read(self) -> list[SavedTask]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        rows = data.get("tasks") if isinstance(data, dict) else None
        entries = []
        for row in rows if isinstance(rows, list) else []:
            try:
                entries.append(SavedTask(
                    connection=str(row["connection"]), where=str(row["where"]),
                    tool=str(row["tool"]), task_id=str(row["task_id"]),
                    shape=str(row["shape"]), started=float(row["started"])))
            except (KeyError, TypeError, ValueError):
                continue  # (a damaged row is left out, not fatal)
        return entries

    def _write(self, entries: list[SavedTask]) -> None:
        write_json_owner_only(self.path, {"version": 1, "tasks": [asdict(t) for t in entries]})


def now() -> float:
    return time.time()
