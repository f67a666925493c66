"""The example notebooks open in a real JupyterLab unmodified: as ``scripts/lab.sh`` copies them
(``scripts/lab_workdir.py``), their metadata is what JupyterLab writes for the kernel, so the tab
shows no unsaved changes once the kernel is ready, and autosave has nothing to write.
"""

from __future__ import annotations

import importlib.util
import secrets

import pytest
from helpers.lab import REPO

pytestmark = pytest.mark.once

NOTEBOOKS = sorted(path.name for path in (REPO / "notebooks").glob("*.ipynb"))


def load_workdir():
    spec = importlib.util.spec_from_file_location("lab_workdir",
                                                  REPO / "scripts" / "lab_workdir.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_an_example_notebook_opens_unmodified(lab, name):
    # The tests' kernel is this Python (the venv's python3 kernel), as lab.sh's is.
    work = lab.server.root / lab.stem
    load_workdir().make(work)
    path = work / "notebooks" / name
    before = path.read_bytes()
    page = lab.page
    page.goto(lab.server.url(f"/lab/workspaces/open-{secrets.token_hex(4)}/tree/"
                             f"{lab.stem}/notebooks/{name}"))
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    lab.wait_kernel_ready()
    page.wait_for_function(
        "() => document.querySelector('.jp-KernelName').innerText.includes('Python 3')")
    page.wait_for_timeout(3000)  # the kernel's info, the language and the spec are in
    tab = page.locator(".jp-mod-current.lm-TabBar-tab, .lm-TabBar-tab.jp-mod-current").first
    assert name in tab.inner_text()
    assert page.locator(".lm-TabBar-tab.jp-mod-dirty").count() == 0, (
        "JupyterLab marked the notebook modified on opening it")
    assert path.read_bytes() == before
    lab.server.shut_down_sessions(f"{lab.stem}/notebooks/{name}")
