"""nb_elicit in a real JupyterLab (and Notebook 7) in Chromium: what a person does, and what the
server receives.

Each test opens its own notebook (cell 0 loads the extension, cell 1 connects the demo server
with ``--journal``), runs its cells one by one, works the form with mouse and keyboard, and checks
the demo server's journal of every answer it received. The fixtures are in ``conftest.py``.
"""

from __future__ import annotations

import re

import pytest
from helpers.page import field, type_text

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

SUBSHELLS = ["perCommTarget", "disabled"]
WAIT = 60_000

CONTACT_MESSAGE = "Please provide your contact information"
ALL_FIELDS_MESSAGE = "Please fill in one field of every kind"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}
#: What fill_all_fields enters, as the server must receive it (untouched fields left out).
ALL_FIELDS = {
    "name": "Ada Lovelace", "email": "ada@example.com", "homepage": "https://example.com/ada",
    "birthday": "1815-12-10", "age": 36, "budget": 12.5, "subscribe": True, "color": "green",
    "size": "l", "plan": "pro", "toppings": ["cheese", "olives"], "days": ["tue"],
}


def fill_contact(form) -> None:
    type_text(form, "name", "Ada Lovelace")
    type_text(form, "email", "ada@example.com")
    type_text(form, "age", "36")


def fill_all_fields(nb, form) -> None:
    """Every kind of control: typed text, a field edited twice, dropdowns, boxes, a date."""
    type_text(form, "name", "Ada Lovelace")
    type_text(form, "email", "ada@example.org")  # edited twice: typed, cleared, typed again
    field(form, "email").fill("")
    type_text(form, "email", "ada@example.com")
    type_text(form, "homepage", "https://example.com/ada")
    field(form, "birthday").fill("1815-12-10")
    type_text(form, "age", "36")
    type_text(form, "budget", "12.5")
    field(form, "subscribe").check()
    field(form, "color", "select").select_option(label="green")
    field(form, "size", "select").select_option(label="Large")
    field(form, "plan", "select").select_option(label="Pro")
    toppings = form.locator(".nb-elicit-field-toppings .nb-elicit-option")
    toppings.filter(has_text="cheese").locator("input").check()
    toppings.filter(has_text="olives").locator("input").check()
    # maxItems 2: the third box is disabled while two are ticked.
    expect(toppings.filter(has_text="ham").locator("input")).to_be_disabled()
    form.locator(".nb-elicit-field-days .nb-elicit-option").filter(
        has_text="Tuesday").locator("input").check()
    nb.settle()


def expect_locked(form, status: str) -> None:
    """A form of a call that is still running: locked, saying what happened."""
    expect(form.locator(".nb-elicit-status")).to_have_text(status, timeout=WAIT)
    for button in ("submit", "decline", "dismiss"):
        expect(form.locator(f".nb-elicit-{button}")).to_be_disabled()


def expect_answered(nb, cell: int, status: str) -> None:
    """The form answered: locked while its call runs, then part of the call's transcript."""
    shown = nb.cell(cell).locator(".nb-elicit-status, .nb-elicit-transcript-status")
    expect(shown.filter(has_text=status).first).to_be_visible(timeout=WAIT)


def expect_transcript(nb, cell: int, *texts: str) -> None:
    """The call finished: its cell holds the transcript (no widgets), with these texts."""
    transcript = nb.cell(cell).locator(".nb-elicit-transcript")
    for text in texts:
        expect(transcript).to_contain_text(text, timeout=WAIT)
    expect(nb.cell(cell).locator(".nb-elicit-form, .nb-elicit-call")).to_have_count(0)


def expect_subshells(nb, setting: str) -> None:
    """The page really sent widget messages the way the setting says."""
    subshells = {subshell for _, subshell in nb.wire.sent}
    if setting == "disabled":
        assert subshells == {None}, subshells
    else:
        assert subshells - {None}, "no widget message was sent on a subshell"


def submit(nb, form, cell: int) -> None:
    nb.settle()
    form.locator(".nb-elicit-submit").click()
    expect_answered(nb, cell, "Submitted.")


# -- 1, 9: the quickstart: %mcp call, then a non-blocking start_tool -------------------------------


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_quickstart_magic_and_start_tool(lab):
    lab.open("%mcp call demo contact_info",
             "conn = nb_elicit.connections['demo']\ncall = conn.start_tool('all_fields')")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    fill_contact(form)
    lab.screenshot("contact-filled")
    submit(lab, form, 2)
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    lab.wait_done(2)
    expect_transcript(lab, 2, '"name": "Ada Lovelace"', "Submitted.")

    lab.run(3)  # returns at once; the form and then the result appear in this cell
    form = lab.form(3)
    fill_all_fields(lab, form)
    lab.screenshot("all-fields-filled")
    submit(lab, form, 3)
    entries = lab.wait_journal(2)
    assert entries[1] == {"tool": "all_fields", "message": ALL_FIELDS_MESSAGE,
                          "action": "accept", "content": ALL_FIELDS}
    expect_transcript(lab, 3, '"email": "ada@example.com"', '"toppings": [')
    expect_subshells(lab, lab.server.subshells)


# -- 2, 9: blocking await conn.call_tool: every keystroke reaches the kernel -----------------------


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_blocking_call_keeps_every_keystroke(lab):
    lab.open("result = await nb_elicit.connections['demo'].call_tool('all_fields')",
             "import json\nsent = json.loads(result.text)['content']\n"
             "sent['name'], sent['toppings']")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text(ALL_FIELDS_MESSAGE)
    fill_all_fields(lab, form)
    lab.screenshot("filled")
    submit(lab, form, 2)
    assert lab.wait_journal(1) == [{"tool": "all_fields", "message": ALL_FIELDS_MESSAGE,
                                   "action": "accept", "content": ALL_FIELDS}]
    lab.wait_done(2)
    expect_transcript(lab, 2, '"budget": 12.5')
    lab.run(3)
    expect(lab.cell(3).locator(".jp-OutputArea-output")).to_have_text(
        "('Ada Lovelace', ['cheese', 'olives'])")
    expect_subshells(lab, lab.server.subshells)


# -- 2: keys 5 ms apart, then Enter at once: what the field shows is what the server gets ---------

#: Milliseconds between keys: faster than the page sends a field's changes (one in flight at a
#: time, the next once the kernel took it), while Enter goes at once.
FAST = 5
#: How many times: the race is won or lost by milliseconds, so it is run more than once.
ROUNDS = 5


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_keys_typed_fast_then_enter_at_once_reach_the_server_whole(lab):
    """The name "octocat" at 5 ms a key into the focused field of a `%mcp call` form, then Enter
    at once, five times: the server gets "octocat" each time (before 3375e16 the Enter was
    taken with the part of the name the kernel had by then: "octoca", "oc")."""
    lab.open(*["%mcp call demo github_username"] * ROUNDS)
    for round_ in range(ROUNDS):
        cell = 2 + round_
        lab.run(cell, wait=False)
        form = lab.form(cell)
        expect(field(form, "name")).to_be_focused()  # (the keyboard script's first field)
        lab.page.keyboard.type("octocat", delay=FAST)
        lab.page.keyboard.press("Enter")
        assert lab.wait_journal(round_ + 1)[-1] == {
            "tool": "github_username",
            "message": "Please provide your GitHub username",
            "action": "accept",
            "content": {"name": "octocat"},
        }, f"round {round_ + 1}"
        lab.wait_done(cell)
        expect_transcript(lab, cell, "Hello, @octocat!")


# -- 3: Decline and Dismiss ------------------------------------------------------------------------


def test_decline_and_dismiss(lab):
    lab.open("%mcp call demo github_username", "%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    type_text(form, "name", "ada")  # typed, then declined: not sent
    lab.settle()
    form.locator(".nb-elicit-decline").click()
    expect_answered(lab, 2, "Declined.")
    assert lab.wait_journal(1) == [{"tool": "github_username",
                                   "message": "Please provide your GitHub username",
                                   "action": "decline", "content": None}]
    lab.wait_done(2)
    expect_transcript(lab, 2, "No username: you chose decline.", "Declined.")

    lab.run(3, wait=False)
    form = lab.form(3)
    dismiss = form.locator(".nb-elicit-dismiss")
    expect(dismiss).to_have_text("✕")
    expect(dismiss).to_have_attribute("title", "Dismiss")
    type_text(form, "name", "Ada")
    lab.settle()
    dismiss.click()
    expect_answered(lab, 3, "Dismissed.")
    assert lab.wait_journal(2)[1] == {"tool": "contact_info", "message": CONTACT_MESSAGE,
                                     "action": "cancel", "content": None}
    lab.wait_done(3)
    expect_transcript(lab, 3, '"action": "cancel"', "Dismissed.")


# -- 4: invalid input: a message beside the field, nothing sent, then fixed ------------------------


def error_of(form, name: str):
    # (a field shows its problem in its label, right above its input)
    return form.locator(f".nb-elicit-field-{name} .nb-elicit-error-text")


def test_invalid_input_sends_nothing_until_fixed(lab):
    lab.open("%mcp call demo all_fields")
    lab.run(2, wait=False)
    form = lab.form(2)
    type_text(form, "name", "Ada")
    type_text(form, "email", "ada@")
    type_text(form, "age", "200")
    submit_button = form.locator(".nb-elicit-submit")
    lab.settle()
    submit_button.click()
    status = form.locator(".nb-elicit-status")
    expect(status).to_have_text("Please fix 2 fields; nothing was sent.", timeout=WAIT)
    expect(error_of(form, "email")).to_be_visible()
    expect(error_of(form, "email")).to_contain_text(re.compile("email", re.I))
    expect(error_of(form, "age")).to_be_visible()
    expect(error_of(form, "age")).to_contain_text("130")
    expect(error_of(form, "name")).to_be_hidden()
    expect(field(form, "email")).to_have_value("ada@")  # every value stays
    expect(submit_button).to_be_enabled()
    lab.screenshot("errors", of=form)
    lab.settle()
    assert lab.answers() == []

    field(form, "email").fill("")
    type_text(form, "email", "ada@example.com")
    field(form, "age").fill("")
    type_text(form, "age", "36")
    expect(error_of(form, "email")).to_be_hidden()  # an edit clears its field's message
    expect(error_of(form, "age")).to_be_hidden()
    submit(lab, form, 2)
    assert lab.wait_journal(1) == [{"tool": "all_fields", "message": ALL_FIELDS_MESSAGE,
                                   "action": "accept",
                                   "content": {"name": "Ada", "email": "ada@example.com",
                                               "age": 36}}]


# -- 5: the server withdraws its question ----------------------------------------------------------

WATCH_STATUS = """form => {
    const status = form.querySelector('.nb-elicit-status');
    window.__nbElicitClosedAt = null;
    const check = () => {
        if (window.__nbElicitClosedAt === null && status.textContent.includes('withdrew')) {
            window.__nbElicitClosedAt = performance.timeOrigin + performance.now();
        }
    };
    new MutationObserver(check).observe(status,
        {subtree: true, childList: true, characterData: true});
    check();
}"""


def test_withdrawn_request_closes_the_form(lab):
    lab.open('%mcp call demo withdraw {"after": 2}')
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text("Answer within 2 s, or I withdraw this.")
    form.evaluate(WATCH_STATUS)
    expect_answered(lab, 2, "demo withdrew this request.")
    lab.page.wait_for_function("window.__nbElicitClosedAt !== null")
    closed_at = lab.page.evaluate("window.__nbElicitClosedAt") / 1000
    entries = lab.wait_journal(1)
    assert entries == [{"tool": "withdraw", "event": "withdrawn"}]
    latency = closed_at - lab.journal()[0]["at"]
    (lab.artifacts / "latency.txt").write_text(f"{latency:.3f} s\n", encoding="utf-8")
    print(f"withdrawal to closed form: {latency * 1000:.0f} ms")
    assert latency < 1.0, f"the form closed {latency:.3f} s after the server withdrew"
    lab.wait_done(2)
    expect_transcript(lab, 2, "The question was withdrawn.", "demo withdrew this request.")


# -- 6: two questions in one call ------------------------------------------------------------------


def test_two_questions_in_one_call(lab):
    lab.open("%mcp call demo two_step")
    lab.run(2, wait=False)
    first = lab.form(2, 0)
    expect(first).to_contain_text("Step 1 of 2: what should we call you?")
    type_text(first, "name", "Ada")
    submit(lab, first, 2)
    expect_locked(first, "Submitted.")  # the call still runs: the first form stays, locked
    assert lab.wait_journal(1) == [{"tool": "two_step",
                                   "message": "Step 1 of 2: what should we call you?",
                                   "action": "accept", "content": {"name": "Ada"}}]
    second = lab.form(2, 1)
    expect(second).to_contain_text("Step 2 of 2: create an account for Ada?")
    second.locator(".nb-elicit-field-confirm").get_by_label("Yes").check()
    submit(lab, second, 2)
    entries = lab.wait_journal(2)
    assert entries[1] == {"tool": "two_step",
                          "message": "Step 2 of 2: create an account for Ada?",
                          "action": "accept", "content": {"confirm": True}}
    lab.wait_done(2)
    expect_transcript(lab, 2, '"step2"', "Step 1 of 2", "Step 2 of 2")


# -- 7: text from the server is text, never HTML ---------------------------------------------------

PAYLOAD = '<img src=x onerror="window.__xss=1">'
UNTRUSTED_CELL = f"""payload = {PAYLOAD!r}
schema = {{"type": "object", "required": ["choice"], "properties": {{"choice": {{
    "type": "string", "title": "Pick " + payload, "description": "About " + payload,
    "enum": ["a", "b"], "enumNames": [payload, "plain"]}}}}}}
result = await nb_elicit.connections['demo'].call_tool(
    'custom_form', {{"message": "Hello " + payload, "requested_schema": schema}})"""


def test_untrusted_text_is_shown_as_text(lab):
    lab.open(UNTRUSTED_CELL)
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text("Hello <img src=x")
    expect(form).to_contain_text("Pick <img src=x")
    expect(form).to_contain_text("About <img src=x")
    select = field(form, "choice", "select")
    # (ipywidgets shows spaces in option labels as no-break spaces; the first is "Choose…")
    assert select.locator("option").nth(1).text_content().replace("\xa0", " ") == PAYLOAD
    assert form.locator("img").count() == 0
    assert lab.page.locator("img[src=x]").count() == 0
    select.select_option(index=1)
    lab.screenshot("chosen", of=form)
    submit(lab, form, 2)
    assert lab.wait_journal(1) == [{"tool": "custom_form", "message": "Hello " + PAYLOAD,
                                   "action": "accept", "content": {"choice": "a"}}]
    lab.wait_done(2)
    expect_transcript(lab, 2, "Hello " + PAYLOAD)  # the transcript shows it as text too
    assert lab.page.locator("img[src=x]").count() == 0
    assert lab.page.evaluate("typeof window.__xss") == "undefined"


# -- 8: the keyboard: see test_polish.py ----------------------------------------------------------


# -- 10: Notebook 7 --------------------------------------------------------------------------------


def test_notebook7_magic_call(notebook7):
    nb = notebook7
    nb.open("%mcp call demo contact_info")
    nb.run(2, wait=False)
    form = nb.form(2)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    fill_contact(form)
    submit(nb, form, 2)
    assert nb.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                  "action": "accept", "content": ADA}]
    nb.wait_done(2)
    expect_transcript(nb, 2, '"name": "Ada Lovelace"')
