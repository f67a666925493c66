"""Which configured servers may start: the person's own files always, a project's after consent.

A project file (one found from the notebook's folder up to the repository root, or a file named
with ``--config`` that is not one of the person's own) may name any command or URL. nb_elicit
starts such a server only once the person has seen it and said **Start**, or approved it
without a person (``NB_ELICIT_TRUST``, ``trust=True``, ``--trust``). A consent is kept per
file and per hash of the entry as written (before its variables are filled in), so a changed
entry asks again:

    <jupyter data dir>/nb_elicit/trust.json     (mode 0600, its folder 0700)

``JUPYTER_DATA_DIR`` moves it, as it moves the sign-in tokens. The file holds paths, key paths
and hashes, nothing of the entries themselves. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .configs import ConfiguredServer, load, places
from .errors import ConfigError
from .filecheck import ConfigWarning
from .private import write_json_owner_only

__all__ = ["ENV_TRUST", "Shown", "TrustStore", "approved_by_env", "entry_hash", "hidden_own",
           "is_own", "shown", "trust_file", "trust_state"]

#: The environment variable that approves project servers without a person.
ENV_TRUST = "NB_ELICIT_TRUST"
_LOCK = threading.Lock()


def trust_file() -> Path:
    """``<jupyter data dir>/nb_elicit/trust.json`` (JUPYTER_DATA_DIR moves it)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "nb_elicit" / "trust.json"


def entry_hash(server: ConfiguredServer) -> str:
    """The SHA-256 of ``server``'s entry as written (every key, variables unexpanded)."""
    assert server.entry is not None
    written = server.entry.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps([server.key, written], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_own(server: ConfiguredServer, home: str | os.PathLike | None = None,
           environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether ``server`` comes from one of the person's own files (home-level Cursor, Claude
    Desktop, VS Code user settings), found by the search or named with ``--config``."""
    place = server.place
    if place is None:
        return False
    if not place.project:
        return True
    own = {p.path for p in places(home=home, environ=environ, platform=platform)
           if not p.project}
    return Path(place.path).resolve() in own


def hidden_own(server: ConfiguredServer, cwd: str | os.PathLike | None = None
               ) -> ConfiguredServer | None:
    """The person's own entry of the same name that the project entry ``server`` hides from
    the search, if there is one (a broken own file is passed over: it says so when used)."""
    if is_own(server):
        return None
    for place in places(cwd):
        if place.project or not place.path.is_file():
            continue
        try:
            with warnings.catch_warnings():  # (said when that file is used)
                warnings.simplefilter("ignore", ConfigWarning)
                found = load(place)
        except ConfigError:
            continue
        for other in found:
            if other.name == server.name:
                return other
    return None


def approved_by_env(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``NB_ELICIT_TRUST`` (``NAME[,NAME...]`` or ``*``) approves the server ``name``."""
    environ = os.environ if environ is None else environ
    names = {word.strip() for word in environ.get(ENV_TRUST, "").split(",")}
    return "*" in names or name in names


class TrustStore:
    """The consents given so far: by file (its absolute path), key path and entry hash."""

    def __init__(self, path: Path | None = None):
        self._path = path

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else trust_file()

    def __repr__(self) -> str:
        return f"<nb_elicit TrustStore {self.path}>"

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # (none, or unreadable: every project server asks again)
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, dict):
            return {}
        return {str(file): {str(k): str(v) for k, v in keys.items()}
                for file, keys in files.items() if isinstance(keys, dict)}

    def trusts(self, server: ConfiguredServer) -> bool:
        """Whether the person said Start to this very entry of this file."""
        with _LOCK:
            keys = self._read().get(_file_key(server), {})
        return keys.get(server.key) == entry_hash(server)

    def remember(self, server: ConfiguredServer) -> None:
        """Keep the consent to this entry (replacing one given to an earlier version of it)."""
        with _LOCK:
            files = self._read()
            files.setdefault(_file_key(server), {})[server.key] = entry_hash(server)
            self._write({"version": 1, "files": files})

    def forget(self, server: ConfiguredServer | None = None) -> None:
        """Forget the consent to ``server`` (every consent when None)."""
        with _LOCK:
            if server is None:
                files: dict[str, dict[str, str]] = {}
            else:
                files = self._read()
                files.get(_file_key(server), {}).pop(server.key, None)
            self._write({"version": 1, "files": {f: k for f, k in files.items() if k}})

    def _write(self, data: dict) -> None:
        write_json_owner_only(self.path, data)


#: A word shown as it is; any other is quoted as a shell would need it (``${VAR}`` stays plain:
#: it is shown as written, not as a shell would expand it).
_PLAIN_WORD = re.compile(r"[\w@%+=:,./${}-]+")


def _word(word: str) -> str:
    return word if _PLAIN_WORD.fullmatch(word) else shlex.quote(word)


def _file_key(server: ConfiguredServer) -> str:
    return str(Path(server.path).resolve())


def trust_state(server: ConfiguredServer, store: TrustStore | None = None,
                environ: Mapping[str, str] | None = None) -> str:
    """``own file``, or for a project file's server ``project: trusted``, ``project: trusted
    (NB_ELICIT_TRUST)`` or ``project: not trusted`` (it asks before it starts)."""
    if is_own(server, environ=environ):
        return "own file"
    if (store or TrustStore()).trusts(server):
        return "project: trusted"
    if approved_by_env(server.name, environ):
        return f"project: trusted ({ENV_TRUST})"
    return "project: not trusted"


@dataclass(frozen=True)
class Shown:
    """What a person is shown of an entry before it starts: as written, and never a value of
    its env or headers (only their names)."""

    transport: str
    #: The command line (stdio), its words quoted as a shell would need them.
    command: str = ""
    #: Where it runs (stdio): the entry's ``cwd`` as written, or the folder it defaults to.
    cwd: str = ""
    env_names: tuple[str, ...] = ()
    env_file: str | None = None
    url: str = ""
    header_names: tuple[str, ...] = ()

    @property
    def target(self) -> str:
        """The command line or the URL."""
        return self.command if self.transport == "stdio" else self.url


def shown(server: ConfiguredServer) -> Shown:
    """``server`` as the trust card and ``%mcp servers`` show it."""
    entry, place = server.entry, server.place
    assert entry is not None
    if server.transport != "stdio":
        return Shown(server.transport, url=entry.url or "",
                     header_names=tuple(entry.headers))
    command = " ".join(_word(word) for word in [entry.command or "", *entry.args])
    if entry.cwd is not None:
        cwd = entry.cwd
    elif place is not None and place.project:
        cwd = str(place.workspace)
    else:
        cwd = "(the notebook's folder)"
    return Shown("stdio", command=command, cwd=cwd, env_names=tuple(entry.env),
                 env_file=entry.env_file)
