"""Signing in (MCP authorization): the SDK's OAuth 2.1 providers over nb_elicit's token store.

A :class:`SigningClient` is a session's HTTP client: the SDK's provider as its ``auth``, and a
sign-in that fails turned into one line (:class:`~nb_elicit.SignInError`) that answers the
request that met it. It knows the connection's sign-in only as a :class:`SignInFlow`.

Every request a sign-in makes (discovery, registration, token, refresh) and every request that
carries its token goes over https, or http to this machine only (:class:`_HttpsOnly`, the one
rule of :func:`~nb_elicit._core.url.https_or_loopback`): an authorization server whose metadata
names a plain-http token endpoint elsewhere gets no secret; the sign-in ends in one line.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

import httpx2
from mcp.client.auth import (
    AuthorizationCodeResult,
    OAuthClientProvider,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

from .._core.errors import SignInError
from .._core.secrets.names import redact_url
from .._core.signin.auth import challenge_param, is_bearer, sign_in_error
from .._core.url import https_or_loopback
from .errors import sign_in_failed

if TYPE_CHECKING:
    from mcp.client.auth.oauth2 import OAuthContext

    from .._core.signin.auth import AuthConfig
    from .._core.signin.tokens import TokenStore

__all__ = ["SignInFlow", "SigningClient", "oauth_provider"]


class SignInFlow(Protocol):
    """A connection's sign-in as the SDK's providers here use it (the runtime's
    :class:`~nb_elicit._runtime.signin.SignIn`): the server's name and URL, the config, where
    the tokens are kept, and what hears a token saved, a failure, a page to authorize on."""

    name: str
    server_url: str
    config: AuthConfig
    store: TokenStore
    #: How many times a token was saved (a 401 after a fresh one: the server refused it).
    tokens_saved: int

    @property
    def redirect_uri(self) -> str: ...

    def secret(self) -> str | None: ...

    def saved(self) -> None: ...

    def failed(self, error: SignInError) -> None: ...

    async def authorize(self, authorization_url: str) -> Any: ...


class SigningClient(httpx2.AsyncClient):
    """The HTTP client of a session: the SDK's OAuth provider as its ``auth``, and a sign-in
    that fails turned into one line (the transport would otherwise say only "error", or lose
    the request).

    A sign-in that fails inside the provider (or a server that asks for one where auth is
    off) is answered, at once, to the request that met it: a JSON-RPC error that carries the
    :class:`SignInError` (:func:`~.errors.sign_in_failed`), which the session raises for that
    request (:func:`~.errors.from_mcp_error`). No other request can take it for its own.
    """

    def __init__(self, sign_in: SignInFlow | None, server_url: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._sign_in = sign_in
        self._server_url = server_url

    def __repr__(self) -> str:
        return f"<nb_elicit HTTP client for {self._server_url}>"

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        sign_in = self._sign_in
        name = sign_in.name if sign_in is not None else str(self._server_url)
        saved = sign_in.tokens_saved if sign_in is not None else 0
        try:
            response = await super().send(request, **kwargs)
        except SignInError as error:
            return self._failed(request, error)
        except (httpx2.HTTPError, OSError):
            raise  # the server went away: as without sign-in
        except Exception as error:  # noqa: BLE001 - the SDK's OAuth failed: say at which step
            if sign_in is None:
                raise
            return self._failed(request, _sign_in_failure(name, error))
        challenge = response.headers.get("www-authenticate", "")
        if sign_in is None or not sign_in.config.enabled:
            if response.status_code == 401 and is_bearer(challenge):
                await response.aclose()
                return _answer(request, response.status_code, SignInError(
                    f"could not connect to {name}: the server asks for sign-in (401) and this "
                    "connection's auth is off", "config"))
            return response
        failure = None
        if response.status_code == 403 and challenge_param(challenge, "error") == \
                "insufficient_scope":
            failure = sign_in_error(name, "scope", challenge_param(challenge, "scope"))
        elif response.status_code == 401 and sign_in.tokens_saved > saved:
            failure = sign_in_error(name, "refused", "401 with a fresh token")
        if failure is None:
            return response
        await response.aclose()
        return self._failed(request, failure, response.status_code)

    def _failed(self, request: httpx2.Request, error: SignInError,
                status: int = 401) -> httpx2.Response:
        if self._sign_in is not None:
            self._sign_in.failed(error)
        return _answer(request, status, error)


def _answer(request: httpx2.Request, status: int, error: SignInError) -> httpx2.Response:
    """The answer to ``request`` that says ``error``: a JSON-RPC error the transport passes on
    to the request (the SDK puts the request's own id in it)."""
    body = {"jsonrpc": "2.0", "id": None, "error": sign_in_failed(error)}
    return httpx2.Response(status, headers={"content-type": "application/json"},
                           content=json.dumps(body).encode(), request=request)


def _sign_in_failure(name: str, error: Exception) -> SignInError:
    """The SDK's OAuth error, as the step it failed at."""
    text = str(error)
    if isinstance(error, OAuthRegistrationError) or "registration" in text.lower():
        return sign_in_error(name, "registration", text)
    if "State parameter mismatch" in text:
        return sign_in_error(name, "state")
    if text.startswith("Protected resource") and "does not match" in text:
        return sign_in_error(name, "resource", text)
    if isinstance(error, OAuthTokenError) or text.startswith("Token exchange failed"):
        return sign_in_error(name, "token", text)
    return sign_in_error(name, "discovery", text)


class _Storage:
    """The SDK's ``TokenStorage`` over nb_elicit's
    :class:`~nb_elicit._core.signin.tokens.TokenStore` (tokens with when they expire and where
    they came from; the registered client)."""

    def __init__(self, auth: SignInFlow, provider_context: OAuthContext | None = None) -> None:
        self._auth = auth
        self.context = provider_context

    def __repr__(self) -> str:
        return f"<nb_elicit token storage for {self._auth.server_url}>"

    def saved_state(self) -> dict[str, Any]:
        return self._auth.store.load("tokens") or {}

    async def get_tokens(self) -> OAuthToken | None:
        data = self.saved_state().get("token")
        try:
            return OAuthToken.model_validate(data) if data else None
        except ValueError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        entry: dict[str, Any] = {"token": tokens.model_dump(mode="json", exclude_none=True)}
        if tokens.expires_in is not None:
            entry["expires_at"] = time.time() + tokens.expires_in
        context = self.context
        if context is not None:
            for key in ("oauth_metadata", "protected_resource_metadata"):
                value = getattr(context, key, None)
                if value is not None:
                    entry[key] = value.model_dump(mode="json", exclude_none=True)
            if context.auth_server_url:
                entry["auth_server_url"] = context.auth_server_url
        self._auth.store.save("tokens", entry)
        self._auth.saved()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        config = self._auth.config
        if config.client_id and config.mode in ("auto", "oauth"):  # pre-registered
            secret = self._auth.secret()
            method = config.token_auth or ("client_secret_basic" if secret else "none")
            # (pydantic validates the redirect URI's str into an AnyUrl)
            return OAuthClientInformationFull(
                client_id=config.client_id, client_secret=secret,
                token_endpoint_auth_method=method,
                redirect_uris=[self._auth.redirect_uri])  # type: ignore[list-item]
        data = self._auth.store.load("client")
        try:
            return OAuthClientInformationFull.model_validate(data) if data else None
        except ValueError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if not self._auth.config.client_id:
            self._auth.store.save("client", client_info.model_dump(mode="json",
                                                                   exclude_none=True))


class _Restoring:
    """Mixed into the SDK's providers: what was stored comes back with its expiry and its
    authorization server, so an expired token is refreshed silently after a restart."""

    #: Where the tokens are kept (given by :func:`oauth_provider`).
    _nb_storage: _Storage

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        state = self._nb_storage.saved_state()
        context = self.context  # type: ignore[attr-defined]
        with contextlib.suppress(ValueError, TypeError):
            if "expires_at" in state:
                context.token_expiry_time = float(state["expires_at"])
            if state.get("oauth_metadata") and context.oauth_metadata is None:
                context.oauth_metadata = OAuthMetadata.model_validate(state["oauth_metadata"])
            if (state.get("protected_resource_metadata")
                    and context.protected_resource_metadata is None):
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    state["protected_resource_metadata"])
            if state.get("auth_server_url") and not context.auth_server_url:
                context.auth_server_url = state["auth_server_url"]


class _HttpsOnly:
    """Mixed into every provider: each request of the sign-in, and the request it adds a token
    to, goes over https or to this machine; any other is never sent (one line instead)."""

    #: The connection's name, for the error line (given by :func:`oauth_provider`).
    _nb_name: str

    async def _auth_flow(
            self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)  # type: ignore[misc]
        given = request.headers.get("authorization")
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request or outgoing.headers.get("authorization") != given:
                    self._nb_check(outgoing.url)
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _nb_check(self, url: httpx2.URL) -> None:
        if not https_or_loopback(url.scheme, url.host):
            raise sign_in_error(self._nb_name, "https", redact_url(str(url)))


class _SignInProvider(_HttpsOnly, _Restoring, OAuthClientProvider):
    pass


@functools.cache
def _headless_provider(kind: str) -> type:
    # Made on first use: the SDK's client-credentials extension imports PyJWT (about 20 ms).
    from mcp.client.auth.extensions import client_credentials

    base = (client_credentials.ClientCredentialsOAuthProvider if kind == "secret"
            else client_credentials.PrivateKeyJWTOAuthProvider)
    return type(f"_{kind.title()}Provider", (_HttpsOnly, _Restoring, base),
                {"__module__": __name__})


@functools.cache
def _identity_provider_class() -> type:
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    return type("_IdentityProvider", (_HttpsOnly, IdentityAssertionOAuthProvider),
                {"__module__": __name__})


def _assertion(auth: SignInFlow) -> Callable[[str], Awaitable[str]]:
    """``private_key_jwt``'s assertion provider: the SDK's signed JWT (iss = sub = the client
    ID, aud = the authorization server's issuer), the key read when a token is requested."""
    from mcp.client.auth.extensions.client_credentials import SignedJWTParameters

    config = auth.config
    algorithm = config.signing_algorithm or "RS256"

    async def sign(audience: str) -> str:
        key = config.private_key(auth.name)
        try:
            # (AuthConfig requires a client_id for private_key_jwt; pydantic would refuse a
            # None, which is answered below as one line)
            parameters = SignedJWTParameters(
                issuer=config.client_id, subject=config.client_id,  # type: ignore[arg-type]
                signing_key=key, signing_algorithm=algorithm)
            return await parameters.create_assertion_provider()(audience)
        except Exception as error:  # noqa: BLE001 - PyJWT or the key: one line, no key material
            raise sign_in_error(auth.name, "config", f"cannot sign a {algorithm} assertion "
                                f"with the private key ({type(error).__name__})") from None

    return sign


def _identity_provider(server_url: str, auth: SignInFlow, storage: _Storage) -> httpx2.Auth:
    """SEP-990: the SDK's jwt-bearer provider at the configured issuer; the ID-JAG it asks for
    comes from the token exchange at the identity provider."""
    from .token_exchange import exchange_id_token

    config = auth.config

    async def id_jag(audience: str, resource: str) -> str:
        return await exchange_id_token(auth.name, config, audience, resource)

    provider = _identity_provider_class()(
        server_url, storage, str(config.client_id), str(auth.secret()), str(config.issuer),
        id_jag, scope=config.scope,
        token_endpoint_auth_method=config.token_auth or "client_secret_basic")
    provider._nb_name = auth.name
    # (its class is made with type() on first use, so it has no static type)
    return cast("httpx2.Auth", provider)


def oauth_provider(server_url: str, auth: SignInFlow | None) -> httpx2.Auth | None:
    """The SDK's OAuth provider for a connection's :class:`SignIn` (None: auth is off)."""
    if auth is None or not auth.config.enabled:
        return None
    config = auth.config
    storage = _Storage(auth)
    provider: Any
    if config.mode == "identity_assertion":
        return _identity_provider(server_url, auth, storage)
    if config.mode in ("client_credentials", "private_key_jwt"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (no issuer: the SDK warns it will be required)
            if config.mode == "client_credentials":
                provider = _headless_provider("secret")(
                    server_url, storage, config.client_id, auth.secret(),
                    token_endpoint_auth_method=config.token_auth or "client_secret_basic",
                    scope=config.scope, issuer=config.issuer)
            else:
                provider = _headless_provider("jwt")(
                    server_url, storage, config.client_id, _assertion(auth),
                    scope=config.scope, issuer=config.issuer)
    else:
        pending: dict[str, str] = {}

        async def redirect(url: str) -> None:
            pending["url"] = url  # (shown on the card; nothing opens it but the person)

        async def callback() -> AuthorizationCodeResult:
            result = await auth.authorize(pending.pop("url"))
            return AuthorizationCodeResult(code=result.code, state=result.state, iss=result.iss)

        # (pydantic validates the redirect URI's str into an AnyUrl; AuthConfig checks token_auth
        # against TOKEN_AUTH_METHODS, the SDK's Literal)
        metadata = OAuthClientMetadata(
            client_name="nb_elicit", redirect_uris=[auth.redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method=config.token_auth,  # type: ignore[arg-type]
            scope=config.scope)
        provider = _SignInProvider(server_url, metadata, storage, redirect, callback,
                                   client_metadata_url=config.metadata_url)
    provider._nb_storage = storage
    provider._nb_name = auth.name
    storage.context = provider.context
    # (a provider whose class may be made with type() on first use: no static type)
    return cast("httpx2.Auth", provider)
