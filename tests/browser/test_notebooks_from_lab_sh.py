"""Every bundled notebook, run from the README's command as a person runs it.

``bash scripts/lab.sh`` of a copy of this checkout (its tracked files, as they are now) sets up
a new virtual environment with what lab.sh installs (``NB_ELICIT_VENV``, in the test's temporary
folder: the developer's ``.venv`` and ``lab-work/`` stay untouched), makes the work folder
``lab-work/`` and starts JupyterLab there. In Chromium, each notebook of ``notebooks/`` is opened
in that work folder and its code cells are run from the top with Shift+Enter; each form, card
and task is answered by typing and clicking in the page, and each cell must show no error and
the line the notebook's text promises (the tool's result as the server received it).

lab.sh sets up once for the module (its setup line, then JupyterLab); that takes about 35 s with
pip's cache warm. A failure names the notebook, the cell and what the cell showed.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.lab import DEFAULT_SUBSHELLS, REPO, VENV_BIN, JupyterServer, LabError
from helpers.page import field, submit, tick, type_text

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

WAIT = 60_000
NOTEBOOKS = sorted(path.name for path in (REPO / "notebooks").glob("*.ipynb"))
#: How long lab.sh may take to set up (a new venv: pip installs the lab and agents extras).
SETUP = 600


class LabScript(JupyterServer):
    """``bash scripts/lab.sh --no-browser ...`` in a copy of the checkout, with its own venv and
    every Jupyter folder temporary."""

    def __init__(self, base: Path):
        super().__init__("lab", DEFAULT_SUBSHELLS, base)
        self.checkout = base / "checkout"
        self.root = self.checkout / "lab-work"  # (what lab.sh roots JupyterLab at)
        self.log_path = base / "lab-sh.log"
        self.took = 0.0

    def start(self) -> None:
        copy_checkout(self.checkout)
        env = self.environment(
            (
                "JUPYTER_CONFIG_DIR",
                "JUPYTER_DATA_DIR",
                "JUPYTER_RUNTIME_DIR",
                "JUPYTERLAB_WORKSPACES_DIR",
            ),
            drop=("JUPYTERLAB_SETTINGS_DIR",),
        )
        # As a person's shell: nothing of nb_elicit's settings, not the tests' venv first on
        # PATH. The venv is made with the Python that runs the tests (setup.sh's PYTHON).
        for name in [name for name in env if name.startswith("NB_ELICIT_")]:
            del env[name]
        env["PATH"] = os.pathsep.join(
            part for part in os.environ.get("PATH", "").split(os.pathsep) if Path(part) != VENV_BIN
        )
        env["NB_ELICIT_VENV"] = str(self.base / "venv")
        env["PYTHON"] = sys.executable
        # No "official Jupyter news?" toast over the cells.
        settings = (
            Path(env["JUPYTER_CONFIG_DIR"])
            / "lab"
            / "user-settings"
            / "@jupyterlab"
            / "apputils-extension"
            / "notification.jupyterlab-settings"
        )
        settings.parent.mkdir(parents=True)
        settings.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        started = time.monotonic()
        self.launch(
            [
                "bash",
                str(self.checkout / "scripts" / "lab.sh"),
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                "--LabApp.news_url=",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            env,
            "bash scripts/lab.sh",
            lambda: self.api("GET", "/api/status", timeout=2),
            timeout=SETUP,
        )
        self.took = time.monotonic() - started


def copy_checkout(target: Path) -> None:
    """The checkout's files as they are now (changed and new ones too, not what git ignores), in
    ``target``."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name, follow_symlinks=False)


@pytest.fixture(scope="module")
def lab_sh(tmp_path_factory):
    server = LabScript(tmp_path_factory.mktemp("lab-sh"))
    try:
        server.start()
    except LabError as error:
        pytest.fail(f"{error}\nsetup.sh's log:\n{setup_log(server)}", pytrace=False)
    print(f"\nlab.sh set up and started JupyterLab in {server.took:.0f} s")
    yield server
    server.stop()


def setup_log(server: LabScript) -> str:
    log = server.checkout / ".cache" / "setup.log"
    return log.read_text(encoding="utf-8")[-3000:] if log.exists() else "(none)"


# -- what the cells show ---------------------------------------------------------------------


def received(cell) -> dict:
    """What the demo server received, as its tool's result says it (the result's JSON)."""
    text = cell.locator(".nb-elicit-transcript-result").last.text_content()
    found = re.search(r'\{\s*"action"', text)
    assert found, f"no answer in the result: {text!r}"
    return json.JSONDecoder().raw_decode(text, found.start())[0]


def form_of(cell, index: int = 0):
    form = cell.locator(".nb-elicit-form").nth(index)
    form.wait_for(timeout=WAIT)
    return form


# -- the person: what each notebook's text asks them to do, cell by cell ------------------------
#
# Each entry: a piece of a code cell's source, what the person does once it runs (or None),
# and what the cell must show when it is done: texts, or a function that checks it.


def answer_contact(lab, cell) -> None:
    form = form_of(cell)
    type_text(form, "name", "Ada Lovelace")
    type_text(form, "email", "ada@example.com")
    type_text(form, "age", "36")
    submit(lab, form)


def answer_username(name: str):
    def answer(lab, cell) -> None:
        form = form_of(cell)
        type_text(form, "name", name)
        submit(lab, form)

    return answer


def fill_and_submit(**typed):
    def answer(lab, cell) -> None:
        form = form_of(cell)
        for name, text in typed.items():
            type_text(form, name, text)
        submit(lab, form)

    return answer


def press_open(lab, cell) -> None:
    cell.locator(".nb-elicit-url-card .nb-elicit-open").click()


def gets(content: dict):
    def check(cell) -> None:
        assert received(cell) == {"action": "accept", "content": content}, received(cell)

    return check


def answer_booleans(lab, cell) -> None:
    form = form_of(cell)
    form.locator(".nb-elicit-field-agree").get_by_text("Yes", exact=True).click()
    submit(lab, form)


def answer_single(lab, cell) -> None:
    form = form_of(cell)
    field(form, "fruit", "select").select_option(label="pear")
    field(form, "size", "select").select_option(label="Large")
    field(form, "plan", "select").select_option(label="Pro")
    submit(lab, form)


def answer_multi(lab, cell) -> None:
    form = form_of(cell)
    tick(form, "toppings", "olives", "cheese")
    tick(form, "days", "Tuesday", "Monday")
    submit(lab, form)


def answer_defaults(lab, cell) -> None:
    submit(lab, form_of(cell))


def press_start(lab, cell) -> None:
    cell.locator(".nb-elicit-trust-card .nb-elicit-start").click()


def choose_reading(lab, cell) -> None:
    form = form_of(cell)
    form.locator(".nb-elicit-field-interpretation select").select_option(index=2)
    submit(lab, form)


def on_task_card(button: str):
    """Click ``button`` on the cell's task card while it counts down."""

    def click(lab, cell) -> None:
        card = cell.locator(".nb-elicit-task-card")
        card.wait_for(timeout=WAIT)
        expect(card.locator(".nb-elicit-task-message")).to_contain_text(" s left", timeout=WAIT)
        card.locator(f".nb-elicit-task-{button}").click()

    return click


def send_app_message(lab, cell) -> None:
    app = cell.frame_locator("iframe.nb-elicit-app-frame-outer").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected", timeout=WAIT)
    app.locator("#message").click()
    expect(app.locator("#status")).to_have_text("Message sent.", timeout=WAIT)


def sign_in(lab, cell) -> None:
    """Click Sign in on the card (and the link it shows, on a card that shows one before it
    opens the page), then the demo's button on the page that opens."""
    card = cell.locator(".nb-elicit-signin")
    card.wait_for(timeout=WAIT)
    context = lab.page.context
    opened: list = []
    context.on("page", lambda tab: opened.append(tab))
    card.locator(".nb-elicit-signin-open").click()
    link = card.locator("a.nb-elicit-signin-link")
    deadline = time.monotonic() + WAIT / 1000
    while not opened:
        assert time.monotonic() < deadline, "no sign-in page opened"
        if link.count() and link.is_visible():
            link.click()
            break
        lab.page.wait_for_timeout(50)
    while not opened:
        assert time.monotonic() < deadline, "no sign-in page opened"
        lab.page.wait_for_timeout(50)
    tab = opened[0]
    tab.wait_for_load_state()
    tab.get_by_role("button", name="Sign in as the demo user").click()
    expect(tab.locator("body")).to_contain_text("You can close this tab.", timeout=WAIT)
    tab.close()


ADA = {"name": "Ada Lovelace", "email": "ada@example.com"}

PERSON = {
    "quickstart.ipynb": [
        ("%load_ext nb_elicit", None, ["This kernel runs"]),
        ("%mcp connect demo", None, ["Connected 'demo'"]),
        ("%mcp tools demo", None, ["contact_info", "github_username"]),
        ("%mcp call demo contact_info", answer_contact, [gets({**ADA, "age": 36})]),
        ('call_tool("github_username")', answer_username("ada"), ["'Hello, @ada!'"]),
        ("%mcp call demo sign_in", press_open, ["Signed in"]),
        ("%mcp history", None, ["contact_info", "github_username", "sign_in"]),
        ("%mcp disconnect demo", None, ["Disconnected 'demo'."]),
    ],
    "field-gallery.ipynb": [
        ("%mcp connect demo", None, ["Connected 'demo'"]),
        (
            "%mcp call demo all_fields",
            fill_and_submit(name="Ada Lovelace", email="ada@example.com"),
            [gets(ADA)],
        ),
        (
            '"Tell us about yourself"',
            fill_and_submit(name="Ada Lovelace", email="ada@example.com"),
            [gets(ADA)],
        ),
        ('"A few numbers"', fill_and_submit(age="36"), [gets({"age": 36})]),
        ('"A few yes/no questions"', answer_booleans, [gets({"agree": True, "newsletter": True})]),
        (
            '"Pick one of each"',
            answer_single,
            [gets({"fruit": "pear", "size": "l", "plan": "pro"})],
        ),
        (
            '"Choose any number"',
            answer_multi,
            [gets({"toppings": ["cheese", "olives"], "days": ["mon", "tue"]})],
        ),
        (
            '"Booking details (all prefilled)"',
            answer_defaults,
            [
                gets(
                    {
                        "nickname": "Ada",
                        "party": 2,
                        "reminder": True,
                        "room": "small",
                        "menu": ["starter", "main"],
                        "day": "2026-07-28",
                    }
                )
            ],
        ),
        ('"Where do you live?"', None, ["-32602", "nested objects are not supported"]),
        ("%mcp disconnect demo", None, ["Disconnected 'demo'."]),
    ],
    "form-gallery.ipynb": [],
    "remote-http.ipynb": [
        ("subprocess.Popen", None, ["The demo server is listening at http://127.0.0.1:"]),
        ("%mcp connect remote", None, ["Connected 'remote'"]),
        ("%mcp call remote hello", None, ["Hello, HTTP!"]),
        ("%mcp call remote github_username", answer_username("octocat"), ["Hello, @octocat!"]),
        ("%mcp disconnect remote", None, ["Disconnected 'remote'."]),
        ("server.terminate()", None, ["The demo server has stopped."]),
    ],
    "configs.ipynb": [
        ("%mcp servers", None, [".vscode/mcp.json", "servers.demo"]),
        ("%mcp connect demo", press_start, ["Connected 'demo'"]),
        ("%mcp call demo github_username", answer_username("octocat"), ["Hello, @octocat!"]),
        ("%mcp disconnect demo", None, ["Disconnected 'demo'."]),
    ],
    "tasks.ipynb": [
        ("%mcp connect demo", None, ["Connected 'demo'"]),
        ('"topic": "tides"', None, ["Research report on tides: 4 stages done."]),
        (
            '"ambiguous": true',
            choose_reading,
            [
                'Clarification received: {"action": "accept", "content": '
                '{"interpretation": "historical"}}'
            ],
        ),
        ('countdown {"seconds": 30}', on_task_card("cancel"), ["Cancelled (the server confirmed)"]),
        ('start_tool("countdown"', on_task_card("detach"), ["on the server. %mcp task demo"]),
        ("%mcp tasks", None, ["Running, detached"]),
        ("%mcp task demo {task_id}", None, ["Counted down from 10 s: done."]),
        ("task=False", None, ["'Counted down from 2 s: done.'"]),
        ("%mcp disconnect demo", None, ["Disconnected 'demo'."]),
    ],
    "apps.ipynb": [
        ("%mcp connect demo", None, ["Connected 'demo'"]),
        ("%mcp tools demo", None, ["app only"]),
        ('"label": "Kitchen"', None, ["An app of demo · clock is shown here", "Kitchen: "]),
        ('{"label": "Python"}', send_app_message, ["Python: "]),
        ("result.app_messages", None, ["Messages from the app: [", "The clock showed"]),
        ("%mcp apps demo off", None, ["MCP Apps of 'demo' are off"]),
        ("%mcp apps demo on", None, ["MCP Apps of 'demo' are on"]),
        ("%mcp disconnect demo", None, ["Disconnected 'demo'."]),
    ],
    "agents.ipynb": [
        ("from pydantic_ai import Agent", None, ["This kernel runs"]),
        ('"Who am I on GitHub?"', answer_username("ada"), ["Hello, @ada!"]),
        ("booking.run(", fill_and_submit(people="2"), ['"people":2']),
        (
            'client.call_tool("contact_info")',
            answer_contact,
            ['"action": "accept"', '"name": "Ada Lovelace"'],
        ),
        ("%mcp history", None, ["accept (person)", '"nb-elicit-demo" (named by the server)']),
    ],
    "sign-in.ipynb": [
        ("subprocess.Popen", None, ["is listening at http://127.0.0.1:"]),
        ("%mcp connect secured", sign_in, ["Connected 'secured'"]),
        ("%mcp call secured hello", None, ["Hello, signed-in notebook!"]),
        ("%mcp logout secured", None, ["Signed out of secured"]),
        ("%mcp disconnect secured", None, ["Disconnected 'secured'."]),
        ("server.terminate()", None, ["The demo server has stopped."]),
    ],
}


def shown(cell) -> str:
    return cell.locator(".jp-OutputArea").inner_text().replace("\xa0", " ")


@pytest.mark.timeout(SETUP + 300)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_bundled_notebook_runs_from_lab_sh_as_a_person_runs_it(name, lab_sh, notebook_on):
    lab = notebook_on(lab_sh)
    path = lab_sh.root / "notebooks" / name
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    page = lab.page
    page.goto(
        lab_sh.url(
            f"/lab/workspaces/{name.replace('.', '-')}-{secrets.token_hex(4)}/tree/notebooks/{name}"
        )
    )
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=WAIT)
    lab.wait_kernel_ready()
    steps = list(PERSON[name])
    for index, source in (
        (i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"
    ):
        step = next((s for s in steps if s[0] in source), None)
        if step is not None:
            steps.remove(step)
        where = f"{name}, cell {index} ({source.splitlines()[0]!r})"
        cell = lab.cell(index)
        started = time.monotonic()
        try:
            lab.run(index, wait=False)
            if step is not None and step[1] is not None:
                step[1](lab, cell)
            lab.wait_done(index)
            errors = cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
            assert errors.count() == 0, "it showed an error"
            for promised in step[2] if step is not None else []:
                if callable(promised):
                    promised(cell)
                else:
                    expect(cell.locator(".jp-OutputArea")).to_contain_text(promised)
        except (AssertionError, Exception) as error:  # noqa: BLE001 - said with the cell
            lab.screenshot(f"failed-cell-{index}")
            pytest.fail(
                f"{where}, after {time.monotonic() - started:.0f} s: "
                f"{str(error).splitlines()[0] if str(error) else type(error).__name__}\n"
                f"it showed:\n{shown(cell)[-3000:]}",
                pytrace=False,
            )
        lab.console.append(f"[cell] {index} done in {time.monotonic() - started:.1f} s")
    assert not steps, f"{name}: no code cell holds {[s[0] for s in steps]}"
    lab_sh.shut_down_sessions(f"notebooks/{name}")
