"""Keyboard help for a call's view in the browser: focus the first field, and Escape dismisses.

ipywidgets sends the kernel no key events except Enter in a text box, so these two are done
by a small script of nb_elicit's own, shown once next to each call's view (it holds no text
from any server). The rules:

* **Focus.** When a form appears, its first field gets the keyboard focus, unless the person
  is typing somewhere else: in another form, or in a cell's editor where they have pressed
  keys since they last ran a cell (an editor that Shift+Enter just moved to, with nothing
  typed yet, does not count). The script comes with a call's first form, so the keys pressed
  before the page's first form were not seen: then a cell editor with the focus counts as
  typed in when it holds text. Only fields are focused (:data:`FOCUSED`), never a button: a
  consent card (a web page to open, a sign-in, a download, a server to trust) has no field,
  so nothing of it takes the focus, and a stray Enter cannot agree.
* **Escape** dismisses a form or card that is still open (answers ``cancel``), like its ✕
  button, but only when the focus is on the form itself: its own element (click its text or
  background) or one of its buttons. The cancel cannot be undone, so it is conservative: an
  Escape inside a field (an input, select or textarea: it may be closing the browser's
  autofill list, a native drop-down or a date picker, or ending an input method's
  composition), an Escape some other handler already took (``defaultPrevented``), one with a
  modifier key, and one typed while composing are all left alone (:func:`escape_rule`).
  JupyterLab's own Escape (leave the cell editor) never applies there: a widget in an output
  is not a cell editor. Escape anywhere else is left to JupyterLab.

Frontends that do not run scripts in outputs (GitHub, nbconvert without a kernel) simply lack
both; everything else works by mouse, Tab and Enter.
"""

from __future__ import annotations

import json

__all__ = ["FOCUSED", "escape_rule", "keyboard_script"]

#: What the script may focus when a form appears: its fields, never a button (a button that
#: agrees, such as a consent card's Open, must not be one stray Enter away).
FOCUSED = "input:not([disabled]), select:not([disabled]), textarea:not([disabled])"

_SCRIPT = """
(function install(tries) {
  var root = document.querySelector(%(selector)s);
  if (!root) {  // the widget view renders a moment after this script runs
    if (tries < 100) { setTimeout(function () { install(tries + 1); }, 100); }
    return;
  }
  if (root.dataset.nbElicitKeys) { return; }
  root.dataset.nbElicitKeys = "1";
  var prompts = ".nb-elicit-form, .nb-elicit-url-card, .nb-elicit-retry-panel";
  var controls = %(focused)s;
  var editors = ".jp-InputArea-editor, .cm-editor, .CodeMirror";
  if (!window.__nbElicitTyping) {  // one listener per page: when did the person last type?
    // (from now on: before, with no keys seen, an editor that holds text counts as typed in)
    var typing = window.__nbElicitTyping = {typed: 0, ran: 0, seen: false};
    document.addEventListener("keydown", function (event) {
      if (!event.target.closest || !event.target.closest(editors)) { return; }
      var run = event.key === "Enter" && (event.shiftKey || event.ctrlKey || event.altKey);
      typing[run ? "ran" : "typed"] = Date.now();
      typing.seen = true;
    }, true);
  }
  function typingElsewhere() {
    var active = document.activeElement;
    if (!active || active === document.body) { return false; }
    if (active.closest(editors)) {
      // Typing in a cell: keys pressed in an editor since the last time a cell was run.
      var keys = window.__nbElicitTyping;
      if (!keys.seen) {  // (the page's first form came before any key was seen)
        var editor = active.closest(editors);
        return !!(editor.textContent || "").trim();
      }
      return keys.typed > keys.ran;
    }
    return !!active.closest(prompts) &&
           /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName);
  }
  function focusFirst(prompt) {
    if (prompt.dataset.nbElicitFocused || prompt.classList.contains("nb-elicit-locked")) {
      return;
    }
    var first = prompt.querySelector(controls);
    if (!first) { return; }
    prompt.dataset.nbElicitFocused = "1";
    if (!typingElsewhere()) { first.focus(); }
  }
  function scan() {
    root.querySelectorAll(prompts).forEach(function (prompt) {
      // focusable (not by Tab): a click on its text or background puts the focus on the form
      if (!prompt.hasAttribute("tabindex")) { prompt.tabIndex = -1; }
      focusFirst(prompt);
    });
  }
  new MutationObserver(scan).observe(root, {childList: true, subtree: true});
  scan();
  %(escape_rule)s
  root.addEventListener("keydown", function (event) {
    var prompt = event.target.closest && event.target.closest(prompts);
    if (!prompt || !escapeCancels(event, prompt)) { return; }
    var dismiss = prompt.querySelector(".nb-elicit-dismiss");
    if (!dismiss || dismiss.disabled) { return; }
    event.preventDefault();
    event.stopPropagation();
    dismiss.click();
  }, true);
})(0);
"""


#: Whether an Escape ``event`` inside ``prompt`` (an open form or card) cancels it.
_ESCAPE_RULE = """function escapeCancels(event, prompt) {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing ||
        event.keyCode === 229 || event.shiftKey || event.ctrlKey || event.altKey ||
        event.metaKey) { return false; }
    if (prompt.classList.contains("nb-elicit-locked")) { return false; }
    var target = event.target;
    return target === prompt || target.tagName === "BUTTON";
  }"""


def escape_rule() -> str:
    """The script's function ``escapeCancels(event, prompt)``: when Escape cancels a prompt
    (the focus on the prompt itself or on one of its buttons, and nothing else took the key)."""
    return _ESCAPE_RULE


def keyboard_script(view_class: str) -> str:
    """The script for the view whose root element has the CSS class ``view_class``."""
    return _SCRIPT % {"selector": json.dumps("." + view_class), "escape_rule": _ESCAPE_RULE,
                      "focused": json.dumps(FOCUSED)}
