"""The keyboard script's Escape rule, run in Node on events as a browser makes them (the real
browser checks are in tests/browser/test_polish.py)."""

import json
import subprocess
from pathlib import Path

import pytest
from helpers.node import node

import nb_elicit
from nb_elicit._ui.keyboard import FOCUSED, escape_rule, keyboard_script

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


def test_the_script_uses_the_rule_and_makes_the_form_focusable():
    script = keyboard_script("nb-elicit-view-x")
    assert escape_rule() in script and "escapeCancels(event, prompt)" in script
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
