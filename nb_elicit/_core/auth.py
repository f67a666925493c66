"""How a connection signs in to an HTTP server (MCP authorization, OAuth 2.1), in plain Python.

:class:`AuthConfig` is what ``connect(..., auth=...)`` and ``%mcp connect ... --auth ...`` chose:

* ``auto`` (the default): nothing is sent until the server answers 401 with
  ``WWW-Authenticate``; then the SDK discovers the authorization server and the person signs in
  on a card in the calling cell (a Client ID Metadata Document where the server supports one,
  dynamic registration otherwise, or a pre-registered client when ``client_id`` is given);
* ``oauth``: the same, said explicitly (it needs nothing else);
* ``client_credentials``: no person; the client ID and its secret get tokens (headless runs);
* ``off``: never sign in (a 401 is an error).

Secrets are never held here: ``client_secret_env`` names the environment variable that holds
the client secret, which is read only when a token is requested. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from .errors import SignInError
from .text import shorten

__all__ = ["AUTH_MODES", "STEPS", "AuthConfig", "challenge_param", "is_bearer", "parse_auth",
           "sign_in_error"]

AUTH_MODES = ("auto", "oauth", "client_credentials", "off")
TOKEN_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
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
    "no person": "no one can sign in here (no widget frontend): sign in once in a notebook "
                 "with widgets (the tokens are kept), or configure client credentials "
                 "(auth='client_credentials')",
    "timeout": "nobody finished signing in in time",
    "callback": "the sign-in page could not reach the notebook",
    "config": "the sign-in settings are incomplete",
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
    #: The authorization server a client-credentials secret belongs to (its issuer URL).
    issuer: str | None = None
    #: ``disk`` (under the Jupyter data directory, owner-only files) or ``memory``.
    store: str = "disk"
    #: Seconds to wait for the person to finish on the sign-in page.
    timeout: float = 300.0
    extra: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        if self.mode not in AUTH_MODES:
            raise ValueError(f"auth must be one of {', '.join(AUTH_MODES)}, not {self.mode!r}")
        if self.store not in STORES:
            raise ValueError(f"the token store is disk or memory, not {self.store!r}")
        if self.token_auth is not None and self.token_auth not in TOKEN_AUTH_METHODS:
            raise ValueError(f"token_auth is one of {', '.join(TOKEN_AUTH_METHODS)}")
        if self.mode == "client_credentials" and not (self.client_id and self.client_secret_env):
            raise ValueError("auth='client_credentials' needs client_id and client_secret_env "
                             "(the name of the environment variable that holds the secret)")
        if self.client_secret_env is not None and not self.client_id:
            raise ValueError("client_secret_env needs a client_id")
        if self.client_metadata_url is not None:
            parts = urlsplit(self.client_metadata_url)
            if parts.scheme != "https" or parts.path in ("", "/"):
                raise ValueError("client_metadata_url must be an https URL with a path, like "
                                 "https://example.org/client-metadata.json")
        if not self.timeout > 0:
            raise ValueError("the sign-in timeout must be above 0 seconds")

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

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
        value = os.environ.get(self.client_secret_env)
        if not value:
            raise sign_in_error(server, "config", f"the environment variable "
                                f"{self.client_secret_env} (the client secret) is not set")
        return value

    @property
    def client_key(self) -> str:
        """Which client the stored tokens belong to (tokens are kept per server and client)."""
        if self.mode == "client_credentials":
            return f"credentials:{self.client_id}"
        if self.client_id:
            return f"client:{self.client_id}"
        if self.metadata_url:
            return f"cimd:{self.metadata_url}"
        return "registered"


def parse_auth(auth: object = None, **options) -> AuthConfig:
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
        raise TypeError("auth must be 'auto', 'oauth', 'client_credentials', 'off', a dict or "
                        "an AuthConfig")
    unknown = set(options) - {f for f in AuthConfig.__dataclass_fields__ if f != "extra"}
    if unknown:
        raise TypeError(f"unknown auth option {sorted(unknown)[0]!r}")
    return AuthConfig(auth, **options)


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

