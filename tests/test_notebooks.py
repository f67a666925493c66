"""The notebooks run top to bottom in real kernels, headless (nbclient shows no widgets).

Forms are answered by the respond policy that each test sets through the kernel's environment
(``NB_ELICIT_RESPOND``), or, with no policy, cancelled after ``NB_ELICIT_HEADLESS_WAIT``
seconds. The demo server returns what it received, and nb_elicit prints tool results as plain
text when no widget frontend is attached, so the outputs show what reached the server.
"""

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from helpers import task_person
from helpers.notebooks import (
    ADA,
    EVERYTHING,
    NOTEBOOKS,
    WIDGET_VIEW,
    assert_no_errors,
    code_cell,
    execute,
    kernel_env,
    outputs,
    printed_json,
    received,
    result,
    run,
    stdout,
)
from nbformat.v4 import new_code_cell, new_notebook

# once: the committed notebooks, run end to end; what they say and do is the same on every
# Python, and the kernel paths they take run on every Python in test_kernel, test_hooks_kernel
# and test_configs_kernel.
pytestmark = [pytest.mark.blocking_kernel, pytest.mark.once]

MAKE_NOTEBOOKS = NOTEBOOKS.parent / "scripts" / "make_notebooks.py"


def load_generator():
    """scripts/make_notebooks.py as a module (it holds the gallery's schemas)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_notebooks",
                                                  MAKE_NOTEBOOKS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the form gallery (forms without a server) -------------------------------------------------

@pytest.mark.timeout(180)
def test_the_form_gallery_runs_top_to_bottom_and_shows_forms():
    nb = run("form-gallery.ipynb")
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    for i in code:
        assert not [o for o in outputs(nb, i) if o.output_type == "error"], i
    forms = [i for i in code if any(WIDGET_VIEW in o.get("data", {}) for o in outputs(nb, i))]
    assert len(forms) == 5
    refused = "".join(o.get("text", "") for o in outputs(nb, code[-1]))
    assert "properties.address: nested objects are not supported" in refused
    assert "properties.age.minimum" in refused


# `once` (this and the next): the committed notebook files, read as JSON and compared with what
# scripts/make_notebooks.py writes; no kernel runs, and no Python version changes the files.
def test_notebooks_are_saved_without_outputs():
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name


def test_the_server_notebooks_are_what_make_notebooks_writes():
    done = subprocess.run([sys.executable, str(MAKE_NOTEBOOKS), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("quickstart", "field-gallery", "remote-http", "configs", "sign-in", "tasks",
                 "apps"):
        nbformat.validate(nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4))


# -- quickstart ---------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_quickstart_runs_headless_with_an_accept_policy():
    nb = run("quickstart.ipynb", kernel_env(respond=f"accept {json.dumps(ADA)}"))
    assert_no_errors(nb)
    assert f"This kernel runs {sys.executable}" in stdout(code_cell(nb, "%load_ext nb_elicit"))
    assert "Connected 'demo': nb-elicit-demo" in result(code_cell(nb, "%mcp connect demo"))
    tools = result(code_cell(nb, "%mcp tools demo"))
    assert "contact_info" in tools and "github_username" in tools

    contact = code_cell(nb, "%mcp call demo contact_info")
    assert "Answered accept by the respond policy ($NB_ELICIT_RESPOND)" in stdout(contact)
    assert received(contact) == {"action": "accept", "content": ADA}

    python_api = code_cell(nb, 'nb_elicit.connections["demo"].call_tool("github_username")')
    assert result(python_api) == "'Hello, @Ada!'"

    sign_in = stdout(code_cell(nb, "%mcp call demo sign_in"))
    assert "never consents to a web page" in sign_in and "Not signed in: the page was not opened." in sign_in

    history = result(code_cell(nb, "%mcp history"))
    assert history.count("accept (policy)") == 2, history
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))


@pytest.mark.timeout(180)
def test_quickstart_finishes_headless_without_a_policy():
    """No policy ("ask") and no widgets: each form is cancelled after the wait, and says why."""
    started = time.monotonic()
    nb = run("quickstart.ipynb", kernel_env(wait=2))
    elapsed = time.monotonic() - started
    assert_no_errors(nb)
    contact = code_cell(nb, "%mcp call demo contact_info")
    assert "answered cancel to 1 request after 2 s" in stdout(contact)
    assert "%mcp respond demo" in stdout(contact)
    assert received(contact) == {"action": "cancel", "content": None}
    python_api = code_cell(nb, 'nb_elicit.connections["demo"].call_tool("github_username")')
    assert result(python_api) == "'No username: you chose cancel.'"
    sign_in = stdout(code_cell(nb, "%mcp call demo sign_in"))
    assert "answered cancel to 1 request after 2 s" in sign_in and "Not signed in: the page was not opened." in sign_in
    assert result(code_cell(nb, "%mcp history")).count("cancel (no frontend)") == 3
    assert elapsed >= 6  # two forms and a consent card, each given its 2 s


@pytest.mark.timeout(120)
def test_a_cancel_for_lack_of_a_frontend_reaches_the_server(tmp_path, journal):
    cells = [
        "import sys\n\n%load_ext nb_elicit",
        f"journal_path = {str(journal.path)!r}",
        "%mcp connect demo -- {sys.executable} -m nb_elicit.demo --journal {journal_path}",
        "%mcp call demo contact_info",
        "%mcp disconnect demo",
    ]
    nb = new_notebook(cells=[new_code_cell(source) for source in cells])
    execute(nb, tmp_path, kernel_env(wait=2))
    assert_no_errors(nb)
    call = stdout(code_cell(nb, "%mcp call demo contact_info"))
    assert "No widget frontend is attached" in call
    assert "%mcp respond demo decline|cancel|accept JSON" in call
    assert journal.entries() == [{"tool": "contact_info",
                                 "message": "Please provide your contact information",
                                 "action": "cancel", "content": None}]


@pytest.mark.timeout(120)
def test_a_connect_in_the_cell_of_load_ext_is_usable_in_the_next_cell(tmp_path, journal):
    # That connect runs in the background (the cell was read before %mcp was known), so the
    # next cell may run while its handshake does: the connection is there, and its call waits.
    cells = [
        "import sys\n%load_ext nb_elicit\n"
        f"%mcp connect seed -- {{sys.executable}} -m nb_elicit.demo --journal {journal.path}",
        "import nb_elicit\n"
        "conn = nb_elicit.connections['seed']\n"
        "print(conn.status in ('connecting', 'connected'))\n"
        "result = await conn.call_tool('hello', {'name': 'Ada'})\n"
        "print('result:', result.text)",
        "%mcp list",
    ]
    nb = new_notebook(cells=[new_code_cell(source) for source in cells])
    execute(nb, tmp_path, kernel_env())
    assert_no_errors(nb)
    printed = stdout(nb.cells[1]).splitlines()
    assert printed[0] == "True" and printed[-1] == "result: Hello, Ada!"
    assert "connected" in result(nb.cells[2])


# -- field gallery ------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_field_gallery_runs_headless_and_each_form_sends_its_own_fields():
    from nb_elicit.demo.server import ALL_FIELDS

    gallery = load_generator()
    nb = run("field-gallery.ipynb", kernel_env(respond=f"accept {json.dumps(EVERYTHING)}"))
    assert_no_errors(nb)

    def expected(schema: dict) -> dict:
        return {k: EVERYTHING[k] for k in schema["properties"] if k in EVERYTHING}

    everything = code_cell(nb, "%mcp call demo all_fields")
    assert received(everything) == {"action": "accept", "content": expected(ALL_FIELDS)}
    for message, schema in [("Tell us about yourself", gallery.TEXT),
                            ("A few numbers", gallery.NUMBERS),
                            ("A few yes/no questions", gallery.BOOLEANS),
                            ("Pick one of each", gallery.SINGLE),
                            ("Choose any number", gallery.MULTI)]:
        cell = code_cell(nb, "custom_form", f'"message": "{message}"')
        assert received(cell) == {"action": "accept", "content": expected(schema)}, message
    # Untouched optional fields never reach the server.
    numbers = received(code_cell(nb, "custom_form", '"message": "A few numbers"'))
    assert "guests" not in numbers["content"]
    booleans = received(code_cell(nb, "custom_form", '"message": "A few yes/no questions"'))
    assert booleans["content"] == {"agree": True, "newsletter": False}

    defaults = received(code_cell(nb, "custom_form", '"message": "Booking details'))
    assert defaults["action"] == "accept"
    for name, value in defaults["content"].items():
        assert gallery.DEFAULTS["properties"][name]["default"] == value, name

    refused = code_cell(nb, "custom_form", '"message": "Where do you live?"')
    assert "cannot show" in stdout(refused)
    errors = [o["error"] for o in printed_json(refused) if "error" in o]
    assert errors and errors[0]["code"] == -32602
    assert "nested objects are not supported" in errors[0]["message"]
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))


# -- remote HTTP --------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_remote_http_runs_headless_and_stops_its_server():
    nb = run("remote-http.ipynb", kernel_env(respond='accept {"name": "octocat"}'))
    assert_no_errors(nb)
    started = stdout(code_cell(nb, "subprocess.Popen"))
    assert started.startswith("The demo server is listening at http://127.0.0.1:")
    url = started.split()[-1]
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    assert url == f"http://127.0.0.1:{port}/mcp"

    assert "Connected 'remote': nb-elicit-demo" in result(code_cell(nb, "%mcp connect remote"))
    assert "Hello, HTTP!" in stdout(code_cell(nb, "%mcp call remote hello"))
    github = stdout(code_cell(nb, "%mcp call remote github_username"))
    assert "Answered accept by the respond policy" in github
    assert "Hello, @octocat!" in github
    assert "Disconnected 'remote'." in result(code_cell(nb, "%mcp disconnect remote"))
    assert "The demo server has stopped." in stdout(code_cell(nb, "server.wait(timeout=10)"))
    with socket.socket() as probe:  # nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", port)) != 0


# -- signing in --------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_sign_in_runs_headless_with_a_scripted_person_and_browser(tmp_path):
    """The notebook holds only what a reader types: under nbclient, a start-up file of the
    test's own (tests/helpers/signin_startup.py) clicks Sign in on the card and does what the
    browser does; the calls go through a server that answers 401 to anyone not signed in."""
    data_dir = tmp_path / "jupyter-data"  # (the tokens go there, not to this user's)
    startup = tmp_path / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copy(Path(__file__).parent / "helpers" / "signin_startup.py", startup / "00-signin.py")
    nb = run("sign-in.ipynb", kernel_env(wait=60) | {"JUPYTER_DATA_DIR": str(data_dir),
                                                     "IPYTHONDIR": str(tmp_path / "ipython")})
    assert_no_errors(nb)
    sources = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    for plumbing in ("JPY_SESSION_NAME", "someone_can_click", "client_credentials", "SECRET"):
        assert plumbing not in sources, plumbing  # (no headless branch in the notebook)
    connect = code_cell(nb, "%mcp connect secured")
    assert "Connected 'secured': nb-elicit-demo" in result(connect)
    assert "Hello, signed-in notebook!" in stdout(code_cell(nb, "%mcp call secured hello"))
    # Signing out finds the tokens the sign-in kept: the sign-in happened.
    assert "Signed out of secured" in result(code_cell(nb, "%mcp logout secured"))
    assert "The demo server has stopped." in stdout(code_cell(nb, "server.wait(timeout=10)"))


# -- MCP Apps ---------------------------------------------------------------------------------

@pytest.mark.timeout(180)
def test_apps_runs_headless_without_an_app_and_keeps_the_text_results():
    """nbclient shows no widgets: the clock's app is not shown (not even read), and every cell
    keeps the tool's text result."""
    nb = run("apps.ipynb", kernel_env(wait=2))
    assert_no_errors(nb)
    assert "Connected 'demo': nb-elicit-demo" in result(code_cell(nb, "%mcp connect demo"))
    tools = result(code_cell(nb, "%mcp tools demo"))
    assert re.search(r"^clock +app +The server's time", tools, re.M), tools
    assert re.search(r"^clock_now +app only +The server's time now", tools, re.M), tools
    kitchen = stdout(code_cell(nb, "%mcp call demo clock", "Kitchen"))
    assert re.search(r"Kitchen: \d\d:\d\d:\d\d UTC on the server", kitchen), kitchen
    assert "The clock app shows this time where widgets show." in kitchen
    assert "An app of" not in kitchen
    python_api = result(code_cell(nb, 'call_tool("clock", {"label": "Python"})'))
    assert "Python: " in python_api and " UTC on the server" in python_api
    said = stdout(code_cell(nb, "result.app_messages"))
    assert said == "Messages from the app: []\nIts model context: None\n"
    assert "MCP Apps of 'demo' are off" in result(code_cell(nb, "%mcp apps demo off"))
    off_cells = [c for c in nb.cells if c.cell_type == "code" and c.source == "%mcp call demo clock"]
    assert len(off_cells) == 1 and " UTC on the server" in stdout(off_cells[0])
    assert "MCP Apps of 'demo' are on" in result(code_cell(nb, "%mcp apps demo on"))
    assert not [o for c in nb.cells for o in c.get("outputs", [])
                if WIDGET_VIEW in o.get("data", {})]
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))


# -- servers from config files ----------------------------------------------------------------

@pytest.mark.timeout(180)
def test_configs_connects_the_demo_server_by_name(tmp_path):
    home = tmp_path / "home"  # no user-level configs: only notebooks/.vscode/mcp.json
    home.mkdir()
    # (A project file: headless, its server starts only when approved; see tests/test_trust.py.)
    env = kernel_env(respond='accept {"name": "octocat"}') | {
        "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"), "NB_ELICIT_TRUST": "demo"}
    nb = run("configs.ipynb", env)
    assert_no_errors(nb)
    listed = result(code_cell(nb, "%mcp servers"))
    assert ("demo  .vscode/mcp.json  servers.demo  stdio      ${env:NB_ELICIT_PYTHON} -m "
            "nb_elicit.demo  project: trusted (NB_ELICIT_TRUST)  no") in listed, listed
    assert "Connected 'demo': nb-elicit-demo" in result(code_cell(nb, "%mcp connect demo"))
    assert "Hello, @octocat!" in stdout(code_cell(nb, "%mcp call demo github_username"))
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))


# -- tasks -------------------------------------------------------------------------------------


def shown(cell) -> str:
    """What the cell displayed (its transcripts) as plain text."""
    return "".join(o.data.get("text/plain", "") for o in cell.outputs
                   if o.output_type == "display_data")


@pytest.mark.timeout(240)
def test_tasks_runs_headless_answers_inside_the_task_cancels_and_detaches(tmp_path):
    """The policy answers the question asked inside the task; a scripted person in the kernel
    (widgets show nowhere under nbclient) clicks Cancel task on the first countdown's card and
    Detach on the second's; the notebook then attaches to the detached task again."""
    env = kernel_env(respond='accept {"interpretation": "historical"}') | {
        "JUPYTER_DATA_DIR": str(tmp_path / "data")}  # (the file of running tasks goes there)
    nb = nbformat.read(NOTEBOOKS / "tasks.ipynb", as_version=4)
    nb.cells.insert(0, new_code_cell(task_person.cell([("countdown", "cancel"),
                                                       ("countdown", "detach")])))
    execute(nb, NOTEBOOKS, env)
    assert_no_errors(nb)
    assert "Connected 'demo': nb-elicit-demo" in result(code_cell(nb, "%mcp connect demo"))

    tides = code_cell(nb, '"topic": "tides"')
    assert "Research report on tides: 4 stages done." in stdout(tides)
    card = shown(tides)
    # (which stages the card saw depends on when its polls landed: at least one, then the end)
    assert re.search(r"Running · (Gathering sources|Analysing content|Synthesising findings|"
                     r"Writing the report) \([1-4] of 4\)…", card), card
    assert "Completed after" in card, card

    python = code_cell(nb, '"topic": "python", "ambiguous": true')
    assert ('"python" can be read three ways. Which do you mean? Answered accept by the respond '
            "policy ($NB_ELICIT_RESPOND).") in stdout(python)
    assert ('Research report on python: 4 stages done. Clarification received: {"action": '
            '"accept", "content": {"interpretation": "historical"}}.') in stdout(python)
    assert "Going on with: historical" in shown(python)

    cancelled = code_cell(nb, '%mcp call demo countdown {"seconds": 30}')
    # (the person's choice: said once, by the card, and no failure line)
    assert shown(cancelled).count("Cancelled (the server confirmed) after") == 1
    assert "✖" not in shown(cancelled) and "Cancel sent" not in shown(cancelled)
    assert "Counted down" not in shown(cancelled)

    detached = shown(code_cell(nb, 'start_tool("countdown", {"seconds": 10})'))
    found = re.search(r"Detached: the task keeps running on the server\. %mcp task demo (\S+)",
                      detached)
    assert "✖" not in detached
    assert found, detached
    task_id = found.group(1)
    listed = result(code_cell(nb, "%mcp tasks"))
    assert "Running on their servers" not in listed  # (a stdio server's tasks: not in the file)
    rows = [re.split(r"\s{2,}", line) for line in listed.splitlines()[2:]]
    assert [(row[1], row[3]) for row in rows] == [
        ("research", "Done"), ("research", "Done"), ("countdown", "Cancelled"),
        ("countdown", "Running, detached")], listed
    assert rows[-1][2] == task_id
    attached = code_cell(nb, "%mcp task demo {task_id}")
    assert "Counted down from 10 s: done." in stdout(attached)
    assert task_id in shown(attached) and "Completed after" in shown(attached)
    running = tmp_path / "data" / "nb_elicit" / "tasks.json"  # (a stdio server's: never kept)
    assert not running.exists() or task_id not in running.read_text()

    plain = code_cell(nb, "task=False")
    assert result(plain) == "'Counted down from 2 s: done.'"
    assert "task (" not in shown(plain) and "Result from demo:" in shown(plain)  # no task card
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))


# -- the transcript a call leaves -----------------------------------------------------------

SECRET_SCHEMA = {"type": "object", "required": ["user"], "properties": {
    "user": {"type": "string", "title": "User name"},
    "password": {"type": "string", "title": "Password"}}}


@pytest.mark.timeout(180)
def test_a_finished_call_leaves_a_transcript_in_the_notebook_and_in_html(tmp_path):
    """Saved and converted without a kernel: the transcript is plain HTML, secrets masked."""
    from nbconvert import HTMLExporter

    arguments = json.dumps({"message": "Log in <b>now</b>", "requested_schema": SECRET_SCHEMA})
    nb = new_notebook(cells=[
        new_code_cell("%load_ext nb_elicit"),
        new_code_cell(f"%mcp connect demo -- {sys.executable} -m nb_elicit.demo"),
        new_code_cell(f"%mcp call demo custom_form {arguments}"),
    ])
    policy = 'accept {"user": "ada", "password": "hunter2"}'
    execute(nb, tmp_path, kernel_env(respond=policy))
    assert_no_errors(nb)
    saved = tmp_path / "saved.ipynb"
    nbformat.write(nb, saved)
    nb = nbformat.read(saved, as_version=4)
    call = nb.cells[2]
    assert not [o for o in call.outputs if WIDGET_VIEW in o.get("data", {})]
    (transcript,) = [o.data["text/html"] for o in call.outputs
                 if "nb-elicit-transcript" in o.get("data", {}).get("text/html", "")]
    assert "Log in &lt;b&gt;now&lt;/b&gt;" in transcript and "<b>now</b>" not in transcript
    assert "Answered accept by the respond policy" in transcript
    assert "User name" in transcript and "ada" in transcript
    asked, result = transcript.split('<div class="nb-elicit-transcript-result">')
    assert "••••••" in asked and "hunter2" not in asked  # the fields sent, masked
    assert "hunter2" in result  # (the demo tool echoes what it got: that is the server's text)
    page, _ = HTMLExporter().from_notebook_node(nb)
    assert "nb-elicit-transcript" in page and "User name" in page
    assert f'<script type="{WIDGET_VIEW}">' not in page  # no widget left to fail to display


# -- agents ---------------------------------------------------------------------------------------

#: One answer for every form of agents.ipynb (each form takes only its own fields).
AGENT_ANSWERS = {**ADA, "people": 2}


@pytest.mark.timeout(240)
@pytest.mark.blocking_kernel
def test_agents_runs_headless_and_the_policy_answers_each_framework():
    """pydantic-ai (TestModel) over MCPToolset, twice, then the SDK's Client: nobody to type,
    so the respond policy answers, by the same way as on a connection, in the cell that ran."""
    nb = run("agents.ipynb", kernel_env(respond=f"accept {json.dumps(AGENT_ANSWERS)}"))
    assert_no_errors(nb)
    github = code_cell(nb, 'agent.run("Who am I on GitHub?")')
    assert "Answered accept by the respond policy ($NB_ELICIT_RESPOND)" in stdout(github)
    assert '"Hello, @Ada!"' in stdout(github)
    booking = code_cell(nb, "booking.run(")
    assert "Answered accept by the respond policy" in stdout(booking)
    assert '"content":{"people":2}' in stdout(booking)
    sdk = code_cell(nb, 'client.call_tool("contact_info")')
    assert "Answered accept by the respond policy" in stdout(sdk)
    printed = stdout(sdk)
    assert json.loads(printed[printed.index("{"):]) == {"action": "accept", "content": ADA}
    history = result(code_cell(nb, "%mcp history"))
    assert history.count("  demo · elicitation") == 2, history  # (labelled .named("demo"))
    assert history.count('  "nb-elicit-demo" (named by the server) · elicitation') == 1, \
        history  # (the server's name, as its claim)
    assert history.count("accept (policy)") == 3, history
