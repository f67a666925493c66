"""Keyboard help for a call's view in the browser: focus the first field, and Escape dismisses.

ipywidgets sends the kernel no key events except Enter in a text box, so these two are done
by a small script of nb_elicit's own, shown once next to each call's view (it holds no text
from any server). The rules:

* **Focus.** When a form or URL card appears, its first control gets the keyboard focus,
  unless the person is typing somewhere else: in another form, or in a cell's editor where
  they have pressed keys since they last ran a cell (an editor that Shift+Enter just moved
  to, with nothing typed yet, does not count).
* **Escape** inside a form or card that is still open dismisses it (answers ``cancel``), like
  its ✕ button. JupyterLab's own Escape (leave the cell editor) never applies there: a widget
  in an output is not a cell editor. Escape anywhere else is left to JupyterLab.

Frontends that do not run scripts in outputs (GitHub, nbconvert without a kernel) simply lack
both; everything else works by mouse, Tab and Enter.
"""

from __future__ import annotations

import json

__all__ = ["keyboard_script"]

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
  var controls = "input:not([disabled]), select:not([disabled]), textarea:not([disabled]), " +
                 "button.nb-elicit-open:not([disabled])";
  var editors = ".jp-InputArea-editor, .cm-editor, .CodeMirror";
  if (!window.__nbElicitTyping) {  // one listener per page: when did the person last type?
    var typing = window.__nbElicitTyping = {typed: 0, ran: 0};
    document.addEventListener("keydown", function (event) {
      if (!event.target.closest || !event.target.closest(editors)) { return; }
      var run = event.key === "Enter" && (event.shiftKey || event.ctrlKey || event.altKey);
      typing[run ? "ran" : "typed"] = Date.now();
    }, true);
  }
  function typingElsewhere() {
    var active = document.activeElement;
    if (!active || active === document.body) { return false; }
    if (active.closest(editors)) {
      // Typing in a cell: keys pressed in an editor since the last time a cell was run.
      return window.__nbElicitTyping.typed > window.__nbElicitTyping.ran;
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
  function scan() { root.querySelectorAll(prompts).forEach(focusFirst); }
  new MutationObserver(scan).observe(root, {childList: true, subtree: true});
  scan();
  root.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var prompt = event.target.closest && event.target.closest(prompts);
    if (!prompt || prompt.classList.contains("nb-elicit-locked")) { return; }
    var dismiss = prompt.querySelector(".nb-elicit-dismiss");
    if (!dismiss || dismiss.disabled) { return; }
    event.preventDefault();
    event.stopPropagation();
    dismiss.click();
  }, true);
})(0);
"""


def keyboard_script(view_class: str) -> str:
    """The script for the view whose root element has the CSS class ``view_class``."""
    return _SCRIPT % {"selector": json.dumps("." + view_class)}
