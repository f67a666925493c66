"""The example notebooks in a real JupyterLab: they open unmodified, and running them logs no error.

As ``scripts/lab.sh`` copies them (``scripts/lab_workdir.py``), their metadata is what
JupyterLab writes for the kernel, so the tab shows no unsaved changes once the kernel is ready,
and autosave has nothing to write.

Running the cells of the quickstart, tasks and apps notebooks that need nobody to answer a form
(among them ``%mcp tools``, an app shown then ``%mcp apps off``, ``%mcp disconnect``) logs no
error in the browser's console, which the person never sees, and the notebook saved after them
holds no empty output.
"""

from __future__ import annotations

import importlib.util
import json
import secrets

import pytest
from helpers.lab import REPO, read_saved

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

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


# -- running them: nothing goes wrong unseen ---------------------------------------------------

#: Console errors that come from JupyterLab itself, with nothing of nb_elicit in them: exact
#: messages, each with why it is not ours.
ALLOWED_ERRORS: tuple[str, ...] = ()

#: The cells of each example notebook run here, in order: the ones that need nobody to answer
#: a form, among them every one that once logged errors in the console (``%mcp tools``, an app
#: shown then ``%mcp apps off``, ``%mcp disconnect``).
RUN = {
    "quickstart.ipynb": (2, 4, 6, 14, 16),  # connect, %mcp tools, %mcp history, disconnect
    "tasks.ipynb": (1, 3, 5, 13, 19),  # connect, a task, %mcp tasks, disconnect
    # connect, %mcp tools, two apps, apps off, a call without its app, apps on, disconnect
    "apps.ipynb": (1, 2, 4, 6, 8, 9, 11, 12, 13, 14),
}
#: Cells whose app is shown: the app must have started before the next cell ends it.
APP_CELLS = {"apps.ipynb": (6, 8)}


def console_errors(lines: list[str]) -> list[str]:
    """The page's errors (console errors and uncaught exceptions), less the allowed ones."""
    return [line for line in lines
            if line.startswith(("[error] ", "[pageerror] "))
            and line.split("] ", 1)[1] not in ALLOWED_ERRORS]


def empty_outputs(notebook: dict, cells) -> list[tuple[int, dict]]:
    """The outputs of ``cells`` that show nothing at all (an empty text, or no data)."""
    found = []
    for index in cells:
        for output in notebook["cells"][index].get("outputs", []):
            if output["output_type"] == "stream":
                shown = "".join(output.get("text", ""))
            elif output["output_type"] in ("display_data", "execute_result"):
                shown = "".join(value if isinstance(value, str) else "".join(value)
                                if isinstance(value, list) else json.dumps(value)
                                for value in output.get("data", {}).values())
            else:
                shown = "error"
            if not shown.strip():
                found.append((index, output))
    return found


def test_running_the_example_notebooks_logs_no_error_and_saves_no_empty_output(lab):
    work = lab.server.root / lab.stem
    load_workdir().make(work)
    page = lab.page
    stacks: list[str] = []  # (the stack of each uncaught exception, to say where it came from)
    page.on("pageerror", lambda error: stacks.append(error.stack or str(error)))
    saved = {}
    for name, cells in RUN.items():
        page.goto(lab.server.url(f"/lab/workspaces/run-{secrets.token_hex(4)}/tree/"
                                 f"{lab.stem}/notebooks/{name}"))
        page.locator(".jp-Notebook .jp-Cell").first.wait_for()
        lab.wait_kernel_ready()
        for index in cells:
            lab.console.append(f"[cell] {name} {index}")  # (where each error came, when one did)
            lab.run(index)
            if index in APP_CELLS.get(name, ()):
                app = lab.cell(index).frame_locator("iframe.nb-elicit-app-frame-outer") \
                    .frame_locator("iframe")
                expect(app.locator("#state")).to_have_text("connected")
        page.wait_for_timeout(1500)  # (what the last cells' ends bring, in the console too)
        page.keyboard.press("Control+s")
        expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0)
        saved[name] = json.loads(read_saved(page, work / "notebooks" / name))
        lab.server.shut_down_sessions(f"{lab.stem}/notebooks/{name}")
    errors = console_errors(lab.console)
    # (An app's own output is emptied when the app ends, here by %mcp apps off: a display can
    # be replaced but not removed, and the call's record already says why the app ended. Its
    # cell may keep that one.)
    empty = {}
    for name, cells in RUN.items():
        found = empty_outputs(saved[name], cells)
        for cell in APP_CELLS.get(name, ()):
            app_output = next((spot for spot in found if spot[0] == cell), None)
            if app_output is not None:
                found.remove(app_output)
        if found:
            empty[name] = found
    assert not errors and not empty, (
        f"the page logged {len(errors)} error(s):\n" + "\n".join(errors)
        + "\nthe stacks of the uncaught ones:\n" + "\n".join(stacks)
        + "\nthe console, cell by cell:\n" + "\n".join(
            line.splitlines()[0] for line in lab.console
            if line.startswith(("[cell]", "[error]", "[pageerror]", "[warning]")))
        + f"\nempty outputs saved: {empty}")
