"""Signing in to HTTP servers (MCP authorization): the card, the loopback callback, the token
store, the error lines, and the demo behind its local authorization server, end to end."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import stat
import sys
import time
from pathlib import Path

import httpx2
import pytest
from helpers.person import Person
from helpers.servers import drive
from helpers.signin import Browser, connect_signing_in

import nb_elicit
from nb_elicit._core.errors import ConnectError, SignInError
from nb_elicit._core.signin.auth import (
    AuthConfig,
    challenge_param,
    is_bearer,
    parse_auth,
    sign_in_error,
)
from nb_elicit._core.signin.tokens import TokenStore, forget_server
from nb_elicit._core.url import check_url
from nb_elicit._mcp.auth import _sign_in_failure
from nb_elicit._runtime.kernel_compat import walk_widgets
from nb_elicit._runtime.loopback import LoopbackCallback
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.link_button import LinkButton
from nb_elicit._ui.signin_card import SignInCard

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

AUTH_URL = ("https://auth.example.com/authorize?response_type=code&client_id=abc"
            "&state=S1&code_challenge=x&code_challenge_method=S256")


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Tokens go to a data directory of the test's own."""
    folder = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    return folder


def _all_html(widget) -> str:
    values = [getattr(widget, "value", "")] if isinstance(getattr(widget, "value", ""), str) \
        else []
    for child in getattr(widget, "children", ()) or ():
        values.append(_all_html(child))
    return "\n".join(values)


# -- the card ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("header", "bearer", "error", "scope"), [
    ('Bearer error="insufficient_scope", scope="files:read files:write"', True,
     "insufficient_scope", "files:read files:write"),
    ('bearer resource_metadata="https://x/.well-known/oauth"', True, None, None),
    ('Bearer error_description="no scope=\\"x\\" here", error="invalid_token"', True,
     "invalid_token", None),
    ('Basic realm="x", myscope="nope"', False, None, None),
    ("", False, None, None),
])
def test_a_www_authenticate_challenge_is_read_for_its_scheme_error_and_scope(
        header, bearer, error, scope):
    assert is_bearer(header) is bearer
    assert challenge_param(header, "error") == error
    assert challenge_param(header, "scope") == scope


def test_sign_in_is_the_link_and_one_click_says_what_happens_next():
    card = SignInCard(check_url(AUTH_URL), server="github")
    assert "nb-elicit-signin" in card._dom_classes
    before = _all_html(card)
    assert "<a" not in before  # (no link of the card's HTML: Sign in is the only one)
    assert "auth.example.com" in before and "github" in before  # who asks, who will see you
    assert "client_id=abc" in before  # the full address, as text
    # Sign in itself opens the page: its address is set before the click, as an attribute.
    assert isinstance(card.open_button, LinkButton) and card.open_button.href == AUTH_URL
    assert card.open_button.description == "Sign in" and not card.open_button.disabled
    assert card.paste_box.layout.display == "none"
    card.open_button.click()
    assert card.final_answer().action == "accept"
    assert card.status_text == ("Finish signing in at auth.example.com in the new tab; this "
                                "cell goes on by itself once you have.")
    assert "client_id=abc" not in _all_html(card)  # the long address, as text: needed no more
    assert "nb-elicit-hidden" in card.full_address._dom_classes
    assert card.paste_box.layout.display is None
    assert not card.open_button.disabled  # (it opens the page again: a tab closed too soon)
    # Cancel still ends the attempt after consent
    assert not card.stopped.done()
    card.decline_button.click()
    assert card.stopped.result() is True
    card.mark_cancelled()
    assert card.open_button.href == "" and card.open_button.disabled


@pytest.mark.parametrize("end", ["mark_signed_in", "mark_failed", "mark_cancelled"])
def test_once_the_sign_in_ends_its_address_is_off_the_card(end):
    card = SignInCard(check_url(AUTH_URL), server="github")
    card.open_button.click()
    getattr(card, end)(*(["token refused"] if end == "mark_failed" else []))
    assert card.open_button.href == "" and card.open_button.disabled
    assert "client_id=abc" not in _all_html(card)
    state = json.dumps([w.get_state() for w in walk_widgets(card)], default=str)
    assert "auth.example.com/authorize" not in state  # (nor in the widget state a save keeps)


def test_the_link_button_takes_only_https_or_loopback_and_sets_it_as_an_attribute():
    from nb_elicit._ui import link_button

    script = link_button._ESM
    assert "link.href = href" in script and "innerHTML" not in script
    assert 'url.protocol === "https:"' in script
    for shown in ("textContent", "link.title"):
        assert shown in script
    clicked = []
    button = LinkButton(href="", description="Sign in")
    button.on_click(clicked.append)
    button.click()
    button._heard(button, {"event": "click"}, [])
    assert clicked == []  # (no address: nothing to open, no click)
    button.href = "https://auth.example.com/authorize"
    button._heard(button, {"event": "click"}, [])
    assert clicked == [button]


def test_cancel_before_consent_declines_and_shows_no_link():
    card = SignInCard(check_url(AUTH_URL), server="github")
    card.decline_button.click()
    assert card.final_answer().action == "decline"
    assert "<a" not in _all_html(card)


def test_the_paste_box_refuses_an_address_with_no_answer_and_forgets_a_good_one():
    heard = []
    card = SignInCard(check_url(AUTH_URL), server="github", on_paste=heard.append)
    card.open_button.click()
    card.paste_text.value = "http://127.0.0.1:9/elsewhere"
    card.paste_button.click()
    assert heard == [] and "no code=" in card.paste_note.value
    card.paste_text.value = "http://127.0.0.1:9/callback?code=C&state=S1"
    card.paste_button.click()
    assert heard == ["http://127.0.0.1:9/callback?code=C&state=S1"]
    assert card.paste_text.value == ""


def test_the_card_says_when_sign_in_succeeded():
    card = SignInCard(check_url(AUTH_URL), server="github")
    card.open_button.click()
    card.mark_signed_in()
    assert "Signed in to github" in card.status_text
    assert card.open_button.disabled and card.decline_button.disabled


# -- the loopback callback ----------------------------------------------------------------------

async def _get(url: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as client:
        return await client.get(url)


def test_the_callback_takes_one_code_with_the_right_state_then_closes():
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        assert callback.redirect_uri.startswith("http://127.0.0.1:")
        waiting = asyncio.ensure_future(callback.wait(10))
        missing = await _get(f"http://127.0.0.1:{callback.port}/favicon.ico")
        assert missing.status_code == 404 and not waiting.done()
        page = await _get(f"{callback.redirect_uri}?code=C1&state=S1")
        assert page.status_code == 200 and "close this tab" in page.text
        result = await waiting
        assert (result.code, result.state) == ("C1", "S1")
        assert "C1" not in repr(result)
        assert callback.closed
        with pytest.raises(httpx2.ConnectError):
            await _get(f"{callback.redirect_uri}?code=C2&state=S1")

    asyncio.run(scenario())


#: Answers that do not carry this attempt's state: any page could make a browser fetch them.
NOT_OURS = ["code=C1&state=forged", "code=C1", "error=access_denied",
            "error=access_denied&state=forged", "error=access_denied&state=", "state=S1"]


@pytest.mark.parametrize("query", NOT_OURS)
def test_an_answer_without_this_attempts_state_is_ignored(query):
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        waiting = asyncio.ensure_future(callback.wait(10))
        page = await _get(f"{callback.redirect_uri}?{query}")
        assert page.status_code == 400
        assert "not a sign-in answer nb_elicit is waiting for" in page.text
        await asyncio.sleep(0.05)
        assert not waiting.done() and not callback.closed
        page = await _get(f"{callback.redirect_uri}?code=C2&state=S1")  # the real one, later
        assert page.status_code == 200
        assert (await waiting).code == "C2"
        assert callback.closed

    asyncio.run(scenario())


def test_an_error_with_this_attempts_state_ends_it_in_one_line():
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        waiting = asyncio.ensure_future(callback.wait(10))
        page = await _get(f"{callback.redirect_uri}?error=access_denied&state=S1"
                          "&error_description=the+person+said+no")
        assert page.status_code == 400
        with pytest.raises(SignInError) as caught:
            await waiting
        assert caught.value.step == "token"
        assert str(caught.value) == ("could not sign in to demo: the authorization server refused "
                                     "to give a token (the authorization server answered "
                                     "access_denied: the person said no)")
        assert callback.closed

    asyncio.run(scenario())


def test_a_pasted_address_of_another_attempt_is_refused_and_the_attempt_goes_on():
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        for query in NOT_OURS:
            with pytest.raises(ValueError, match="sign-in answer"):
                callback.deliver(f"{callback.redirect_uri}?{query}")
        assert not callback.closed
        callback.deliver(f"{callback.redirect_uri}?code=C3&state=S1")
        assert (await callback.wait(5)).code == "C3"

    asyncio.run(scenario())


def test_a_pasted_address_of_another_attempt_says_so_on_the_card():
    """The card tells the person why a pasted address was not taken; the attempt goes on."""
    from nb_elicit._runtime.signin import SignIn

    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        card = SignInCard(check_url(AUTH_URL), server="demo", on_paste=lambda _: None)
        card.consent()
        SignIn._paste(callback, f"{callback.redirect_uri}?code=C1&state=forged", card)
        refused = card.paste_note.value
        SignIn._paste(callback, f"{callback.redirect_uri}?code=C2&state=S1", card)
        return refused, (await callback.wait(5)).code

    refused, code = asyncio.run(scenario())
    assert "sign-in answer" in refused
    assert code == "C2"


def test_the_callback_gives_up_after_its_timeout():
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        with pytest.raises(SignInError) as caught:
            await callback.wait(0.2)
        assert caught.value.step == "timeout" and callback.closed

    asyncio.run(scenario())


def test_a_pasted_address_is_checked_like_the_loopback():
    async def scenario():
        callback = await LoopbackCallback("demo").start("S1")
        with pytest.raises(ValueError):
            callback.deliver("https://example.com/nothing-here")
        callback.deliver(f"{callback.redirect_uri}?code=C9&state=S1&iss=https%3A%2F%2Fas")
        result = await callback.wait(5)
        assert (result.code, result.iss) == ("C9", "https://as")

    asyncio.run(scenario())


# -- the token store ------------------------------------------------------------------------------

def test_tokens_are_owner_only_files_under_the_jupyter_data_dir(data_dir):
    store = TokenStore("https://mcp.example.com/mcp", "registered")
    store.save("tokens", {"token": {"access_token": "AT-SECRET"}})
    path = store.folder / "tokens.json"
    assert path.is_relative_to(data_dir / "nb_elicit" / "tokens")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (store.folder, store.folder.parent, store.folder.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert store.load("tokens")["token"]["access_token"] == "AT-SECRET"
    assert "AT-SECRET" not in repr(store)
    assert forget_server("https://mcp.example.com/mcp") and not path.exists()


@pytest.mark.parametrize("text", ["{not json", "[1]", ""])
def test_a_tokens_file_it_cannot_read_counts_as_none_and_a_sign_in_writes_it_anew(data_dir,
                                                                                   text):
    store = TokenStore("https://mcp.example.com/mcp", "registered")
    store.save("client", {"client_id": "c1"})
    path = store.folder / "tokens.json"
    path.write_text(text, encoding="utf-8")
    assert store.load("tokens") is None and store.load("client") == {"client_id": "c1"}
    store.save("tokens", {"token": {"access_token": "AT-NEW"}})
    assert store.load("tokens") == {"token": {"access_token": "AT-NEW"}}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_memory_store_writes_nothing(data_dir):
    store = TokenStore("https://mcp.example.com/mcp", "registered", memory=True)
    store.save("tokens", {"token": {"access_token": "AT-SECRET"}})
    assert store.load("tokens") and not data_dir.exists()
    assert "AT-SECRET" not in repr(store)
    store.forget()
    assert store.load("tokens") is None


def test_the_auth_config_holds_the_secret_s_name_never_the_secret(monkeypatch):
    monkeypatch.setenv("MY_SECRET", "CS-SECRET")
    config = parse_auth(None, client_id="pre", client_secret_env="MY_SECRET")
    assert config.mode == "oauth" and config.secret("x") == "CS-SECRET"
    assert "CS-SECRET" not in repr(config)
    monkeypatch.delenv("MY_SECRET")
    with pytest.raises(SignInError, match="MY_SECRET"):
        config.secret("x")
    with pytest.raises(ValueError, match="client_secret_env"):
        AuthConfig("client_credentials", client_id="x")
    with pytest.raises(ValueError):
        AuthConfig("sometimes")


# -- the error lines -------------------------------------------------------------------------------

@pytest.mark.parametrize(("step", "words"), [
    ("discovery", "discovering the authorization server"),
    ("registration", "registering nb_elicit"),
    ("cancelled", "you cancelled"),
    ("state", "state mismatch"),
    ("token", "refused to give a token"),
    ("scope", "insufficient scope after step-up"),
    ("no person", "configure client credentials"),
])
def test_each_failure_is_one_line_naming_the_server_and_the_step(step, words):
    error = sign_in_error("github", step, "some\ndetail")
    assert isinstance(error, ConnectError) and error.step == step
    assert "\n" not in str(error)
    assert str(error).startswith("could not sign in to github: ") and words in str(error)


def test_the_sdk_s_oauth_errors_map_to_their_step():
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

    assert _sign_in_failure("s", OAuthRegistrationError("Registration failed: 400")).step == \
        "registration"
    assert _sign_in_failure("s", OAuthTokenError("Token exchange failed (401)")).step == "token"
    assert _sign_in_failure("s", OAuthFlowError("State parameter mismatch: a != b")).step == \
        "state"
    assert _sign_in_failure("s", OAuthFlowError("metadata issuer mismatch")).step == "discovery"


# -- end to end, against the demo behind its local authorization server --------------------------

def _capture_logs():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    old = root.level
    root.setLevel(logging.DEBUG)
    return stream, lambda: (root.removeHandler(handler), root.setLevel(old))


@pytest.mark.parametrize("deliver", ["loopback", "paste"])
def test_signing_in_to_the_demo_then_calling_a_tool(demo_with_sign_in, data_dir, deliver,
                                                     capsys):
    logs, stop_logging = _capture_logs()
    timings = {}

    async def scenario(person: Person):
        person.will("accept")  # Sign in
        browser = Browser(person, deliver)
        following = asyncio.create_task(browser.run())
        try:
            conn = await nb_elicit.connect("demo", url=demo_with_sign_in)
            result = await conn.call_tool("hello", {"name": "Ada"})
            timings["click_to_result"] = time.monotonic() - browser.clicked[0]
        finally:
            following.cancel()
        card = person.seen[0]
        assert isinstance(card, SignInCard)
        assert "Signed in to demo" in card.status_text
        assert "127.0.0.1" in card.url.host
        return (repr(conn), repr(conn.sign_in), repr(conn.sign_in.store)), result, card

    try:
        reprs, result, card = drive(scenario)
    finally:
        stop_logging()
    assert "Hello, Ada" in (result.text or "")
    tokens_file = next(data_dir.rglob("tokens.json"))
    assert stat.S_IMODE(tokens_file.stat().st_mode) == 0o600
    stored = TokenStore(demo_with_sign_in, "registered").load("tokens")
    access, refresh = stored["token"]["access_token"], stored["token"]["refresh_token"]
    secret = (TokenStore(demo_with_sign_in, "registered").load("client") or {}).get(
        "client_secret", "never-there")
    out = capsys.readouterr()
    for value in (access, refresh, secret):
        for where, text in (("logs", logs.getvalue()), ("stdout", out.out),
                            ("stderr", out.err), ("card repr", repr(card)),
                            ("card", _all_html(card)), ("reprs", " ".join(reprs)),
                            ("history", kernel_state().history.as_text())):
            assert value not in text, f"a secret in the {where}"
    print(f"\nclick Sign in -> result: {timings['click_to_result'] * 1000:.0f} ms ({deliver})")


def test_stored_tokens_work_without_a_person_and_logout_forgets_them(demo_with_sign_in,
                                                                     data_dir, monkeypatch):
    async def sign_in_once(person: Person):
        await connect_signing_in(person, "demo", demo_with_sign_in)

    drive(sign_in_once)
    monkeypatch.setenv("NB_ELICIT_HEADLESS_WAIT", "0.3")

    async def headless(person: Person):
        conn = await nb_elicit.connect("demo", url=demo_with_sign_in)
        result = await conn.call_tool("hello", {"name": "again"})
        assert person.seen == []  # no card: the stored token was enough
        assert await nb_elicit.logout("demo")
        with pytest.raises(SignInError) as caught:
            await conn.call_tool("hello", {"name": "after logout"})
        return result, caught.value

    result, error = drive(headless)
    assert "Hello, again" in result.text
    assert error.step == "no person" and "\n" not in str(error)
    assert "sign in once" in str(error) and "client credentials" in str(error)
    assert not list(data_dir.rglob("tokens.json"))


def test_with_no_frontend_and_no_tokens_connect_fails_with_one_line(demo_with_sign_in,
                                                                     monkeypatch):
    monkeypatch.setenv("NB_ELICIT_HEADLESS_WAIT", "0.3")

    async def scenario(person: Person):
        started = time.monotonic()
        with pytest.raises(SignInError) as caught:
            await nb_elicit.connect("demo", url=demo_with_sign_in)
        return caught.value, time.monotonic() - started

    error, took = drive(scenario)
    assert error.step == "no person" and took < 10
    assert str(error).startswith("could not sign in to demo: no one can sign in here")
    assert "demo" not in nb_elicit.connections


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_cancel_or_dismiss_ends_the_attempt(demo_with_sign_in, action):
    async def scenario(person: Person):
        person.will(action)
        with pytest.raises(SignInError) as caught:
            await nb_elicit.connect("demo", url=demo_with_sign_in)
        return caught.value, person.seen[0]

    error, card = drive(scenario)
    assert error.step == "cancelled"
    assert str(error) == "could not sign in to demo: you cancelled the sign-in"
    assert "<a" not in _all_html(card)


def test_cancel_after_sign_in_was_clicked_ends_the_attempt(demo_with_sign_in):
    async def scenario(person: Person):
        person.will("accept")

        async def cancel_later():
            while not person.seen:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            person.seen[0].dismiss_button.click()

        task = asyncio.create_task(cancel_later())
        with pytest.raises(SignInError) as caught:
            await nb_elicit.connect("demo", url=demo_with_sign_in)
        await task
        return caught.value, person.seen[0]

    error, card = drive(scenario)
    assert error.step == "cancelled" and "cancelled" in card.status_text.lower()


def test_auth_off_says_the_server_asks_for_sign_in(demo_with_sign_in):
    async def scenario(person: Person):
        with pytest.raises(ConnectError) as caught:
            await nb_elicit.connect("demo", url=demo_with_sign_in, auth="off")
        return caught.value

    error = drive(scenario)
    assert "asks for sign-in (401)" in str(error) and "auth is off" in str(error)


def test_a_failed_sign_in_is_the_answer_to_the_request_that_met_it():
    """The HTTP client answers the request itself with the failure (a JSON-RPC error the
    transport passes on to that request), which the error table raises as the SignInError:
    no other request can take it for its own."""
    from mcp import MCPError
    from mcp_types import ErrorData

    from nb_elicit._mcp.auth import SigningClient
    from nb_elicit._mcp.errors import from_mcp_error

    def server(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, headers={"www-authenticate": 'Bearer realm="x"'},
                               text="sign in first")

    async def post() -> httpx2.Response:
        async with SigningClient(None, "http://127.0.0.1:9/mcp",
                                 transport=httpx2.MockTransport(server)) as client:
            return await client.post("http://127.0.0.1:9/mcp", json={"jsonrpc": "2.0"})

    response = asyncio.run(post())
    assert response.status_code == 401
    error = from_mcp_error(MCPError.from_error_data(ErrorData(**response.json()["error"])))
    assert isinstance(error, SignInError) and error.step == "config"
    assert "asks for sign-in (401)" in str(error) and "auth is off" in str(error)


def test_a_servers_own_error_cannot_pass_for_a_failed_sign_in():
    from mcp import MCPError
    from mcp_types import ErrorData

    from nb_elicit._mcp.errors import from_mcp_error, sign_in_failed

    made = sign_in_failed(SignInError("could not sign in to x: cancelled", "cancelled"))
    forged = {**made, "data": {key: {**mark, "key": "guessed"}
                               for key, mark in made["data"].items()}}
    error = from_mcp_error(MCPError.from_error_data(ErrorData(**forged)))
    assert not isinstance(error, SignInError)
    assert isinstance(from_mcp_error(MCPError.from_error_data(ErrorData(**made))), SignInError)


def test_a_connect_says_the_sign_in_that_failed_wherever_the_sdk_wrapped_it():
    from mcp import MCPError
    from mcp_types import ErrorData

    from nb_elicit._mcp.errors import connect_error, sign_in_failed

    failed = MCPError.from_error_data(ErrorData(**sign_in_failed(
        SignInError("could not sign in to x: the person cancelled", "cancelled"))))
    try:
        try:
            raise failed
        except MCPError:
            raise RuntimeError("the handshake failed") from None  # (still its __context__)
    except RuntimeError as wrapped:
        group = BaseExceptionGroup("task group", [OSError("closed"), wrapped])
    error = connect_error(group)
    assert isinstance(error, SignInError) and error.step == "cancelled"
    assert str(error) == "could not sign in to x: the person cancelled"
    assert type(connect_error(OSError("refused"))) is ConnectError


def test_the_client_metadata_document_is_valid_json_with_a_url_client_id():
    import json

    path = Path(__file__).parent.parent / "docs" / "client-metadata.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["client_id"].startswith("https://")
    assert document["client_id"].endswith("/client-metadata.json")
    assert document["token_endpoint_auth_method"] == "none"
    assert all(uri.startswith("http://127.0.0.1") for uri in document["redirect_uris"])
    assert os.path.basename(path) == "client-metadata.json"


# -- %mcp ---------------------------------------------------------------------------------------------

def test_the_connect_magic_takes_the_sign_in_options():
    from IPython.core.error import UsageError

    from nb_elicit._magics.options import parse_connect

    options = parse_connect("corp --url https://h/mcp --client-id app --client-secret-env "
                            "CORP_SECRET --token-store memory")
    assert options.auth is None and options.sign_in == {
        "client_id": "app", "client_secret_env": "CORP_SECRET", "token_store": "memory"}
    assert options.auth_config().store == "memory"
    off = parse_connect("a --url https://h/mcp --auth off")
    assert (off.auth, off.sign_in) == ("off", {})
    assert parse_connect("a --url https://h/mcp").sign_in == {}
    for bad, says in (("a --url https://h/mcp --auth maybe", "--auth takes"),
                      ("a --url https://h/mcp --client-id x --client-secret-env S=hunter2",
                       "never the secret"),
                      ("a --client-id x -- python server.py", "for --url servers")):
        with pytest.raises(UsageError, match=says):
            parse_connect(bad)


def test_logout_is_in_the_table_and_the_readme():
    from nb_elicit._magics.commands import COMMANDS, help_text

    logout = next(c for c in COMMANDS if c.name == "logout")
    assert logout.needs_name and "%mcp logout NAME" in help_text()
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert "| `%mcp logout NAME` |" in readme


def test_logout_of_an_unknown_name_says_what_to_give():
    with pytest.raises(ValueError, match="give its name or the server's URL"):
        asyncio.run(nb_elicit.logout("nobody"))
    assert asyncio.run(nb_elicit.logout("https://never.example.com/mcp")) is False


def test_the_demos_service_client_signs_in_with_client_credentials(tmp_path, monkeypatch):
    """The demo's service client (its secret in the server's environment) gets a token with no
    one there; a wrong secret is one line naming the refusal, and never shows the secret."""
    import sys

    from helpers.servers import served

    monkeypatch.setenv("NB_ELICIT_DEMO_CLIENT_SECRET", "the-right-secret-123")  # (the server's)
    with served([sys.executable, "-m", "nb_elicit.demo", "--auth", "--http"],
                tmp_path / "demo-auth.log") as url:
        options = {"auth": "client_credentials", "client_id": "nb-elicit-demo-service",
                   "client_secret_env": "NB_ELICIT_DEMO_CLIENT_SECRET", "token_store": "memory"}

        async def scenario():
            # (first: a token got with the right one is kept for the kernel and reused)
            monkeypatch.setenv("NB_ELICIT_DEMO_CLIENT_SECRET", "a-wrong-secret-456")
            with pytest.raises(SignInError) as caught:
                await nb_elicit.connect("bad", url=url, **options)
            assert caught.value.step == "token" and "\n" not in str(caught.value)
            assert "invalid_client" in str(caught.value)
            assert "a-wrong-secret-456" not in str(caught.value) + repr(caught.value)
            monkeypatch.setenv("NB_ELICIT_DEMO_CLIENT_SECRET", "the-right-secret-123")
            conn = await nb_elicit.connect("svc", url=url, **options)
            try:
                assert (await conn.call_tool("hello", {"name": "service"})).text == (
                    "Hello, service!")
            finally:
                await conn.close()

        asyncio.run(scenario())
