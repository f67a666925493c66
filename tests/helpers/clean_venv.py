"""A clean virtual environment for a test that installs nb_elicit as a person would (from the
checkout as Binder does, or from the wheel): its environment, a command run in it, and the
script that executes a notebook there."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["EXECUTE", "clean_env", "sh"]

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
