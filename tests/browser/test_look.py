"""How finished calls, results and tables look in a real JupyterLab: what the person saw and chose
in the transcript, tables with left-aligned headers, a result shown once. Screenshots go to
``test-artifacts/screenshots/`` (and, as for every browser test, ``test-artifacts/browser/``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

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


def test_a_contact_form_answered_leaves_a_readable_transcript_and_result(lab):
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    for name, value in (("name", "Ada Lovelace"), ("email", "ada@example.com"), ("age", "36")):
        form.locator(f".nb-elicit-field-{name} input").fill(value)
    lab.settle()
    form.get_by_role("button", name="Submit").click()
    lab.wait_done(2)
    transcript = lab.cell(2).locator(".nb-elicit-transcript")
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
