"""Where sign-in tokens are kept: per server and client, owner-only files, or memory only.

    <jupyter data dir>/nb_elicit/tokens/<server>/<client>/tokens.json   (mode 0600, dirs 0700)
    <jupyter data dir>/nb_elicit/tokens/<server>/<client>/client.json   (the registered client)

``<server>`` is the server's host and port plus a hash of its URL; ``<client>`` a hash of which
client signed in (see :attr:`~nb_elicit._core.signin.auth.AuthConfig.client_key`). Each file is a
:class:`~.json_store.JsonStore`, written whole in one step under its lock; one that cannot be
read counts as none (signing in again writes it anew). The store holds plain dicts (the SDK's
models are made in ``_mcp/auth.py``); no repr and no error shows what is in them. Pure: no
ipywidgets, no mcp.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import kernel
from ..errors import UnreadableFile
from ..json_store import JsonStore

__all__ = ["KINDS", "TokenMemory", "TokenStore", "forget_server", "tokens_root"]

KINDS = ("tokens", "client")


class TokenMemory:
    """Tokens kept in memory only, by (server URL, client key): they last as long as the
    kernel's owner (:mod:`.kernel`), of which this is a part."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self.lock = threading.Lock()


def tokens_root() -> Path:
    """``<jupyter data dir>/nb_elicit/tokens`` (JUPYTER_DATA_DIR moves it)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "nb_elicit" / "tokens"


def _digest(text: str, n: int = 16) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def _server_dir_name(url: str) -> str:
    parts = urlsplit(url)
    where = f"{parts.hostname or 'server'}_{parts.port or ''}".rstrip("_")
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in where)[:60]
    return f"{safe}-{_digest(url)}"


class TokenStore:
    """The tokens and client registration of one client at one server."""

    def __init__(self, server_url: str, client_key: str, memory: bool = False,
                 root: Path | None = None):
        self.server_url = server_url
        self.client_key = client_key
        self.memory = memory
        self._root = root

    @property
    def folder(self) -> Path:
        root = self._root if self._root is not None else tokens_root()
        return root / _server_dir_name(self.server_url) / _digest(self.client_key)

    def __repr__(self) -> str:
        where = "memory" if self.memory else str(self.folder)
        return f"<nb_elicit TokenStore for {self.server_url} ({where})>"

    def load(self, kind: str) -> dict[str, Any] | None:
        """What was stored of ``kind`` (tokens or client), or None."""
        _check(kind)
        if self.memory:
            memory = kernel.part(TokenMemory)
            with memory.lock:
                found = memory.kept.get((self.server_url, self.client_key), {}).get(kind)
            return dict(found) if found is not None else None
        try:
            return self._file(kind).look()
        except UnreadableFile:
            return None  # (signing in again writes it anew)

    def save(self, kind: str, data: dict[str, Any]) -> None:
        """Keep ``data`` (owner-only: the folders 0700, the file 0600, written atomically)."""
        _check(kind)
        if self.memory:
            memory = kernel.part(TokenMemory)
            with memory.lock:
                memory.kept.setdefault((self.server_url, self.client_key), {})[kind] = dict(data)
            return
        self._file(kind).write(data)

    def _file(self, kind: str) -> JsonStore:
        """The file of ``kind``: the nb_elicit folder and every folder below it are the
        store's own (0700); each write replaces the whole file."""
        folder = self.folder
        return JsonStore(folder / f"{kind}.json", top=folder.parent.parent.parent)

    def forget(self) -> None:
        """Drop what this client holds at this server."""
        if self.memory:
            memory = kernel.part(TokenMemory)
            with memory.lock:
                memory.kept.pop((self.server_url, self.client_key), None)
            return
        shutil.rmtree(self.folder, ignore_errors=True)


def forget_server(server_url: str, root: Path | None = None) -> bool:
    """Drop every token and registration kept for ``server_url`` (all clients, disk and
    memory); whether there was anything."""
    found = False
    memory = kernel.part(TokenMemory)
    with memory.lock:
        for key in [k for k in memory.kept if k[0] == server_url]:
            del memory.kept[key]
            found = True
    folder = (root if root is not None else tokens_root()) / _server_dir_name(server_url)
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
        found = True
    return found


def _check(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind is one of {KINDS}")
