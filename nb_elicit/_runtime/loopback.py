"""The loopback redirect of a sign-in: one code, on 127.0.0.1, then it closes.

:class:`LoopbackCallback` listens on ``127.0.0.1`` (an ephemeral port unless one is given) in
the kernel's event loop. The authorization server sends the browser to
``http://127.0.0.1:PORT/callback?code=...&state=...``; the callback takes the first such
request whose ``state`` is the one expected, answers the browser with a short "you can close
this tab" page, and closes. Only a response that carries the expected ``state`` ends the
attempt: its code, or its ``error=...`` (the authorization server refused, said in one line).
Anything else (no ``state``, another one, an ``error=access_denied`` without the right
``state``) is answered "not a sign-in answer nb_elicit is waiting for" and ignored, so a page
that makes the browser fetch ``http://127.0.0.1:PORT/callback?error=...`` cannot end a
sign-in. Where the browser cannot reach the kernel (Binder, JupyterHub, a remote kernel),
:meth:`deliver` takes the address the browser landed on, pasted by the person, and checks it
the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import socket
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from .._core.errors import SignInError
from .._core.i18n import t
from .._core.signin.auth import sign_in_error

__all__ = ["CallbackResult", "LoopbackCallback", "free_port"]

PATH = "/callback"
_MAX_REQUEST = 16_384


@dataclass(frozen=True)
class CallbackResult:
    """What the authorization server sent back (the code is a one-time secret)."""

    code: str
    state: str
    iss: str | None = None

    def __repr__(self) -> str:
        return "CallbackResult(code=<hidden>, state=<hidden>)"


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]  # (the socket module gives the address untyped)
        return port


class LoopbackCallback:
    """Waits for one authorization response for ``server`` (the connection's name)."""

    def __init__(self, server: str, port: int = 0):
        self.server = server
        self.port = port
        self._expected: str | None = None
        self._result: asyncio.Future[CallbackResult] | None = None
        self._listener: asyncio.AbstractServer | None = None
        self.requests = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    @property
    def closed(self) -> bool:
        return self._listener is None

    async def start(self, state: str) -> LoopbackCallback:
        """Listen for the answer to the authorization request that carries ``state``."""
        self._expected = state
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._listener = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        except OSError as error:
            raise sign_in_error(self.server, "callback", f"port {self.port} on 127.0.0.1 is "
                                f"taken: {error.strerror or error}") from None
        self.port = self._listener.sockets[0].getsockname()[1]
        return self

    async def wait(self, timeout: float) -> CallbackResult:
        """The code, once the browser (or :meth:`deliver`) brought it; closes either way."""
        assert self._result is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        except asyncio.TimeoutError:
            raise sign_in_error(self.server, "timeout", f"after {timeout:g} s") from None
        finally:
            self.close()

    def deliver(self, address: str) -> CallbackResult:
        """Finish from the address the browser landed on (pasted by the person).

        A :class:`ValueError` says what is wrong with an address that is no answer to this
        sign-in (none at all, or another ``state``): the person may paste again. An answer with
        the right ``state`` ends the attempt like one that came to the loopback."""
        query = urlsplit(address.strip()).query
        params = {k: v[0] for k, v in parse_qs(query).items()}
        if "code" not in params and "error" not in params:
            raise ValueError(t("signin_paste_bad"))
        return self._take(params)

    def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        if self._result is not None and not self._result.done():
            self._result.cancel()

    # -- internals ----------------------------------------------------------------------------

    def _take(self, params: dict[str, str]) -> CallbackResult:
        """Check one answer; resolve the attempt with it (or with why it failed)."""
        result = self._result
        if result is None or result.done():
            raise ValueError(t("signin_paste_late"))
        if not self._is_ours(params.get("state")):
            raise ValueError(t("signin_page_bad"))  # not this attempt's: ignored
        if "error" in params:
            error = sign_in_error(self.server, "token", "the authorization server answered "
                                  f"{params['error'][:80]}: "
                                  f"{params.get('error_description', '')[:200]}")
            result.set_exception(error)
            raise error
        if "code" not in params:
            raise ValueError(t("signin_page_bad"))
        found = CallbackResult(params["code"], params["state"], params.get("iss"))
        result.set_result(found)
        return found

    def _is_ours(self, state: str | None) -> bool:
        """Whether ``state`` is the one this attempt sent (compared in constant time)."""
        if not state or not self._expected:
            return False
        return hmac.compare_digest(state.encode(), self._expected.encode())

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.requests += 1
        status, body = 400, t("signin_page_bad")
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            if len(head) > _MAX_REQUEST:
                raise ValueError("too long")
            method, target, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            parts = urlsplit(target)
            if method != "GET" or parts.path != PATH:
                status, body = 404, t("signin_page_bad")
            else:
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                try:
                    self._take(params)
                    status, body = 200, t("signin_page_done", server=self.server)
                except SignInError as error:
                    status, body = 400, str(error)
                except ValueError as error:
                    late = self._result is None or self._result.done()
                    status, body = (410, t("signin_page_late")) if late else (400, str(error))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError,
                ValueError, UnicodeError):
            pass
        page = (f'<!doctype html><html><head><meta charset="utf-8"><title>nb_elicit</title>'
                f'</head><body style="font-family: sans-serif; margin: 3em">'
                f"<p>{html.escape(body)}</p></body></html>").encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 410: "Gone"}[status]
        with contextlib.suppress(OSError):
            writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8"
                         f"\r\nContent-Length: {len(page)}\r\nCache-Control: no-store\r\n"
                         "Referrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
                         .encode() + page)
            await writer.drain()
            writer.close()
        if self._result is not None and self._result.done():
            self.close()  # one use
