"""``bash scripts/lab.sh`` starts JupyterLab for whoever runs it (root included), rooted at the
work folder ``lab-work/`` (copies of the example notebooks, and a link to the docs), so that the
README's path ``lab/tree/notebooks/quickstart.ipynb`` opens the quickstart, as it does on Binder,
and running the demos leaves the checkout's notebooks unchanged.

The script runs as the current user (root in CI, where Jupyter refuses to start without
``--allow-root``), with the venv that runs the tests (``NB_ELICIT_VENV``), a free port and
``--no-browser`` passed on to ``jupyter lab``.
"""

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.once

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, token: str, path: str):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


@pytest.mark.timeout(300)
def test_lab_script_starts_jupyterlab_rooted_at_the_work_folder(tmp_path):
    port, token = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "NB_ELICIT_")) and k != "JPY_SESSION_NAME"}
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                 "JUPYTERLAB_WORKSPACES_DIR"):
        env[name] = str(tmp_path / name.lower())
    env["NB_ELICIT_VENV"] = str(VENV)
    log_path = tmp_path / "lab.log"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            ["bash", str(REPO / "scripts" / "lab.sh"), "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 240  # setup's check, then the server's start
        while True:
            if process.poll() is not None:
                pytest.fail(f"scripts/lab.sh exited with {process.returncode}:\n"
                            f"{log_path.read_text(encoding='utf-8')[-4000:]}")
            try:
                status = _get(port, token, "/api/status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not answer /api/status:\n"
                                f"{log_path.read_text(encoding='utf-8')[-4000:]}")
                time.sleep(0.2)
        assert "started" in status
        # Rooted at the work folder: the README's local path is the copy of the quickstart,
        # and the notebooks' links to ../docs/ work there too.
        notebook = _get(port, token, "/api/contents/notebooks/quickstart.ipynb?content=0")
        assert notebook["type"] == "notebook"
        assert (REPO / "lab-work" / "notebooks" / "quickstart.ipynb").exists()
        assert _get(port, token, "/api/contents/docs/apps.md?content=0")["type"] == "file"
        assert "setup: " in log_path.read_text(encoding="utf-8")  # progress, one line a step
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


def test_the_work_folder_holds_every_file_the_notebooks_read(tmp_path):
    """configs.ipynb connects by name from notebooks/.vscode/mcp.json: the work folder has it,
    and every notebook; --fresh replaces the config too."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import lab_workdir
    finally:
        sys.path.remove(str(REPO / "scripts"))
    lab_workdir.make(tmp_path)
    copied = tmp_path / "notebooks" / ".vscode" / "mcp.json"
    assert copied.read_bytes() == (REPO / "notebooks" / ".vscode" / "mcp.json").read_bytes()
    assert sorted(p.name for p in (tmp_path / "notebooks").glob("*.ipynb")) == sorted(
        p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    copied.write_text("{}")
    lab_workdir.make(tmp_path)  # (what the person changed stays)
    assert copied.read_text() == "{}"
    lab_workdir.make(tmp_path, fresh=True)
    assert copied.read_bytes() == (REPO / "notebooks" / ".vscode" / "mcp.json").read_bytes()
