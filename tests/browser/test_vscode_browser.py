"""nb_elicit in VS Code's notebook output page, emulated around the real npm packages
(``tests/helpers/vscode.py`` says what runs as in VS Code and what does not), in Chromium.

VS Code's own local kernel has no session (no ``JPY_SESSION_NAME``), its widget manager never
opens ipywidgets' control comm, and its start-up code sets ``__vsc_ipynb_file__``. There:

1. a blocking ``%mcp call`` shows its form, and what the person types reaches the server;
2. the keyboard script runs in the output page: the form's first field takes the focus, and
   Escape on the form dismisses it;
3. the demo's clock app shows its frame, its code loaded from the environment's
   ``share/jupyter/nbextensions`` (anywidget), and its button reaches the server;
4. a form left alone for 25 s stays open and can still be answered (it was answered ``cancel``
   after 10 s while nb_elicit took the kernel for one with no frontend attached);
5. without the start-up code (no ``__vsc_ipynb_file__``), the form's displayed view, counted by
   the bundle's ``@jupyter-widgets/base``, tells the kernel that a person sees it.

One Jupyter server serves this module's page; each test has its own kernel, shut down after it,
and its own demo server journal. Screenshots, the server log written during the test, the
browser console and the journal go to ``test-artifacts/browser/<test>/``.
"""

from __future__ import annotations

import re
import shutil

import pytest
from helpers.lab import TIMEOUT, VIEWPORT, LabError
from helpers.vscode import OutputPage, VSCodeServer, errors_in

from .conftest import ARTIFACT_DIR, ARTIFACTS, _close_notebook, _safe
from .test_browser import field, submit, type_text

pytestmark = [pytest.mark.once, pytest.mark.blocking_kernel, pytest.mark.timeout(300)]

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

GITHUB_MESSAGE = "Please provide your GitHub username"
#: How long the person of test 4 leaves the form alone (the old no-frontend timer: 10 s).
LEFT_ALONE = 25_000
TIME = re.compile(r"^\d\d:\d\d:\d\d UTC$")
SCRIPT = '.vsc-output[data-mime="application/javascript"]'


@pytest.fixture(scope="module")
def vscode_server(tmp_path_factory):
    server = VSCodeServer(tmp_path_factory.mktemp("vscode"))
    try:
        server.start()
    except LabError as error:
        pytest.fail(str(error), pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def vscode(request, vscode_server, browser):
    name = _safe(request.node.name)
    artifacts = ARTIFACTS / name
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    request.node.stash[ARTIFACT_DIR] = artifacts
    log_start = vscode_server.log_size()
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: console.append(f"[pageerror] {e}"))
    driver = OutputPage(vscode_server, page, name, artifacts)
    driver.console = console
    yield driver
    _close_notebook(request, driver, context, console, log_start)


def github_form(vscode: OutputPage, *after: str):
    """The demo's GitHub username form of a blocking ``%mcp call`` in cell 3, shown; cell 2 has
    said first how the kernel runs (the local kernel's way)."""
    vscode.open("import os, ipywidgets\n"
                "print(os.environ.get('JPY_SESSION_NAME'), ipywidgets.Widget._control_comm, "
                "__vsc_ipynb_file__.endswith('.ipynb'))",
                "%mcp call demo github_username", *after)
    vscode.run(2)
    assert vscode.text(2).split() == ["None", "None", "True"]
    vscode.run(3, wait=False)
    form = vscode.form(3)
    expect(form).to_contain_text(GITHUB_MESSAGE)
    return form


# -- 1. a blocking call, answered -----------------------------------------------------------------


def test_a_blocking_call_shows_its_form_and_the_answer_reaches_the_server(vscode):
    form = github_form(vscode)
    vscode.screenshot("form")
    type_text(form, "name", "ada-lovelace")
    submit(vscode, form, 3)
    assert vscode.wait_journal(1) == [{"tool": "github_username", "message": GITHUB_MESSAGE,
                                      "action": "accept", "content": {"name": "ada-lovelace"}}]
    assert vscode.status(3) == "ok"
    expect(vscode.cell(3)).to_contain_text("Hello, @ada-lovelace!")
    expect(vscode.cell(3).locator(".nb-elicit-transcript")).to_contain_text("Submitted.")
    assert errors_in(vscode.console) == []


# -- 2. the keyboard script: focus, and Escape on the form ---------------------------------------


def test_the_keyboard_script_focuses_the_form_and_escape_dismisses_it(vscode):
    form = github_form(vscode)
    expect(vscode.cell(3).locator(SCRIPT)).to_have_count(1)
    expect(field(form, "name")).to_be_focused()
    vscode.page.keyboard.press("Escape")  # (in a field: the field's, the form stays)
    vscode.page.wait_for_timeout(500)
    assert vscode.journal() == []
    form.locator(".nb-elicit-message-text").click()  # the focus on the form itself
    vscode.page.keyboard.press("Escape")
    assert vscode.wait_journal(1) == [{"tool": "github_username", "message": GITHUB_MESSAGE,
                                      "action": "cancel", "content": None}]
    vscode.wait_done(3)
    expect(vscode.cell(3).locator(".nb-elicit-transcript")).to_contain_text("Dismissed.")
    assert errors_in(vscode.console) == []


# -- 3. an MCP App: the demo's clock --------------------------------------------------------------


def test_the_clock_app_shows_its_frame_and_its_button_reaches_the_server(vscode):
    vscode.open('%mcp call demo clock {"label": "Kitchen"}')
    vscode.run(2)
    cell = vscode.cell(2)
    expect(cell).to_contain_text("Kitchen: ")
    outer = cell.locator("iframe.nb-elicit-app-frame-outer")
    outer.wait_for()
    assert "allow-same-origin" not in outer.get_attribute("sandbox").split()
    app = cell.frame_locator("iframe.nb-elicit-app-frame-outer").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")
    expect(app.locator("#label")).to_have_text("Kitchen")
    expect(app.locator("#time")).to_have_text(TIME)
    app.locator("#again").click()
    expect(app.locator("#source")).to_have_text("from clock_now, called by this app")
    expect(app.locator("#status")).to_have_text("The server answered.")
    (called,) = vscode.wait_journal(1)
    assert called["tool"] == "clock_now" and called["event"] == "called"
    expect(cell.get_by_text("The app called clock_now.")).to_have_count(1)
    vscode.screenshot("clock-app", of=cell)
    assert errors_in(vscode.console) == []


# -- 4. a form left alone ---------------------------------------------------------------------------


def test_a_form_left_alone_for_25_s_stays_open_and_is_answered(vscode):
    form = github_form(vscode)
    vscode.page.wait_for_timeout(LEFT_ALONE)  # the person takes their time
    assert vscode.answers() == [], "the form was answered without its person"
    expect(form.locator(".nb-elicit-submit")).to_be_enabled()
    type_text(form, "name", "ada-lovelace")
    submit(vscode, form, 3)
    assert vscode.wait_journal(1) == [{"tool": "github_username", "message": GITHUB_MESSAGE,
                                      "action": "accept", "content": {"name": "ada-lovelace"}}]
    expect(vscode.cell(3)).to_contain_text("Hello, @ada-lovelace!")
    assert errors_in(vscode.console) == []


# -- 5. without VS Code's start-up code: the displayed form is counted ------------------------------


def test_without_the_start_up_code_a_displayed_form_is_counted_and_waits(vscode):
    """No ``__vsc_ipynb_file__``: nothing tells the kernel that VS Code shows widgets but the
    form's displayed view, which the bundle's @jupyter-widgets/base counts (``_view_count``)."""
    vscode.open("import os\nos.environ['NB_ELICIT_HEADLESS_WAIT'] = '2'\n"
                "print('__vsc_ipynb_file__' in globals())",
                "%mcp call demo github_username", startup=False)
    vscode.run(2)
    assert vscode.text(2).split() == ["False"]
    vscode.run(3, wait=False)
    form = vscode.form(3)
    vscode.page.wait_for_timeout(4 * 2_000)  # twice over the (shortened) no-frontend wait
    assert vscode.answers() == [], "the form was answered without its person"
    type_text(form, "name", "ada-lovelace")
    submit(vscode, form, 3)
    assert vscode.wait_journal(1)[0]["action"] == "accept"
    assert errors_in(vscode.console) == []
