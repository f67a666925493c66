"""Keyboard, accessibility, zoom, themes, Chinese, and the transcript a saved notebook keeps, in a
real JupyterLab in Chromium. Screenshots go to ``test-artifacts/browser/<test>/``.
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

CONTACT_MESSAGE = "Please provide your contact information"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}
WAIT = 60_000


def field(form, name: str, tag: str = "input"):
    return form.locator(f".nb-elicit-field-{name} {tag}")


# -- keyboard -------------------------------------------------------------------------------------


def test_the_first_field_is_focused_and_enter_submits(lab):
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(field(form, "name")).to_be_focused()  # nobody clicked into the form
    lab.page.keyboard.type("Ada Lovelace", delay=15)
    lab.page.keyboard.press("Tab")
    expect(field(form, "email")).to_be_focused()
    lab.page.keyboard.type("ada@example.com", delay=15)
    lab.page.keyboard.press("Tab")
    expect(field(form, "age")).to_be_focused()
    lab.page.keyboard.type("36", delay=15)
    lab.settle()
    lab.page.keyboard.press("Enter")  # Enter in a single-line field submits
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    lab.wait_done(2)


PREVENT_ESCAPE = """() => { window.__taken = e => { if (e.key === "Escape") e.preventDefault(); };
    document.addEventListener("keydown", window.__taken, true); }"""
COMPOSING_ESCAPE = """button => button.dispatchEvent(new KeyboardEvent("keydown",
    {key: "Escape", isComposing: true, bubbles: true, cancelable: true}))"""


def contact_form_with_ada(lab):
    """The demo's contact form in cell 2, waiting, with "Ada" typed into its focused first field."""
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(field(form, "name")).to_be_focused()
    lab.page.keyboard.type("Ada", delay=15)
    lab.settle()
    return form


def test_escape_dismisses_the_form_only_when_the_focus_is_on_the_form_itself(lab):
    form = contact_form_with_ada(lab)
    # inside a field, Escape is the field's (an autofill list, a drop-down): the form stays
    lab.page.keyboard.press("Escape")
    decline = form.locator(".nb-elicit-decline")
    decline.focus()  # a button of the form, but some other handler took this Escape
    lab.page.evaluate(PREVENT_ESCAPE)
    lab.page.keyboard.press("Escape")
    lab.page.evaluate('() => document.removeEventListener("keydown", window.__taken, true)')
    decline.evaluate(COMPOSING_ESCAPE)  # typed while an input method composes
    lab.settle()
    lab.page.wait_for_timeout(500)
    assert lab.journal() == []
    expect(field(form, "name")).to_have_value("Ada")
    expect(form.locator(".nb-elicit-submit")).to_be_enabled()
    # the focus on the form itself (a click on its text): Escape dismisses it
    form.locator(".nb-elicit-message-text").click()
    assert form.evaluate("f => f.contains(document.activeElement) && "
                         "document.activeElement.closest('.nb-elicit-form') === f")
    assert form.evaluate("f => !/^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)")
    lab.page.keyboard.press("Escape")
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "cancel", "content": None}]
    lab.wait_done(2)
    expect(lab.cell(2).locator(".nb-elicit-transcript")).to_contain_text("Dismissed.")


def test_escape_on_a_button_of_the_form_dismisses_it(lab):
    form = contact_form_with_ada(lab)
    lab.page.keyboard.press("Tab")
    lab.page.keyboard.press("Tab")
    lab.page.keyboard.press("Tab")  # name, email, age, then Submit
    expect(form.locator(".nb-elicit-submit")).to_be_focused()
    lab.page.keyboard.press("Escape")
    assert lab.wait_journal(1)[0]["action"] == "cancel"
    lab.wait_done(2)


def test_a_failed_submit_moves_the_focus_to_the_first_invalid_field(lab):
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(field(form, "name")).to_be_focused()
    lab.page.keyboard.type("Ada Lovelace", delay=15)
    field(form, "email").fill("ada@")
    field(form, "age").fill("-" + "9" * 400)
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    expect(field(form, "email")).to_be_focused()  # the first of the two problems
    lab.screenshot("focus after a failed submit", of=form)
    field(form, "email").fill("ada@example.com")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    expect(field(form, "age")).to_be_focused()
    expect(form.locator(".nb-elicit-invalid .nb-elicit-error-text")).to_have_text(
        "Enter a number of at least 18.")
    expect(field(form, "age")).to_have_value("-" + "9" * 400)  # what was typed stays
    field(form, "age").fill("36")
    lab.settle()
    lab.page.keyboard.press("Enter")
    assert lab.wait_journal(1)[0]["content"] == ADA
    lab.wait_done(2)


def test_a_form_does_not_steal_the_keyboard_from_a_cell_editor(lab):
    lab.open("call = nb_elicit.connections['demo'].start_tool("
             "'import_rows', {'rows': 4, 'delay': 1.5})", "")
    lab.run(2)  # returns at once; the question comes about 3 s later
    editor = lab.cell(3).locator(".jp-InputArea-editor")
    editor.click()
    lab.page.keyboard.type("x = 1", delay=20)
    form = lab.form(2)  # it appeared while the person was typing in cell 3
    lab.page.wait_for_timeout(300)
    lab.page.keyboard.type("23", delay=20)
    expect(editor).to_contain_text("x = 123")
    assert form.evaluate("f => f.contains(document.activeElement)") is False
    form.locator(".nb-elicit-dismiss").click()
    assert lab.wait_journal(1)[0]["action"] == "cancel"


# -- accessibility and zoom ------------------------------------------------------------------------

UNLABELLED = """form => Array.from(form.querySelectorAll('input, select, textarea'))
    .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                  && !el.getAttribute('aria-labelledby') && !el.closest('label'))
    .map(el => el.outerHTML.slice(0, 120))"""


def test_every_control_has_a_label_and_errors_are_announced(lab):
    lab.open("%mcp call demo all_fields")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text("Please fill in one field of every kind")
    assert form.evaluate(UNLABELLED) == []
    field(form, "email").fill("ada@")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    # name (required) and email: each problem shows in its field's label, which is the
    # field's accessible name; the focus moves to the first, so it is read out
    errors = form.locator(".nb-elicit-error-text")
    expect(errors).to_have_count(2)
    expect(errors.first).to_be_visible()
    expect(field(form, "name")).to_be_focused()
    expect(field(form, "name")).to_have_accessible_name(re.compile("This field is required"))
    expect(form.locator(".nb-elicit-status [role=status]")).to_contain_text("Please fix 2")
    form.locator(".nb-elicit-dismiss").click()


OVERFLOW = """form => {
    const area = form.closest('.jp-OutputArea-output') || form.parentElement;
    const right = area.getBoundingClientRect().right + 1;
    return Array.from(form.querySelectorAll('input, select, button, label'))
        .filter(el => el.getBoundingClientRect().width > 0
                      && el.getBoundingClientRect().right > right)
        .map(el => el.outerHTML.slice(0, 80));
}"""


def test_the_form_is_usable_at_200_percent_zoom(lab_zoomed):
    lab = lab_zoomed
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    assert form.evaluate(OVERFLOW) == []  # nothing sticks out of the output area
    for name in ("name", "email", "age"):
        assert field(form, name).bounding_box()["width"] >= 150
    field(form, "name").fill("Ada Lovelace")
    field(form, "email").fill("ada@example.com")
    field(form, "age").fill("36")
    lab.screenshot("zoomed-200", of=form)
    lab.settle()
    form.locator(".nb-elicit-submit").scroll_into_view_if_needed()
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]


# -- themes ----------------------------------------------------------------------------------------

THEMED_CELL = ("schema = {'type': 'object', 'required': ['name'], 'properties': {"
               "'name': {'type': 'string', 'title': 'Name'}, "
               "'pin': {'type': 'string', 'title': 'PIN'}}}\n"
               "await nb_elicit.connections['demo'].call_tool('custom_form', "
               "{'message': 'Themes: an error, a warning, buttons', 'requested_schema': schema})")

COLOURS = """form => {
    function rgb(text) { return (text.match(/[\\d.]+/g) || []).slice(0, 4).map(Number); }
    function background(el) {
        for (; el; el = el.parentElement) {
            const c = rgb(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || (c.length === 4 && c[3] > 0)) { return c; }
        }
        return [255, 255, 255];
    }
    function luminance(c) {
        const [r, g, b] = c.slice(0, 3).map(v => {
            v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    }
    function contrast(el) {
        const a = luminance(rgb(getComputedStyle(el).color)), b = luminance(background(el));
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }
    const message = form.querySelector('.nb-elicit-message-text');
    const error = form.querySelector('.nb-elicit-error-text');
    const warning = form.querySelector('.nb-elicit-secret-warning [style*="--jp-warn-color0"]');
    return {text: luminance(rgb(getComputedStyle(message).color)),
            background: luminance(background(message)),
            message: contrast(message), error: contrast(error), warning: contrast(warning)};
}"""


def themed_form(lab, name: str) -> dict:
    lab.open(THEMED_CELL)
    lab.run(2, wait=False)
    form = lab.form(2)
    expect(form.locator(".nb-elicit-secret-warning")).to_be_visible()
    lab.settle()
    form.locator(".nb-elicit-submit").click()  # the required name is missing: an error shows
    expect(form.locator(".nb-elicit-error-text").first).to_be_visible()
    lab.screenshot(f"form-{name}", of=form)
    colours = form.evaluate(COLOURS)
    (lab.artifacts / "colours.json").write_text(json.dumps(colours, indent=2), encoding="utf-8")
    form.locator(".nb-elicit-dismiss").click()
    return colours


def test_the_light_theme(lab):
    colours = themed_form(lab, "light")
    assert colours["text"] < colours["background"]  # dark text on a light page
    assert colours["message"] >= 4.5 and colours["error"] >= 3 and colours["warning"] >= 3


def test_the_dark_theme(lab_dark):
    colours = themed_form(lab_dark, "dark")
    assert colours["text"] > colours["background"]  # light text on a dark page
    assert colours["message"] >= 4.5 and colours["error"] >= 3 and colours["warning"] >= 3


# -- Chinese ---------------------------------------------------------------------------------------

SEED_SCHEMA = {"type": "object", "required": ["name", "email"], "properties": {
    "name": {"type": "string", "description": "你的全名"},
    "email": {"type": "string", "format": "email", "description": "你的电子邮件地址"},
    "age": {"type": "number", "minimum": 18, "description": "你的年龄"}}}


def test_chinese_texts_and_the_seed_example(lab):
    arguments = json.dumps({"message": "请提供你的联系信息", "requested_schema": SEED_SCHEMA},
                           ensure_ascii=False)
    lab.open("%mcp language zh", f"%mcp call demo custom_form {arguments}")
    lab.run(2)
    lab.run(3, wait=False)
    form = lab.form(3)
    expect(form).to_contain_text("demo 请求：")
    expect(form).to_contain_text("请提供你的联系信息")
    expect(form).to_contain_text("你的全名")
    expect(form.locator(".nb-elicit-submit")).to_have_text("提交")
    expect(form.locator(".nb-elicit-decline")).to_have_text("拒绝")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    expect(form.locator(".nb-elicit-status")).to_have_text("请修正 2 个字段；尚未发送任何内容。")
    expect(form.locator(".nb-elicit-error-text").first).to_have_text("此字段为必填项。")
    lab.screenshot("chinese", of=form)
    field(form, "name").fill("张三")
    field(form, "email").fill("zhangsan@example.com")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "custom_form", "message": "请提供你的联系信息",
                                   "action": "accept",
                                   "content": {"name": "张三", "email": "zhangsan@example.com"}}]
    lab.wait_done(3)
    expect(lab.cell(3).locator(".nb-elicit-transcript")).to_contain_text("已提交。")


# -- the saved notebook ----------------------------------------------------------------------------


def test_a_saved_notebook_reopens_with_the_record_not_a_broken_widget(lab):
    lab.open("%mcp call demo contact_info")
    lab.run(2, wait=False)
    form = lab.form(2)
    field(form, "name").fill("Ada Lovelace")
    field(form, "email").fill("ada@example.com")
    field(form, "age").fill("36")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    lab.wait_done(2)
    expect(lab.cell(2).locator(".nb-elicit-transcript")).to_contain_text("Submitted.")
    outputs = json.loads(lab.save(holding="nb-elicit-transcript"))["cells"][2]["outputs"]
    assert not [o for o in outputs
                if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert any("nb-elicit-transcript" in "".join(o.get("data", {}).get("text/html", ""))
               for o in outputs)
    lab.server.shut_down_sessions(lab.name)
    lab.page.reload()
    lab.page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=WAIT)
    transcript = lab.cell(2).locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("Submitted.")
    expect(transcript).to_contain_text("Ada Lovelace")
    assert not re.search("Error displaying widget", lab.cell(2).inner_text())
    lab.screenshot("reopened", of=lab.cell(2))


OPTIONAL_CELL = """schema = {"type": "object", "properties": {
    "news": {"type": "boolean", "title": "Send me news"},
    "days": {"type": "array", "title": "Days", "minItems": 1,
             "items": {"type": "string", "enum": ["mon", "tue"]}}}}
result = await nb_elicit.connections['demo'].call_tool(
    'custom_form', {"message": "Optional things", "requested_schema": schema})"""


def test_optional_fields_go_back_to_not_given(lab):
    lab.open(OPTIONAL_CELL)
    lab.run(2, wait=False)
    form = lab.form(2)
    clear = form.get_by_role("button", name="Clear")
    expect(clear).to_have_count(0)  # hidden: nothing to clear yet
    box = form.locator(".nb-elicit-field-news input")
    box.click()
    box.click()  # ticked, then unticked: an answer of false, with Clear beside it
    expect(clear).to_be_visible()
    assert clear.get_attribute("title") == "Leave “Send me news” unanswered"
    lab.screenshot("clear beside an answered checkbox", of=form)
    clear.click()
    expect(clear).to_have_count(0)
    expect(box).to_be_focused()  # back on the box, which is not given again
    day = form.locator(".nb-elicit-option input").first
    day.click()
    day.click()  # ticked, then unticked: not given, so minItems does not block Submit
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "custom_form", "message": "Optional things",
                                   "action": "accept", "content": {}}]


# -- what a newcomer noticed -----------------------------------------------------------------------

#: Before/after pictures of these checks (docs/review/ keeps a few of them).
REVIEW = Path(__file__).resolve().parents[2] / "test-artifacts" / "review"

GALLERY_FORM = (
    "form = nb_elicit.ElicitationForm('Pick what you like', {'type': 'object', 'properties': {"
    "'name': {'type': 'string', 'title': 'Name'}, "
    "'size': {'type': 'string', 'title': 'Size', 'enum': ['small', 'large']}, "
    "'toppings': {'type': 'array', 'title': 'Toppings', "
    "'items': {'type': 'string', 'enum': ['cheese', 'ham']}}, "
    "'beta': {'type': 'boolean', 'title': 'Join the beta'}}}, server='gallery')\n"
    "display(form)")

FORM_LOOK = """form => {
    const style = e => getComputedStyle(e);
    const edges = e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; };
    const typed = form.querySelectorAll(
        'input:not([type=checkbox]):not([type=radio]), select, textarea');
    return {ui: style(document.body).getPropertyValue('--jp-ui-font-family'),
            label: style(form.querySelector('.nb-elicit-label')).fontFamily,
            typed: Array.from(typed).map(e => style(e).fontFamily),
            input: edges(form.querySelector('.nb-elicit-field-name input')),
            select: edges(form.querySelector('.nb-elicit-field-size select')),
            group: edges(form.querySelector('.nb-elicit-group')),
            boxes: Array.from(form.querySelectorAll('.nb-elicit-group input[type=checkbox]'))
                .map(b => b.getBoundingClientRect().left)};
}"""

BUTTON_LOOK = """button => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--jp-content-font-color2)';
    button.parentElement.appendChild(probe);
    const faint = getComputedStyle(probe).color;
    probe.remove();
    const s = getComputedStyle(button);
    return {disabled: button.disabled, background: s.backgroundColor, color: s.color,
            opacity: s.opacity, cursor: s.cursor, shadow: s.boxShadow, faint: faint};
}"""


TYPED_LOOK = """input => {
    const colour = value => {
        const probe = document.createElement('span');
        probe.style.color = value;
        input.parentElement.appendChild(probe);
        const computed = getComputedStyle(probe).color;
        probe.remove();
        return computed;
    };
    const s = getComputedStyle(input);
    return {disabled: input.disabled, opacity: s.opacity, color: s.color,
            fill: s.webkitTextFillColor, background: s.backgroundColor,
            input: colour('var(--jp-widgets-input-color)'),
            readonly: colour('var(--jp-layout-color2)')};
}"""


def review(lab, name: str, of) -> None:
    """A picture for the review, and the same in the test's artifacts."""
    REVIEW.mkdir(parents=True, exist_ok=True)
    of.screenshot(path=str(REVIEW / f"{name}.png"))
    lab.screenshot(name, of=of)


def font(family: str) -> str:
    return family.replace(" ", "").replace('"', "").replace("'", "").lower()


def transparent(colour: str) -> bool:
    return colour == "transparent" or re.fullmatch(r"rgba\(.*,\s*0\)", colour) is not None


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_an_answered_form_fades_its_dismiss_and_inputs_share_the_ui_font_and_one_edge(
        request, theme):
    lab = request.getfixturevalue("lab" if theme == "light" else "lab_dark")
    lab.open(GALLERY_FORM)
    lab.run(2)
    form = lab.form(2)
    field(form, "name").fill("Ada")
    lab.settle()
    dismiss = form.locator(".nb-elicit-dismiss")
    live, look = dismiss.evaluate(BUTTON_LOOK), form.evaluate(FORM_LOOK)
    form.locator(".nb-elicit-submit").click()
    expect(form.locator(".nb-elicit-status")).to_have_text("Submitted.")
    expect(dismiss).to_be_disabled()
    answered = dismiss.evaluate(BUTTON_LOOK)
    typed = field(form, "name").evaluate(TYPED_LOOK)
    review(lab, f"form-answered-{theme}", form)
    (lab.artifacts / "look.json").write_text(json.dumps([live, look, answered], indent=2),
                                             encoding="utf-8")
    # What is typed is in JupyterLab's UI font, like the labels (and JupyterLab's own inputs).
    assert look["typed"] and font(look["label"]) == font(look["ui"]), look
    assert {font(f) for f in look["typed"]} == {font(look["ui"])}, look
    # The checkbox group's box starts and ends where the other inputs do; its boxes are inside.
    assert abs(look["group"][0] - look["input"][0]) <= 1, look
    assert abs(look["group"][1] - look["input"][1]) <= 1, look
    assert abs(look["select"][0] - look["input"][0]) <= 1, look
    assert look["boxes"] and min(look["boxes"]) > look["group"][0] + 4, look
    # Live, ✕ is a button; answered, it is a faint glyph with no button around it.
    assert not live["disabled"] and not transparent(live["background"]), live
    assert transparent(answered["background"]) and answered["shadow"] == "none", answered
    assert answered["color"] == answered["faint"] and answered["cursor"] != "pointer", answered
    # What was typed reads as an answer, not as a faded placeholder: full opacity, the inputs'
    # own text colour, on a background that says it can no longer be changed.
    assert typed["disabled"] and typed["opacity"] == "1", typed
    assert typed["color"] == typed["fill"] == typed["input"], typed
    assert typed["background"] == typed["readonly"], typed


CLOCKS = """cell => Array.from(cell.querySelectorAll('.nb-elicit-call-status, .nb-elicit-waited'))
    .filter(e => e.getBoundingClientRect().height > 0 && /\\d/.test(e.innerText))
    .map(e => e.classList.contains('nb-elicit-waited') ? 'form' : 'call')"""


def test_url_mode_shows_one_clock_at_a_time_and_nothing_moves_the_card_down(lab):
    lab.open("%mcp call demo sign_in")
    lab.run(2, wait=False)
    cell = lab.cell(2)
    card = cell.locator(".nb-elicit-url-card")
    expect(card.locator(".nb-elicit-waited")).to_contain_text("waiting")
    before = cell.evaluate(CLOCKS)
    top = card.bounding_box()["y"]
    card.locator(".nb-elicit-open").click()
    expect(card.locator("a.nb-elicit-url-link")).to_be_visible()
    waiting = cell.locator(".nb-elicit-call-status")
    expect(waiting).to_contain_text("Waiting for demo · sign_in")  # the server's turn
    # (the line's text can arrive a moment before the line shows; its clock counts from then)
    expect(waiting).to_be_visible()
    expect(waiting).to_contain_text(re.compile(r"\d"))
    after = cell.evaluate(CLOCKS)
    moved = card.bounding_box()["y"] - top
    card_bottom = card.bounding_box()["y"] + card.bounding_box()["height"]
    line_top = waiting.bounding_box()["y"]
    review(lab, "url-after-open", cell)
    assert before == ["form"], before  # the card's own clock
    assert after == ["call"], after  # then one clock: the call's
    assert abs(moved) <= 1, moved  # nothing was inserted above the card
    assert line_top >= card_bottom - 1, (line_top, card_bottom)  # the line is under it
    lab.wait_done(2)
