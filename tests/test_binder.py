"""The Binder configuration in binder/ works, proved without Binder or Docker.

repo2docker copies the repository, installs binder/requirements.txt, then runs binder/postBuild
from the repository root. These tests do the same in a fresh venv with a throwaway HOME, then
run notebooks/quickstart.ipynb and notebooks/agents.ipynb in that venv's kernel, headless, as a person on Binder would run
it (the form answered by the respond policy). They install from the package registry, so they
take a minute or two.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from helpers.clean_venv import EXECUTE, clean_env, quickstart_ran, run_quickstart, sh
from helpers.notebooks import ADA, code_cell, stdout

pytestmark = pytest.mark.once

REPO = Path(__file__).resolve().parent.parent
BINDER = REPO / "binder"
SKIP = {".git", ".venv", ".cache", "__pycache__", ".pytest_cache", ".ruff_cache",
        ".ipynb_checkpoints", "build", "dist", "test-artifacts"}

def repository_files() -> list[str]:
    """The files repo2docker would copy: tracked and untracked, less what git ignores."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=REPO, capture_output=True,
                                check=True, timeout=60).stdout.decode()
        names = [name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = [str(path.relative_to(REPO)) for path in REPO.rglob("*")
                 if not SKIP & set(path.relative_to(REPO).parts)]
    return [name for name in names if (REPO / name).is_file()]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the repository, as repo2docker sees it (file modes kept)."""
    root = tmp_path_factory.mktemp("binder") / "repo"
    for name in repository_files():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    return root


def test_binder_files_are_what_repo2docker_reads():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    requirements = [line.split("#")[0].strip()
                    for line in (BINDER / "requirements.txt").read_text().splitlines()]
    assert "jupyterlab>=4.4,<5" in requirements
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "binder/postBuild must be executable"
    assert post_build.read_text().startswith("#!/usr/bin/env bash\n")
    # (nb_elicit with the agent frameworks of notebooks/agents.ipynb, pinned by its extra)
    assert 'python -m pip install --no-cache-dir ".[lab,agents]"' in post_build.read_text()


@pytest.mark.timeout(900)
def test_a_venv_built_from_binder_alone_runs_the_quickstart(checkout, tmp_path):
    venv, home = tmp_path / "venv", tmp_path / "home"
    home.mkdir()
    sh([sys.executable, "-m", "venv", venv], tmp_path, clean_env(home), 120)
    env = clean_env(home, venv)
    python = venv / "bin" / "python"

    # repo2docker: pip install -r binder/requirements.txt, then ./binder/postBuild, both from
    # the repository root.
    sh([python, "-m", "pip", "install", "--no-cache-dir", "-r", "binder/requirements.txt"],
       checkout, env, 600)
    sh([checkout / "binder" / "postBuild"], checkout, env, 600)

    # nb_elicit comes from the venv (not from the checkout), and JupyterLab shows widgets.
    where = sh([python, "-c", "import nb_elicit; print(nb_elicit.__file__)"], home, env, 60)
    assert where.strip().startswith(str(venv)), where
    assert sh([venv / "bin" / "jupyter", "lab", "--version"], home, env, 60).startswith("4.")
    extensions = sh([venv / "bin" / "jupyter", "labextension", "list"], home, env, 60)
    assert "@jupyter-widgets/jupyterlab-manager" in extensions, extensions

    nb = run_quickstart(python, checkout / "notebooks" / "quickstart.ipynb",
                        tmp_path / "quickstart.out.ipynb", home, venv)
    quickstart_ran(nb, python)

    # notebooks/agents.ipynb: the frameworks of the agents extra, installed by postBuild.
    executed = tmp_path / "agents.out.ipynb"
    run_env = clean_env(home, venv, NB_ELICIT_RESPOND=f"accept {json.dumps({**ADA, 'people': 2})}")
    sh([python, "-c", EXECUTE, checkout / "notebooks" / "agents.ipynb", executed],
       home, run_env, 300)
    nb = nbformat.read(executed, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code), "not every cell of agents.ipynb ran"
    assert not [o for cell in code for o in cell.outputs if o.output_type == "error"]
    assert '"Hello, @Ada!"' in stdout(code_cell(nb, 'agent.run("Who am I on GitHub?")'))


@pytest.mark.timeout(600)
def test_repo2docker_would_build_it(checkout, tmp_path):
    """repo2docker itself (no Docker here: --no-build prints the Dockerfile it would build)."""
    venv, home = tmp_path / "r2d", tmp_path / "home"
    home.mkdir()
    sh([sys.executable, "-m", "venv", venv], tmp_path, clean_env(home), 120)
    env = clean_env(home, venv)
    sh([venv / "bin" / "python", "-m", "pip", "install", "--no-cache-dir", "jupyter-repo2docker"],
       tmp_path, env, 600)
    out = sh([venv / "bin" / "repo2docker", "--no-build", "--debug", "--user-id", "1000",
              "--user-name", "jovyan", checkout], tmp_path, env, 300)
    assert "Building conda environment for python=3.11" in out, out
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in out, out
    assert "RUN ./binder/postBuild" in out, out
