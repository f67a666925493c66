"""Keyboard help for a call's view in the browser: focus the first field, Escape dismisses, and
the keyboard goes back to the notebook after the answer.

ipywidgets sends the kernel no key events except Enter in a text box, so these are done
by a small script of nb_elicit's own, shown once next to each call's view, next to the apps a
call shows (what an app asks may come after its call ended) and next to a form or card
displayed on its own (``display(form)``); it holds no text from any server. The rules:

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
* **Enter on a box submits.** ipywidgets submits from a text box only; the script lets Enter on
  a form's checkbox or Yes/No button submit it too (:func:`enter_rule`), as a web page's form
  does, so that a one-question Yes/No form is answered from the keyboard (Space ticks, Enter
  sends). Not with a modifier key (Shift+Enter runs a cell), not while composing, and never on
  a consent card: its boxes (a permission card's) are ticked, not agreed to, with Enter.
* **Back to the notebook.** When a form or card is answered (Submit, Enter in a field,
  Decline, Dismiss ✕ or Escape; a consent card's Open; a task card's Cancel or Detach), the
  keyboard goes back to the notebook as after Shift+Enter: command mode, the cell after the
  call's cell active, so that the next Shift+Enter runs that cell, not the call again. (The
  click that answered made the call's cell the active one; with the focus left on the page's
  body, Shift+Enter did nothing.) The script focuses that cell's node, and JupyterLab's
  notebook, which listens to ``focusin``, makes it the active cell in command mode. This
  happens only when the focus was in that form or card when it closed, or fell from it to the
  page's body (the clicked button was disabled, hidden or removed): a person typing elsewhere,
  in a cell's editor or in another form, keeps their focus (:func:`return_rule`). A call in
  the last cell selects that cell (no new cell is made). A page of a retry panel, once opened,
  gives the focus to its panel, which still waits for Retry.

* **Other output pages.** Outside a notebook's page (VS Code's output page, Voilà) a form takes
  the focus only while that page has it (:func:`focus_rule`): VS Code's cell editors live
  outside the output page, so a person typing there is seen only that way. The focus returns
  to no cell there (none is in the page, and VS Code gives an output no way to focus its
  notebook): it stays where the answer left it, and Escape and Tab work as anywhere.

Frontends that do not run scripts in outputs (GitHub, nbconvert without a kernel) simply lack
them; everything else works by mouse, Tab and Enter.
"""

from __future__ import annotations

import json

__all__ = [
    "FOCUSED",
    "STILL_OPEN",
    "enter_rule",
    "escape_rule",
    "focus_rule",
    "keyboard_script",
    "return_rule",
]

#: The class of a prompt that is answered but still open: a sign-in card after **Sign in** waits
#: for the sign-in (its link opens the page again, its paste box takes the landed address). The
#: focus in it is followed as in an open one, and goes back to the notebook once it has ended.
STILL_OPEN = "nb-elicit-still-open"

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
  var regions = ".nb-elicit-prompt, .nb-elicit-task-card";  // what the focus returns from
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
    if (!typingElsewhere() && mayTakeFocus(root, document)) { first.focus(); }
  }
  function within(selector) {  // the elements under root that match, root itself included
    var found = Array.prototype.slice.call(root.querySelectorAll(selector));
    return root.matches(selector) ? [root].concat(found) : found;
  }
  function scan() {
    within(regions).forEach(function (region) {
      // focusable (not by Tab): a click on its text or background puts the focus on it
      if (!region.hasAttribute("tabindex")) { region.tabIndex = -1; }
    });
    within(prompts).forEach(focusFirst);
  }
  %(return_rule)s
  %(focus_rule)s
  var cells = ".jp-Notebook .jp-Cell";
  function classOf(node, prefix) {  // the node's class that starts with prefix, or ""
    for (var i = 0; i < node.classList.length; i++) {
      if (node.classList[i].indexOf(prefix) === 0) { return node.classList[i]; }
    }
    return "";
  }
  if (!window.__nbElicitFocus) {  // one pair of listeners per page: was the focus in a form?
    var last = window.__nbElicitFocus = {region: null, cell: null, twin: ""};
    last.note = function (target) {  // the focus is on target now
      var region = target.closest ? target.closest(regions) : null;
      if (region && closed(region)) { region = null; }  // (an answered one, being read)
      var cell = region && region.closest(cells);
      last.region = cell ? region : null;
      last.cell = cell;
      // (how to find it again if it is drawn anew: by its own class, or as its view's card)
      var own = region && classOf(region, "nb-elicit-prompt-");
      var view = region && region.closest(".nb-elicit-call");
      last.twin = own ? "." + own : view && classOf(view, "nb-elicit-view-") ?
        "." + classOf(view, "nb-elicit-view-") + " .nb-elicit-task-card" : "";
    };
    document.addEventListener("focusin", function (event) { last.note(event.target); }, true);
    document.addEventListener("pointerdown", function (event) {
      // a click elsewhere, even on something that takes no focus: the person moved on
      if (last.region && !last.region.contains(event.target)) { last.region = null; }
    }, true);
  }
  // The focus may be in a form already (clicked into before this script came): noted as if
  // it came now. Only then are the fields scanned, so that the one focused is noted too.
  var noted = window.__nbElicitFocus, active = document.activeElement;
  if (!noted.region && noted.note && active && active !== document.body) { noted.note(active); }
  new MutationObserver(scan).observe(root, {childList: true, subtree: true});
  scan();
  function settle() {
    var last = window.__nbElicitFocus, region = last.region;
    if (!focusReturns(region, document.activeElement, document.body)) { return; }
    if (!region.isConnected && last.twin) {
      var twin = document.querySelector(last.twin);  // drawn anew, still open: not answered
      if (twin && !twin.classList.contains("nb-elicit-locked")) { last.region = twin; return; }
    }
    last.region = null;
    if (!last.cell || !last.cell.isConnected) { return; }
    var outer = region.isConnected && region.parentElement &&
                region.parentElement.closest(".nb-elicit-prompt:not(.nb-elicit-locked)");
    // JupyterLab's notebook hears the focusin: that cell becomes active, in command mode
    (outer || nextCell(last.cell)).focus();
  }
  var cell = root.closest(cells);
  if (cell && !cell.dataset.nbElicitSettle) {  // one watcher per cell, for every view in it
    cell.dataset.nbElicitSettle = "1";
    new MutationObserver(settle).observe(cell, {
      childList: true, subtree: true, attributes: true,
      attributeFilter: ["class", "disabled", "style"]});
  }
  %(escape_rule)s
  %(enter_rule)s
  root.addEventListener("keydown", function (event) {
    var prompt = event.target.closest && event.target.closest(prompts);
    if (!prompt) { return; }
    // Escape: the prompt's ✕; Enter on a form's box: its Submit (whose own button it is)
    var button = escapeCancels(event, prompt) ? prompt.querySelector(".nb-elicit-dismiss") :
                 enterSubmits(event, prompt) ? prompt.querySelector(".nb-elicit-submit") : null;
    if (!button || button.disabled) { return; }
    event.preventDefault();
    event.stopPropagation();
    button.click();
  }, true);
})(0);
"""


#: Whether a form shown under ``root`` may take the focus: in a notebook's page the typing guard
#: knows the cell editors; in any other output page (VS Code's: its cell editors live outside
#: it, where no script of an output sees them) only while the page itself has the focus.
_FOCUS_RULE = """function mayTakeFocus(root, doc) {
    return !!root.closest(".jp-Notebook") || doc.hasFocus();
  }"""


#: Whether an Escape ``event`` inside ``prompt`` (an open form or card) cancels it.
_ESCAPE_RULE = """function escapeCancels(event, prompt) {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing ||
        event.keyCode === 229 || event.shiftKey || event.ctrlKey || event.altKey ||
        event.metaKey) { return false; }
    if (prompt.classList.contains("nb-elicit-locked")) { return false; }
    var target = event.target;
    return target === prompt || target.tagName === "BUTTON";
  }"""


#: Whether an Enter ``event`` inside ``prompt`` submits it: on a checkbox or a Yes/No button
#: of an open form (a text box submits by itself), with no modifier key, not while composing.
_ENTER_RULE = """function enterSubmits(event, prompt) {
    if (event.key !== "Enter" || event.defaultPrevented || event.isComposing ||
        event.keyCode === 229 || event.shiftKey || event.ctrlKey || event.altKey ||
        event.metaKey) { return false; }
    if (!prompt.classList.contains("nb-elicit-form") ||
        prompt.classList.contains("nb-elicit-locked")) { return false; }
    var target = event.target;
    return target.tagName === "INPUT" && (target.type === "checkbox" || target.type === "radio");
  }"""


#: Whether the focus, last in ``region`` (a form or card, or null), goes back to the notebook
#: now that the page's focus is on ``active``: not when it is elsewhere (the person moved on),
#: yes when the region closed (answered: locked and not :data:`STILL_OPEN`, or gone) or the
#: focus fell from it (to the page's ``body``, or on a control that was disabled or hidden).
#: And which cell that is.
_RETURN_RULE = """function focusReturns(region, active, body) {
    if (!region) { return false; }
    var nowhere = !active || active === body;
    if (!nowhere && !region.contains(active)) { return false; }
    if (!region.isConnected || closed(region)) { return true; }
    return nowhere || !!active.disabled || !active.getClientRects().length;
  }
  function closed(region) {  // answered, and nothing of it waits any more
    return region.classList.contains("nb-elicit-locked") &&
           !region.classList.contains(STILL_OPEN);
  }
  function nextCell(cell) {
    for (var next = cell.nextElementSibling; next; next = next.nextElementSibling) {
      if (next.classList.contains("jp-Cell")) { return next; }
    }
    return cell;
  }""".replace("STILL_OPEN", json.dumps(STILL_OPEN))


def return_rule() -> str:
    """The script's functions ``focusReturns(region, active, body)``, whether the focus goes
    back to the notebook, and ``nextCell(cell)``, the cell it goes to (the next one; the
    call's own when it is the last)."""
    return _RETURN_RULE


def focus_rule() -> str:
    """The script's function ``mayTakeFocus(root, doc)``: whether a form may take the focus
    (in a notebook's page, or in another output page that has the focus)."""
    return _FOCUS_RULE


def escape_rule() -> str:
    """The script's function ``escapeCancels(event, prompt)``: when Escape cancels a prompt
    (the focus on the prompt itself or on one of its buttons, and nothing else took the key)."""
    return _ESCAPE_RULE


def enter_rule() -> str:
    """The script's function ``enterSubmits(event, prompt)``: when Enter submits a form from
    one of its checkboxes or Yes/No buttons."""
    return _ENTER_RULE


def keyboard_script(view_class: str) -> str:
    """The script for the element with the CSS class ``view_class``: a call's view, the box of
    its apps, or a prompt displayed on its own."""
    return _SCRIPT % {
        "selector": json.dumps("." + view_class),
        "escape_rule": _ESCAPE_RULE,
        "return_rule": _RETURN_RULE,
        "focus_rule": _FOCUS_RULE,
        "enter_rule": _ENTER_RULE,
        "focused": json.dumps(FOCUSED),
    }
