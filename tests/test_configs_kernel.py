"""``%mcp connect NAME`` in real kernels: a project's ``.vscode/mcp.json`` whose ``env`` uses
``${env:...}`` and an ``${input:...}`` password.

With a widget frontend (tests/helpers/frontend.py), the input's form appears in the cell, the
frontend types the value and submits, and the server sees it in its environment; declining ends
the connect in one line. Headless (nbclient), the same notebook takes the input from the
environment. Neither run leaves a trace of the value in the cell outputs.

A project file's server shows its trust card first: nothing starts before **Start** (a marker
file its command would write is absent until then), a changed entry asks again, and headless
runs start it only with ``--trust``.
"""

from __future__ import annotations

import hashlib
import json

import nbformat
import pytest
from helpers.frontend import Frontend
from helpers.notebooks import execute, kernel_env
from helpers.servers import SERVERS
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = [pytest.mark.timeout(180)]

CELL_TIMEOUT = 60
SECRET = "Tr0ub4dor&3-kernel"
DIGEST = hashlib.sha256(SECRET.encode()).hexdigest()
CONFIG = {
    "inputs": [{"type": "promptString", "id": "db-password", "description": "Database password",
                "password": True}],
    "servers": {"envy": {
        "type": "stdio", "command": "${env:NB_ELICIT_PYTHON}",
        "args": [str(SERVERS / "env_server.py")],
        "env": {"GREETING": "${env:NB_TEST_GREETING}", "DB_PASSWORD": "${input:db-password}"}}},
}


@pytest.fixture
def project(tmp_path):
    """A project folder with .vscode/mcp.json, and a home folder with no configs at all."""
    folder = tmp_path / "project"
    (folder / ".vscode").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / ".vscode" / "mcp.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    # (NB_ELICIT_TRUST: these tests are about inputs; the trust card has its own below.)
    return folder, {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "JUPYTER_DATA_DIR": str(tmp_path / "data"), "NB_ELICIT_TRUST": "envy",
                    "NB_TEST_GREETING": "hi from the kernel's environment"}


def cells(folder) -> list[str]:
    return [
        f"import os\nos.chdir({str(folder)!r})\n%load_ext nb_elicit",
        "%mcp servers",
        "%mcp connect envy",
        "import nb_elicit\nconn = nb_elicit.connections['envy']\n"
        "print((await conn.call_tool('getenv', {'name': 'GREETING'})).text)\n"
        "print((await conn.call_tool('digest', {'name': 'DB_PASSWORD'})).text)",
        "%mcp history",
    ]


def everything_shown(fe: Frontend) -> str:
    return json.dumps([fe.outputs(msg_id) for msg_id in list(fe._outputs)])


def without_inputs(env: dict) -> dict:
    return {k: v for k, v in env.items() if not k.startswith("NB_ELICIT_INPUT_")}


@pytest.mark.blocking_kernel
def test_the_input_form_asks_for_the_password_and_the_server_gets_it(project):
    folder, env = project
    with Frontend.start(env=env) as fe:
        first, servers, connect, call, history = cells(folder)
        reply, outputs = fe.run(first, timeout=CELL_TIMEOUT)
        assert reply["status"] == "ok", outputs
        reply, outputs = fe.run(servers, timeout=CELL_TIMEOUT)
        listed = outputs[-1]["data"]["text/plain"]
        assert ("envy  .vscode/mcp.json  servers.envy  stdio      ${env:NB_ELICIT_PYTHON} "
                f"{SERVERS / 'env_server.py'}  project: trusted (NB_ELICIT_TRUST)  no"
                in listed), listed

        cell = fe.execute(connect)
        (field,) = fe.wait_for(lambda: fe.find("nb-elicit-field-password"), 30, "the input form")
        assert fe.models[field].model_name == "PasswordModel"  # masked as typed
        fe.type_text(field, SECRET)
        assert fe.flush(timeout=20), fe.stalled()
        fe.click(fe.find("nb-elicit-submit")[-1])
        reply = fe.wait_reply(cell, CELL_TIMEOUT)
        assert reply["status"] == "ok", fe.outputs(cell)
        shown = json.dumps(fe.outputs(cell))
        assert "Connected 'envy'" in shown
        assert "envy: the input db-password was given." in shown

        cell = fe.execute(call)
        assert fe.wait_reply(cell, CELL_TIMEOUT)["status"] == "ok", fe.outputs(cell)
        printed = fe.stdout(cell)
        assert printed.split() == ["hi", "from", "the", "kernel's", "environment", DIGEST]

        # Kept for the kernel's life: connecting again asks nothing.
        forms_before = len(fe.find("nb-elicit-field-password"))
        reply, outputs = fe.run(connect, timeout=CELL_TIMEOUT)
        assert reply["status"] == "ok" and "Connected 'envy'" in json.dumps(outputs)
        assert len(fe.find("nb-elicit-field-password")) == forms_before == 0

        reply, _ = fe.run(history, timeout=CELL_TIMEOUT)
        reply, outputs = fe.run("conn = nb_elicit.connections['envy']\n"
                                "print(repr(conn), repr(conn.target))", timeout=CELL_TIMEOUT)
        assert reply["status"] == "ok", outputs
        assert "env keys=['DB_PASSWORD', 'GREETING']" in outputs[-1]["text"]
        assert SECRET not in everything_shown(fe)


@pytest.mark.blocking_kernel
def test_declining_the_input_ends_the_connect_in_one_line(project):
    folder, env = project
    with Frontend.start(env=env) as fe:
        first, _, connect, _, _ = cells(folder)
        assert fe.run(first, timeout=CELL_TIMEOUT)[0]["status"] == "ok"
        cell = fe.execute(connect)
        fe.wait_for(lambda: fe.find("nb-elicit-field-password"), 30, "the input form")
        fe.click(fe.find("nb-elicit-decline")[-1])
        reply = fe.wait_reply(cell, CELL_TIMEOUT)
        assert reply["status"] == "error"
        assert reply["evalue"] == "connecting 'envy' stopped: the input 'db-password' was declined"
        reply, outputs = fe.run("import nb_elicit\nprint(list(nb_elicit.connections))",
                                timeout=CELL_TIMEOUT)
        assert outputs[-1]["text"] == "[]\n"


@pytest.mark.blocking_kernel  # (its notebook awaits a call in a cell)
def test_headless_the_same_notebook_takes_the_input_from_the_environment(project, tmp_path):
    folder, env = project
    nb = new_notebook(cells=[new_code_cell(source) for source in cells(folder)])
    kernel = without_inputs(kernel_env()) | env | {"NB_ELICIT_INPUT_DB_PASSWORD": SECRET}
    executed = execute(nb, tmp_path, kernel)
    printed = "".join(o.get("text", "") for o in executed.cells[3].outputs).splitlines()
    assert "hi from the kernel's environment" in printed and DIGEST in printed
    saved = tmp_path / "saved.ipynb"
    nbformat.write(executed, saved)
    assert SECRET not in saved.read_text(encoding="utf-8")
    assert "Connected 'envy'" in json.dumps(executed.cells[2].outputs)


def test_headless_without_the_variable_the_error_names_it(project, tmp_path):
    from nbclient.exceptions import CellExecutionError

    folder, env = project
    nb = new_notebook(cells=[new_code_cell(source) for source in cells(folder)[:3]])
    with pytest.raises(CellExecutionError) as error:
        execute(nb, tmp_path, without_inputs(kernel_env()) | env)
    assert ("UsageError: 'envy' needs the input 'db-password' of .vscode/mcp.json, and no "
            "widget frontend is attached to ask for it: set NB_ELICIT_INPUT_DB_PASSWORD in the "
            "kernel's environment") in str(error.value)


# -- the trust card --------------------------------------------------------------------------

TOKEN = "ghp_kernelTokenValue-77"


def marker_config(marker, extra_args: tuple = ()) -> dict:
    """A project .mcp.json whose server writes ``marker`` when it starts, then serves the demo."""
    code = ("import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('started'); "
            "from nb_elicit.demo.__main__ import main; main([])")
    return {"mcpServers": {"seed": {"command": "${env:NB_ELICIT_PYTHON}",
                                    "args": ["-c", code, str(marker), *extra_args],
                                    "env": {"SEED_TOKEN": "${env:SEED_TOKEN}"}}}}


@pytest.fixture
def seed_project(tmp_path):
    folder = tmp_path / "seed-project"
    (folder / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    marker = tmp_path / "started.txt"
    (folder / ".mcp.json").write_text(json.dumps(marker_config(marker)), encoding="utf-8")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "JUPYTER_DATA_DIR": str(tmp_path / "data"), "SEED_TOKEN": TOKEN}
    return folder, marker, tmp_path / "data" / "nb_elicit" / "trust.json", env


@pytest.mark.blocking_kernel
def test_the_trust_card_starts_nothing_before_start_and_asks_again_when_changed(seed_project):
    folder, marker, trust_file, env = seed_project
    with Frontend.start(env=without_trust(kernel_env()) | env) as fe:
        reply, outputs = fe.run(f"import os\nos.chdir({str(folder)!r})\n%load_ext nb_elicit",
                                timeout=CELL_TIMEOUT)
        assert reply["status"] == "ok", outputs
        cell = fe.execute("%mcp connect seed")
        (start,) = fe.wait_for(lambda: fe.find("nb-elicit-start"), 30, "the trust card")
        fe.pump_for(1.0)
        assert not marker.exists()  # the card shows; nothing has started
        card = json.dumps([m.state for m in fe.models.values() if not m.closed])
        assert "SEED_TOKEN" in card and str(marker) in card
        assert "mcpServers.seed" not in card  # (where it comes from is said in words)
        assert "${env:NB_ELICIT_PYTHON} -c" in card  # (as written, under the command as it runs)
        assert "Don't start" in card and "Not now" in card
        assert TOKEN not in card
        fe.click(start)
        reply = fe.wait_reply(cell, CELL_TIMEOUT)
        assert reply["status"] == "ok", fe.outputs(cell)
        assert marker.read_text(encoding="utf-8") == "started"
        shown = json.dumps(fe.outputs(cell))
        assert "seed: trusted .mcp.json; asked again if it changes." in shown
        assert "Connected 'seed': nb-elicit-demo" in shown
        assert oct(trust_file.stat().st_mode & 0o777) == "0o600"

        marker.unlink()  # remembered: connecting again starts it at once
        reply, outputs = fe.run("%mcp connect seed", timeout=CELL_TIMEOUT)
        assert reply["status"] == "ok" and "Connected 'seed'" in json.dumps(outputs)
        assert fe.find("nb-elicit-start") == [] and marker.exists()

        marker.unlink()  # a changed entry asks again; Don't start ends the connect in one line
        (folder / ".mcp.json").write_text(json.dumps(marker_config(marker, ("--more",))),
                                          encoding="utf-8")
        cell = fe.execute("%mcp connect seed")
        fe.wait_for(lambda: fe.find("nb-elicit-start"), 30, "the trust card again")
        fe.click(fe.find("nb-elicit-decline")[-1])  # (Don't start)
        reply = fe.wait_reply(cell, CELL_TIMEOUT)
        assert reply["status"] == "error"
        assert reply["evalue"] == ("connecting 'seed' stopped: its entry in .mcp.json was not "
                                   "trusted, so nothing was started")
        assert not marker.exists()
        assert TOKEN not in everything_shown(fe)


def without_trust(env: dict) -> dict:
    return {k: v for k, v in env.items() if k != "NB_ELICIT_TRUST"}


@pytest.mark.blocking_kernel
def test_headless_a_project_server_starts_only_with_trust(seed_project):
    folder, marker, trust_file, env = seed_project
    nb = new_notebook(cells=[new_code_cell(source) for source in [
        f"import os\nos.chdir({str(folder)!r})\n%load_ext nb_elicit\nimport nb_elicit",
        "try:\n    await nb_elicit.connect('seed')\nexcept nb_elicit.ConnectError as error:\n"
        "    print(error)\n"
        f"print('marker:', os.path.exists({str(marker)!r}))",
        "%mcp connect seed --trust",
        f"print('marker:', os.path.exists({str(marker)!r}))",
    ]])
    executed = execute(nb, folder, without_trust(kernel_env()) | env)
    refused = "".join(o.get("text", "") for o in executed.cells[1].outputs)
    assert refused == (
        "'seed' comes from the project file .mcp.json (mcpServers.seed) and is not trusted, so "
        "nothing was started; approve it with %mcp connect seed --trust, connect('seed', "
        "trust=True) or NB_ELICIT_TRUST=seed\nmarker: False\n")
    assert "Connected 'seed'" in json.dumps(executed.cells[2].outputs)
    assert "".join(o.get("text", "") for o in executed.cells[3].outputs) == "marker: True\n"
    assert not trust_file.exists()  # (an approval is not remembered)
