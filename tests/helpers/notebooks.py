"""Running notebooks headless with nbclient, and reading what their cells printed."""

import json
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).parent.parent.parent / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ADA = {"name": "Ada", "email": "ada@example.com", "age": 36}
# One answer that fits every form of the field gallery; each form takes only its own fields.
EVERYTHING = {
    "name": "Ada Lovelace", "email": "ada@example.com", "username": "ada",
    "homepage": "https://example.com/ada", "birthday": "1815-12-10",
    "meeting": "2026-07-28T10:00:00Z", "age": 36, "budget": 12.5, "subscribe": True,
    "agree": True, "newsletter": False, "color": "blue", "fruit": "pear", "size": "l",
    "plan": "pro", "toppings": ["cheese", "olives"], "days": ["mon", "tue"],
}


def kernel_env(respond: str | None = None, wait: float | None = None) -> dict[str, str]:
    """This process's environment for the kernel, with the test's policy and nothing else."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NB_ELICIT_RESPOND", "NB_ELICIT_HEADLESS_WAIT", "JPY_SESSION_NAME")}
    if respond is not None:
        env["NB_ELICIT_RESPOND"] = respond
    if wait is not None:
        env["NB_ELICIT_HEADLESS_WAIT"] = str(wait)
    return env


def execute(nb: nbformat.NotebookNode, path: Path, env: dict[str, str] | None = None,
            timeout: int = 60) -> nbformat.NotebookNode:
    """Run every cell (each within ``timeout`` seconds) in a fresh kernel started in ``path``."""
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path)}})
    if env is None:
        client.execute()
    else:  # passed on to the kernel manager's start_kernel(env=...)
        client.execute(env=env)
    return nb


def run(name: str, env: dict[str, str] | None = None) -> nbformat.NotebookNode:
    return execute(nbformat.read(NOTEBOOKS / name, as_version=4), NOTEBOOKS, env)


def outputs(nb, cell_index: int) -> list:
    return nb.cells[cell_index].get("outputs", [])


def code_cell(nb, *fragments: str):
    """The one code cell whose source contains every fragment."""
    found = [c for c in nb.cells
             if c.cell_type == "code" and all(f in c.source for f in fragments)]
    assert len(found) == 1, (fragments, len(found))
    return found[0]


def stdout(cell) -> str:
    return "".join(o.text for o in cell.outputs
                   if o.output_type == "stream" and o.name == "stdout")


def result(cell) -> str:
    """The cell's execute_result as plain text."""
    return "".join(o.data.get("text/plain", "") for o in cell.outputs
                   if o.output_type == "execute_result")


def printed_json(cell) -> list:
    """Every JSON object printed by the cell, in order."""
    text, decoder, found, i = stdout(cell), json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) != -1:
        try:
            value, i = decoder.raw_decode(text, i)
            found.append(value)
        except ValueError:
            i += 1
    return found


def received(cell) -> dict:
    """What the demo server received, as its tool printed it: {"action", "content"}."""
    answers = [o for o in printed_json(cell) if "action" in o]
    assert len(answers) == 1, stdout(cell)
    return answers[0]


def assert_no_errors(nb) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert not errors, (cell.source, errors)
            assert "Traceback" not in stdout(cell) + result(cell), cell.source
