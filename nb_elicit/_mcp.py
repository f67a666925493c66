"""The one module that imports the MCP SDK (``mcp`` 2.x).

Everything above this module speaks in plain Python: targets, :class:`ElicitationRequest`,
:class:`~nb_elicit.Answer`, :class:`ToolResult` and nb_elicit's own exceptions. When the SDK
changes its API, this is the file that changes.

A :class:`ServerSession` keeps one SDK ``Client`` open inside a task of its own, because the
SDK's task groups must be entered and left by the same task, while calls come from notebook
cells. Elicitation requests reach the handler given to :meth:`ServerSession.open`; whatever it
raises is turned into a JSON-RPC error here, and only here.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import json
import logging
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import IO, Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.auth import (
    AuthorizationCodeResult,
    OAuthClientProvider,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    REQUEST_TIMEOUT,
    URL_ELICITATION_REQUIRED,
)

from ._core.answer import Answer
from ._core.auth import challenge_param, is_bearer, sign_in_error
from ._core.errors import (
    ConnectError,
    InvalidRequest,
    NbElicitError,
    SchemaError,
    ServerDisconnected,
    ServerError,
    SignInError,
    UrlElicitationRequired,
)
from ._core.types import ElicitationRequest, HttpTarget, SseTarget, StdioTarget, ToolResult
from ._core.validate import jsonschema_imported

__all__ = ["ElicitationRequest", "Era", "HttpTarget", "ServerSession", "SseTarget", "StdioTarget",
           "ToolResult"]


class Era(str, Enum):
    """A session's protocol era, by the value the SDK's ``Client(mode=...)`` takes for it."""

    #: The handshake era (2025-06-18, 2025-11-25): ``initialize`` first, then a session in
    #: which the server may send its own requests (``ctx.elicit``) at any time.
    HANDSHAKE = "legacy"
    #: The 2026-07-28 era: the SDK's "auto" mode tries it first, and falls back to the
    #: handshake only where the server does not speak it.
    V2026 = "auto"

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

_GONE = (httpx2.HTTPError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError,
         anyio.EndOfStream)


# The SDK logs an OAuth failure with its traceback; with no logging configured Python would
# print it into the cell. nb_elicit reports it as one line instead (a configured handler
# still receives it).
logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())

ElicitHandler = Callable[[ElicitationRequest], Awaitable[Answer]]
CompleteHandler = Callable[[str], None]
ProgressHandler = Callable[[float, "float | None", "str | None"], None]
EndHandler = Callable[[], None]

#: Protocol versions that have no URL mode (a client on them cannot have declared it).
_FORM_ONLY_VERSIONS = ("2025-06-18",)


def needs_other_mode(error: ServerError, mode: Era) -> bool:
    """Whether a call that failed this way would work on a session of the other protocol era.

    SDK 2.x servers that call ``ctx.elicit`` need a legacy session (the 2026-07-28 protocol has
    no back-channel for server-initiated requests); tools that return input-required results
    need a 2026-07-28 session (on a legacy one the SDK calls their result invalid).
    """
    if error.code == INVALID_REQUEST and "no back-channel" in error.message:
        return True
    return (mode == Era.HANDSHAKE and error.code == INTERNAL_ERROR
            and error.message == "Handler returned an invalid result")


class ServerSession:
    """One open SDK client to one server, in one protocol era (:class:`Era`)."""

    def __init__(self, target: StdioTarget | HttpTarget, mode: Era, handler: ElicitHandler,
                 errlog: IO[str] | None = None, on_complete: CompleteHandler | None = None,
                 on_end: EndHandler | None = None, auth: Any = None):
        self.target = target
        #: The connection's :class:`~nb_elicit._runtime.signin.SignIn` (HTTP), or None.
        self.auth = auth
        #: Why the last request failed to sign in (the transport only says "error").
        self._auth_failure: SignInError | None = None
        self.mode = Era(mode)
        self._handler = handler
        self._on_complete = on_complete
        self._on_end = on_end
        self._errlog = errlog
        self._client: Client | None = None
        #: What the handshake said (kept: the SDK's client refuses to tell once it is closed).
        self._about: tuple[str | None, str | None, str | None] = (None, None, None)
        self._stop = asyncio.Event()
        self._task: asyncio.Task | None = None
        #: The client has ended (closed, or its server exited).
        self.closed = False
        #: A request found the server gone; the client may still be winding down.
        self.lost = False

    @classmethod
    async def open(cls, target: StdioTarget | HttpTarget, mode: Era, handler: ElicitHandler,
                   errlog: IO[str] | None = None,
                   on_complete: CompleteHandler | None = None,
                   on_end: EndHandler | None = None, auth: Any = None) -> ServerSession:
        """Start the server (or reach it) and finish the handshake.

        ``handler`` answers elicitation requests; ``on_complete(elicitation_id)`` hears
        ``notifications/elicitation/complete``; ``on_end()`` hears that the session ended;
        ``auth`` (a :class:`~nb_elicit._runtime.signin.SignIn`) signs in to an HTTP server
        that asks for it.
        """
        session = cls(target, mode, handler, errlog, on_complete, on_end, auth)
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        session._task = _task_of_its_own(session._run(ready), name=f"nb_elicit:{target}")
        await ready
        return session

    # -- what the server is ---------------------------------------------------------------

    @property
    def usable(self) -> bool:
        """Whether requests can go out on this session."""
        return not self.closed and not self.lost

    @property
    def protocol_version(self) -> str | None:
        return self._about[0]

    @property
    def server_name(self) -> str | None:
        return self._about[1]

    @property
    def server_version(self) -> str | None:
        return self._about[2]

    # -- requests -------------------------------------------------------------------------

    async def call_tool(self, name: str, arguments: dict | None, timeout: float | None = None,
                        on_progress: ProgressHandler | None = None) -> ToolResult:
        """Call a tool; ``on_progress(progress, total, message)`` hears its progress."""
        progress = None
        if on_progress is not None:
            async def progress(value: float, total: float | None, message: str | None) -> None:
                on_progress(value, total, message)
        try:
            result = await self._request(self._live().call_tool, name, arguments or {},
                                         timeout, progress)
        except ServerError as error:
            if error.code != REQUEST_TIMEOUT or timeout is None:
                raise
            raise ServerError(error.code, f"{name} took longer than the connection's timeout "
                                          f"of {timeout:g} s, so it was cancelled") from None
        return ToolResult(content=[_plain(b) for b in result.content],
                          structured=result.structured_content, is_error=bool(result.is_error))

    async def list_tools(self) -> list[dict]:
        return [_plain(t) for t in (await self._request(self._live().list_tools)).tools]

    async def list_prompts(self) -> list[dict]:
        return [_plain(p) for p in (await self._request(self._live().list_prompts)).prompts]

    async def get_prompt(self, name: str, arguments: dict[str, str] | None) -> dict:
        return _plain(await self._request(self._live().get_prompt, name, arguments))

    async def list_resources(self) -> list[dict]:
        result = await self._request(self._live().list_resources)
        return [_plain(r) for r in result.resources]

    async def read_resource(self, uri: str) -> dict:
        return _plain(await self._request(self._live().read_resource, uri))

    def stop(self) -> None:
        """Ask the client to close (and a stdio server to stop), without waiting for it."""
        self._stop.set()

    async def close(self) -> None:
        """Close the client (and stop a stdio server), and wait until it has; idempotent.

        A caller cancelled while it waits is cancelled (the close goes on without it); only
        what the close itself raised is kept quiet.
        """
        self.stop()
        task = self._task
        if task is None:
            return
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            cancelling = getattr(current, "cancelling", None)  # (3.11+)
            if not task.done() or (cancelling is not None and cancelling()):
                raise  # the caller's own cancellation
            # else the session's task itself was cancelled: it has ended all the same
        except Exception:  # noqa: BLE001, S110 - the session's failure; it has ended either way
            pass

    # -- internals ------------------------------------------------------------------------

    def _live(self) -> Client:
        if self.closed or self._client is None:
            raise ServerDisconnected("the connection is closed")
        return self._client

    async def _request(self, method, *args):
        self._auth_failure = None
        try:
            return await method(*args)
        except MCPError as exc:
            error = self._take_auth_failure() or _from_mcp_error(exc)
        except _GONE as exc:
            error = ServerDisconnected(f"the server went away ({_describe(exc)})")
        if isinstance(error, ServerDisconnected):
            self.lost = True
        raise error

    async def _run(self, ready: asyncio.Future) -> None:
        http = None
        try:
            if isinstance(self.target, SseTarget):
                # HTTP+SSE: no read timeout on the event stream (a form may stay open long).
                transport = sse_client(self.target.url, headers=self.target.headers,
                                       timeout=30, sse_read_timeout=None)
            elif isinstance(self.target, HttpTarget):
                http = _SigningClient(self, headers=self.target.headers,
                                      timeout=httpx2.Timeout(30, read=None),
                                      auth=_oauth_provider(self.target.url, self.auth))
                transport = streamable_http_client(self.target.url, http_client=http)
            else:
                transport = self._stdio_transport()
            async with Client(transport, mode=self.mode.value, elicitation_callback=self._on_elicit,
                              message_handler=self._on_message) as client:
                self._client = client
                _results_wait_for_jsonschema(client.session)
                info = client.server_info
                self._about = (client.protocol_version, info.name if info else None,
                               info.version if info else None)
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to whoever waits on `ready`
            if not ready.done():
                ready.set_exception(self._take_auth_failure() or ConnectError(_describe(exc)))
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self.closed = True
            if not ready.done():
                ready.set_exception(ConnectError("the connection closed during the handshake"))
            if http is not None:
                with contextlib.suppress(Exception):
                    await http.aclose()
            if self._on_end is not None:
                self._on_end()

    def _take_auth_failure(self) -> SignInError | None:
        failure, self._auth_failure = self._auth_failure, None
        return failure

    def _stdio_transport(self):
        command, *args = self.target.command
        params = StdioServerParameters(command=command, args=list(args), env=self.target.env,
                                       cwd=self.target.cwd)
        return stdio_client(params, errlog=self._errlog) if self._errlog else params

    async def _on_message(self, message) -> None:
        if isinstance(message, types.ElicitCompleteNotification) and self._on_complete:
            self._on_complete(message.params.elicitation_id)

    async def _on_elicit(self, context, params) -> types.ElicitResult | types.ErrorData:
        """The single place where what the handler raises becomes a JSON-RPC error."""
        request = _request_of(params)
        if request.mode == "url" and self.protocol_version in _FORM_ONLY_VERSIONS:
            return types.ErrorData(code=INVALID_PARAMS, message=(
                f"URL mode does not exist in protocol {self.protocol_version}, so nb_elicit "
                "did not declare it"))
        try:
            answer = await self._handler(request)
        except (SchemaError, InvalidRequest) as exc:
            return types.ErrorData(code=INVALID_PARAMS, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug of ours is an internal error
            return types.ErrorData(code=INTERNAL_ERROR, message=f"nb_elicit failed: {exc!r}")
        return types.ElicitResult(**answer.to_result())


# -- signing in (MCP authorization: the SDK's OAuth 2.1 client) ---------------------------------

class _SigningClient(httpx2.AsyncClient):
    """The HTTP client of a session: the SDK's OAuth provider as its ``auth``, and a sign-in
    that fails turned into one line (the transport would otherwise say only "error", or lose
    the request).

    A failure inside the provider becomes a JSON-RPC error response to the request that
    triggered it; the session keeps the real reason (:class:`SignInError`) and raises that.
    """

    def __init__(self, session: ServerSession, **kwargs):
        super().__init__(**kwargs)
        self._session = session

    def __repr__(self) -> str:
        return f"<nb_elicit HTTP client for {self._session.target.url}>"

    async def send(self, request: httpx2.Request, **kwargs) -> httpx2.Response:
        session = self._session
        name = session.auth.name if session.auth is not None else str(session.target.url)
        saved = session.auth.tokens_saved if session.auth is not None else 0
        try:
            response = await super().send(request, **kwargs)
        except SignInError as error:
            return self._failed(request, error)
        except (httpx2.HTTPError, OSError):
            raise  # the server went away: as without sign-in
        except Exception as error:  # noqa: BLE001 - the SDK's OAuth failed: say at which step
            if session.auth is None:
                raise
            return self._failed(request, _sign_in_failure(name, error))
        challenge = response.headers.get("www-authenticate", "")
        if session.auth is None or not session.auth.config.enabled:
            if response.status_code == 401 and is_bearer(challenge):
                session._auth_failure = SignInError(
                    f"could not connect to {name}: the server asks for sign-in (401) and this "
                    "connection's auth is off", "config")
            return response
        scope_error = challenge_param(challenge, "error") == "insufficient_scope"
        if response.status_code == 403 and scope_error:
            self._note(sign_in_error(name, "scope", challenge_param(challenge, "scope")))
        elif response.status_code == 401 and session.auth.tokens_saved > saved:
            self._note(sign_in_error(name, "refused", "401 with a fresh token"))
        return response

    def _note(self, error: SignInError) -> None:
        self._session._auth_failure = error
        if self._session.auth is not None:
            self._session.auth.failed(error)

    def _failed(self, request: httpx2.Request, error: SignInError) -> httpx2.Response:
        self._note(error)
        body = {"jsonrpc": "2.0", "id": None,
                "error": {"code": INTERNAL_ERROR, "message": "sign-in failed"}}
        return httpx2.Response(401, headers={"content-type": "application/json"},
                               content=json.dumps(body).encode(), request=request)


def _sign_in_failure(name: str, error: Exception) -> SignInError:
    """The SDK's OAuth error, as the step it failed at."""
    text = str(error)
    if isinstance(error, OAuthRegistrationError) or "registration" in text.lower():
        return sign_in_error(name, "registration", text)
    if "State parameter mismatch" in text:
        return sign_in_error(name, "state")
    if isinstance(error, OAuthTokenError) or text.startswith("Token exchange failed"):
        return sign_in_error(name, "token", text)
    return sign_in_error(name, "discovery", text)


class _Storage:
    """The SDK's ``TokenStorage`` over nb_elicit's :class:`~nb_elicit._core.tokens.TokenStore`
    (tokens with when they expire and where they came from; the registered client)."""

    def __init__(self, auth, provider_context=None):
        self._auth = auth
        self.context = provider_context

    def __repr__(self) -> str:
        return f"<nb_elicit token storage for {self._auth.server_url}>"

    def saved_state(self) -> dict:
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
        if config.client_id and config.mode != "client_credentials":  # pre-registered
            secret = self._auth.secret()
            method = config.token_auth or ("client_secret_basic" if secret else "none")
            return OAuthClientInformationFull(
                client_id=config.client_id, client_secret=secret,
                token_endpoint_auth_method=method, redirect_uris=[self._auth.redirect_uri])
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


class _SignInProvider(_Restoring, OAuthClientProvider):
    pass


@functools.cache
def _credentials_provider() -> type:
    # Made on first use: the SDK's client-credentials extension imports PyJWT (about 20 ms).
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    return type("_CredentialsProvider", (_Restoring, ClientCredentialsOAuthProvider),
                {"__module__": __name__})


def _oauth_provider(server_url: str, auth) -> httpx2.Auth | None:
    """The SDK's OAuth provider for a connection's :class:`SignIn` (None: auth is off)."""
    if auth is None or not auth.config.enabled:
        return None
    config = auth.config
    storage = _Storage(auth)
    if config.mode == "client_credentials":
        secret = auth.secret()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (no issuer: the SDK warns it will be required)
            provider = _credentials_provider()(
                server_url, storage, config.client_id, secret,
                token_endpoint_auth_method=config.token_auth or "client_secret_basic",
                scope=config.scope, issuer=config.issuer)
    else:
        pending: dict[str, str] = {}

        async def redirect(url: str) -> None:
            pending["url"] = url  # (shown on the card; nothing opens it but the person)

        async def callback() -> AuthorizationCodeResult:
            result = await auth.authorize(pending.pop("url"))
            return AuthorizationCodeResult(code=result.code, state=result.state, iss=result.iss)

        metadata = OAuthClientMetadata(
            client_name="nb_elicit", redirect_uris=[auth.redirect_uri],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method=config.token_auth, scope=config.scope)
        provider = _SignInProvider(server_url, metadata, storage, redirect, callback,
                                   client_metadata_url=config.metadata_url)
    provider._nb_storage = storage
    storage.context = provider.context
    return provider


def _task_of_its_own(coro, name: str) -> asyncio.Task:
    """A task that starts from an empty context, not a copy of the caller's: a session outlives
    the call that opened it (a reconnect, a second era), and requests it hears later must not
    take that finished call for the current one."""
    if sys.version_info >= (3, 11):
        return asyncio.get_running_loop().create_task(coro, name=name,
                                                      context=contextvars.Context())
    return contextvars.Context().run(asyncio.create_task, coro, name=name)


def _results_wait_for_jsonschema(session) -> None:
    """The SDK checks a structured tool result with jsonschema, imported on the event loop the
    first time: a second in which the kernel answers nothing (not even a withdrawn form's close).
    Such a result waits instead, without blocking, for the import on a thread of its own."""
    check = session.validate_tool_result

    async def validate_tool_result(name, result) -> None:
        if result.structured_content is not None:  # (as an output schema requires)
            await asyncio.wrap_future(jsonschema_imported())
        await check(name, result)

    session.validate_tool_result = validate_tool_result


def _request_of(params) -> ElicitationRequest:
    return ElicitationRequest(
        mode=getattr(params, "mode", None) or "form",
        message=params.message,
        requested_schema=getattr(params, "requested_schema", None),
        url=getattr(params, "url", None),
        elicitation_id=getattr(params, "elicitation_id", None),
    )


def _from_mcp_error(exc: MCPError) -> NbElicitError:
    if exc.code == CONNECTION_CLOSED:
        return ServerDisconnected(f"the server went away ({exc.message})")
    if exc.code == URL_ELICITATION_REQUIRED:
        requests = _url_requests(exc.data)
        if requests:
            return UrlElicitationRequired(exc.code, exc.message, exc.data, requests)
    return ServerError(exc.code, exc.message, exc.data)


def _url_requests(data: Any) -> list[ElicitationRequest]:
    """The URL requests listed in a -32042 error's data (entries that are not are dropped)."""
    entries = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    requests = []
    for entry in entries[:20]:
        try:
            params = types.ElicitRequestURLParams.model_validate(entry)
        except Exception:  # noqa: BLE001 - a malformed entry is simply not shown
            continue
        requests.append(_request_of(params))
    return requests


def _describe(exc: BaseException) -> str:
    """The innermost cause of an SDK failure, in one line (ExceptionGroups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.message
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, NbElicitError) else f"{type(exc).__name__}: {text}"


def _plain(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
