"""The flags of ``%mcp connect``, read with IPython's ``magic_arguments`` (argparse underneath).

Every mistake is a one-line :class:`UsageError` that says what to type: never argparse's usage
text, never a ``SystemExit``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

from .._core.auth import AUTH_MODES

_COMMAND_USAGE = "%mcp connect NAME -- COMMAND [ARGS...]"


@magic_arguments("%mcp connect")
@argument("--env", action="append", metavar="K=V", help="an environment variable (stdio)")
@argument("--cwd", metavar="DIR", help="the server's working directory (stdio)")
@argument("--url", metavar="URL", help="reach the server over HTTP instead")
@argument("--sse", metavar="URL", help="reach the server over HTTP+SSE (the older transport)")
@argument("--config", metavar="PATH", help="the config file to find NAME in (no command, URL)")
@argument("--trust", action="store_true",
          help="start NAME of a project config file without asking (you read its entry)")
@argument("--header", action="append", metavar="'K: V'", help="an HTTP header (--url)")
@argument("--auth", metavar="|".join(AUTH_MODES),
          help="signing in (--url): auto (when the server answers 401), off, ...")
@argument("--client-id", metavar="ID", help="a pre-registered OAuth client (--url)")
@argument("--client-secret-env", metavar="VAR",
          help="the environment variable that holds the client secret (never the secret)")
@argument("--private-key-env", metavar="VAR",
          help="private_key_jwt: the environment variable that holds the PEM private key")
@argument("--private-key-file", metavar="PATH",
          help="private_key_jwt: an owner-only file (chmod 600) that holds the PEM private key")
@argument("--signing-algorithm", metavar="ALG", help="private_key_jwt: RS256 (default), ES256...")
@argument("--issuer", metavar="URL",
          help="the MCP server's authorization server (identity_assertion needs it)")
@argument("--id-token-env", metavar="VAR",
          help="identity_assertion: the environment variable that holds the IdP's ID token")
@argument("--idp-token-endpoint", metavar="URL",
          help="identity_assertion: the identity provider's token endpoint")
@argument("--idp-client-id", metavar="ID", help="identity_assertion: the client ID at the IdP")
@argument("--idp-client-secret-env", metavar="VAR",
          help="identity_assertion: the variable that holds the IdP client's secret, if any")
@argument("--client-metadata-url", metavar="URL",
          help="an https URL to use as the client ID (Client ID Metadata Document)")
@argument("--token-store", metavar="disk|memory", help="where sign-in tokens are kept")
@argument("--rate-limit", metavar="RATE", help="how often the server may ask")
@argument("--secret-forms", metavar="warn|refuse", default="warn",
          help="refuse: decline forms that ask for secrets")
@argument("--no-apps", action="store_true",
          help="show no MCP App of this server (its tools' text results only)")
def connect_flags():
    """The flags of %mcp connect NAME, before the ``-- COMMAND [ARGS...]`` tail (with neither a
    command nor a URL, NAME is a server of the MCP config files)."""


#: The sign-in flags, by their names in connect() (each an :class:`AuthConfig` field).
SIGN_IN_FLAGS = ("auth", "client_id", "client_secret_env", "client_metadata_url", "token_store",
                 "private_key_env", "private_key_file", "signing_algorithm", "issuer",
                 "id_token_env", "idp_token_endpoint", "idp_client_id", "idp_client_secret_env")

#: The parser, strict about spelling: ``--rate`` is not taken for ``--rate-limit``.
PARSER = connect_flags.parser
PARSER.allow_abbrev = False


@dataclass
class ConnectOptions:
    """What ``%mcp connect`` was asked to do, checked."""

    name: str
    command: list[str] | None = None
    url: str | None = None
    sse: str | None = None
    config: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # (values may be secret)
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    guard: dict = field(default_factory=dict)
    #: Sign-in options for connect() (auth, client_id, ...), only those given.
    auth: dict = field(default_factory=dict)
    #: --trust: a server of a project config file starts without its trust card.
    trust: bool = False
    #: Whether its tools' MCP Apps show (--no-apps: not).
    apps: bool = True


def parse_connect(rest: str) -> ConnectOptions:
    """Read the words after ``%mcp connect``; a :class:`UsageError` names the first problem."""
    options, command = _split_command(rest)
    try:
        words = shlex.split(options)
    except ValueError as error:
        raise UsageError(f"cannot read the options: {error}") from None
    try:
        flags, extra = PARSER.parse_known_args(words)
    except UsageError as error:
        raise UsageError(_what_to_type(str(error))) from None
    if not extra or extra[0].startswith("-"):
        if extra:  # an unknown option, and no name
            raise UsageError(f"unknown option {extra[0].partition('=')[0]} for %mcp connect; "
                             "see %mcp help")
        raise UsageError(f"%mcp connect needs a name: {_COMMAND_USAGE}, %mcp connect NAME "
                         "--url URL, or %mcp connect NAME (a server of the MCP config files)")
    name, extra = extra[0], extra[1:]
    if extra:
        word = extra[0]
        if word.startswith("--"):
            raise UsageError(f"unknown option {word.partition('=')[0]} for %mcp connect; "
                             "see %mcp help")
        raise UsageError(f"unexpected {word!r}; put the server command after --: "
                         f"{_COMMAND_USAGE}")
    headers = dict(pair(h, ":", "--header 'Authorization: Bearer TOKEN'")
                   for h in flags.header or [])
    env = dict(pair(e, "=", "--env KEY=VALUE") for e in flags.env or [])
    guard = {"secret_forms": flags.secret_forms}
    if guard["secret_forms"] not in ("warn", "refuse"):
        raise UsageError("--secret-forms takes warn or refuse")
    if flags.rate_limit is not None:
        guard["rate_limit"] = rate_limit(flags.rate_limit)
    given = [what for what in (command, flags.url, flags.sse, flags.config) if what is not None]
    if len(given) > 1:
        raise UsageError(f"give one of a command, --url, --sse or --config: %mcp connect {name} "
                         f"-- COMMAND [ARGS...], %mcp connect {name} --url URL, or %mcp connect "
                         f"{name} (a server of the MCP config files)")
    if command is None and (env or flags.cwd):
        raise UsageError("--env and --cwd are for stdio commands (after --), not --url, --sse "
                         "or a configured server")
    if (command is not None or flags.config is not None or not given) and headers:
        raise UsageError("--header is for --url and --sse servers")
    if flags.trust and (command is not None or flags.url is not None or flags.sse is not None):
        raise UsageError("--trust is for a server of the MCP config files: %mcp connect NAME "
                         "--trust")
    auth = {key: getattr(flags, key) for key in SIGN_IN_FLAGS if getattr(flags, key) is not None}
    if auth and flags.url is None:
        raise UsageError("--auth, --client-id and the other sign-in options are for --url "
                         "servers")
    if auth.get("auth") not in (None, *AUTH_MODES):
        raise UsageError(f"--auth takes {', '.join(AUTH_MODES[:-1])} or {AUTH_MODES[-1]}")
    if auth.get("token_store") not in (None, "disk", "memory"):
        raise UsageError("--token-store takes disk or memory")
    for key in ("client_secret_env", "private_key_env", "id_token_env", "idp_client_secret_env"):
        if auth.get(key) and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", auth[key]):
            flag = "--" + key.replace("_", "-")
            raise UsageError(f"{flag} takes the NAME of an environment variable that holds "
                             "the secret, never the secret itself")
    return ConnectOptions(name, command, flags.url, flags.sse, flags.config, headers, env,
                          flags.cwd, guard, auth, flags.trust, not flags.no_apps)


def rate_limit(text: str):
    """A :class:`RateLimit` (or None for ``off``) from text such as ``2/s burst 4``."""
    from .._core.limits import parse_rate_limit

    try:
        return parse_rate_limit(text)
    except ValueError as error:
        raise UsageError(str(error)) from None


def pair(text: str, sep: str, example: str) -> tuple[str, str]:
    """``K=V`` or ``K: V`` as a stripped pair; anything else says how to write it."""
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise UsageError(f"cannot read {text!r}; write it like {example}")
    return key.strip(), value.strip()


def _split_command(rest: str) -> tuple[str, list[str] | None]:
    words = rest.split(" -- ", 1) if " -- " in f" {rest} " else [rest]
    if rest.strip().endswith(" --") or rest.strip() == "--":
        raise UsageError(f"nothing after --: {_COMMAND_USAGE}")
    if len(words) == 1:
        return rest, None
    try:
        command = shlex.split(words[1])
    except ValueError as error:
        raise UsageError(f"cannot read the command: {error}") from None
    return words[0], command


def _what_to_type(message: str) -> str:
    """argparse's complaint, said the way the other %mcp errors are."""
    missing = re.match(r"argument (\S+?)(?:/\S+)?: expected one argument", message)
    if missing:
        return f"{missing.group(1)} needs a value; see %mcp help"
    return f"{message.splitlines()[0] if message else 'cannot read the options'}; see %mcp help"
