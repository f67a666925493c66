"""The demo behind a small local authorization server, for trying sign-in from a notebook.

    python -m nb_elicit.demo --http 8765 --auth

serves the demo's tools at http://127.0.0.1:8765/mcp, which answers 401 until the client
signs in, and an OAuth 2.1 authorization server on the same address, built from the SDK's
server-side auth support (metadata, dynamic registration, authorize, token, PKCE, refresh).
Its sign-in page asks nothing but a click ("Sign in as the demo user"); everything is kept in
memory and forgotten when the server stops. For trying nb_elicit only: not a real identity
provider.

For runs where nobody can click (nbclient, CI), it also knows one service client,
:data:`SERVICE_CLIENT`, that gets tokens with the client-credentials grant, when its secret is
given in the environment variable :data:`ENV_SERVICE_SECRET` (never on the command line,
where other processes could read it)::

    NB_ELICIT_DEMO_CLIENT_SECRET=... python -m nb_elicit.demo --http 8765 --auth

and then, in the notebook (with the same variable set in the kernel)::

    %mcp connect secured --url http://127.0.0.1:8765/mcp --auth client_credentials \
        --client-id nb-elicit-demo-service --client-secret-env NB_ELICIT_DEMO_CLIENT_SECRET
"""

from __future__ import annotations

import base64
import hmac
import html
import json
import os
import secrets
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from .. import __version__

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

SCOPE = "demo"
#: The demo's one service client: client credentials, for runs with nobody there.
SERVICE_CLIENT = "nb-elicit-demo-service"
#: The environment variable that holds the service client's secret (unset: no service client).
ENV_SERVICE_SECRET = "NB_ELICIT_DEMO_CLIENT_SECRET"
#: The largest token request read (bytes).
_MAX_TOKEN_REQUEST = 65_536
#: Seconds an access token lives (short, so refreshing is part of the demo).
TOKEN_SECONDS = 3600


class DemoAuthorizationServer:
    """An in-memory OAuth authorization server (the SDK's provider protocol)."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.pending: dict[str, tuple[str, AuthorizationParams]] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull,
                        params: AuthorizationParams) -> str:
        request = secrets.token_urlsafe(16)
        self.pending[request] = (client.client_id, params)
        return f"{self.issuer}/demo-sign-in?request={request}"

    def approve(self, request: str) -> str | None:
        """The person clicked "Sign in": the redirect back to the client, with a code."""
        found = self.pending.pop(request, None)
        if found is None:
            return None
        client_id, params = found
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [SCOPE], expires_at=time.time() + 300,
            client_id=client_id, code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource, subject="demo-user")
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state,
                                      iss=self.issuer)

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        found = self.codes.get(authorization_code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes,
                           authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull,
                                 refresh_token: str) -> RefreshToken | None:
        found = self.refresh_tokens.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull,
                                     refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes,
                           refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(getattr(token, "token", ""), None)
        self.refresh_tokens.pop(getattr(token, "token", ""), None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None,
               refresh: bool = True, subject: str = "demo-user") -> OAuthToken:
        access = secrets.token_urlsafe(32)
        expires = int(time.time()) + TOKEN_SECONDS
        self.tokens[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=expires, resource=resource,
                                          subject=subject)
        refresh_token = None
        if refresh:  # (client credentials get none: the client asks again, RFC 6749 4.4.3)
            refresh_token = secrets.token_urlsafe(32)
            self.refresh_tokens[refresh_token] = RefreshToken(
                token=refresh_token, client_id=client_id, scopes=scopes, resource=resource,
                subject=subject)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=TOKEN_SECONDS,
                          refresh_token=refresh_token, scope=" ".join(scopes))


class ClientCredentialsGrant:
    """ASGI: the token endpoint's ``client_credentials`` grant for :data:`SERVICE_CLIENT` (the
    SDK's token handler has no such grant); every other request goes on to ``app``."""

    def __init__(self, app: ASGIApp, provider: DemoAuthorizationServer, secret: str) -> None:
        self.app, self.provider, self.secret = app, provider, secret

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (scope["type"] == "http" and scope["method"] == "POST"
                and scope["path"] == "/token"):
            return await self.app(scope, receive, send)
        messages: list[Message] = []
        body, more = b"", True
        while more and len(body) <= _MAX_TOKEN_REQUEST:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            more = message.get("more_body", False)
        form = {k: v[0] for k, v in parse_qs(body.decode("latin-1")).items()}
        if form.get("grant_type") != "client_credentials":
            async def replay() -> Message:
                return messages.pop(0) if messages else await receive()

            return await self.app(scope, replay, send)
        client_id, secret = _client_of(dict(scope["headers"]), form)
        if client_id != SERVICE_CLIENT or not hmac.compare_digest(secret.encode(),
                                                                  self.secret.encode()):
            return await _json(send, 401, {"error": "invalid_client",
                                           "error_description": "unknown client or secret"})
        token = self.provider._issue(SERVICE_CLIENT, [SCOPE], form.get("resource"),
                                     refresh=False, subject=SERVICE_CLIENT)
        return await _json(send, 200, token.model_dump(exclude_none=True))


def _client_of(headers: dict[bytes, bytes], form: dict[str, str]) -> tuple[str, str]:
    """The client ID and secret of a token request: HTTP Basic, or in the form."""
    scheme, _, value = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode()
        except (ValueError, UnicodeDecodeError):
            return "", ""
        client_id, _, secret = decoded.partition(":")
        return unquote(client_id), unquote(secret)
    return form.get("client_id", ""), form.get("client_secret", "")


async def _json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"cache-control", b"no-store"),
        (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


class _DemoWithSignIn(MCPServer):
    """The guarded demo; its HTTP app also takes the service client's client credentials when
    :data:`ENV_SERVICE_SECRET` is set."""

    demo_authorization_server: DemoAuthorizationServer

    # (an ASGI app where the SDK's says Starlette: the one who serves it, ``python -m
    # nb_elicit.demo``, needs no more)
    def streamable_http_app(self, **options: Any) -> ASGIApp:  # type: ignore[override]
        app = super().streamable_http_app(**options)
        secret = os.environ.get(ENV_SERVICE_SECRET, "")
        if not secret:
            return app
        return ClientCredentialsGrant(app, self.demo_authorization_server, secret)


def server_with_sign_in(port: int) -> MCPServer:
    """The demo's tools behind the demo authorization server, both on 127.0.0.1:PORT."""
    from .asking import STATE_SECURITY
    from .server import server as demo
    from .server import tasks

    base = f"http://127.0.0.1:{port}"
    provider = DemoAuthorizationServer(base)
    # (pydantic validates the two URLs' str into AnyHttpUrl)
    settings = AuthSettings(
        issuer_url=base, resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
        required_scopes=[SCOPE],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]))
    # (the demo's tools, as registered on the plain demo server)
    tools = demo._tool_manager.list_tools()
    # (the demo turns no identity assertion on, so the SDK never asks its provider for
    # exchange_identity_assertion, the one member of the SDK's protocol it lacks)
    guarded = _DemoWithSignIn("nb-elicit-demo", version=__version__,
                              instructions=demo.instructions, tools=tools,
                              auth_server_provider=provider,  # type: ignore[arg-type]
                              auth=settings,
                              extensions=[tasks], middleware=[tasks.middleware],
                              request_state_security=STATE_SECURITY)
    guarded.demo_authorization_server = provider

    # (the SDK's custom_route has no return annotation)
    @guarded.custom_route(  # type: ignore[untyped-decorator]
        "/demo-sign-in", methods=["GET", "POST"])
    async def sign_in_page(request: Request) -> Response:
        ticket = request.query_params.get("request", "")
        if request.method == "POST":
            form = await request.form()
            target = provider.approve(str(form.get("request", "")))
            if target is None:
                return HTMLResponse("<p>This sign-in request is over.</p>", status_code=400)
            return RedirectResponse(target, status_code=302)
        if ticket not in provider.pending:
            return HTMLResponse("<p>This sign-in request is over.</p>", status_code=400)
        return HTMLResponse(
            '<!doctype html><html><head><meta charset="utf-8"><title>Demo sign-in</title>'
            '</head><body style="font-family: sans-serif; margin: 3em">'
            "<h1>nb_elicit demo: sign in</h1><p>This local authorization server knows one "
            "user. Signing in lets the notebook call the demo's tools.</p>"
            f'<form method="post" action="/demo-sign-in"><input type="hidden" name="request" '
            f'value="{html.escape(ticket, quote=True)}"><button type="submit">Sign in as the '
            "demo user</button></form></body></html>")

    return guarded
