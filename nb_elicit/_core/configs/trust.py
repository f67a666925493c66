"""Which configured servers may start: the person's own files always, a project's after consent.

A project file (one found from the notebook's folder up to the repository root, or a file named
with ``--config`` that is not one of the person's own) may name any command or URL. nb_elicit
starts such a server only once the person has seen it and said **Start**, or approved it
without a person (``NB_ELICIT_TRUST``, ``trust=True``, ``--trust``; a remembered Start is for
a person: it skips the card, it approves no run without one).

A consent is kept per file, where it was found (a link is judged where it takes effect, not by
the file it points to), and per hash of what decides what starts (:func:`entry_hash`): the
entry as written (before its variables are filled in), the workspace it runs in, the
``inputs`` it uses (their defaults, options, ...) and the keys of its env file. A change to
any of them asks again:

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
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError, UnreadableFile
from ..json_store import JsonStore
from ..secrets.masking import MASK
from ..secrets.names import mask_literals, redact_argv, redact_url, secret_input
from ..signin.auth import HEADLESS_MODES, parse_auth
from ..text import visible
from .filecheck import ConfigWarning
from .servers import (
    ConfiguredServer,
    InputSpec,
    command_as_run,
    input_ids,
    load,
    places,
    read_env_file,
)

__all__ = ["ENV_TRUST", "Shown", "ShownInput", "ShownRead", "ShownSignIn", "TrustStore",
           "approved_by_env", "entry_hash", "hidden_own", "is_own", "shown", "trust_file",
           "trust_state"]

#: The environment variable that approves project servers without a person.
ENV_TRUST = "NB_ELICIT_TRUST"


def trust_file() -> Path:
    """``<jupyter data dir>/nb_elicit/trust.json`` (JUPYTER_DATA_DIR moves it)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "nb_elicit" / "trust.json"


def entry_hash(server: ConfiguredServer, env_keys: Iterable[str] = ()) -> str:
    """The SHA-256 of what decides what ``server`` starts: its key and entry as written (every
    key, variables unexpanded), the workspace it runs in (``${workspaceFolder}``, its default
    cwd), the ``inputs`` entries it uses, and ``env_keys``, the keys of its env file (their
    values may be secrets: a token that changes asks nothing again)."""
    assert server.entry is not None
    written = server.entry.model_dump(mode="json", by_alias=True, exclude_none=True)
    by_id = {spec.id: spec for spec in server.inputs}
    inputs = {i: by_id[i].model_dump(mode="json", exclude_none=True) if i in by_id else None
              for i in input_ids(server)}
    workspace = str(server.place.workspace) if server.place is not None else None
    text = json.dumps({"key": server.key, "entry": written, "workspace": workspace,
                       "inputs": inputs, "env file keys": sorted(set(env_keys))},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_own(server: ConfiguredServer, home: str | os.PathLike[str] | None = None,
           environ: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Whether ``server`` comes from one of the person's own files (home-level Cursor, Claude
    Desktop, VS Code user settings), found by the search or named with ``--config``."""
    place = server.place
    if place is None:
        return False
    if not place.project:
        return True
    # Where it is found, not where a link leads: a project's link to your own file runs your
    # entries in the project's folder.
    own = {p.path for p in places(home=home, environ=environ, platform=platform)
           if not p.project}
    return Path(os.path.abspath(place.path)) in own


def hidden_own(server: ConfiguredServer, cwd: str | os.PathLike[str] | None = None
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
    """The consents given so far: by file (its absolute path), key path and entry hash.

    The file is a :class:`~.json_store.JsonStore`: every read, and every read-change-write,
    holds a lock across threads and processes, so two kernels saying Start at once keep both
    consents."""

    def __init__(self, path: Path | None = None):
        self._path = path

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else trust_file()

    def __repr__(self) -> str:
        return f"<nb_elicit TrustStore {self.path}>"

    @property
    def _store(self) -> JsonStore:
        return JsonStore(self.path, version=2)

    def trusts(self, server: ConfiguredServer, env_keys: Iterable[str] = ()) -> bool:
        """Whether the person said Start to this very entry of this file, in this workspace,
        with these inputs and the env file keys ``env_keys``."""
        keys = self._read().get(_file_key(server), {})
        return isinstance(keys, dict) and keys.get(server.key) == entry_hash(server, env_keys)

    def _read(self) -> dict[str, dict[str, Any]]:
        """The consents by file (as read: what this version cannot read stays as it is); none
        when the file cannot be read (every project server asks again)."""
        store = self._store
        try:
            return store.part(store.look() or {}, "files", dict)
        except UnreadableFile:
            return {}

    def remember(self, server: ConfiguredServer, env_keys: Iterable[str] = ()) -> None:
        """Keep the consent to this entry (replacing one given to an earlier version of it).
        OSError when the file cannot be written, or read (:class:`~.errors.UnreadableFile`:
        it is left as it is); the caller says so in one line."""
        store = self._store
        with store.changing() as document:
            files = store.part(document, "files", dict)
            keys = files.get(_file_key(server))
            keys = dict(keys) if isinstance(keys, dict) else {}
            keys[server.key] = entry_hash(server, env_keys)
            document["files"] = {**files, _file_key(server): keys}

    def forget(self, server: ConfiguredServer | None = None) -> None:
        """Forget the consent to ``server`` (every consent when None)."""
        store = self._store
        with store.changing() as document:
            files = store.part(document, "files", dict)
            if server is None:
                files = {}
            elif isinstance(files.get(_file_key(server)), dict):
                keys = {k: v for k, v in files[_file_key(server)].items() if k != server.key}
                files = {**files, _file_key(server): keys}
            document["files"] = {f: k for f, k in files.items() if k != {}}


#: A word shown as it is; any other is quoted as a shell would need it (``${VAR}`` stays plain:
#: it is shown as written, not as a shell would expand it).
_PLAIN_WORD = re.compile(r"[\w@%+=:,./${}-]+")


def _word(word: str) -> str:
    # (a masked value is plain too: it is no text of the file's to quote)
    return word if _PLAIN_WORD.fullmatch(word.replace(MASK, "_")) else shlex.quote(word)


def _file_key(server: ConfiguredServer) -> str:
    # Where the file was found (its folders are resolved by the search; a link is not followed).
    return os.path.abspath(server.path)


def trust_state(server: ConfiguredServer, store: TrustStore | None = None,
                environ: Mapping[str, str] | None = None) -> str:
    """``own file``, or for a project file's server ``project: trusted``, ``project: trusted
    (NB_ELICIT_TRUST)`` or ``project: not trusted`` (it asks before it starts)."""
    if is_own(server, environ=environ):
        return "own file"
    try:
        env_keys = read_env_file(server, environ) or {}
    except ConfigError:  # (said in one line when it connects)
        env_keys = None
    if env_keys is not None and (store or TrustStore()).trusts(server, env_keys):
        return "project: trusted"
    if approved_by_env(server.name, environ):
        return f"project: trusted ({ENV_TRUST})"
    return "project: not trusted"


@dataclass(frozen=True)
class ShownInput:
    """An input the entry uses, as the card shows it."""

    id: str
    kind: str
    description: str | None = None
    #: A secret by :func:`~.secrets.secret_input` (its default, if any, is masked).
    secret: bool = False
    default: str | None = None
    options: tuple[str, ...] = ()
    #: (not in ``inputs``: the connect says so in one line)
    defined: bool = True


@dataclass(frozen=True)
class ShownRead:
    """A secret the sign-in reads (an environment variable or a file: its name, never its
    value) and where what it reads goes."""

    #: ``client_secret``, ``private_key``, ``id_token`` or ``idp_client_secret``.
    what: str
    #: The variable's name, or the file's path as written.
    source: str
    file: bool = False
    #: The host it is sent to; "" for the authorization server the MCP server names (found
    #: when it asks).
    to: str = ""
    #: It signs what is sent (a private key), it is not sent itself.
    signs: bool = False


@dataclass(frozen=True)
class ShownSignIn:
    """An HTTP server's sign-in settings (``auth`` or ``oauth``), as the card shows them."""

    #: ``auth`` or ``oauth``, the key of the entry that holds them ("" when it has none).
    key: str
    #: The mode it signs in with (``auto`` when the file sets none).
    mode: str
    client_id: str | None = None
    #: The URL offered as the client ID (a Client ID Metadata Document).
    client_metadata_url: str | None = None
    #: The authorization server's issuer URL, and the identity provider's token endpoint.
    issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    scope: str | None = None
    reads: tuple[ShownRead, ...] = ()
    #: The hosts of the issuer and of the identity provider's token endpoint.
    issuer_host: str = ""
    idp_host: str = ""


@dataclass(frozen=True)
class Shown:
    """What a person is shown of an entry before it starts: as written, variables not filled
    in, every literal value masked (:func:`~.secrets.mask_literals`), the credentials of the
    command line and the URL masked by the one rule for them (:func:`~.secrets.redact_argv`,
    :func:`~.secrets.redact_url`, their references kept as written), and every invisible
    character written as its escape (:func:`~.text.visible`)."""

    transport: str
    #: The command line (stdio) as written, its words quoted as a shell would need them.
    command: str = ""
    #: The command line as it will run: its variables filled in from this kernel's environment
    #: (``${env:...}``, ``${workspaceFolder}``, ...), but its inputs (asked after the card, so
    #: ``${input:...}`` as written); its credentials masked as in :attr:`command`. "" when a
    #: variable cannot be filled in (the connect says why).
    runs: str = ""
    #: Where it runs (stdio): the entry's ``cwd`` as written, or the folder it defaults to.
    cwd: str = ""
    #: (name, value as shown) of each ``env`` key.
    env: tuple[tuple[str, str], ...] = ()
    env_file: str | None = None
    #: The env file's keys, as read before the card (None: not read).
    env_file_keys: tuple[str, ...] | None = None
    url: str = ""
    #: The host the URL names, where its headers go.
    host: str = ""
    #: (name, value as shown) of each header.
    headers: tuple[tuple[str, str], ...] = ()
    inputs: tuple[ShownInput, ...] = ()
    #: When the file is a link: the file it leads to (its entries run here, all the same).
    link: str | None = None
    #: (HTTP) how it signs in: what its ``auth`` or ``oauth`` settings read and send where.
    sign_in: ShownSignIn | None = None

    @property
    def target(self) -> str:
        """The command line or the URL."""
        return self.command if self.transport == "stdio" else self.url

    @property
    def env_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.env)

    @property
    def header_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.headers)


def shown(server: ConfiguredServer, env_keys: Iterable[str] | None = None) -> Shown:
    """``server`` as the trust card and ``%mcp servers`` show it (``env_keys``: its env file's
    keys, when read)."""
    entry, place = server.entry, server.place
    assert entry is not None
    by_id = {spec.id: spec for spec in server.inputs}
    inputs = tuple(_input(by_id.get(i), i) for i in input_ids(server))
    link = _link(server.path)
    if server.transport != "stdio":
        url = entry.url or ""
        return Shown(server.transport, url=visible(redact_url(url, written=True)),
                     host=visible(_host(url)),
                     headers=_values(entry.headers), inputs=inputs, link=link,
                     sign_in=_sign_in(server))
    command = _command_line([entry.command or "", *entry.args])
    as_run = command_as_run(server)
    runs = "" if as_run is None else _command_line(as_run)
    if entry.cwd is not None:
        cwd = visible(entry.cwd)
    elif place is not None and place.project:
        cwd = visible(str(place.workspace))
    else:
        cwd = "(the notebook's folder)"
    keys = None if env_keys is None else tuple(visible(k) for k in env_keys)
    return Shown("stdio", command=command, runs=runs, cwd=cwd, env=_values(entry.env),
                 env_file=None if entry.env_file is None else visible(entry.env_file),
                 env_file_keys=keys, inputs=inputs, link=link)


def _command_line(words: Iterable[str]) -> str:
    """A command line as shown: its credentials masked (references kept as written), its words
    quoted as a shell would need them, every invisible character as its escape."""
    return visible(" ".join(_word(word) for word in redact_argv(list(words), written=True)))


def _sign_in(server: ConfiguredServer) -> ShownSignIn:
    """What ``server``'s sign-in settings read and where it goes: every secret named by its
    variable or file, and the host it is sent to (with an ``issuer``, a headless mode sends its
    credentials there only; otherwise to the authorization server the MCP server names)."""
    entry = server.entry
    assert entry is not None
    key = "auth" if entry.auth is not None else "oauth" if entry.oauth is not None else ""
    settings = entry.auth or entry.oauth
    config = parse_auth(settings.options() if settings is not None else None)  # (checked)
    issuer_host = _host(config.issuer) if config.issuer else ""
    server_side = issuer_host if config.mode in HEADLESS_MODES else ""
    idp_host = _host(config.idp_token_endpoint) if config.idp_token_endpoint else ""
    reads = []
    if config.client_secret_env:
        reads.append(ShownRead("client_secret", config.client_secret_env, to=server_side))
    if config.private_key_env:
        reads.append(ShownRead("private_key", config.private_key_env, to=server_side,
                               signs=True))
    if config.private_key_file:
        reads.append(ShownRead("private_key", config.private_key_file, file=True,
                               to=server_side, signs=True))
    if config.id_token_env:
        reads.append(ShownRead("id_token", config.id_token_env, to=idp_host))
    if config.idp_client_secret_env:
        reads.append(ShownRead("idp_client_secret", config.idp_client_secret_env, to=idp_host))

    def text(value: str | None) -> str | None:
        return None if value is None else visible(value)

    def url(value: str | None) -> str | None:
        return None if value is None else visible(redact_url(value, written=True))

    return ShownSignIn(
        key, config.mode, text(config.client_id), url(config.client_metadata_url),
        url(config.issuer), url(config.idp_token_endpoint), text(config.idp_client_id),
        text(config.scope),
        tuple(ShownRead(r.what, visible(r.source), r.file, visible(r.to), r.signs)
              for r in reads), visible(issuer_host), visible(idp_host))


def _values(values: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((visible(name), visible(mask_literals(value)))
                 for name, value in values.items())


def _input(spec: InputSpec | None, input_id: str) -> ShownInput:
    if spec is None:
        return ShownInput(visible(input_id), "?", defined=False)
    secret = secret_input(spec)
    default = spec.default
    if default is not None:
        default = MASK if secret else visible(default)
    return ShownInput(visible(spec.id), spec.type,
                      None if spec.description is None else visible(spec.description), secret,
                      default, tuple(visible(o) for o in spec.options or ()))


def _host(url: str) -> str:
    """The host ``url`` names; as written when a variable names it (``${env:MCP_HOST}``)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return redact_url(url, written=True)
    written = parts.netloc.rpartition("@")[2]
    if "${" in written:
        return redact_url(written, written=True)
    return host or redact_url(url, written=True)  # (no host: the URL, as the card shows it)


def _link(path: Path) -> str | None:
    """The file ``path`` leads to, when it (or a folder on its way) is a link."""
    try:
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    return str(target) if target != Path(os.path.abspath(path)) else None
