"""How finished calls, results and tables look in a real JupyterLab: what the person saw and chose
in the transcript, tables with left-aligned headers, a result shown once. Screenshots go to
``test-artifacts/screenshots/`` (and, as for every browser test, ``test-artifacts/browser/``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"

ORDER = {
    "type": "object",
    "properties": {
        "size": {"type": "string", "title": "Size",
                 "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "plan": {"type": "string", "title": "Plan", "enum": ["free", "pro"],
                 "enumNames": ["Free plan", "Professional plan"]},
        "toppings": {"type": "array", "title": "Toppings",
                     "items": {"anyOf": [{"const": "cheese", "title": "Extra cheese"},
                                         {"const": "olives", "title": "Black olives"},
                                         {"const": "ham", "title": "Ham"}]}},
        "gift": {"type": "boolean", "title": "Gift wrap"},
        "deliver": {"type": "string", "format": "date", "title": "Delivery date"},
    },
    "required": ["size"],
}
ORDER_ANSWER = {"size": "l", "plan": "pro", "toppings": ["cheese", "olives"], "gift": True,
                "deliver": "2026-07-28"}


def shot(notebook, name: str, of) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    of.screenshot(path=str(path))
    notebook.screenshot(name, of=of)
    return path


def test_a_transcript_shows_titles_yes_no_and_the_chosen_options(lab):
    arguments = {"message": "Your order", "requested_schema": ORDER}
    lab.open(f"%mcp respond demo accept {json.dumps(ORDER_ANSWER)}",
             f"%mcp call demo custom_form {json.dumps(arguments)}")
    lab.run(2)
    lab.run(3)
    transcript = lab.cell(3).locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("Answered accept by the respond policy")
    shot(lab, "transcript-options", lab.cell(3))
    fields = transcript.locator(".nb-elicit-transcript-fields")
    expect(fields).to_contain_text("Large")
    expect(fields).to_contain_text("Professional plan")
    expect(fields).to_contain_text("Extra cheese, Black olives")
    expect(fields).to_contain_text("Yes")
    expect(fields).to_contain_text("2026-07-28")
    shown = fields.inner_text()
    assert '"l"' not in shown and "pro\n" not in shown and "true" not in shown, shown
    # What was sent stays in reach: on hover.
    expect(fields.locator("td[title='sent \"l\"']")).to_have_text("Large")


def submit_contact(lab, values):
    """Call the demo's contact_info in cell 2, fill ``values`` (field, text) in, press Submit,
    and wait for the call to end; the cell's transcript."""
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    for name, value in values:
        form.locator(f".nb-elicit-field-{name} input").fill(value)
    lab.settle()
    form.get_by_role("button", name="Submit").click()
    lab.wait_done(2)
    return lab.cell(2).locator(".nb-elicit-transcript")


def test_a_contact_form_answered_leaves_a_readable_transcript_and_result(lab):
    transcript = submit_contact(lab, (("name", "Ada Lovelace"), ("email", "ada@example.com"),
                                      ("age", "36")))
    expect(transcript).to_contain_text("Submitted")
    shot(lab, "transcript-contact", lab.cell(2))
    result = transcript.locator(".nb-elicit-transcript-result")
    # The result once: its JSON text, not again as structured content.
    assert result.inner_text().count("Ada Lovelace") == 1, result.inner_text()
    font = result.locator("pre").first.evaluate("e => getComputedStyle(e).fontFamily")
    code_font = lab.page.evaluate("() => getComputedStyle(document.body)"
                                  ".getPropertyValue('--jp-code-font-family')")
    assert font.replace(" ", "") == code_font.strip().replace(" ", ""), (font, code_font)
    # No Out[n] echo of the call: its outputs are the transcript only.
    prompts = lab.cell(2).locator(".jp-OutputPrompt").all_inner_texts()
    assert prompts and not any(p.strip() for p in prompts), prompts


def test_a_tool_result_is_shown_once(lab):
    lab.open("%mcp call demo hello")
    lab.run(2)
    result = lab.cell(2).locator(".nb-elicit-transcript-result")
    expect(result).to_contain_text("Hello, world!")
    shot(lab, "result-hello", lab.cell(2))
    assert result.inner_text().count("Hello, world!") == 1, result.inner_text()
    assert "result" not in result.inner_text()


def test_the_tools_table_is_left_aligned_and_cuts_long_cells(lab):
    lab.open("%mcp tools demo")
    lab.run(2)
    expect(lab.cell(2).locator("table")).to_contain_text("contact_info")
    shot(lab, "tools-demo", lab.cell(2))
    table = lab.cell(2).locator("table.nb-elicit-table")
    aligns = table.locator("th").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).textAlign)")
    assert aligns and set(aligns) <= {"left", "start"}, aligns
    cells = table.locator("td").evaluate_all(
        "cells => cells.map(c => getComputedStyle(c).textAlign)")
    assert set(cells) <= {"left", "start"}, cells
    assert "``" not in table.inner_text()


# -- what a newcomer noticed -----------------------------------------------------------------------

REVIEW = REPO / "test-artifacts" / "review"


def review(notebook, name: str, of) -> None:
    """A picture for the review, and the same in the test's artifacts."""
    REVIEW.mkdir(parents=True, exist_ok=True)
    of.screenshot(path=str(REVIEW / f"{name}.png"))
    notebook.screenshot(name, of=of)


def test_a_result_is_labelled_as_the_servers_under_the_answer(lab):
    transcript = submit_contact(lab, (("name", "Ada Lovelace"), ("email", "ada@example.com")))
    expect(transcript).to_contain_text("Submitted.")
    review(lab, "result-labelled", lab.cell(2))
    label = transcript.locator(".nb-elicit-transcript-result-label")
    assert label.count() == 1, transcript.inner_text()
    assert label.inner_text() == "Result from demo:"
    fields = transcript.locator(".nb-elicit-transcript-fields").bounding_box()
    json_block = transcript.locator(".nb-elicit-transcript-result pre").bounding_box()
    box = label.bounding_box()
    assert fields["y"] + fields["height"] <= box["y"] < json_block["y"], (fields, box, json_block)


URL = "https://example.com/nb-elicit/sign-in"


def test_the_finished_url_record_names_the_page_once_in_plain_words(lab):
    lab.page.context.route("https://example.com/**", lambda route: route.fulfill(body="ok"))
    lab.open("%mcp call demo sign_in")
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-url-card")
    card.locator(".nb-elicit-open").click()
    lab.wait_done(2)
    transcript = lab.cell(2).locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("demo reports this is done")
    review(lab, "url-record", lab.cell(2))
    shown = transcript.inner_text()
    assert shown.count(URL) == 1, shown  # the page once: the link is the address
    link = transcript.locator("a.nb-elicit-url-link")
    assert link.get_attribute("href") == URL and URL in link.inner_text()
    assert "chose" not in shown and "accept" not in shown, shown  # no protocol words
    assert "Result from demo:" in shown and "Signed in" in shown, shown


BROKEN_WORDS = """(table, longest) => {
    const broken = [];
    for (const cell of table.querySelectorAll('td')) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const word of node.data.matchAll(/\\S+/g)) {
                if (word[0].length > longest) { continue; }  // may break, as a last resort
                const range = document.createRange();
                range.setStart(node, word.index);
                range.setEnd(node, word.index + word[0].length);
                const lines = new Set(Array.from(range.getClientRects())
                    .filter(r => r.width > 0).map(r => Math.round(r.top)));
                if (lines.size > 1) { broken.push(word[0]); }
            }
        }
    }
    // A long unbroken string wraps where its line is full instead of widening its column.
    const wrapped = Array.from(table.querySelectorAll('td span'))
        .filter(s => s.innerText.length > longest)
        .map(s => new Set(Array.from(s.getClientRects()).map(r => Math.round(r.top))).size);
    return {broken: broken, wrapped: wrapped};
}"""

LONG_TOKEN = "https://example.com/" + "x" * 150


def test_table_cells_break_between_words_never_inside_one(lab_zoomed):
    lab = lab_zoomed  # 640 CSS pixels wide: the tables must wrap
    arguments = {"message": LONG_TOKEN, "requested_schema": {"type": "object", "properties": {}}}
    lab.open("%mcp respond demo decline", "%mcp call demo github_username",
             f"%mcp call demo custom_form {json.dumps(arguments)}", "%mcp tools demo",
             "%mcp history")
    for cell in range(2, 7):
        lab.run(cell)
    tools = lab.cell(5).locator("table.nb-elicit-table")
    history = lab.cell(6).locator("table.nb-elicit-history")
    expect(history).to_contain_text("github_username")
    review(lab, "tools-table-200", tools.locator("tr").nth(2))
    review(lab, "history-table-200", history)
    in_tools = tools.evaluate(BROKEN_WORDS, 30)
    in_history = history.evaluate(BROKEN_WORDS, 30)
    assert in_tools["broken"] == [], in_tools
    assert in_history["broken"] == [], in_history
    # The long unbroken message wraps at the edge of its column, over several lines.
    assert in_history["wrapped"] and min(in_history["wrapped"]) > 1, in_history
    # The demo's descriptions read as sentences: no doubled word, no argument name as a word.
    text = tools.inner_text()
    assert not re.search(r"\b(\w+)\s+\1\b", text), text
    assert "done_after seconds" not in text and "after after" not in text, text


def test_jupyterlab_settings_editor_puts_labels_beside_inputs_as_the_docs_say(lab):
    lab.open()
    lab.page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    lab.page.locator(".lm-Menu-itemLabel", has_text="Settings Editor").click()
    group = lab.page.locator(
        ".jp-SettingsPanel .jp-FormGroup-contentNormal:has(> .jp-FormGroup-fieldLabel)"
        ":has(> .jp-inputFieldWrapper > input[type=text])").first
    group.wait_for()
    review(lab, "settings-editor", group)
    label = group.locator("> .jp-FormGroup-fieldLabel").bounding_box()
    control = group.locator("> .jp-inputFieldWrapper > input").bounding_box()
    assert label["x"] + label["width"] <= control["x"] + 1, (label, control)  # beside it
    assert (label["y"] < control["y"] + control["height"]
            and control["y"] < label["y"] + label["height"]), (label, control)  # on its line
    forms = " ".join((REPO / "docs" / "forms.md").read_text(encoding="utf-8").split())
    assert "what JupyterLab's Settings Editor and" not in forms
    assert "Settings Editor does otherwise: each label sits beside its input" in forms
