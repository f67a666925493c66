"""A clean virtual environment for a test that installs nb_elicit as a person would (from the
checkout as Binder does, or from the wheel): its environment, a command run in it, and the
script that executes a notebook there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat

from .notebooks import ADA, code_cell, received, result, stdout

__all__ = ["EXECUTE", "clean_env", "quickstart_ran", "run_quickstart", "sh"]

# Run by the clean environment's own python: execute a notebook with nbclient, save what
# happened.
EXECUTE = """
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

source, target = Path(sys.argv[1]), Path(sys.argv[2])
nb = nbformat.read(source, as_version=4)
try:
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(source.parent)}}).execute()
finally:
    nbformat.write(nb, target)
"""


def clean_env(home: Path, venv: Path | None = None, **extra: str) -> dict[str, str]:
    """This machine's environment (registry settings included) without this test run's venv,
    Python path, Jupyter paths or nb_elicit settings; HOME is a throwaway (pip's cache stays
    where it was), and ``venv`` comes first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PIP_USER",
                        "JPY_SESSION_NAME")
           and not k.startswith(("JUPYTER", "NB_ELICIT_", "XDG_", "CONDA"))}
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env["HOME"] = str(home)
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
    env.update(extra)
    return env


def sh(args: list, cwd: Path, env: dict[str, str], timeout: float) -> str:
    """Run a command; return its output (stdout and stderr), failing with its tail."""
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout[-4000:]}"
    return done.stdout


def run_quickstart(python: Path, notebook: Path, executed: Path, home: Path,
                   venv: Path) -> nbformat.NotebookNode:
    """Run ``notebook`` (the quickstart) with the clean environment's ``python``, the respond
    policy answering Ada; the executed notebook (its tail printed when the run fails)."""
    run_env = clean_env(home, venv, NB_ELICIT_RESPOND=f"accept {json.dumps(ADA)}")
    try:
        sh([python, "-c", EXECUTE, notebook, executed], home, run_env, 300)
    finally:
        if executed.exists():  # show what the notebook printed, when this fails
            print(executed.read_text(encoding="utf-8")[-6000:])
    return nbformat.read(executed, as_version=4)


def quickstart_ran(nb: nbformat.NotebookNode, python: Path) -> None:
    """The quickstart ran top to bottom on ``python``: no error, the form answered as Ada,
    the Python API's call answered, the server disconnected."""
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code), "not every cell ran"
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    assert f"This kernel runs {python}" in stdout(code_cell(nb, "%load_ext nb_elicit"))
    contact = code_cell(nb, "%mcp call demo contact_info")
    assert received(contact) == {"action": "accept", "content": ADA}
    python_api = code_cell(nb, 'nb_elicit.connections["demo"].call_tool("github_username")')
    assert result(python_api) == "'Hello, @Ada!'"
    assert "Disconnected 'demo'." in result(code_cell(nb, "%mcp disconnect demo"))
