"""Signing in without a person: notebooks run by nbclient (no widget frontend) against the demo
behind its local authorization server.

With tokens stored by an earlier sign-in (done here in-process, into a data directory of the
test's own, which the kernel then gets as ``JUPYTER_DATA_DIR``) the notebook connects and calls a
tool with nobody at the screen. With no tokens it ends after the headless wait, with the one
line that says what to do, well before the cell's timeout.
"""

from __future__ import annotations

import stat
import time
from datetime import datetime

import nbformat
import pytest
from helpers.notebooks import execute, kernel_env, stdout
from helpers.person import Person
from helpers.servers import drive
from helpers.signin import connect_signing_in
from nbformat.v4 import new_code_cell, new_notebook

import nb_elicit
from nb_elicit._core.signin.tokens import TokenStore

#: Each cell's limit in the notebooks run here, in seconds.
CELL_TIMEOUT = 60
#: NB_ELICIT_HEADLESS_WAIT in the kernel, in seconds.
HEADLESS_WAIT = 0.5


def _sign_in_once(url: str, data_dir, monkeypatch) -> None:
    """Sign in in this process (a scripted person and browser), keeping the tokens in
    ``data_dir``."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data_dir))

    async def scenario(person: Person):
        await connect_signing_in(person, "secured", url)
        assert len(person.seen) == 1  # the card, once

    drive(scenario)


def _notebook(url: str) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [new_code_cell("import nb_elicit\nprint(nb_elicit.__file__)\n%load_ext nb_elicit"),
                new_code_cell(f"%mcp connect secured --url {url}"),
                new_code_cell('%mcp call secured hello {"name": "a run with nobody there"}')]
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    return nb


def _seconds(cell) -> float:
    """How long the kernel took on ``cell`` (nbclient's timing metadata)."""
    timing = cell.metadata["execution"]
    start = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    return (end - start).total_seconds()


def _text(cell) -> str:
    parts = [stdout(cell)]
    for output in cell.outputs:
        if output.output_type == "stream" and output.name == "stderr":
            parts.append(output.text)
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.blocking_kernel  # (its notebook awaits a call in a cell)
@pytest.mark.timeout(180)
def test_stored_tokens_let_a_notebook_call_a_tool_with_nobody_there(demo_with_sign_in, tmp_path,
                                                                    monkeypatch):
    data_dir = tmp_path / "jupyter-data"
    _sign_in_once(demo_with_sign_in, data_dir, monkeypatch)
    store = TokenStore(demo_with_sign_in, "registered", root=data_dir / "nb_elicit" / "tokens")
    token = store.load("tokens")["token"]
    secrets = [token["access_token"], token["refresh_token"]]
    secrets += [v for v in [(store.load("client") or {}).get("client_secret")] if v]

    env = kernel_env(wait=HEADLESS_WAIT)
    env["JUPYTER_DATA_DIR"] = str(data_dir)
    started = time.monotonic()
    nb = execute(_notebook(demo_with_sign_in), tmp_path, env, timeout=CELL_TIMEOUT)
    took = time.monotonic() - started

    assert nb_elicit.__file__ in stdout(nb.cells[0])  # the kernel runs the code under test
    assert "Connected 'secured'" in _text(nb.cells[1]), _text(nb.cells[1])
    assert "Hello, a run with nobody there" in _text(nb.cells[2]), _text(nb.cells[2])
    saved = nbformat.writes(nb)
    for secret in secrets:
        assert secret not in saved
    tokens_file = store.folder / "tokens.json"
    assert stat.S_IMODE(tokens_file.stat().st_mode) == 0o600
    print(f"\nheadless notebook with stored tokens: {took:.1f} s")


@pytest.mark.blocking_kernel
@pytest.mark.timeout(180)
def test_with_no_tokens_the_notebook_ends_quickly_saying_what_to_do(demo_with_sign_in, tmp_path):
    data_dir = tmp_path / "jupyter-data"  # empty: nobody signed in
    env = kernel_env(wait=HEADLESS_WAIT)
    env["JUPYTER_DATA_DIR"] = str(data_dir)
    nb = _notebook(demo_with_sign_in)
    with pytest.raises(Exception) as caught:  # noqa: PT011 - nbclient's CellExecutionError
        execute(nb, tmp_path, env, timeout=CELL_TIMEOUT)
    assert type(caught.value).__name__ == "CellExecutionError"

    connect = nb.cells[1]
    # IPython shows a magic's UsageError as one line on stderr, and the cell fails.
    assert [o.output_type for o in connect.outputs] == ["stream"], connect.outputs
    assert connect.outputs[0].name == "stderr"
    assert connect.outputs[0].text == (
        "UsageError: could not sign in to secured: no one can sign in here (no widget "
        "frontend): sign in once in a notebook with widgets (the tokens are kept), or configure "
        "client credentials (auth='client_credentials')\n")
    took = _seconds(connect)
    assert took < CELL_TIMEOUT / 4, f"the cell took {took:.1f} s"
    assert not list(data_dir.rglob("tokens.json"))
    print(f"\nheadless notebook without tokens: the connect cell ended after {took:.1f} s")
