"""The options of a connection, defined once: ``connect()``'s keywords and ``%mcp connect``'s flags.

:data:`OPTIONS` knows each option: its name (``connect()``'s keyword), the type it has once
checked, its default, its allowed values, and its flag (``--`` and the name with dashes) with
the help ``%mcp connect`` shows. :class:`ConnectOptions` is one checked set of them:
``connect()`` builds it from its keywords, ``%mcp connect`` from its flags. A wrong option is a
one-line error that names it the way it was given (``secret_forms`` or ``--secret-forms``): a
:class:`~.errors.ConfigError` (a ValueError) for a wrong value, an
:class:`~.errors.ArgumentTypeError` (a TypeError) for a wrong type. An address (``url``,
``sse``, the sign-in options' URLs) is checked here, where it enters
(:func:`~.url.check_address`): a malformed one is refused before anything starts, and one that
sign-in secrets go to must be https (http only to this machine).

The sign-in options are :class:`~.auth.AuthConfig`'s fields; their allowed values are the ones
it defines. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field
from typing import Any

from .errors import ArgumentTypeError, ConfigError, InvalidArgument
from .limits import DEFAULT_RATE_LIMIT, RateLimit, parse_rate_limit
from .protection import SECRET_FORM_RULES
from .signin.auth import AUTH_MODES, ENV_NAME, STORES, AuthConfig, parse_auth
from .url import check_address

__all__ = ["OPTIONS", "SIGN_IN", "TRANSPORTS", "ConnectOption", "ConnectOptions", "option"]

#: How a server is reached: a stdio command, streamable HTTP, HTTP+SSE, or a name of the MCP
#: config files.
TRANSPORTS = ("stdio", "http", "sse", "config")


@dataclass(frozen=True)
class ConnectOption:
    """One option of a connection."""

    name: str
    #: The type of its value once checked.
    type: Any
    default: Any = None
    #: The values it takes (empty: any of its type).
    choices: tuple[str, ...] = ()
    #: Its flag's placeholder in the help (None: a switch, which takes no value).
    metavar: str | None = None
    help: str = ""
    #: The transports its flag is for (empty: every one).
    only_for: tuple[str, ...] = ()
    #: Its flag, when it is not ``--`` and the name with dashes ("": it has none).
    flag_name: str | None = None
    #: Its flag may be given again, each adding one ``K=V`` (or ``K: V``).
    repeated: bool = False
    #: Its value is the NAME of an environment variable that holds a secret.
    names_a_variable: bool = False
    #: It is a sign-in option (an :class:`AuthConfig` field, or ``auth``).
    sign_in: bool = False
    #: Its value is an address: ``"reached"`` (nb_elicit connects there), ``"secrets"``
    #: (sign-in secrets or tokens are sent there: https, or http to this machine), or "".
    address: str = ""

    @property
    def flag(self) -> str:
        """Its ``%mcp connect`` flag ("" where it has none)."""
        if self.flag_name is not None:
            return self.flag_name
        return "--" + self.name.replace("_", "-")

    def spelled(self, as_flag: bool) -> str:
        return self.flag if as_flag and self.flag else self.name

    def takes(self) -> str:
        """Its allowed values, as said: ``warn or refuse``."""
        return f"{', '.join(self.choices[:-1])} or {self.choices[-1]}"


def _sign_in(name: str, metavar: str, help: str, **more: Any) -> ConnectOption:
    return ConnectOption(name, str, metavar=metavar, help=help, only_for=("http",),
                         sign_in=True, **more)


#: Every option, in the order ``%mcp connect`` lists its flags.
OPTIONS: tuple[ConnectOption, ...] = (
    ConnectOption("command", tuple, flag_name="", help="the server command (stdio), after --"),
    ConnectOption("env", dict, metavar="K=V", help="an environment variable (stdio)",
                  only_for=("stdio",), repeated=True),
    ConnectOption("cwd", str, metavar="DIR", help="the server's working directory (stdio)",
                  only_for=("stdio",)),
    ConnectOption("url", str, metavar="URL", help="reach the server over HTTP instead",
                  address="reached"),
    ConnectOption("sse", str, metavar="URL",
                  help="reach the server over HTTP+SSE (the older transport)", address="reached"),
    ConnectOption("config", str, metavar="PATH",
                  help="the config file to find NAME in (no command, URL)"),
    ConnectOption("trust", bool, False, only_for=("config",),
                  help="start NAME of a project config file without asking (you read its entry)"),
    ConnectOption("headers", dict, metavar="'K: V'", help="an HTTP header (--url)",
                  only_for=("http", "sse"), flag_name="--header", repeated=True),
    _sign_in("auth", "|".join(AUTH_MODES),
             "signing in (--url): auto (when the server answers 401), off, ...",
             choices=AUTH_MODES),
    _sign_in("client_id", "ID", "a pre-registered OAuth client (--url)"),
    _sign_in("client_secret_env", "VAR",
             "the environment variable that holds the client secret (never the secret)",
             names_a_variable=True),
    _sign_in("private_key_env", "VAR",
             "private_key_jwt: the environment variable that holds the PEM private key",
             names_a_variable=True),
    _sign_in("private_key_file", "PATH",
             "private_key_jwt: an owner-only file (chmod 600) that holds the PEM private key"),
    _sign_in("signing_algorithm", "ALG", "private_key_jwt: RS256 (default), ES256..."),
    _sign_in("issuer", "URL",
             "the MCP server's authorization server (identity_assertion needs it)",
             address="secrets"),
    _sign_in("id_token_env", "VAR",
             "identity_assertion: the environment variable that holds the IdP's ID token",
             names_a_variable=True),
    _sign_in("idp_token_endpoint", "URL",
             "identity_assertion: the identity provider's token endpoint", address="secrets"),
    _sign_in("idp_client_id", "ID", "identity_assertion: the client ID at the IdP"),
    _sign_in("idp_client_secret_env", "VAR",
             "identity_assertion: the variable that holds the IdP client's secret, if any",
             names_a_variable=True),
    _sign_in("client_metadata_url", "URL",
             "an https URL to use as the client ID (Client ID Metadata Document)",
             address="reached"),
    _sign_in("token_store", "|".join(STORES), "where sign-in tokens are kept", choices=STORES),
    ConnectOption("rate_limit", (RateLimit, type(None)), DEFAULT_RATE_LIMIT, metavar="RATE",
                  help="how often the server may ask"),
    ConnectOption("secret_forms", str, "warn", choices=SECRET_FORM_RULES,
                  metavar="|".join(SECRET_FORM_RULES),
                  help="refuse: decline forms that ask for secrets"),
    ConnectOption("timeout", (float, type(None)), flag_name="",
                  help="seconds a tool call may take (None: no limit)"),
    ConnectOption("apps", bool, True, flag_name="--no-apps",
                  help="show no MCP App of this server (its tools' text results only)"),
)

_BY_NAME = {option.name: option for option in OPTIONS}
#: The sign-in options with a flag, by their names in connect() (``auth`` and AuthConfig's
#: fields; ``token_store`` is its ``store``).
SIGN_IN = tuple(option.name for option in OPTIONS if option.sign_in and option.name != "auth")


def option(name: str) -> ConnectOption:
    return _BY_NAME[name]


@dataclass(frozen=True)
class ConnectOptions:
    """One connection's options, checked: what ``connect()`` was given, or ``%mcp connect``."""

    name: str
    command: tuple[str, ...] | None = None
    url: str | None = None
    sse: str | None = None
    config: str | None = None
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # (values may be secret)
    env: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    rate_limit: RateLimit | None = DEFAULT_RATE_LIMIT
    secret_forms: str = "warn"
    timeout: float | None = None
    #: The sign-in mode (a string), a dict of sign-in settings, an AuthConfig, or None.
    auth: Any = None
    #: A server of a project config file starts without its trust card.
    trust: bool = False
    #: Whether its tools' MCP Apps show.
    apps: bool = True
    #: The other sign-in options given (client_id, ..., AuthConfig's fields).
    sign_in: dict[str, Any] = field(default_factory=dict)
    #: Whether it was given as ``%mcp connect`` flags (errors then name the flags).
    as_flags: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        given = [what for what in (self.command, self.url, self.sse) if what is not None]
        if len(given) > 1 or (self.config is not None and given):
            raise ConfigError("give one of command=[...] (stdio), url=... (HTTP), sse=... "
                              "(HTTP+SSE), or only a name (a configured server)")
        if not given and (self.env or self.cwd is not None or self.headers):
            raise ConfigError("env, cwd and headers come from the config file when connecting "
                              "by name")
        if self.command is not None:
            if isinstance(self.command, str) or not self.command:
                raise ConfigError("command must be a non-empty list, like "
                                  "[sys.executable, 'server.py']")
            self._set("command", tuple(str(word) for word in self.command))
        else:
            for name in ("url", "sse"):
                if getattr(self, name) is not None:
                    check_address(getattr(self, name), _BY_NAME[name].spelled(self.as_flags))
        self._set("env", self._strings("env"))
        self._set("headers", self._strings("headers"))
        if self.cwd is not None:
            self._set("cwd", os.fspath(self.cwd))
        if isinstance(self.rate_limit, str):
            try:
                self._set("rate_limit", parse_rate_limit(self.rate_limit))
            except InvalidArgument as error:
                raise ConfigError(str(error)) from None
        self._check_choice("secret_forms", self.secret_forms)
        timeout = self.timeout
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, numbers.Real) or not timeout > 0):
            raise ConfigError("timeout must be a number of seconds above 0 (or None)")
        if isinstance(self.auth, str):
            self._check_choice("auth", self.auth)
        for key, value in self.sign_in.items():
            known = _BY_NAME.get(key)
            if known is None or not known.sign_in or value is None:
                continue  # (parse_auth names an unknown one)
            self._check_choice(key, value)
            if known.names_a_variable and not (isinstance(value, str) and ENV_NAME.match(value)):
                raise ConfigError(f"{known.spelled(self.as_flags)} takes the NAME of an "
                                  "environment variable that holds the secret, never the "
                                  "secret itself")
            if known.address:
                check_address(value, known.spelled(self.as_flags),
                              secrets=known.address == "secrets")
        self._set("apps", bool(self.apps))
        if self.transport != "config":
            self.auth_config()  # (checked now; a configured server's once its entry is read)

    @property
    def transport(self) -> str:
        """``stdio``, ``http``, ``sse`` or ``config`` (a server of the MCP config files)."""
        if self.command is not None:
            return "stdio"
        if self.url is not None:
            return "http"
        return "sse" if self.sse is not None else "config"

    def auth_config(self, configured: object = None) -> AuthConfig:
        """How it signs in: ``auth`` and the sign-in options (else the ``configured`` entry's)."""
        return parse_auth(configured if self.auth is None else self.auth, **self.sign_in)

    def keywords(self) -> dict[str, Any]:
        """The keywords of ``connect()`` that give these options again (all but the name)."""
        return {"command": self.command and list(self.command), "url": self.url,
                "sse": self.sse, "config": self.config, "headers": self.headers or None,
                "env": self.env or None, "cwd": self.cwd, "rate_limit": self.rate_limit,
                "secret_forms": self.secret_forms, "timeout": self.timeout,
                "auth": self.auth, "trust": self.trust, "apps": self.apps, **self.sign_in}

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def _check_choice(self, name: str, value: Any) -> None:
        known = _BY_NAME[name]
        if known.choices and value not in known.choices:
            raise ConfigError(f"{known.spelled(self.as_flags)} takes {known.takes()}, not "
                              f"{value!r}")

    def _strings(self, name: str) -> dict[str, str]:
        """``env`` or ``headers`` as a new dict of strings; ArgumentTypeError if it is not
        one."""
        mapping = getattr(self, name)
        if mapping is None:
            return {}
        if not hasattr(mapping, "items") or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
            raise ArgumentTypeError(f"{name} must be a dict of strings to strings")
        return dict(mapping)
