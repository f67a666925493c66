"""The URL consent card in a real JupyterLab in Chromium: nothing is fetched before consent, and
the link opens in a new tab with ``rel="noopener noreferrer"``.

Every request the page makes to the card's host is recorded by the browser context (and
answered locally: the machine has no network), so the test sees exactly when the URL is first
fetched.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

URL = "https://example.com/nb-elicit/sign-in?state=a&b=<c>"
CELL = ("r = await nb_elicit.connections['demo'].call_tool('sign_in', "
        f"{{'url': {URL!r}}})\nprint(r.text)")


def test_the_consent_card_links_only_after_consent_and_opens_safely(lab):
    fetched: list[str] = []

    def answer(route):
        fetched.append(route.request.url)
        route.fulfill(status=200, content_type="text/html",
                      body="<title>sign in</title><p>the sign-in page</p>")

    lab.page.context.route("https://example.com/**", answer)
    lab.open(CELL)
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-url-card")
    card.wait_for()
    expect(card.locator(".nb-elicit-url-host")).to_have_text("example.com")
    expect(card.locator(".nb-elicit-url-full")).to_have_text(URL)
    expect(card).to_contain_text("demo asks you to open a web page")
    assert card.locator("a").count() == 0  # no link before consent
    lab.page.wait_for_timeout(1000)
    assert fetched == []  # and nothing fetched, not even a preview
    lab.screenshot("before-consent", of=card)

    card.locator(".nb-elicit-open").click()
    link = card.locator("a.nb-elicit-url-link")  # the server waits 3 s: the card is live
    expect(link).to_be_visible()
    assert link.get_attribute("href") == URL
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer"
    lab.screenshot("after-consent", of=card)
    assert lab.wait_journal(1) == [{"tool": "sign_in", "message": "url", "action": "accept",
                                   "url": URL}]
    lab.wait_done(2)
    assert fetched == []  # consent alone fetches nothing either

    # The call is over: its transcript keeps the link, so the page can still be opened.
    # (JupyterLab sets rel="noopener" on links in HTML outputs; referrerpolicy keeps the
    # referrer out, which the opened tab shows below.)
    transcript = lab.cell(2).locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("Signed in: you finished on the sign-in page.")
    expect(transcript).to_contain_text("demo reports this is done")  # the completion notice
    link = transcript.locator("a.nb-elicit-url-link")
    assert link.get_attribute("href") == URL
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in link.get_attribute("rel").split()
    assert link.get_attribute("referrerpolicy") == "no-referrer"
    lab.screenshot("transcript", of=transcript)

    with lab.page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert fetched == [URL.replace("<", "%3C").replace(">", "%3E")]
    assert tab.evaluate("window.opener") is None  # noopener
    assert tab.evaluate("document.referrer") == ""  # noreferrer
    tab.close()
