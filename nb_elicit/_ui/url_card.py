"""The consent card for a URL-mode request: a server asks the person to open a web page.

The card shows who asks, the message, the site's host in large type, the full URL as text, and
warnings about look-alike addresses. Nothing is a link until the person consents:

* **Open** answers ``accept`` (consent, not completion) and only then shows the link, which
  opens in a new tab with ``rel="noopener noreferrer"``. nb_elicit never fetches the URL.
* **Decline** and **Dismiss** (✕) answer ``decline`` and ``cancel``.

No button takes the keyboard focus when the card appears (see :mod:`.keyboard`): a stray Enter
does not open the page.

When the server reports the interaction done (``notifications/elicitation/complete``),
:meth:`UrlConsentCard.mark_complete` says so on the card.
"""

from __future__ import annotations

import dataclasses
import html

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.i18n import t
from .._core.records.transcript import Asked, link_html
from .._core.url import CheckedUrl
from .html import text_html
from .prompt import PromptWidget, make_button

__all__ = ["RetryPanel", "UrlConsentCard", "address_widgets"]


def address_widgets(prompt: PromptWidget, url: CheckedUrl) -> list[widgets.Widget]:
    """What a consent card shows of an address before consent: the host in large type, the
    full URL as text and its warnings."""
    host = prompt.html(f'<div style="font-size: 1.4em; font-weight: bold">'
                       f'{html.escape(url.host)}</div>', "nb-elicit-url-host")
    full = prompt.html(f'<code style="word-break: break-all; white-space: pre-wrap">'
                       f'{html.escape(url.url)}</code>', "nb-elicit-url-full")
    shown = [host, full]
    for warning in url.warnings:
        shown.append(prompt.html(f'<div style="color: var(--jp-warn-color0)">'
                                 f'{text_html("⚠ " + warning)}</div>', "nb-elicit-url-warning"))
    return shown


class UrlConsentCard(PromptWidget):
    """Asks the person's consent to open ``url`` (a :class:`~nb_elicit._core.url.CheckedUrl`)."""

    def __init__(self, message: str, url: CheckedUrl, *, server: str = "MCP server",
                 elicitation_id: str | None = None, **kwargs: object):
        super().__init__(message, server, t("asks_url", server=server), **kwargs)
        self.url = url
        self.elicitation_id = elicitation_id
        self.completed = False
        self.open_button = make_button(t("open"), "nb-elicit-open", t("open.tip", host=url.host),
                                       style="primary", kit=self.kit)
        self.open_button.on_click(lambda _: self._guarded(self.consent))
        address = address_widgets(self, url)
        #: The link, hidden until the person consents.
        self.link = widgets.HTML(layout=widgets.Layout(display="none"),
                                 _dom_classes=("nb-elicit-url-link-box",))
        actions = self.row([self.open_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-url-card")
        self.body([*address, actions, self.link, self.status])

    def plain_text(self) -> str:
        return f"[{self.server} asks you to open {self.url.url}]"

    def consent(self) -> bool:
        """Answer ``accept`` (the person agrees to open the page) and show the link."""
        with self._lock:
            if self.answer.done():
                return False
            self.show_link()
            self._finish(Answer("accept"), t("consented"))
            return True

    def show_link(self) -> None:
        """Show the link itself (after consent)."""
        self.link.value = link_html(self.url.url, self.url.host)
        self.link.layout.display = None

    def mark_complete(self) -> bool:
        """The server says the interaction is done; False if it already was."""
        if self.completed:
            return False
        self.completed = True
        self._set_status(t("page_done", server=self.server))
        if not self.tell_late_change():  # (the call's transcript took it: its widgets are closed)
            self.add_class("nb-elicit-url-done")
        return True

    def _buttons(self) -> list[widgets.Button]:
        return [self.open_button, *super()._buttons()]

    def outcome(self) -> Asked:
        answer = self.final_answer()
        consented = answer is not None and answer.action == "accept"
        return dataclasses.replace(super().outcome(), url=self.url.url,
                                   consented_host=self.url.host if consented else None)


class RetryPanel(PromptWidget):
    """A call the server refused until the person opens some pages (-32042): one consent card
    per page, then **Retry** (accept) or **Give up** (decline) / ✕ (cancel).

    It answers ``accept`` by itself once the server reports every page done.
    """

    def __init__(self, message: str, cards: list[UrlConsentCard], *, server: str, what: str,
                 **kwargs: object):
        super().__init__(message, server, t("asks_pages", server=server, what=what,
                                            pages=_pages(len(cards))), **kwargs)
        self.cards = cards
        for card in cards:  # (by class: the buttons share their layout with the whole card)
            card.decline_button.add_class("nb-elicit-hidden")
            card.dismiss_button.add_class("nb-elicit-hidden")
        self.retry_button = make_button(t("retry"), "nb-elicit-retry", t("retry.tip"),
                                        style="primary", kit=self.kit)
        self.retry_button.on_click(lambda _: self._guarded(self.retry))
        self.decline_button.description = t("give_up")
        self.decline_button.tooltip = t("give_up.tip")
        actions = self.row([self.retry_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-retry-panel")
        self.body([*cards, actions, self.status])

    def retry(self, status: str | None = None) -> bool:
        with self._lock:
            if self.answer.done():
                return False
            self._finish(Answer("accept"), status or t("retrying"))
            return True

    def completed(self, _elicitation_id: str) -> None:
        """A page is done: retry by itself once every one is."""
        if all(card.completed for card in self.cards):
            self.retry(t("all_done", server=self.server))

    def _buttons(self) -> list[widgets.Button]:
        return [self.retry_button, *super()._buttons()]

    def _lock_body(self) -> None:
        for card in self.cards:
            card.open_button.disabled = True

    def outcome(self) -> Asked:
        pages = " ".join(card.url.url for card in self.cards)
        return dataclasses.replace(super().outcome(), url=pages)


def _pages(count: int) -> str:
    return t("a_page") if count == 1 else t("pages", n=count)
