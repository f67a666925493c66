"""Where the keyboard goes once a form or card is answered, in a real JupyterLab in Chromium.

The click (or key) that answers makes the call's cell JupyterLab's active cell, and the
answered form's controls are then disabled or removed: without the keyboard script's rule the
focus fell to the page's body, where Shift+Enter does nothing, and the next Shift+Enter in the
cell would run the call again. Now the focus goes back to the notebook as after Shift+Enter:
command mode, the next cell active, and Shift+Enter runs that cell. A person typing in another
cell's editor when a form closes keeps the focus there.

The first test: one notebook, each call with a cell after it that prints a marker, one kernel
for every case. The later ones, a notebook each: a form shown with ``display(form)`` (as the
form gallery shows them; in Notebook 7 too), Enter on a form of one boolean, Open on an app's
link card after its call ended, and a sign-in finished in the other tab.
"""

from __future__ import annotations

import json
import re
import sys
import time

import pytest
from helpers.servers import free_port, start_http_server

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

WAIT = 60_000

#: Where the focus is, and what JupyterLab's notebook says: command mode and its active cell.
STATE = """() => {
    const notebook = document.querySelector('.jp-Notebook');
    const cells = [...notebook.querySelectorAll('.jp-Cell')];
    const active = document.activeElement;
    return {
        in_notebook: !!active && active !== document.body && notebook.contains(active),
        command_mode: notebook.classList.contains('jp-mod-commandMode'),
        active_cell: cells.findIndex(cell => cell.classList.contains('jp-mod-active')),
        focused: active ? (active.tagName + '.' + active.className).slice(0, 80) : null,
    };
}"""

#: The cells, from cell 2 (cell 0 loads nb_elicit, cell 1 connects the demo server): each
#: call, then a cell that prints a marker.
CASES = [
    ("submit", "%mcp call demo github_username"),
    ("enter", "%mcp call demo github_username"),
    ("decline", "%mcp call demo github_username"),
    ("dismiss", "%mcp call demo github_username"),
    ("escape", "%mcp call demo github_username"),
    ("open", '%mcp call demo sign_in {"done_after": 0.5}'),
    ("url-dismiss", "%mcp call demo sign_in"),
    ("task-cancel", '%mcp call demo countdown {"seconds": 30}'),
    ("task-detach", '%mcp call demo countdown {"seconds": 30}'),
]
CELLS = [source for name, call in CASES for source in (call, f"print('after {name}')")]


def call_cell(name: str) -> int:
    return 2 + 2 * [case for case, _ in CASES].index(name)


def prompt_number(lab, index: int) -> str:
    return lab.cell(index).locator(".jp-InputArea-prompt").inner_text()


def back_in_the_notebook(lab, call: int) -> None:
    """The call in cell ``call`` was answered: the focus is in the notebook, in command mode,
    on the next cell; Shift+Enter runs that cell (its marker prints) and not the call again."""
    expected = {"in_notebook": True, "command_mode": True, "active_cell": call + 1}
    state = settled_state(lab, expected)
    assert {key: state[key] for key in expected} == expected, state
    lab.wait_done(call)
    state = lab.page.evaluate(STATE)  # the call's end (its view frozen) moves nothing
    assert {key: state[key] for key in expected} == expected, state
    ran = prompt_number(lab, call)
    lab.page.keyboard.press("Shift+Enter")
    lab.wait_done(call + 1)
    expect(lab.cell(call + 1).locator(".jp-OutputArea")).to_contain_text(
        CELLS[call - 2 + 1].split("'")[1])
    assert prompt_number(lab, call) == ran  # the call did not run again
    assert lab.page.evaluate(STATE)["active_cell"] == call + 2  # and Shift+Enter moved on


def settled_state(lab, expected: dict, within: float = 5.0) -> dict:
    """The page's :data:`STATE` once it is ``expected``, or after ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        state = lab.page.evaluate(STATE)
        if {key: state[key] for key in expected} == expected or time.monotonic() > deadline:
            return state
        lab.page.wait_for_timeout(50)


def form_of(lab, call: int, first: str = "name"):
    """The form of the call in cell ``call``, shown, its first field focused."""
    form = lab.form(call)
    expect(form.locator(f".nb-elicit-field-{first} input")).to_be_focused()
    return form


def card_of(lab, call: int, kind: str):
    card = lab.cell(call).locator(kind)
    card.wait_for(timeout=WAIT)
    return card


def test_after_each_kind_of_answer_the_keyboard_is_back_on_the_next_cell(lab):
    lab.open(*CELLS, "scratch = 1", "%mcp call demo withdraw {\"after\": 2}", "print('last')")

    # Submit, clicked
    call = call_cell("submit")
    lab.run(call, wait=False)
    form = form_of(lab, call)
    lab.page.keyboard.type("ada", delay=10)
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    back_in_the_notebook(lab, call)

    # Enter in a field
    call = call_cell("enter")
    lab.run(call, wait=False)
    form_of(lab, call)
    lab.page.keyboard.type("ada", delay=10)
    lab.settle()
    lab.page.keyboard.press("Enter")
    back_in_the_notebook(lab, call)

    # Decline and Dismiss (✕), clicked
    for name, button in (("decline", ".nb-elicit-decline"), ("dismiss", ".nb-elicit-dismiss")):
        call = call_cell(name)
        lab.run(call, wait=False)
        form_of(lab, call).locator(button).click()
        back_in_the_notebook(lab, call)

    # Escape, with the focus on the form itself
    call = call_cell("escape")
    lab.run(call, wait=False)
    form = form_of(lab, call)
    form.locator(".nb-elicit-message-text").click()
    lab.page.keyboard.press("Escape")
    back_in_the_notebook(lab, call)

    # The web page's consent card: Open, then ✕ on another (nothing of it was focused first)
    call = call_cell("open")
    lab.run(call, wait=False)
    card_of(lab, call, ".nb-elicit-url-card").locator(".nb-elicit-open").click()
    back_in_the_notebook(lab, call)
    call = call_cell("url-dismiss")
    lab.run(call, wait=False)
    card_of(lab, call, ".nb-elicit-url-card").locator(".nb-elicit-dismiss").click()
    back_in_the_notebook(lab, call)

    # A task's card: Cancel, then Detach on another
    for name, button in (("task-cancel", ".nb-elicit-task-cancel"),
                         ("task-detach", ".nb-elicit-task-detach")):
        call = call_cell(name)
        lab.run(call, wait=False)
        card = card_of(lab, call, ".nb-elicit-task-card")
        expect(card.locator(".nb-elicit-task-message")).to_contain_text(" s left", timeout=WAIT)
        card.locator(button).click()
        back_in_the_notebook(lab, call)

    # Typing in another cell's editor when a form closes (the server withdraws it): the focus
    # stays in that editor, and what is typed after lands there too.
    scratch = 2 + len(CELLS)
    call = scratch + 1
    lab.run(call, wait=False)
    form_of(lab, call, "answer")
    editor = lab.cell(scratch).locator(".jp-InputArea-editor")
    editor.click()
    lab.page.keyboard.press("End")
    lab.page.keyboard.type(" + 1", delay=10)
    expect(lab.cell(call).locator(".nb-elicit-form.nb-elicit-locked, .nb-elicit-transcript")
           ).not_to_have_count(0, timeout=WAIT)
    lab.wait_done(call)
    lab.page.keyboard.type(" + 2", delay=10)
    state = lab.page.evaluate(STATE)
    assert state["active_cell"] == scratch and not state["command_mode"], state
    assert lab.cell(scratch).locator(".jp-InputArea-editor").evaluate(
        "e => e.contains(document.activeElement)")
    expect(editor).to_contain_text("scratch = 1 + 1 + 2")
    assert lab.journal()[-1]["event"] == "withdrawn"


def test_in_notebook_7_too(notebook7):
    lab = notebook7
    lab.open("%mcp call demo github_username", "print('after submit')")
    lab.run(2, wait=False)
    form = form_of(lab, 2)
    lab.page.keyboard.type("ada", delay=10)
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    back_in_the_notebook_7(lab)


def back_in_the_notebook_7(lab) -> None:
    expected = {"in_notebook": True, "command_mode": True, "active_cell": 3}
    state = settled_state(lab, expected)
    assert {key: state[key] for key in expected} == expected, state
    lab.wait_done(2)
    ran = prompt_number(lab, 2)
    lab.page.keyboard.press("Shift+Enter")
    expect(lab.cell(3).locator(".jp-OutputArea")).to_contain_text("after submit")
    assert prompt_number(lab, 2) == ran
    assert re.fullmatch(r"\[\d+\]:", prompt_number(lab, 3).strip())


# -- the other paths: a form shown by the Python API, one boolean, an app's link card ------------

#: A form shown by nb_elicit's Python API, as notebooks/form-gallery.ipynb shows its forms: no
#: call, no call's view (and before, no keyboard script: the focus fell to the page's body).
GALLERY_FORM = """form = nb_elicit.ElicitationForm("Your GitHub username?", {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    server="gallery")
display(form)"""


def enter_in_a_form_shown_by_the_python_api(lab) -> None:
    lab.open(GALLERY_FORM, "print('after gallery')")
    lab.run(2)
    form = form_of(lab, 2)
    lab.page.keyboard.type("ada", delay=10)
    lab.page.keyboard.press("Enter")
    expect(form.locator(".nb-elicit-status")).to_have_text("Submitted.")
    back_on_the_next_cell(lab, 2, "after gallery")


def test_after_enter_in_a_form_shown_by_the_python_api_the_keyboard_is_back(lab):
    enter_in_a_form_shown_by_the_python_api(lab)


def test_after_enter_in_a_form_shown_by_the_python_api_in_notebook_7_too(notebook7):
    enter_in_a_form_shown_by_the_python_api(notebook7)


def back_on_the_next_cell(lab, call: int, marker: str) -> None:
    """The form or card of cell ``call`` was answered: the focus is in the notebook, in command
    mode, on the next cell, and Shift+Enter runs that cell (it prints ``marker``), not cell
    ``call`` again."""
    expected = {"in_notebook": True, "command_mode": True, "active_cell": call + 1}
    state = settled_state(lab, expected)
    assert {key: state[key] for key in expected} == expected, state
    lab.wait_done(call)
    ran = prompt_number(lab, call)
    lab.page.keyboard.press("Shift+Enter")
    expect(lab.cell(call + 1).locator(".jp-OutputArea")).to_contain_text(marker)
    assert prompt_number(lab, call) == ran  # the call did not run again
    assert re.fullmatch(r"\[\d+\]:", prompt_number(lab, call + 1).strip())


#: Forms of one boolean: a Yes/No choice (required, no default), and a checkbox (a default).
ONE_BOOLEAN = [
    ("yes-no", {"type": "boolean", "title": "Go"}, ["go"]),
    ("checkbox", {"type": "boolean", "title": "Go", "default": False}, []),
]


def one_boolean_call(prop: dict, required: list) -> str:
    schema = {"type": "object", "properties": {"go": prop}, "required": required}
    arguments = {"message": "Go ahead?", "requested_schema": schema}
    return f"%mcp call demo custom_form {json.dumps(arguments)}"


def test_enter_sends_a_form_of_one_boolean_and_the_keyboard_is_back(lab):
    """Space ticks the focused Yes (or the box), Enter sends the form (before, Enter did
    nothing there), and the keyboard is back on the next cell."""
    cells = [
        (one_boolean_call(prop, required), f"print('after {name}')")
        for name, prop, required in ONE_BOOLEAN
    ]
    lab.open(*(cell for pair in cells for cell in pair))
    for round_, (name, _prop, _required) in enumerate(ONE_BOOLEAN):
        call = 2 + 2 * round_
        lab.run(call, wait=False)
        first = lab.form(call).locator(".nb-elicit-field-go input").first
        expect(first).to_be_focused()
        lab.page.keyboard.press("Space")
        expect(first).to_be_checked()
        lab.page.keyboard.press("Enter")
        assert lab.wait_journal(round_ + 1)[-1] == {
            "tool": "custom_form",
            "message": "Go ahead?",
            "action": "accept",
            "content": {"go": True},
        }, name
        back_on_the_next_cell(lab, call, f"after {name}")


def test_after_open_on_an_app_s_link_card_the_keyboard_is_back(lab):
    """The demo's clock app asks to open a link after its call has ended (the call showed no
    form, so its view brought no keyboard script, and the view is a transcript now): Open on
    the link card, and the keyboard is back on the next cell."""
    lab.open("%mcp call demo clock", "print('after link')")
    lab.run(2)
    cell = lab.cell(2)
    app = cell.frame_locator("iframe.nb-elicit-app-frame-outer").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")
    app.locator("#link").click()
    card = cell.locator(".nb-elicit-url-card")
    card.wait_for()
    card.locator(".nb-elicit-open").click()
    expect(app.locator("#status")).to_have_text("The host took the link.")
    expect(card).to_have_count(0)  # (answered, it leaves the app: the call's log tells it)
    back_on_the_next_cell(lab, 2, "after link")


@pytest.fixture
def secured(tmp_path):
    """The demo behind its authorization server on 127.0.0.1; yields its address."""
    port = free_port()
    argv = [sys.executable, "-m", "nb_elicit.demo", "--http", str(port), "--auth"]
    process = start_http_server(argv, port, tmp_path / "demo.log")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(10)


def test_after_signing_in_in_the_other_tab_the_keyboard_is_back(lab, secured, tmp_path):
    """Sign in on the card opens the sign-in page in a new tab; the person closes it, clicks
    Sign in again (the card, answered, still waits for the sign-in), signs in in the new tab and
    comes back: the call has ended in its cell, and Shift+Enter runs the next cell, not the
    sign-in's cell again (before, the focus stayed on Sign in, with that cell active)."""
    data_dir = tmp_path / "jupyter-data"
    sign_in = (
        f"import os\nos.environ['JUPYTER_DATA_DIR'] = {str(data_dir)!r}\n"
        f"conn = await nb_elicit.connect('secured', url={secured + '/mcp'!r})\n"
        "r = await conn.call_tool('hello', {'name': 'Ada'})\nprint(r.text)"
    )
    lab.open(sign_in, "print('after sign-in')")
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-signin")
    card.wait_for()
    link = card.get_by_role("link", name="Sign in")
    for _ in range(2):  # (the first tab closed unused, as a person may)
        with lab.page.context.expect_page() as opened:
            link.click()
        tab = opened.value
        tab.wait_for_load_state()
        expect(card.locator(".nb-elicit-status")).to_contain_text("in the new tab")
        if not _:
            tab.close()
    tab.get_by_role("button", name="Sign in as the demo user").click()
    expect(tab.locator("body")).to_contain_text("You can close this tab.")
    tab.close()
    lab.wait_done(2)
    expect(lab.cell(2)).to_contain_text("Hello, Ada")
    back_on_the_next_cell(lab, 2, "after sign-in")
