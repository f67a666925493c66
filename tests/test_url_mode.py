"""URL-mode elicitation: which URLs are allowed, the consent card, completion and -32042."""

import asyncio
import json

import pytest
from helpers.servers import drive, hostile_command

import nb_elicit
from nb_elicit import InvalidRequest, UrlElicitationRequired
from nb_elicit._core.url import check_url
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.url_card import RetryPanel, UrlConsentCard

pytestmark = pytest.mark.timeout(120)

HOSTILE = hostile_command()



# -- which URLs (pure) --------------------------------------------------------------------------

@pytest.mark.parametrize(("url", "host"), [
    ("https://example.com/login?x=1", "example.com"),
    ("https://sub.example.co.uk:8443/a#b", "sub.example.co.uk"),
    ("http://localhost:8000/cb", "localhost"),
    ("http://127.0.0.1/cb", "127.0.0.1"),
    ("http://[::1]:9000/", "::1"),
    ("http://127.0.0.2/", "127.0.0.2"),  # (this machine: 127.0.0.0/8)
    ("HTTPS://EXAMPLE.COM/", "example.com"),
])
def test_https_and_local_http_are_allowed(url, host):
    checked = check_url(url)
    assert checked.url == url and checked.host == host and checked.warnings == ()


@pytest.mark.parametrize(("url", "why"), [
    ("javascript:alert(1)", "must be https (got javascript:)"),
    ("JavaScript:alert(1)", "must be https (got javascript:)"),
    ("data:text/html,<script>alert(1)</script>", "must be https (got data:)"),
    ("file:///etc/passwd", "must be https (got file:)"),
    ("ftp://example.com/x", "must be https (got ftp:)"),
    ("vbscript:msgbox", "must be https (got vbscript:)"),
    ("//example.com/x", "must be https (got a relative URL)"),
    ("/relative/path", "must be https (got a relative URL)"),
    ("http://example.com/login", "http only to this machine"),
    ("http://128.0.0.1/", "http only to this machine"),
    ("https:///nohost", "has no host"),
    ("https://exa mple.com/", "spaces or control characters"),
    ("https://example.com/\u202egnp.exe", "spaces or control characters"),
    ("https://example.com:99999999/", "not valid"),
    ("https://example.com/" + "a" * 9000, "the limit is 8,192"),
    ("", "needs a url"),
    (None, "needs a url"),
])
def test_every_other_url_is_refused_with_a_reason(url, why):
    with pytest.raises(InvalidRequest, match=None) as error:
        check_url(url)
    assert why in str(error.value)


@pytest.mark.parametrize(("url", "warning"), [
    ("https://xn--pple-43d.com/", "Punycode"),
    ("https://аpple.com/", "non-ASCII"),
    ("https://paypal.com@evil.example/", "really goes to evil.example"),
    ("https://203.0.113.9/login", "bare IP address"),
])
def test_look_alike_addresses_get_a_warning(url, warning):
    assert any(warning in w for w in check_url(url).warnings)


# -- the card (widgets, no server) -------------------------------------------------------------

def test_the_card_shows_the_host_and_full_url_and_links_only_after_consent():
    card = UrlConsentCard("Sign in", check_url("https://auth.example.com/a?b=<c>&d"),
                          server="demo", elicitation_id="x")
    assert "auth.example.com" in _html(card)
    assert "https://auth.example.com/a?b=&lt;c&gt;&amp;d" in _html(card)
    assert "<a " not in _html(card)  # no link before consent
    card.open_button.click()
    assert card.answer.result().action == "accept"
    link = card.link.value
    assert 'href="https://auth.example.com/a?b=&lt;c&gt;&amp;d"' in link
    assert 'target="_blank"' in link and 'rel="noopener noreferrer"' in link
    assert card.open_button.disabled and card.decline_button.disabled
    assert card.mark_complete() and not card.mark_complete()
    assert "done" in card.status.value


def test_a_retry_panel_hides_only_its_cards_decline_and_dismiss_buttons():
    card = UrlConsentCard("Open this", check_url("https://example.com/a"), server="s")
    panel = RetryPanel("Needs a page", [card], server="s", what="tool")
    hidden = {w for w in (card.decline_button, card.dismiss_button)
              if "nb-elicit-hidden" in w._dom_classes}
    assert hidden == {card.decline_button, card.dismiss_button}
    assert "nb-elicit-hidden" not in card.open_button._dom_classes
    # Nothing else of the card is hidden (its widgets share one layout model).
    shown = [card.message_line, card.open_button, *card.children, *panel.children]
    assert all(w.layout.display != "none" for w in shown if w is not card.link)
    assert ".nb-elicit-hidden { display: none" in card.message_line.value


@pytest.mark.parametrize(("button", "action"), [("decline_button", "decline"),
                                                 ("dismiss_button", "cancel")])
def test_the_card_declines_and_dismisses_without_a_link(button, action):
    card = UrlConsentCard("Sign in", check_url("https://auth.example.com/"), server="demo")
    getattr(card, button).click()
    assert card.answer.result().action == action
    assert card.link.value == ""


def _html(widget) -> str:
    out = [getattr(widget, "value", "")] if hasattr(widget, "value") else []
    for child in getattr(widget, "children", ()):
        out.append(_html(child))
    return "".join(str(o) for o in out)


# -- against a real server ---------------------------------------------------------------------

@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
def test_a_url_request_is_answered_from_the_card(views, action):
    async def scenario(person):
        person.will(action)
        conn = await nb_elicit.connect("hostile", HOSTILE)
        return json.loads((await conn.call_tool(
            "url", {"url": "https://auth.example.com/x"})).text)

    assert drive(scenario) == {"result": {"action": action}}
    (card,) = [w for w in views[0].asked if isinstance(w, UrlConsentCard)]
    assert ("noopener" in card.link.value) == (action == "accept")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd",
                                 "http://example.com/"])
def test_a_url_request_with_a_forbidden_url_gets_an_error_and_shows_no_card(views, url):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", HOSTILE)
        return json.loads((await conn.call_tool("url", {"url": url})).text)

    outcome = drive(scenario)
    assert outcome["error"]["code"] == -32602 and "https" in outcome["error"]["message"]
    assert not [w for w in views[0].asked if isinstance(w, UrlConsentCard)]


def test_the_complete_notification_marks_the_card_and_unknown_ids_are_ignored(views):
    async def scenario(person):
        person.will("accept")
        conn = await nb_elicit.connect("hostile", HOSTILE)
        result = await conn.call_tool("url", {
            "url": "https://auth.example.com/x", "elicitation_id": "known",
            "complete_after": 0, "complete_ids": "unknown,known,known"})
        await asyncio.sleep(0.3)
        return json.loads(result.text)

    assert drive(scenario) == {"result": {"action": "accept"}}
    (card,) = [w for w in views[0].asked if isinstance(w, UrlConsentCard)]
    assert card.completed and "reports this is done" in card.status.value


def test_a_completion_after_the_call_ended_goes_into_that_calls_transcript(views):
    async def scenario(person):
        person.will("accept")
        conn = await nb_elicit.connect("hostile", HOSTILE)
        await conn.call_tool("url", {"url": "https://auth.example.com/x",
                                     "elicitation_id": "late"})
        assert views[0].frozen
        await conn.call_tool("finish_page", {"elicitation_id": "late"})
        await asyncio.sleep(0.3)

    drive(scenario)
    (card,) = [w for w in views[0].asked if isinstance(w, UrlConsentCard)]
    assert card.completed
    assert "nb-elicit-url-done" not in card._dom_classes  # its widgets were already closed
    (asked,) = [item for item in views[0].transcript().items if not isinstance(item, str)]
    assert "reports this is done" in asked.status


def test_url_required_error_shows_the_pages_and_retries_once_they_are_done(views):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", HOSTILE)
        call = asyncio.ensure_future(conn.call_tool("needs_pages", {"ids": "a1,b2"}))
        panel = await person.wait_for_form()
        cards = panel.cards
        await conn.call_tool("finish_page", {"elicitation_id": "a1"})
        first_done = [c.completed for c in cards]
        await conn.call_tool("finish_page", {"elicitation_id": "b2"})
        return (await call).text, first_done, panel

    text, first_done, panel = drive(scenario)
    assert text == "done: a1,b2"
    assert first_done == [True, False]
    assert "retrying" in panel.status.value
    assert [c.url.url for c in panel.cards] == ["https://auth.example.com/connect?id=a1",
                                                "https://auth.example.com/connect?id=b2"]


def test_url_required_can_be_retried_by_hand_or_given_up(views):
    async def scenario(person):
        person.will("decline")
        conn = await nb_elicit.connect("hostile", HOSTILE)
        with pytest.raises(UrlElicitationRequired) as given_up:
            await conn.call_tool("needs_pages", {"ids": "c3"})
        person.will("accept")
        call = asyncio.ensure_future(conn.call_tool("needs_pages", {"ids": "d4"}))
        await person.wait_for_form(2)
        await asyncio.sleep(0.2)  # Retry was clicked; the server still wants d4: a new panel
        await conn.call_tool("finish_page", {"elicitation_id": "d4"})
        return given_up.value, (await call).text

    error, text = drive(scenario)
    assert error.code == -32042 and [r.url for r in error.requests] == [
        "https://auth.example.com/connect?id=c3"]
    assert text == "done: d4"


def test_input_required_url_requests_of_2026_get_the_card_too(views):
    async def scenario(person):
        person.will("accept")
        conn = await nb_elicit.connect("hostile", HOSTILE)
        return (await conn.call_tool("url_input_required")).text

    assert drive(scenario) == "url:accept"
    cards = [w for v in views for w in v.asked if isinstance(w, UrlConsentCard)]
    assert [c.url.host for c in cards] == ["pay.example.com"]


def test_a_respond_policy_never_consents_to_a_page(views):
    async def scenario(person):
        nb_elicit.respond("accept", {})
        try:
            conn = await nb_elicit.connect("hostile", HOSTILE)
            return json.loads((await conn.call_tool(
                "url", {"url": "https://auth.example.com/x"})).text)
        finally:
            kernel_state().policies.clear()

    assert drive(scenario) == {"result": {"action": "cancel"}}  # never decline for the person
    assert "never consents" in views[0].asked[0].value


def test_a_url_request_on_a_protocol_without_url_mode_gets_invalid_params():
    """On 2025-06-18 nb_elicit cannot have declared URL mode, so such a request is refused."""
    import mcp_types as types

    from nb_elicit._mcp.server_requests import Listener

    class Connection:  # (what the session's ServerRequests would be)
        async def elicit(self, request):  # pragma: no cover - must not be reached
            raise AssertionError("the handler must not see an undeclared mode")

    # (the protocol version as the handshake said it)
    listener = Listener(Connection(), lambda: "2025-06-18", lambda: None)
    params = types.ElicitRequestURLParams(message="m", url="https://a.example",
                                          elicitation_id="1")
    error = asyncio.run(listener.elicitation(None, params))
    assert isinstance(error, types.ErrorData) and error.code == -32602
    assert "2025-06-18" in error.message
