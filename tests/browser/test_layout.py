"""How a form lays out in a real JupyterLab, light and dark, at 100% and 200% zoom: inputs in
one column, required marks that are seen and heard, hints that sit with their own field, a
status line that stays true, and one header line with ✕ and one timer.

Besides its per-test artifacts, this file saves a screenshot set for review in
``test-artifacts/screenshots/``: every demo form live and with its errors, light and dark.
"""

from __future__ import annotations

import json
import re

import pytest

from .conftest import REPO

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
REQUIRED = re.compile(r"\(required\)")


def start(tool: str, arguments: dict | None = None) -> str:
    """A cell that starts a demo tool and returns at once (its form shows in that cell)."""
    return f"nb_elicit.connections['demo'].start_tool({tool!r}, {arguments or {}!r})"


def shoot(lab, name: str, of) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    of.scroll_into_view_if_needed()
    of.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def field(form, name: str):
    return form.locator(f".nb-elicit-field-{name}")


# The left edge of each row's control: the text box, picker, list, checkbox or radio button;
# for a group of checkboxes, the group's own box (its checkboxes sit inside it).
LEFT_EDGES = """form => Array.from(form.querySelectorAll('.nb-elicit-field')).map(row => {
    const control = row.querySelector('input, select');
    const group = row.classList.contains('nb-elicit-group') ? row : null;
    const box = (group || control).getBoundingClientRect();
    const input = row.matches('.nb-elicit-input') ? row : row.querySelector('.nb-elicit-input');
    return {field: input.className.match(/nb-elicit-field-(\\S+)/)[1],
            left: box.left, width: box.width, type: control.type || control.tagName};
})"""


#: The demo's all_fields form's groups of checkboxes.
GROUPS = ("toppings", "days")


def test_the_inputs_line_up_and_required_fields_are_marked_seen_and_heard(lab_look):
    lab = lab_look
    lab.open(start("all_fields"))
    lab.run(2)
    form = lab.form(2)
    expect(form).to_contain_text("Please fill in one field of every kind")
    edges = form.evaluate(LEFT_EDGES)
    (lab.artifacts / "edges.json").write_text(json.dumps(edges, indent=2), encoding="utf-8")
    assert len(edges) == 13
    lefts = [e["left"] for e in edges]
    assert max(lefts) - min(lefts) <= 2, edges  # one column, checkboxes and groups included
    boxes = [e["width"] for e in edges
             if e["type"] not in ("checkbox", "radio") and e["field"] not in GROUPS]
    assert max(boxes) - min(boxes) <= 2, edges  # and one width (the date-time picker too)
    for name in ("name", "email", "homepage", "birthday", "meeting", "age", "color"):
        control = field(form, name).locator("input, select").first
        if name in ("name", "email"):
            expect(field(form, name).locator(".nb-elicit-mark")).to_be_visible()
            expect(control).to_have_accessible_name(REQUIRED)
        else:
            expect(control).not_to_have_accessible_name(REQUIRED)
    assert form.locator(".nb-elicit-required").count() == 2
    assert form.locator(".nb-elicit-mark").count() == 2
    # the spoken "(required)" is not also shown: only the star is seen
    spoken = form.locator(".nb-elicit-required .nb-elicit-sr")
    assert spoken.count() == 2
    for label in spoken.all():
        assert "(required)" in label.text_content()
        assert label.evaluate("el => el.getBoundingClientRect().width") <= 1
    # a drop-down starts on "Choose…"; it is never sent (the journal checks below)
    expect(field(form, "color").locator("select")).to_have_value(re.compile("Choose"))
    header_on_one_line(form)
    shoot(lab, f"all_fields-{lab.look}-live", form)
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    expect(form.locator(".nb-elicit-status")).to_have_text("Please fix 2 fields; nothing was "
                                                           "sent.")
    shoot(lab, f"all_fields-{lab.look}-errors", form)
    assert form.evaluate(LEFT_EDGES) == edges  # errors move nothing sideways
    field(form, "name").locator("input").fill("Ada Lovelace")
    field(form, "email").locator("input").fill("ada@example.com")
    lab.settle()
    expect(form.locator(".nb-elicit-status")).to_have_text("")
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "all_fields",
                                   "message": "Please fill in one field of every kind",
                                   "action": "accept",
                                   "content": {"name": "Ada Lovelace",
                                               "email": "ada@example.com"}}]


def header_on_one_line(form) -> None:
    """Who asks and the message share a line with ✕; one timer, under them."""
    # (measured at one moment: the notebook may move while other outputs change)
    title, dismiss, server, message = form.evaluate("""f => ['.nb-elicit-title',
        '.nb-elicit-dismiss', '.nb-elicit-server', '.nb-elicit-message-text'].map(
        s => f.querySelector(s).getBoundingClientRect().toJSON())""")
    assert abs(server["y"] - message["y"]) < 4 or message["height"] > server["height"]
    assert dismiss["y"] < title["y"] + title["height"]  # ✕ on the header, not below it
    assert dismiss["x"] > title["x"] + title["width"] - 1
    timers = form.evaluate("""f => Array.from(f.closest('.nb-elicit-call').querySelectorAll(
        '.nb-elicit-call-status, .nb-elicit-waited')).filter(t => t.offsetParent !== null
        && t.innerText.trim() && (t.closest('.nb-elicit-prompt') || f) === f)
        .map(t => t.innerText.trim())""")
    assert len(timers) == 1 and timers[0].startswith("waiting"), timers


HINTS = """form => Array.from(form.querySelectorAll('.nb-elicit-field')).map(row => {
    const box = sel => { const el = row.querySelector(sel);
                         return el ? el.getBoundingClientRect().toJSON() : null; };
    return {label: box('.nb-elicit-label-text'), hint: box('.nb-elicit-help-text'),
            input: box('input, select'), row: row.getBoundingClientRect().toJSON()};
})"""


def test_hints_sit_with_their_own_field_and_the_status_line_stays_true(lab_look):
    lab = lab_look
    lab.open(start("contact_info"))
    lab.run(2)
    form = lab.form(2)
    expect(form).to_contain_text("Your full name")
    rows = form.evaluate(HINTS)
    (lab.artifacts / "hints.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    assert len(rows) == 3 and all(r["hint"] for r in rows)
    for row, following in zip(rows, [*rows[1:], None], strict=True):
        label, hint, box = row["label"], row["hint"], row["input"]
        assert label["bottom"] <= hint["top"] + 1 and hint["bottom"] <= box["top"] + 1
        own = max(hint["top"] - label["bottom"], box["top"] - hint["bottom"])
        if following is not None:  # the next field's label is farther than its own parts
            assert following["label"]["top"] - row["row"]["bottom"] > own + 4, rows
            assert following["label"]["top"] - hint["bottom"] > 2 * (box["top"] - hint["bottom"])
    for name in ("name", "email"):
        expect(field(form, name).locator("input")).to_have_accessible_name(REQUIRED)
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    status = form.locator(".nb-elicit-status")
    expect(status).to_have_text("Please fix 2 fields; nothing was sent.")
    shoot(lab, f"contact_info-{lab.look}-errors", form)
    error = form.locator(".nb-elicit-error-text").first
    colour = "el => getComputedStyle(el).color"
    assert error.evaluate(colour) != form.locator(".nb-elicit-help-text").first.evaluate(colour)
    rows_with_errors = form.evaluate(HINTS)
    error_box, first = error.bounding_box(), rows_with_errors[0]
    # in its field's label: under the hint, right above the input it is about
    assert error_box["y"] >= first["hint"]["bottom"] - 1
    assert error_box["y"] + error_box["height"] <= first["input"]["top"] + 1
    field(form, "name").locator("input").fill("Ada Lovelace")
    lab.settle()
    expect(status).to_have_text("Please fix 1 field; nothing was sent.")
    field(form, "email").locator("input").fill("ada@example.com")
    lab.settle()
    expect(status).to_have_text("")
    expect(form.locator(".nb-elicit-error-text")).to_have_count(0)
    field(form, "age").locator("input").fill("36")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1)[0]["content"] == {"name": "Ada Lovelace",
                                                 "email": "ada@example.com", "age": 36}


# Every demo form: (tool, arguments, what its message says, whether Submit empty shows errors).
DEMO_FORMS = [
    ("github_username", {}, "GitHub username", True),
    ("contact_info", {}, "contact information", True),
    ("all_fields", {}, "one field of every kind", True),
    ("two_step", {}, "Step 1 of 2", True),
    ("book_table", {}, "How many people", True),
    ("withdraw", {"after": 600}, "or I withdraw this", False),
    ("import_rows", {"rows": 2, "delay": 0.1}, "Overwrite it?", True),
    ("custom_form", {"message": "Pick a slug", "requested_schema": {
        "type": "object", "required": ["slug", "agree"], "properties": {
            "slug": {"type": "string", "title": "Slug", "pattern": "^[a-z0-9-]+$",
                     "description": "Lower-case letters, digits and dashes."},
            "agree": {"type": "boolean", "title": "I agree"},
            "news": {"type": "boolean", "title": "Newsletter", "default": False},
            "topics": {"type": "array", "title": "Topics", "minItems": 1,
                       "items": {"type": "string", "enum": ["a", "b"]}}}}},
     "Pick a slug", True),
]
CHINESE = {"message": "请提供你的联系信息", "requested_schema": {
    "type": "object", "required": ["name", "email"], "properties": {
        "name": {"type": "string", "title": "姓名", "description": "你的全名"},
        "email": {"type": "string", "format": "email", "title": "电子邮件",
                  "description": "你的电子邮件地址"},
        "city": {"type": "string", "title": "城市", "enum": ["北京", "上海"]}}}}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_demo_form_live_and_with_errors(theme, request):
    lab = request.getfixturevalue("lab" if theme == "light" else "lab_dark")
    calls = "\n".join(start(tool, arguments) for tool, arguments, _, _ in DEMO_FORMS)
    lab.open(calls + "\n" + start("sign_in", {"done_after": 600}), "%mcp language zh",
             start("custom_form", CHINESE))
    lab.run(2)  # every call at once: a few forms show, the rest wait in line
    remaining = list(DEMO_FORMS)
    while remaining:  # the open forms in the order they come, until every one has shown
        open_forms = lab.page.locator(".nb-elicit-form:not(.nb-elicit-locked)")
        open_forms.first.wait_for()
        shown = [f for f in remaining if open_forms.filter(has_text=f[2]).count()]
        if not shown:
            lab.page.wait_for_timeout(200)
            continue
        tool, _, says, errors = shown[0]
        remaining.remove(shown[0])
        form = open_forms.filter(has_text=says)
        shoot(lab, f"{tool}-{theme}-live", form)
        header_on_one_line(form)
        if errors:
            lab.settle()
            form.locator(".nb-elicit-submit").click()
            expect(form.locator(".nb-elicit-error-text").first).to_be_visible()
            shoot(lab, f"{tool}-{theme}-errors", form)
        if tool != "custom_form":  # (the next request in line shows)
            form.locator(".nb-elicit-dismiss").click()
            expect(form).to_have_count(0)
    slug = lab.cell(2).locator(".nb-elicit-form").filter(has_text="Pick a slug")
    expect(slug.locator(".nb-elicit-field-slug .nb-elicit-error-text")).to_contain_text(
        "This field is required.")
    slug.locator(".nb-elicit-field-slug input").fill("Not A Slug")
    lab.settle()
    expect(slug).to_contain_text("Enter a value as described: Lower-case letters, digits and "
                                 "dashes.")
    assert "^[a-z0-9-]+$" not in slug.inner_text()
    shoot(lab, f"custom_form-{theme}-pattern", slug)
    slug.locator(".nb-elicit-dismiss").click()
    card = lab.cell(2).locator(".nb-elicit-url-card")
    expect(card).to_contain_text("example.com")
    shoot(lab, f"sign_in-{theme}-live", card)
    header_on_one_line(card)
    card.locator(".nb-elicit-dismiss").click()
    lab.run(3)  # %mcp language zh
    lab.run(4, wait=False)
    chinese = lab.form(4)
    expect(chinese).to_contain_text("请提供你的联系信息")
    expect(chinese.locator(".nb-elicit-field-name input")).to_have_accessible_name(
        re.compile("（必填）"))
    expect(chinese.locator(".nb-elicit-field-city select")).to_have_value(re.compile("请选择"))
    fonts = fonts_drawing(lab, chinese.locator(".nb-elicit-help-text").first)
    assert any("CJK" in f["familyName"] and f["glyphCount"] >= 4 for f in fonts), fonts
    shoot(lab, f"chinese-{theme}-live", chinese)
    lab.settle()
    chinese.locator(".nb-elicit-submit").click()
    expect(chinese.locator(".nb-elicit-status")).to_have_text("请修正 2 个字段；尚未发送任何内容。")
    shoot(lab, f"chinese-{theme}-errors", chinese)
    chinese.locator(".nb-elicit-dismiss").click()
    tools = [e["tool"] for e in lab.wait_journal(len(DEMO_FORMS) + 2)]
    assert sorted(tools) == sorted([t for t, *_ in DEMO_FORMS] + ["sign_in", "custom_form"])


def fonts_drawing(lab, element) -> list[dict]:
    """The fonts Chromium really used for ``element``'s text (no empty boxes: a CJK font)."""
    element.evaluate("el => el.setAttribute('data-font-probe', '1')")
    cdp = lab.page.context.new_cdp_session(lab.page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "[data-font-probe]"})
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]


DETAILS = {"type": "object", "required": ["agree"], "properties": {
    "agree": {"type": "boolean", "title": "I agree"},
    "news": {"type": "boolean", "title": "Newsletter", "default": True},
    "topics": {"type": "array", "title": "Topics", "maxItems": 1,
               "items": {"type": "string", "enum": ["a", "b"]}}}}

# How far the focused element's ring reaches past its box, and what clips it on the way up.
CLIPPED = """el => {
    const style = getComputedStyle(el);
    const reach = parseFloat(style.outlineWidth) + Math.max(0, parseFloat(style.outlineOffset));
    const box = el.getBoundingClientRect();
    const clips = [];
    for (let up = el.parentElement; up && !up.classList.contains('jp-OutputArea-output');
         up = up.parentElement) {
        const s = getComputedStyle(up);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') { continue; }
        const r = up.getBoundingClientRect();
        if (box.left - reach < r.left || box.top - reach < r.top || box.right + reach > r.right
            || box.bottom + reach > r.bottom) { clips.push(up.className); }
    }
    return {reach, clips};
}"""


def test_focus_rings_disabled_labels_and_the_checkbox_group(lab):
    lab.open(start("custom_form", {"message": "Details", "requested_schema": DETAILS}))
    lab.run(2)
    form = lab.form(2)
    radio = form.locator(".nb-elicit-field-agree input[type=radio]").first
    radio.focus()
    ring = radio.evaluate(CLIPPED)
    assert ring["reach"] > 0 and ring["clips"] == [], ring  # the whole ring shows
    group = form.locator(".nb-elicit-group")
    expect(group).to_have_count(1)
    expect(group.locator(".nb-elicit-group-label")).to_have_text("Topics")
    assert group.evaluate("g => getComputedStyle(g).borderTopStyle") == "solid"  # one box
    assert group.locator(".nb-elicit-option").count() == 2
    boxes = form.locator(".nb-elicit-option input")
    boxes.first.check()
    lab.settle()
    expect(boxes.nth(1)).to_be_disabled()  # maxItems 1 is met
    colour = "el => getComputedStyle(el).color"
    label_of = "input + span"
    enabled = form.locator(".nb-elicit-option").first.locator(label_of).evaluate(colour)
    disabled = form.locator(".nb-elicit-option").nth(1).locator(label_of).evaluate(colour)
    assert disabled != enabled  # a disabled checkbox's label is greyed, not black
    shoot(lab, "details-light", form)
    form.locator(".nb-elicit-dismiss").click()
    assert lab.wait_journal(1)[0]["action"] == "cancel"
