"""How a connection signs in to an HTTP server (MCP authorization, OAuth 2.1), in plain Python.

:class:`AuthConfig` is what ``connect(..., auth=...)`` and ``%mcp connect ... --auth ...`` chose:

* ``auto`` (the default): nothing is sent until the server answers 401 with
  ``WWW-Authenticate``; then the SDK discovers the authorization server and the person signs in
  on a card in the calling cell (a Client ID Metadata Document where the server supports one,
  dynamic registration otherwise, or a pre-registered client when ``client_id`` is given);
* ``oauth``: the same, said explicitly (it needs nothing else);
* ``client_credentials``: no person; the client ID and its secret get tokens (headless runs);
* ``private_key_jwt``: no person; the client ID and a private key (a signed JWT assertion, RFC
  7523) get tokens with the client-credentials grant (SEP-1046);
* ``identity_assertion``: enterprise-managed authorization (SEP-990): the person's ID token from
  the identity provider is exchanged there for an ID-JAG, which the client presents to the MCP
  server's authorization server (``issuer``) with the JWT-bearer grant; no browser sign-in;
* ``off``: never sign in (a 401 is an error).

Secrets are never held here: ``client_secret_env``, ``private_key_env`` and ``id_token_env``
name the environment variables that hold them (``private_key_file`` an owner-only file), read
only when a token is requested, and remembered as secrets then (masked wherever text shows).
Every address a secret or token goes to (``issuer``, ``idp_token_endpoint``) is https, or http to
this machine only: the one rule of :func:`~.url.https_or_loopback`, which the sign-in card's
address and every request of a sign-in (``_mcp/auth.py``) follow too. A wrong setting is a
:class:`~.errors.ConfigError` (a ValueError), an unknown one an
:class:`~.errors.ArgumentTypeError` (a TypeError), one line each.
Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import inspect
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ArgumentTypeError, ConfigError, SignInError
from ..secrets.masking import remember
from ..text import shorten
from ..url import LOOPBACK, check_address

__all__ = ["AUTH_MODES", "ENV_NAME", "HEADLESS_MODES", "SIGNING_ALGORITHMS", "STEPS", "AuthConfig",
           "challenge_param", "is_bearer", "parse_auth", "sign_in_error"]

AUTH_MODES = ("auto", "oauth", "client_credentials", "private_key_jwt", "identity_assertion",
              "off")
#: The modes with no person: the client itself gets the tokens.
HEADLESS_MODES = ("client_credentials", "private_key_jwt", "identity_assertion")
TOKEN_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
#: What ``private_key_jwt`` can sign with (PyJWT's asymmetric algorithms; HS* would be a secret).
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384",
                      "ES512", "ES256K", "EdDSA")
#: What the NAME of an environment variable looks like.
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Where sign-in tokens are kept.
STORES = ("disk", "memory")
#: Environment variable with the URL of a Client ID Metadata Document to use as client ID.
ENV_CLIENT_METADATA_URL = "NB_ELICIT_CLIENT_METADATA_URL"

#: The steps a sign-in goes through, as named in its error lines.
STEPS = {
    "discovery": "discovering the authorization server",
    "registration": "registering nb_elicit as a client",
    "cancelled": "you cancelled the sign-in",
    "state": "the answer to the sign-in did not match it (state mismatch)",
    "token": "the authorization server refused to give a token",
    "scope": "the server still refused after signing in with more scopes (insufficient scope "
             "after step-up)",
    "refused": "the server refused the token it was given",
    "resource": "the server's metadata names another resource than its address (RFC 8707), so "
                "nb_elicit does not sign in to it",
    "identity": "the identity provider refused to exchange the ID token (token exchange)",
    "no person": "no one can sign in here (no widget frontend): sign in once in a notebook "
                 "with widgets (the tokens are kept), or configure client credentials "
                 "(auth='client_credentials')",
    "timeout": "nobody finished signing in in time",
    "callback": "the sign-in page could not reach the notebook",
    "config": "the sign-in settings are incomplete or wrong",
    "https": "nb_elicit sends sign-in secrets and tokens over https only, http only to this "
             f"machine ({LOOPBACK})",
}


@dataclass(frozen=True)
class AuthConfig:
    """What a connection does when its server asks for authorization."""

    mode: str = "auto"
    #: A pre-registered client's ID (else a Client ID Metadata Document URL, or registration).
    client_id: str | None = None
    #: The name of the environment variable that holds the client secret (never the secret).
    client_secret_env: str | None = None
    #: A URL to use as the client ID where the authorization server supports Client ID
    #: Metadata Documents (default: the environment variable NB_ELICIT_CLIENT_METADATA_URL).
    client_metadata_url: str | None = None
    #: Scopes to ask for with client credentials (sign-in takes the server's own choice).
    scope: str | None = None
    #: How the client authenticates at the token endpoint (default: basic with a secret).
    token_auth: str | None = None
    #: The authorization server the client's credentials belong to (its issuer URL); needed
    #: with ``identity_assertion`` (the MCP server is never asked which one to use).
    issuer: str | None = None
    #: ``private_key_jwt``: the environment variable that holds the PEM private key ...
    private_key_env: str | None = None
    #: ... or an owner-only file (mode 0600 or 0400) that holds it.
    private_key_file: str | None = None
    #: ``private_key_jwt``: how the assertion is signed (default RS256).
    signing_algorithm: str | None = None
    #: ``identity_assertion``: the environment variable that holds the identity provider's ID
    #: token ...
    id_token_env: str | None = None
    #: ... or a function (plain or async) that returns one when a token is needed.
    id_token: Callable[[], object] | None = field(default=None, repr=False, compare=False)
    #: ``identity_assertion``: the identity provider's token endpoint (the token exchange) ...
    idp_token_endpoint: str | None = None
    #: ... the client ID this client has there ...
    idp_client_id: str | None = None
    #: ... and, if the identity provider wants one, the variable that holds its secret.
    idp_client_secret_env: str | None = None
    #: ``disk`` (under the Jupyter data directory, owner-only files) or ``memory``.
    store: str = "disk"
    #: Seconds to wait for the person to finish on the sign-in page.
    timeout: float = 300.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in AUTH_MODES:
            raise ConfigError(f"auth must be one of {', '.join(AUTH_MODES)}, not {self.mode!r}")
        if self.store not in STORES:
            raise ConfigError(f"the token store is disk or memory, not {self.store!r}")
        if self.token_auth is not None and self.token_auth not in TOKEN_AUTH_METHODS:
            raise ConfigError(f"token_auth is one of {', '.join(TOKEN_AUTH_METHODS)}")
        if self.mode == "client_credentials" and not (self.client_id and self.client_secret_env):
            raise ConfigError("auth='client_credentials' needs client_id and client_secret_env "
                              "(the name of the environment variable that holds the secret)")
        if self.client_secret_env is not None and not self.client_id:
            raise ConfigError("client_secret_env needs a client_id")
        for name in ("client_secret_env", "private_key_env", "id_token_env",
                     "idp_client_secret_env"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, str) and ENV_NAME.match(value)):
                raise ConfigError(f"{name} takes the NAME of an environment variable (like "
                                  "MY_VAR), never the value itself")
        self._check_private_key_jwt()
        self._check_identity_assertion()
        if self.issuer is not None:
            check_address(self.issuer, "issuer", secrets=True)
        if self.client_metadata_url is not None:
            parts = urlsplit(check_address(self.client_metadata_url, "client_metadata_url"))
            if parts.scheme != "https" or parts.path in ("", "/"):
                raise ConfigError("client_metadata_url must be an https URL with a path, like "
                                  "https://example.org/client-metadata.json")
        if not self.timeout > 0:
            raise ConfigError("the sign-in timeout must be above 0 seconds")

    def _check_private_key_jwt(self) -> None:
        key_options = ("private_key_env", "private_key_file", "signing_algorithm")
        if self.mode != "private_key_jwt":
            given = [name for name in key_options if getattr(self, name) is not None]
            if given:
                raise ConfigError(f"{given[0]} is for auth='private_key_jwt'")
            return
        if not self.client_id:
            raise ConfigError("auth='private_key_jwt' needs client_id")
        if (self.private_key_env is None) == (self.private_key_file is None):
            raise ConfigError("auth='private_key_jwt' needs one of private_key_env (the name of "
                              "the environment variable that holds the PEM key) or "
                              "private_key_file (an owner-only file)")
        if self.client_secret_env is not None:
            raise ConfigError("auth='private_key_jwt' signs with a key, not a secret: leave out "
                              "client_secret_env")
        if self.signing_algorithm is not None and self.signing_algorithm not in SIGNING_ALGORITHMS:
            raise ConfigError(f"signing_algorithm is one of {', '.join(SIGNING_ALGORITHMS)}")

    def _check_identity_assertion(self) -> None:
        idp_options = ("id_token_env", "id_token", "idp_token_endpoint", "idp_client_id",
                       "idp_client_secret_env")
        if self.mode != "identity_assertion":
            given = [name for name in idp_options if getattr(self, name) is not None]
            if given:
                raise ConfigError(f"{given[0]} is for auth='identity_assertion'")
            return
        needed = [name for name in ("client_id", "client_secret_env", "issuer",
                                    "idp_token_endpoint", "idp_client_id")
                  if not getattr(self, name)]
        if needed:
            raise ConfigError(f"auth='identity_assertion' needs {', '.join(needed)} (see "
                              "docs/sign-in.md)")
        if (self.id_token_env is None) == (self.id_token is None):
            raise ConfigError("auth='identity_assertion' needs one of id_token_env (the name of "
                              "the environment variable that holds the ID token) or id_token (a "
                              "function that returns one)")
        if self.id_token is not None and not callable(self.id_token):
            raise ConfigError("id_token is a function that returns the ID token (never the token "
                              "itself: give its variable's name as id_token_env)")
        check_address(self.idp_token_endpoint, "idp_token_endpoint", secrets=True)
        if self.token_auth == "none":
            raise ConfigError("auth='identity_assertion' is for confidential clients: token_auth "
                              "is client_secret_basic or client_secret_post")

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    @property
    def headless(self) -> bool:
        """Whether the client gets tokens by itself (no person, no card)."""
        return self.mode in HEADLESS_MODES

    @property
    def metadata_url(self) -> str | None:
        """The Client ID Metadata Document URL to offer, if any (never with a client ID)."""
        if self.client_id:
            return None
        return self.client_metadata_url or os.environ.get(ENV_CLIENT_METADATA_URL) or None

    def secret(self, server: str) -> str | None:
        """The client secret, read from its environment variable now (None without one)."""
        if self.client_secret_env is None:
            return None
        return _from_env(server, self.client_secret_env, "the client secret")

    def idp_secret(self, server: str) -> str | None:
        """The identity provider client's secret, if it has one (read now)."""
        if self.idp_client_secret_env is None:
            return None
        return _from_env(server, self.idp_client_secret_env, "the identity provider's secret")

    def private_key(self, server: str) -> str:
        """The PEM private key of ``private_key_jwt``, read now from its variable or file."""
        if self.private_key_env is not None:
            return _from_env(server, self.private_key_env, "the private key")
        path = Path(os.path.expanduser(str(self.private_key_file)))
        try:
            info = path.stat()
        except OSError:
            raise sign_in_error(server, "config", f"no private key file at {path}") from None
        if os.name == "posix" and (stat.S_IMODE(info.st_mode) & 0o077
                                   or info.st_uid != os.getuid()):
            raise sign_in_error(server, "config", f"the private key file {path} must be yours "
                                "and readable by you only (chmod 600)")
        try:
            value = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise sign_in_error(server, "config", f"cannot read the private key file {path} "
                                f"({type(error).__name__})") from None
        if not value:
            raise sign_in_error(server, "config", f"the private key file {path} is empty")
        _remember_secret(value)
        return value

    async def identity_token(self, server: str) -> str:
        """The identity provider's ID token, read (or asked of ``id_token``) now."""
        if self.id_token_env is not None:
            return _from_env(server, self.id_token_env, "the ID token")
        try:
            value = self.id_token()  # type: ignore[misc]
            if inspect.isawaitable(value):
                value = await value
        except SignInError:
            raise
        except Exception as error:  # noqa: BLE001 - the person's function: say so in one line
            raise sign_in_error(server, "config", f"id_token() failed "
                                f"({type(error).__name__})") from None
        if not isinstance(value, str) or not value:
            raise sign_in_error(server, "config", "id_token() returned no ID token (expected "
                                "a non-empty string)")
        _remember_secret(value)
        return value

    @property
    def client_key(self) -> str:
        """Which client the stored tokens belong to (tokens are kept per server and client)."""
        if self.mode == "client_credentials":
            return f"credentials:{self.client_id}"
        if self.mode == "private_key_jwt":
            return f"jwt:{self.client_id}"
        if self.mode == "identity_assertion":
            return f"assertion:{self.issuer}:{self.client_id}"
        if self.client_id:
            return f"client:{self.client_id}"
        if self.metadata_url:
            return f"cimd:{self.metadata_url}"
        return "registered"


def parse_auth(auth: object = None, **options: Any) -> AuthConfig:
    """An :class:`AuthConfig` from ``connect``'s ``auth=``: None, a mode, a dict or a config.

    ``options`` (client_id, client_secret_env, ...) refine it; a client ID without a mode
    means a pre-registered client signing in (``oauth``).
    """
    options = {k: v for k, v in options.items() if v is not None}
    if isinstance(auth, AuthConfig):
        return replace(auth, **options) if options else auth
    if isinstance(auth, dict):
        options = {**auth, **options}
        auth = options.pop("mode", None)
    if auth is None:
        auth = "oauth" if options.get("client_id") else "auto"
    if not isinstance(auth, str):
        raise ArgumentTypeError(f"auth must be one of {', '.join(map(repr, AUTH_MODES))}, a "
                                "dict or an AuthConfig")
    if "token_store" in options:  # (connect's and the magic's name for it)
        options["store"] = options.pop("token_store")
    unknown = set(options) - {f for f in AuthConfig.__dataclass_fields__ if f != "extra"}
    if unknown:
        raise ArgumentTypeError(f"unknown sign-in option {sorted(unknown)[0]!r} (see "
                                "docs/sign-in.md)")
    return AuthConfig(auth, **options)


def _from_env(server: str, name: str, what: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise sign_in_error(server, "config", f"the environment variable {name} ({what}) is "
                            "not set")
    _remember_secret(value)
    return value


def _remember_secret(value: str) -> None:
    """Masked wherever text shows from now on (a PEM also line by line)."""
    lines = [line.strip() for line in value.splitlines() if not line.startswith("-----")]
    remember([value, value.strip(), *lines])


def sign_in_error(server: str, step: str, detail: str | None = None) -> SignInError:
    """The one-line error of a sign-in that failed at ``step`` (a key of :data:`STEPS`)."""
    text = f"could not sign in to {server}: {STEPS[step]}"
    if detail:
        text += f" ({shorten(str(detail), 300, one_line=True)})"
    return SignInError(text, step)


def is_bearer(challenge: str) -> bool:
    """Whether a ``WWW-Authenticate`` header asks for a bearer token."""
    return challenge.lower().startswith("bearer")


def challenge_param(challenge: str, name: str) -> str | None:
    """A quoted parameter of a ``WWW-Authenticate`` header (``error``, ``scope``), or None."""
    found = re.search(rf'\b{re.escape(name)}="([^"]*)"', challenge)
    return found.group(1) if found else None

