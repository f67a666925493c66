"""The sign-in card: a server needs the person to sign in at an authorization server.

The card names the server that asks and the authorization server that will see the person
(its host in large type), with the full address as text and warnings about look-alike
addresses. Nothing is fetched until the person clicks **Sign in**, and that one click opens the
page: **Sign in** is itself the link (a :class:`~nb_elicit._ui.link_button.LinkButton`, an
``<a target="_blank" rel="noopener noreferrer">`` that looks like a button), so the browser
opens the page in a new tab as it would any link, with no second link to click and no pop-up
to block. The click then reaches Python, and the card says in one line what happens next.

* **Sign in** answers ``accept`` (consent); **Cancel** and ✕ answer ``decline`` / ``cancel``
  before it, and end the attempt after it (:attr:`SignInCard.stopped`). While the card waits,
  **Sign in** opens the page again (a tab closed too soon).
* The long address is shown as text only until the click; once the sign-in ends (signed in,
  failed, cancelled) it is off the card altogether, the link's ``href`` too.
* Where the browser cannot reach the kernel's loopback address, the person pastes the address
  the browser landed on into the box under the buttons (``on_paste`` hears it).
* :meth:`mark_signed_in`, :meth:`mark_failed` and :meth:`mark_cancelled` say how it ended.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.i18n import t
from .._core.outcome import AnsweredBy
from .._core.url import CheckedUrl
from .html import text_html
from .keyboard import STILL_OPEN
from .link_button import LinkButton
from .prompt import PromptWidget, make_button
from .url_card import address_widgets

__all__ = ["SignInCard", "looks_like_answer"]


def looks_like_answer(address: str) -> bool:
    """Whether a pasted address carries an authorization response at all."""
    from urllib.parse import parse_qs, urlsplit

    params = parse_qs(urlsplit(address.strip()).query)
    return "code" in params or "error" in params


class SignInCard(PromptWidget):
    """Asks the person to sign in at ``url`` (a :class:`~nb_elicit._core.url.CheckedUrl`)."""

    def __init__(self, url: CheckedUrl, *, server: str = "MCP server",
                 on_paste: Callable[[str], None] | None = None, **kwargs: object):
        super().__init__(t("signin_message", server=server, host=url.host), server,
                         t("asks_signin", server=server), **kwargs)
        self.url = url
        self.on_paste = on_paste
        #: Resolved (with True) when the person ends the attempt after consenting.
        self.stopped: concurrent.futures.Future[bool] = concurrent.futures.Future()
        self._consented = False
        self._ended = False
        # (one click opens the page: the button is the link, its address set already)
        self.open_button = LinkButton(href=url.url, description=t("sign_in"),
                                      tooltip=t("sign_in.tip", host=url.host),
                                      button_style="primary",
                                      _dom_classes=("nb-elicit-open", "nb-elicit-signin-open"))
        self.open_button.on_click(lambda _: self._guarded(self.consent))
        self.decline_button.description = t("signin_cancel")
        self.decline_button.tooltip = t("signin_cancel.tip")
        sees = self.html(text_html(t("signin_sees")))
        address = address_widgets(self, url)
        #: The full address as text (shown until the click).
        self.full_address = address[1]
        self.paste_text = widgets.Text(placeholder="http://127.0.0.1:…/callback?code=…",
                                       layout=widgets.Layout(width="100%"))
        self.paste_text.add_class("nb-elicit-signin-paste")
        self.paste_button = make_button(t("signin_paste_button"), "nb-elicit-signin-finish",
                                        t("signin_paste_button"), kit=self.kit)
        self.paste_button.on_click(lambda _: self._guarded(self.paste))
        self.paste_note = self.html("", "nb-elicit-signin-paste-note")
        self.paste_box = widgets.VBox(
            [self.html(text_html(t("signin_paste"))),
             widgets.HBox([self.paste_text, self.paste_button]), self.paste_note],
            layout=widgets.Layout(display="none"))
        actions = self.row([self.open_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-signin")
        self.body([sees, *address, actions, self.status, self.paste_box])

    def plain_text(self) -> str:
        return f"[{self.server} asks you to sign in at {self.url.host}]"

    # -- what the person does -------------------------------------------------------------------

    def consent(self) -> bool:
        """Answer ``accept``: the person clicked **Sign in** (the page opened in a new tab).
        The card says what happens next, drops the long address and shows the paste box."""
        with self._lock:
            if self.answer.done():
                return False
            self._consented = True
            self._drop_address()
            self.paste_box.layout.display = None
            # Answered, yet still open until the sign-in ends: the keyboard stays with the card
            # meanwhile, and goes back to the notebook once it has ended (see keyboard.py).
            self.add_class(STILL_OPEN)
            self._finish(Answer("accept"), t("signin_waiting", host=self.url.host))
            return True

    def decline(self) -> bool:
        return self._stop() if self._consented else super().decline()

    def dismiss(self, answered_by: AnsweredBy = AnsweredBy.PERSON,
                status: str | None = None) -> bool:
        return self._stop() if self._consented else super().dismiss(answered_by, status)

    def paste(self) -> bool:
        """Finish from the pasted address (whether it was taken)."""
        address = self.paste_text.value.strip()
        if self._ended or not address:
            return False
        if not looks_like_answer(address):
            self.paste_note.value = text_html(t("signin_paste_bad"))
            return False
        self.paste_note.value = ""
        self.paste_text.value = ""  # (the code is single-use; it does not stay on the page)
        if self.on_paste is not None:
            self.on_paste(address)
        return True

    def paste_refused(self, reason: str) -> None:
        """Say under the paste box why a pasted address was not taken (it may be pasted again)."""
        if not self._ended:
            self.paste_note.value = text_html(reason)

    # -- how it ended -----------------------------------------------------------------------------

    def mark_signed_in(self) -> None:
        self._end(t("signed_in", server=self.server), "nb-elicit-signin-done")

    def mark_failed(self, reason: str) -> None:
        self._end(t("signin_failed", reason=reason), "nb-elicit-signin-failed")

    def mark_cancelled(self) -> None:
        self._end(t("signin_cancelled"), "nb-elicit-signin-cancelled")

    @property
    def ended(self) -> bool:
        return self._ended

    # -- internals ----------------------------------------------------------------------------

    def _stop(self) -> bool:
        with self._lock:
            if self._ended or self.stopped.done():
                return False
            self.stopped.set_result(True)
            return True

    def _end(self, status: str, css_class: str) -> None:
        with self._lock:
            if self._ended:
                return
            self._ended = True
            for button in (self.open_button, self.decline_button, self.dismiss_button,
                           self.paste_button):
                button.disabled = True
            self.paste_text.disabled = True
            self.paste_box.layout.display = "none"
            # The address is needed no more: off the card, and out of the saved widget state.
            self.open_button.href = ""
            self._drop_address()
            self._set_status(status)
            self.add_class(css_class)
            self.remove_class(STILL_OPEN)

    def _drop_address(self) -> None:
        # (by class: the line shares its layout with the whole card)
        self.full_address.value = ""
        self.full_address.add_class("nb-elicit-hidden")

    def _buttons(self) -> list[widgets.Button]:
        if self._consented and not self._ended:
            return []  # Sign in opens the page again; Cancel and ✕ still end the attempt
        return [self.open_button, *super()._buttons()]
