"""The MCP servers people already configured for VS Code, Claude, Cursor and Jupyter AI.

Two dialects, read through pydantic models (:mod:`.filecheck` turns a mistake into one line):

- ``"mcpServers": {NAME: {...}}`` (Claude Code's ``.mcp.json``, Claude Desktop, Cursor, Jupyter
  AI): ``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers``, ``type`` (``stdio``,
  ``http`` or ``streamable-http``, ``sse``), ``envFile``.
- ``"servers": {NAME: {...}}`` with ``"inputs": [...]`` (VS Code's ``mcp.json``): the same keys,
  and ``${input:ID}`` variables that name an entry of ``inputs`` (``promptString``, perhaps
  ``"password": true``, or ``pickString``), asked for when the server is connected.

Variables, in every string value: ``${env:VAR}`` (empty when unset), ``${VAR}`` (an error when
unset), ``${VAR:-default}``, ``${workspaceFolder}``, ``${workspaceFolderBasename}``,
``${userHome}``, ``${pathSeparator}`` (or ``${/}``), ``${input:ID}``. nb_elicit knows one variable
of its own: ``${env:NB_ELICIT_PYTHON}`` is the Python that runs the kernel unless the environment
sets it, so a config can start a Python server with the interpreter that has it installed.

Where nb_elicit looks (:func:`places`), first hit of a name wins: in the notebook's folder (the
kernel's working directory) and each parent up to the repository root (the first that holds
``.git``; never the home folder or the filesystem root), ``.vscode/mcp.json``, ``.mcp.json``,
``.cursor/mcp.json``, ``.jupyter/mcp/config.json``; then the user's ``~/.cursor/mcp.json``, Claude
Desktop's ``claude_desktop_config.json`` and VS Code's user ``mcp.json``.

Sign-in settings of an HTTP server: ``auth`` (Cursor's key) or ``oauth`` (Claude Code's), an
object with ``connect()``'s sign-in options in camelCase (``mode``, ``clientId``,
``clientSecretEnv``, ``privateKeyEnv``, ``privateKeyFile``, ``signingAlgorithm``, ``issuer``,
``idTokenEnv``, ``idpTokenEndpoint``, ``idpClientId``, ...; Cursor's ``CLIENT_ID`` and
``scopes`` too). They name environment variables and owner-only files, never hold a secret:
a ``CLIENT_SECRET`` in the file is an error.

Pure: no ipywidgets, no mcp. Values (tokens, passwords) never appear in a message or a repr.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ..errors import ArgumentTypeError, ConfigError
from ..signin.auth import AUTH_MODES, parse_auth
from ..url import check_address
from .filecheck import KeyPath, check, key_path, read_json, warn_unknown

__all__ = ["ConfiguredServer", "InputSpec", "Place", "Resolved", "auth_options",
           "command_as_run", "configured_servers", "expand", "find_server", "input_env_name",
           "input_ids", "inputs_needed", "load", "place_of", "places", "read_env_file"]


# -- the models --------------------------------------------------------------------------------

def _number_as_text(value: Any) -> Any:
    # VS Code takes numbers as env values ("PORT": 8080); they reach the server as text.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


EnvValue = Annotated[str, BeforeValidator(_number_as_text)]


class AuthEntry(BaseModel):
    """A server's sign-in settings (``auth`` or ``oauth``): names, never secrets."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    mode: Literal[AUTH_MODES] | None = None  # type: ignore[valid-type]
    client_id: str | None = Field(None, alias="clientId")
    cursor_client_id: str | None = Field(None, alias="CLIENT_ID")
    client_secret_env: str | None = Field(None, alias="clientSecretEnv")
    client_metadata_url: str | None = Field(None, alias="clientMetadataUrl")
    scope: str | None = None
    scopes: list[str] | None = None
    issuer: str | None = None
    token_auth: str | None = Field(None, alias="tokenAuth")
    token_store: Literal["disk", "memory"] | None = Field(None, alias="tokenStore")
    private_key_env: str | None = Field(None, alias="privateKeyEnv")
    private_key_file: str | None = Field(None, alias="privateKeyFile")
    signing_algorithm: str | None = Field(None, alias="signingAlgorithm")
    id_token_env: str | None = Field(None, alias="idTokenEnv")
    idp_token_endpoint: str | None = Field(None, alias="idpTokenEndpoint")
    idp_client_id: str | None = Field(None, alias="idpClientId")
    idp_client_secret_env: str | None = Field(None, alias="idpClientSecretEnv")

    def options(self) -> dict[str, str]:
        """``connect()``'s ``auth=`` as a dict (``mode`` and the options given)."""
        fields = {name: getattr(self, name) for name in type(self).model_fields
                  if name not in ("mode", "cursor_client_id", "scopes")}
        fields["mode"] = self.mode
        fields["client_id"] = self.client_id or self.cursor_client_id
        if self.scopes is not None and self.scope is None:
            fields["scope"] = " ".join(self.scopes)
        return {name: value for name, value in fields.items() if value is not None}


#: Keys that would hold a secret in the file: refused (the secret's variable goes there).
_SECRET_KEYS = ("CLIENT_SECRET", "clientSecret", "client_secret", "privateKey", "idToken")


class ServerEntry(BaseModel):
    """One server of either dialect."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type: Literal["stdio", "http", "streamable-http", "sse"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, EnvValue] = Field(default_factory=dict)
    env_file: str | None = Field(None, alias="envFile")
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    auth: AuthEntry | None = None
    oauth: AuthEntry | None = None


class InputSpec(BaseModel):
    """One entry of VS Code's ``inputs``: a value asked for when a server that uses it starts."""

    model_config = ConfigDict(extra="allow")

    type: Literal["promptString", "pickString", "command"]
    id: str
    description: str | None = None
    password: bool = False
    default: str | None = None
    options: list[str] | None = None
    #: (a ``command`` input's VS Code command: read, so that it is not "unknown", but not run)
    command: str | None = None
    args: Any = None


class ConfigDocument(BaseModel):
    """A whole config file: either dialect (or both maps), and VS Code's inputs."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    servers: dict[str, ServerEntry] | None = None
    mcp_servers: dict[str, ServerEntry] | None = Field(None, alias="mcpServers")
    inputs: list[InputSpec] = Field(default_factory=list)


# -- where configs are ------------------------------------------------------------------------

#: In each project folder, in this order.
PROJECT_FILES = (".vscode/mcp.json", ".mcp.json", ".cursor/mcp.json", ".jupyter/mcp/config.json")


@dataclass(frozen=True)
class Place:
    """A config file nb_elicit may read."""

    path: Path
    #: How messages name it: relative to the notebook's folder, ``~/...``, or as given.
    shown: str
    #: What ``${workspaceFolder}`` is for its servers (and a stdio server's default cwd).
    workspace: Path
    #: A project file (its servers run in their workspace folder by default).
    project: bool = True
    #: A settings file that holds much more than servers: its other top-level keys are quiet.
    settings: bool = False


def places(cwd: str | os.PathLike[str] | None = None, home: str | os.PathLike[str] | None = None,
           environ: Mapping[str, str] | None = None, platform: str | None = None) -> list[Place]:
    """Every config file nb_elicit would read, in search order (existing or not)."""
    cwd = Path(cwd if cwd is not None else os.getcwd()).resolve()
    home = Path(home if home is not None else Path.home()).resolve()
    environ = os.environ if environ is None else environ
    platform = platform or sys.platform
    found = []
    for folder in project_folders(cwd, home):
        for name in PROJECT_FILES:
            found.append(Place(folder / name, _relative(folder / name, cwd), folder))
    user = [(home / ".cursor" / "mcp.json", False)]
    if platform == "darwin":
        support = home / "Library" / "Application Support"
        user += [(support / "Claude" / "claude_desktop_config.json", True),
                 (support / "Code" / "User" / "mcp.json", False)]
    elif platform.startswith("win"):
        appdata = Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
        user += [(appdata / "Claude" / "claude_desktop_config.json", True),
                 (appdata / "Code" / "User" / "mcp.json", False)]
    else:
        config = Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
        user += [(config / "Claude" / "claude_desktop_config.json", True),
                 (config / "Code" / "User" / "mcp.json", False)]
    for path, settings in user:
        found.append(Place(path, _home_relative(path, home), cwd, project=False,
                           settings=settings))
    return found


def project_folders(cwd: Path, home: Path) -> list[Path]:
    """The notebook's folder and its parents up to the repository root (the first holding
    ``.git``), stopping before the home folder and the filesystem root."""
    folders, folder = [], cwd
    while True:
        folders.append(folder)
        if (folder / ".git").exists():
            break
        parent = folder.parent
        if parent in (folder, home, Path(parent.anchor)):
            break
        folder = parent
    return folders


def place_of(path: str | os.PathLike[str]) -> Place:
    """The place of a file named explicitly (``%mcp connect --config PATH NAME``).

    A file is taken where it is named, its last step not followed when it is a link: its
    servers run in the workspace of the folder named, so that is where it is judged (a link to
    a trusted file is not that file)."""
    given = Path(os.path.abspath(Path(path).expanduser()))
    parent = given.parent
    if parent.name in (".vscode", ".cursor"):
        workspace = parent.parent
    elif parent.name == "mcp" and parent.parent.name == ".jupyter":
        workspace = parent.parent.parent
    else:
        workspace = parent
    settings = given.name == "claude_desktop_config.json"
    return Place(given, os.fspath(path), workspace, settings=settings)


def _relative(path: Path, cwd: Path) -> str:
    return os.path.relpath(path, cwd)


def _home_relative(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


# -- reading -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConfiguredServer:
    """A server as a config file names it. Its repr holds no values (they may be tokens)."""

    name: str
    #: The file it came from, as messages name it.
    file: str
    #: Its key path in that file: ``servers.demo`` or ``mcpServers.demo``.
    key: str
    #: ``stdio``, ``http`` (streamable HTTP) or ``sse`` (HTTP+SSE).
    transport: str
    #: False when a file earlier in the search order has a server of the same name.
    active: bool = True
    path: Path = field(default=Path(), repr=False)
    entry: ServerEntry | None = field(default=None, repr=False, compare=False)
    inputs: tuple[InputSpec, ...] = field(default=(), repr=False, compare=False)
    place: Place | None = field(default=None, repr=False, compare=False)


def load(place: Place) -> list[ConfiguredServer]:
    """The servers of one config file; :class:`ConfigError` (one line) if it is wrong."""
    document = check(ConfigDocument, read_json(place.path, place.shown), place.shown)
    warn_unknown(document, place.shown, skip=1 if place.settings else 0)
    servers = []
    for dialect in ("servers", "mcpServers"):
        entries = document.servers if dialect == "servers" else document.mcp_servers
        for name, entry in (entries or {}).items():
            key = key_path((dialect, name))
            _check_auth(entry, f"{place.shown}: {key}")
            servers.append(ConfiguredServer(
                name, place.shown, key, _transport(entry, f"{place.shown}: {key}"),
                path=place.path, entry=entry, inputs=tuple(document.inputs), place=place))
    return servers


def _transport(entry: ServerEntry, where: str) -> str:
    if entry.command is not None and entry.url is not None:
        raise ConfigError(f'{where}: has both "command" and "url"; expected one of them')
    kind = entry.type
    if kind is None:
        if entry.command is not None:
            kind = "stdio"
        elif entry.url is not None:
            # No type: streamable HTTP, unless the URL is an SSE endpoint by its usual name.
            kind = "sse" if entry.url.rstrip("/").endswith("/sse") else "http"
        else:
            raise ConfigError(f'{where}: expected "command" (a stdio server) or "url" (an HTTP '
                              "server)")
    kind = "http" if kind == "streamable-http" else kind
    if kind == "stdio" and entry.command is None:
        raise ConfigError(f'{where}: a stdio server needs "command"')
    if kind != "stdio" and entry.url is None:
        raise ConfigError(f'{where}: a server of type {kind} needs "url"')
    return kind


def _check_auth(entry: ServerEntry, where: str) -> None:
    """The sign-in settings as ``connect()`` would take them; one line for the first mistake."""
    for key in ("auth", "oauth"):
        settings = getattr(entry, key)
        if settings is None:
            continue
        if entry.url is None:
            raise ConfigError(f'{where}.{key}: sign-in settings are for a server with "url"')
        if entry.auth is not None and entry.oauth is not None:
            raise ConfigError(f'{where}: has both "auth" and "oauth"; expected one of them')
        for secret in _SECRET_KEYS:
            if secret in (settings.model_extra or {}):
                raise ConfigError(
                    f"{where}.{key}.{secret}: a secret is never kept in a config file; name the "
                    "environment variable that holds it (clientSecretEnv, privateKeyEnv or "
                    "privateKeyFile, idTokenEnv)")
        try:
            parse_auth(settings.options())
        except (ConfigError, ArgumentTypeError) as error:
            text = re.sub(r"\bauth='", "mode '", str(error))
            for name, info in AuthEntry.model_fields.items():  # (the file's names for them)
                text = re.sub(rf"\b{name}\b", str(info.alias or name), text)
            raise ConfigError(f"{where}.{key}: {text}") from None


def auth_options(server: ConfiguredServer) -> dict[str, str]:
    """The sign-in options of ``server``'s entry for ``connect()`` (empty: none given)."""
    entry = server.entry
    settings = entry.auth or entry.oauth if entry is not None else None
    return settings.options() if settings is not None else {}


def configured_servers(cwd: str | os.PathLike[str] | None = None) -> list[ConfiguredServer]:
    """Every server in the config files nb_elicit reads, in search order.

    A name that an earlier file already has is listed with ``active=False``: connecting by that
    name reaches the earlier one."""
    seen: set[str] = set()
    found = []
    for place in places(cwd):
        if not place.path.is_file():
            continue
        for server in load(place):
            found.append(server if server.name not in seen else replace(server, active=False))
            seen.add(server.name)
    return found


def find_server(name: str, cwd: str | os.PathLike[str] | None = None,
                config: str | os.PathLike[str] | None = None) -> ConfiguredServer:
    """The server ``name``: from ``config`` if given, else the first in search order."""
    if config is not None:
        place = place_of(config)
        for server in load(place):
            if server.name == name:
                return server
        raise ConfigError(f"{place.shown}: no server named {name!r}")
    read = []
    for place in places(cwd):
        if not place.path.is_file():
            continue
        read.append(place.shown)
        for server in load(place):
            if server.name == name:
                return server
    where = f"read: {', '.join(read)}" if read else "there are none here, nor in the user's"
    raise ConfigError(f"no server named {name!r} in the MCP config files ({where})")


# -- variables and inputs ----------------------------------------------------------------------

_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def input_env_name(input_id: str) -> str:
    """The environment variable that gives input ``input_id`` in runs without a person."""
    return "NB_ELICIT_INPUT_" + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


def _strings(server: ConfiguredServer) -> Iterator[tuple[KeyPath, str]]:
    """Every string of the entry that variables are expanded in, with its key path."""
    entry, base = server.entry, (server.key.split(".", 1)[0], server.name)
    assert entry is not None
    if entry.command is not None:
        yield (*base, "command"), entry.command
    for index, arg in enumerate(entry.args):
        yield (*base, "args", index), arg
    if entry.env_file is not None:
        yield (*base, "envFile"), entry.env_file
    for key, value in entry.env.items():
        yield (*base, "env", key), value
    if entry.cwd is not None:
        yield (*base, "cwd"), entry.cwd
    if entry.url is not None:
        yield (*base, "url"), entry.url
    for key, value in entry.headers.items():
        yield (*base, "headers", key), value


def input_ids(server: ConfiguredServer) -> list[str]:
    """The ids of the inputs ``server``'s entry uses, in the order they first appear."""
    ids: dict[str, None] = {}
    for _path, text in _strings(server):
        for match in _VARIABLE.finditer(text):
            if match.group(1).startswith("input:"):
                ids.setdefault(match.group(1)[len("input:"):], None)
    return list(ids)


def inputs_needed(server: ConfiguredServer) -> list[InputSpec]:
    """The inputs ``server`` uses, in the order they first appear; ConfigError for an input
    that ``inputs`` does not define or that nb_elicit cannot ask for."""
    by_id = {spec.id: spec for spec in server.inputs}
    needed: dict[str, InputSpec] = {}
    for path, text in _strings(server):
        for match in _VARIABLE.finditer(text):
            body = match.group(1)
            if not body.startswith("input:"):
                continue
            input_id = body[len("input:"):]
            spec = by_id.get(input_id)
            where = f"{server.file}: {key_path(path)}"
            if spec is None:
                raise ConfigError(f'{where}: expected an input with id {input_id!r} in "inputs"')
            if spec.type == "command":
                raise ConfigError(f"{where}: the input {input_id!r} runs a VS Code command; "
                                  "expected a promptString or pickString input")
            if spec.type == "pickString" and not spec.options:
                raise ConfigError(f"{where}: the pickString input {input_id!r} has no options")
            needed.setdefault(input_id, spec)
    return list(needed.values())


@dataclass(frozen=True)
class Resolved:
    """A server with its variables expanded: what to start or reach. Its repr holds no values."""

    transport: str
    command: tuple[str, ...] = field(default=(), repr=False)
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = field(default=None, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)


def expand(server: ConfiguredServer, answers: Mapping[str, str] | None = None,
           environ: Mapping[str, str] | None = None,
           home: str | os.PathLike[str] | None = None,
           env_file: Mapping[str, str] | None = None) -> Resolved:
    """``server`` with every variable replaced; ``answers`` holds its inputs' values by id.

    ``env_file`` is its env file as :func:`read_env_file` read it (before the trust card, so
    what starts is what the card showed); when None, the file is read here."""
    value = _expander(server, answers or {}, environ, home)
    assert server.entry is not None and server.place is not None
    workspace = server.place.workspace
    done = {path: value(path, text) for path, text in _strings(server)}
    # (a key path is made as base + (...): mypy reads d[(*base, k)] as 3.11's d[*base, k])
    base = (server.key.split(".", 1)[0], server.name)
    entry = server.entry
    env: dict[str, str] = {}
    if entry.env_file is not None:
        env.update(env_file if env_file is not None
                   else read_env_file(server, environ, home) or {})
    env.update({key: done[base + ("env", key)] for key in entry.env})
    if server.transport == "stdio":
        cwd = done.get(base + ("cwd",))
        if cwd is not None:
            cwd = str(workspace / Path(cwd).expanduser())
        elif server.place.project:
            cwd = str(workspace)
        command = (done[base + ("command",)],
                   *(done[base + ("args", i)] for i in range(len(entry.args))))
        return Resolved("stdio", command, env, cwd)
    headers = {key: done[base + ("headers", key)] for key in entry.headers}
    url = check_address(done[base + ("url",)], f"{server.file}: {key_path((*base, 'url'))}")
    return Resolved(server.transport, url=url, headers=headers)


class _InputsAsWritten(dict[str, str]):
    """The inputs' values before they are asked: each ``${input:ID}`` as written."""

    def __missing__(self, input_id: str) -> str:
        return f"${{input:{input_id}}}"


def command_as_run(server: ConfiguredServer, environ: Mapping[str, str] | None = None,
                   home: str | os.PathLike[str] | None = None) -> tuple[str, ...] | None:
    """A stdio server's command and arguments as they will run: every variable filled in
    (``${env:...}``, ``${workspaceFolder}``, ...) but its inputs, which are asked after the trust
    card (``${input:...}`` as written). None when a variable cannot be filled in (the connect
    says why, in one line)."""
    entry = server.entry
    assert entry is not None and server.place is not None
    value = _expander(server, _InputsAsWritten(), environ, home)
    base = (server.key.split(".", 1)[0], server.name)
    try:
        return (value((*base, "command"), entry.command or ""),
                *(value((*base, "args", i), arg) for i, arg in enumerate(entry.args)))
    except ConfigError:
        return None


def read_env_file(server: ConfiguredServer, environ: Mapping[str, str] | None = None,
                  home: str | os.PathLike[str] | None = None) -> dict[str, str] | None:
    """The variables of ``server``'s ``envFile`` (None when it has none), read once: its keys
    are part of the consent the trust card asks for, and these values are what starts.
    ConfigError (one line) when the file is missing or wrong, or its path uses an input."""
    entry = server.entry
    assert entry is not None and server.place is not None
    if entry.env_file is None:
        return None
    path = (server.key.split(".", 1)[0], server.name, "envFile")
    where = f"{server.file}: {key_path(path)}"
    if any(m.group(1).startswith("input:") for m in _VARIABLE.finditer(entry.env_file)):
        raise ConfigError(f"{where}: the env file cannot depend on an input: it is read before "
                          "the trust card, to show its keys")
    named = _expander(server, {}, environ, home)(path, entry.env_file)
    return _env_file(server.place.workspace / Path(named).expanduser(), where)


def _expander(server: ConfiguredServer, answers: Mapping[str, str],
              environ: Mapping[str, str] | None,
              home: str | os.PathLike[str] | None) -> Callable[[KeyPath, str], str]:
    """A function ``(key path, text) -> text`` that replaces the variables of ``server``."""
    environ = {"NB_ELICIT_PYTHON": sys.executable,
               **(os.environ if environ is None else environ)}
    assert server.place is not None
    workspace = server.place.workspace
    known = {"workspaceFolder": str(workspace), "workspaceFolderBasename": workspace.name,
             "userHome": str(Path(home) if home is not None else Path.home()),
             "pathSeparator": os.sep, "/": os.sep}

    def value(path: KeyPath, text: str) -> str:
        def one(match: re.Match[str]) -> str:
            body = match.group(1)
            if body in known:
                return known[body]
            if body.startswith("env:"):
                return environ.get(body[4:], "")
            if body.startswith("input:"):
                return answers[body[6:]]
            name, dash, default = body.partition(":-")
            if _NAME.match(name):
                if name in environ:
                    return environ[name]
                if dash:
                    return default
                raise ConfigError(f"{server.file}: {key_path(path)}: the environment variable "
                                  f"{name} is not set (give a default: ${{{name}:-value}})")
            raise ConfigError(f"{server.file}: {key_path(path)}: unknown variable ${{{body}}}; "
                              "expected env:VAR, VAR, VAR:-default, workspaceFolder, userHome "
                              "or input:ID")

        return _VARIABLE.sub(one, text)

    return value


def _env_file(path: Path, where: str) -> dict[str, str]:
    """A ``.env`` file's variables: ``KEY=VALUE`` lines, ``#`` comments, optional ``export``
    and quotes."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where}: cannot read it ({type(error).__name__})") from None
    env = {}
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, found, text = line.removeprefix("export ").partition("=")
        key = key.strip()
        if not found or not _NAME.match(key):
            raise ConfigError(f"{where}: line {number} of the env file: expected KEY=VALUE")
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        env[key] = text
    return env
