"""Signing in to an HTTP server from the notebook: the card, the loopback, the stored tokens.

A :class:`SignIn` belongs to one connection. ``_mcp/auth.py`` gives the SDK's OAuth provider its
store (:attr:`SignIn.store`), its redirect URI (:attr:`SignIn.redirect_uri`, a port on
127.0.0.1 kept with the client's registration) and, when a person must sign in,
:meth:`SignIn.authorize`: that shows a :class:`~nb_elicit._ui.signin_card.SignInCard` in the
calling cell, waits for **Sign in**, then for the authorization response (at the loopback, or
pasted into the card), and returns it. Each way it can fail is one line naming the server and
the step (:func:`~nb_elicit._core.signin.auth.sign_in_error`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .._core.errors import InvalidRequest, SignInError
from .._core.outcome import AnsweredBy
from .._core.signin.auth import AuthConfig, sign_in_error
from .._core.signin.tokens import TokenStore
from .._core.url import check_url
from .._ui.signin_card import SignInCard
from .asking import RequestContext, wait_for_person
from .loopback import CallbackResult, LoopbackCallback, free_port

__all__ = ["SignIn"]

#: ``where()``: where a card is shown and waited for, as for an elicitation.
Where = Callable[[], RequestContext]


class SignIn:
    """The sign-in of connection ``name`` to the server at ``server_url``."""

    def __init__(self, name: str, server_url: str, config: AuthConfig, where: Where):
        self.name = name
        self.server_url = server_url
        self.config = config
        self.store = TokenStore(server_url, config.client_key, memory=config.store == "memory")
        self._where = where
        self.port = self._stored_port() or free_port()
        #: The card of the sign-in under way (or the last one), for tests and the transcript.
        self.card: SignInCard | None = None
        #: How many times tokens were stored (a sign-in or a refresh finished).
        self.tokens_saved = 0

    def __repr__(self) -> str:
        return f"<nb_elicit SignIn {self.name!r} ({self.config.mode}, {self.config.store})>"

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    def secret(self) -> str | None:
        return self.config.secret(self.name)

    def _stored_port(self) -> int | None:
        """The port of the redirect URI the stored registration was made with."""
        client = self.store.load("client") or {}
        for uri in client.get("redirect_uris") or ():
            parts = urlsplit(str(uri))
            if parts.hostname == "127.0.0.1" and parts.port:
                return parts.port
        return None

    # -- what the SDK's provider calls --------------------------------------------------------

    def saved(self) -> None:
        """Tokens were stored: a sign-in under way has succeeded."""
        self.tokens_saved += 1
        card = self.card
        if card is not None and not card.ended and card.final_answer() is not None:
            card.mark_signed_in()

    def failed(self, error: SignInError) -> None:
        """The sign-in under way failed after the person signed in (token refused, ...)."""
        card = self.card
        if card is not None and not card.ended:
            card.mark_failed(str(error))

    async def authorize(self, authorization_url: str) -> CallbackResult:
        """Ask the person to sign in at ``authorization_url``; the authorization response."""
        try:
            checked = check_url(authorization_url)
        except InvalidRequest as error:
            raise sign_in_error(self.name, "discovery", f"the authorization server's address "
                                f"cannot be shown: {error}") from None
        state = (parse_qs(urlsplit(authorization_url).query).get("state") or [""])[0]
        loop = asyncio.get_running_loop()
        callback = LoopbackCallback(self.name, self.port)
        await callback.start(state)
        card = arrived = None
        try:
            def pasted(address: str) -> None:
                loop.call_soon_threadsafe(self._paste, callback, address, card)

            card = self.card = SignInCard(checked, server=self.name, on_paste=pasted)
            answer = await wait_for_person(self._where(), card)
            if card.answered_by == AnsweredBy.NO_FRONTEND:
                card.mark_failed("no widget frontend")
                raise sign_in_error(self.name, "no person") from None
            if answer.action != "accept":
                card.mark_cancelled()
                raise sign_in_error(self.name, "cancelled")
            stopped = asyncio.wrap_future(card.stopped)
            # Background work: owned by this attempt: cancelled before it ends.
            arrived = asyncio.ensure_future(callback.wait(self.config.timeout))
            try:
                both: set[asyncio.Future[Any]] = {stopped, arrived}
                await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopped.cancel()
            if not arrived.done():
                arrived.cancel()
                with contextlib.suppress(asyncio.CancelledError, SignInError):
                    await arrived
                card.mark_cancelled()
                raise sign_in_error(self.name, "cancelled")
            try:
                return arrived.result()
            except SignInError as error:
                card.mark_failed(str(error))
                raise
        except asyncio.CancelledError:
            if card is not None:
                card.mark_cancelled()
            raise
        finally:
            if arrived is not None and not arrived.done():
                arrived.cancel()  # (this attempt was stopped while it waited)
            callback.close()

    @staticmethod
    def _paste(callback: LoopbackCallback, address: str, card: SignInCard | None) -> None:
        """Finish from a pasted address; one that is no answer to this attempt (none at all,
        another attempt's ``state``, too late) is refused on the card, and the attempt goes on."""
        try:
            callback.deliver(address)
        except ValueError as refused:
            if card is not None:
                card.paste_refused(str(refused))
        except SignInError:
            pass  # (the attempt itself reports it)
