"""Owner-only files: the folder 0700, the file 0600, written atomically."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path

__all__ = ["write_json_owner_only"]


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
