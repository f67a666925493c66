"""A call the server refuses until the person opens some pages (-32042, 2025-11-25).

The error lists URL-mode requests. Each gets a consent card; the person opens the pages and
clicks **Retry**, or gives up. Once the server reports every page done
(``notifications/elicitation/complete``), the call is retried by itself. Where nobody can see
widgets, the panel gives up after the same bounded wait as a form, and the call fails with the
error, which names the pages.
"""

from __future__ import annotations

from .._core.errors import InvalidRequest, UrlElicitationRequired
from .._core.i18n import t
from .._core.notices import NoticeKind
from .._core.outcome import Outcome
from .._core.url import check_url
from .._ui.url_card import RetryPanel, UrlConsentCard
from .asking import RequestContext, check_message, wait_for_person

__all__ = ["ask_before_retry"]


async def ask_before_retry(context: RequestContext, what: str,
                           error: UrlElicitationRequired) -> bool:
    """Show the pages the server asks for before ``what`` runs; True if the call should be
    retried."""
    server, guard = context.server, context.guard
    cards = []
    for request in error.requests:
        try:
            check_message(request)
            url = check_url(request.url)
        except InvalidRequest as problem:
            view = context.view
            assert view is not None  # (a call's request context: it has the call's view)
            view.notice(t("n_page_refused", server=server, problem=problem),
                                NoticeKind.WARNING)
            continue
        card = UrlConsentCard(request.message, url, server=server,
                              elicitation_id=request.elicitation_id)
        guard.remember_card(request.elicitation_id, card)
        cards.append(card)
    if not cards:
        return False
    panel = RetryPanel(error.message, cards, server=server, what=what)
    stop = guard.on_completion(panel.completed)
    try:
        answer = await wait_for_person(context, panel)
    finally:
        stop()
    context.write_outcome(error.message, Outcome(
        answer, panel.answered_by, label="retry" if answer.action == "accept" else None),
        in_cell=False)
    return answer.action == "accept"
