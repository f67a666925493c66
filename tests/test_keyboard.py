"""The keyboard script's rules, run in Node on events and elements as a browser makes them:
when Escape dismisses, and when the focus goes back to the notebook once a form is answered
(the real browser checks are in tests/browser/test_polish.py and
tests/browser/test_focus_after_answer.py)."""

import json
import subprocess
from pathlib import Path

import pytest
from helpers.node import node

import nb_elicit
from nb_elicit._ui.keyboard import (
    FOCUSED,
    enter_rule,
    escape_rule,
    focus_rule,
    keyboard_script,
    return_rule,
)

# `once`: the rule is JavaScript, run here by Node; Python only hands over its text.
pytestmark = pytest.mark.once

CASES = """
function element(tag, locked) {
  return {tagName: tag, classList: {contains: function (c) { return !!locked; }}};
}
var form = element("DIV"), locked = element("DIV", true);
function escape(target, extra) {
  return Object.assign({key: "Escape", target: target, defaultPrevented: false,
                        isComposing: false, keyCode: 27}, extra || {});
}
var button = element("BUTTON"), input = element("INPUT"), select = element("SELECT"),
    area = element("TEXTAREA");
var cases = {
  on_the_form: escapeCancels(escape(form), form),
  on_a_button: escapeCancels(escape(button), form),
  in_an_input: escapeCancels(escape(input), form),
  in_a_select: escapeCancels(escape(select), form),
  in_a_textarea: escapeCancels(escape(area), form),
  taken_by_another_handler: escapeCancels(escape(button, {defaultPrevented: true}), form),
  while_composing: escapeCancels(escape(button, {isComposing: true}), form),
  ime_key: escapeCancels(escape(button, {keyCode: 229}), form),
  with_shift: escapeCancels(escape(form, {shiftKey: true}), form),
  with_ctrl: escapeCancels(escape(form, {ctrlKey: true}), form),
  another_key: escapeCancels(escape(form, {key: "Enter"}), form),
  a_locked_form: escapeCancels(escape(locked), locked),
};
console.log(JSON.stringify(cases));
"""


def test_escape_cancels_only_on_the_form_itself_or_its_buttons_and_nothing_took_it():
    out = subprocess.run([node(), "-e", escape_rule() + CASES], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    cancels = {name for name, yes in json.loads(out).items() if yes}
    assert cancels == {"on_the_form", "on_a_button"}


ENTERS = """
function element(tag, type, classes) {
  return {tagName: tag, type: type,
          classList: {contains: function (c) { return classes.indexOf(c) >= 0; }}};
}
var form = element("DIV", "", ["nb-elicit-form"]);
var locked = element("DIV", "", ["nb-elicit-form", "nb-elicit-locked"]);
var card = element("DIV", "", ["nb-elicit-permission-card"]);
var box = element("INPUT", "checkbox", []), radio = element("INPUT", "radio", []),
    text = element("INPUT", "text", []), button = element("BUTTON", "submit", []),
    select = element("SELECT", "select-one", []);
function enter(target, extra) {
  return Object.assign({key: "Enter", target: target, defaultPrevented: false,
                        isComposing: false, keyCode: 13}, extra || {});
}
console.log(JSON.stringify({
  on_a_checkbox: enterSubmits(enter(box), form),
  on_a_yes_no_button: enterSubmits(enter(radio), form),
  in_a_text_box: enterSubmits(enter(text), form),
  on_a_button: enterSubmits(enter(button), form),
  in_a_select: enterSubmits(enter(select), form),
  shift_enter: enterSubmits(enter(radio, {shiftKey: true}), form),
  ctrl_enter: enterSubmits(enter(box, {ctrlKey: true}), form),
  alt_enter: enterSubmits(enter(box, {altKey: true}), form),
  while_composing: enterSubmits(enter(box, {isComposing: true}), form),
  ime_key: enterSubmits(enter(box, {keyCode: 229}), form),
  taken_by_another_handler: enterSubmits(enter(box, {defaultPrevented: true}), form),
  another_key: enterSubmits(enter(box, {key: " "}), form),
  a_locked_form: enterSubmits(enter(box), locked),
  a_consent_card_s_box: enterSubmits(enter(box), card),
}));
"""


def test_enter_submits_a_form_from_its_checkboxes_and_yes_no_buttons_only():
    """A text box submits on Enter by itself (ipywidgets); a box or a Yes/No button does so by
    the script: a one-question Yes/No form is answered from the keyboard. Never with a
    modifier key (Shift+Enter runs a cell), while composing, or on a consent card's box."""
    out = subprocess.run(
        [node(), "-e", enter_rule() + ENTERS],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    submits = {name for name, yes in json.loads(out).items() if yes}
    assert submits == {"on_a_checkbox", "on_a_yes_no_button"}


RETURNS = """
function node(parts) {  // an element: connected, shown, enabled unless told otherwise
  var it = Object.assign({isConnected: true, disabled: false, locked: false, open: false,
                          shown: true, inside: []}, parts || {});
  it.classList = {contains: function (c) {
    return (c === "nb-elicit-locked" && it.locked) || (c === "nb-elicit-still-open" && it.open);
  }};
  it.contains = function (other) { return other === it || it.inside.indexOf(other) >= 0; };
  it.getClientRects = function () { return it.shown ? [{}] : []; };
  return it;
}
var body = node(), field = node(), submit = node(), editor = node(), other = node();
var form = node({inside: [field, submit]});
var locked = node({locked: true, inside: [field, submit]});
var gone = node({isConnected: false});
var cases = {
  nothing_was_focused_in_a_form: focusReturns(null, body, body),
  typing_in_the_open_form: focusReturns(form, field, body),
  on_the_form_itself: focusReturns(form, form, body),
  answered_focus_still_on_it: focusReturns(locked, submit, body),
  answered_focus_fell_to_the_body: focusReturns(locked, body, body),
  answered_no_active_element: focusReturns(locked, null, body),
  answered_while_typing_in_an_editor: focusReturns(locked, editor, body),
  answered_while_in_another_form: focusReturns(locked, other, body),
  removed_focus_fell_to_the_body: focusReturns(gone, body, body),
  removed_while_typing_in_an_editor: focusReturns(gone, editor, body),
  open_focus_fell_to_the_body: focusReturns(form, body, body),
};
var disabled = node({disabled: true}), hidden = node({shown: false});
cases.open_its_clicked_button_disabled = focusReturns(node({inside: [disabled]}), disabled, body);
cases.open_its_clicked_button_hidden = focusReturns(node({inside: [hidden]}), hidden, body);
// answered, still open (a sign-in card after Sign in): followed as an open one until it ends
var link = node(), waiting = node({locked: true, open: true, inside: [link, disabled]});
cases.still_open_focus_on_its_link = focusReturns(waiting, link, body);
cases.still_open_focus_fell_to_the_body = focusReturns(waiting, body, body);
cases.still_open_its_clicked_button_disabled = focusReturns(waiting, disabled, body);
cases.still_open_while_typing_in_an_editor = focusReturns(waiting, editor, body);
function cell(name) { return {name: name, classList: {contains: function (c) {
  return c === "jp-Cell"; }}}; }
var first = cell("first"), second = cell("second"), third = cell("third");
var gap = {classList: {contains: function () { return false; }}};
first.nextElementSibling = gap; gap.nextElementSibling = second;
second.nextElementSibling = third; third.nextElementSibling = null;
cases.next_of_first = nextCell(first).name;
cases.next_of_second = nextCell(second).name;
cases.next_of_the_last = nextCell(third).name;
console.log(JSON.stringify(cases));
"""


def test_the_focus_returns_only_from_a_form_that_closed_or_let_it_fall():
    """Back to the notebook when the form or card the focus was in is answered (locked or
    gone) or its clicked control was disabled or hidden; never when the person is elsewhere."""
    out = subprocess.run([node(), "-e", return_rule() + RETURNS], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    cases = json.loads(out)
    cells = {name: cases.pop(name) for name in ("next_of_first", "next_of_second",
                                                  "next_of_the_last")}
    assert {name for name, yes in cases.items() if yes} == {
        "answered_focus_still_on_it", "answered_focus_fell_to_the_body",
        "answered_no_active_element", "removed_focus_fell_to_the_body",
        "open_its_clicked_button_disabled", "open_its_clicked_button_hidden",
        "open_focus_fell_to_the_body", "still_open_focus_fell_to_the_body",
        "still_open_its_clicked_button_disabled"}
    # the next cell (past anything that is not a cell); the last cell stays: none is made
    assert cells == {"next_of_first": "second", "next_of_second": "third",
                     "next_of_the_last": "third"}


FOCUS_CASES = """
function root(inNotebook) {
  return {closest: function (selector) { return inNotebook && selector === ".jp-Notebook"; }};
}
function doc(focused) { return {hasFocus: function () { return focused; }}; }
console.log(JSON.stringify({
  notebook_page_focused: mayTakeFocus(root(true), doc(true)),
  notebook_page_unfocused: mayTakeFocus(root(true), doc(false)),
  other_page_focused: mayTakeFocus(root(false), doc(true)),
  other_page_unfocused: mayTakeFocus(root(false), doc(false)),
}));
"""


def test_outside_a_notebook_s_page_a_form_takes_the_focus_only_while_its_page_has_it():
    """VS Code's output page: its cell editors are outside it, so a person typing there shows
    only as the output page not having the focus; a notebook's page keeps its typing guard."""
    out = subprocess.run([node(), "-e", focus_rule() + FOCUS_CASES], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert json.loads(out) == {"notebook_page_focused": True, "notebook_page_unfocused": True,
                               "other_page_focused": True, "other_page_unfocused": False}


def test_the_script_uses_the_rules_and_makes_the_form_focusable():
    script = keyboard_script("nb-elicit-view-x")
    assert focus_rule() in script and "mayTakeFocus(root, document)" in script
    assert escape_rule() in script and "escapeCancels(event, prompt)" in script
    assert enter_rule() in script and "enterSubmits(event, prompt)" in script
    assert return_rule() in script and "focusReturns(region, document.activeElement" in script
    assert "tabIndex = -1" in script
    subprocess.run([node(), "--check", "-"], input=script, text=True, timeout=60, check=True)


def test_only_fields_take_the_focus_so_no_consent_card_is_one_enter_from_agreeing():
    """A form's first field is focused; no button ever is: the URL card's Open, the sign-in
    card's Sign in, the download and trust cards' buttons are all left for a click or Tab."""
    script = keyboard_script("nb-elicit-view-x")
    assert json.dumps(FOCUSED) in script
    assert "button" not in FOCUSED.lower() and "nb-elicit-open" not in script
    for module in ("url_card", "signin_card", "download_card", "trust_card"):
        source = (Path(nb_elicit.__file__).parent / "_ui" / f"{module}.py").read_text()
        assert ".focus(" not in source and "autofocus" not in source, module
