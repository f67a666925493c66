"""Real-browser fixtures: JupyterLab and Notebook 7 servers, Chromium, and a notebook driver.

One server per (application, ``commsOverSubshells`` setting, theme) and one Chromium serve every
browser module (package scope: each is started on first use and stopped after the last browser
test); each test gets its own notebook file, its own workspace, its own browser context, its own
kernel and its own demo-server journal. Every test leaves a screenshot, the server log written
during it, the browser console and the demo server's journal in
``test-artifacts/browser/<test>/``.

The server, Chromium and the notebook driver themselves are in ``tests/helpers/lab.py`` (the
benchmarks use them too). Chromium is Debian's (``/usr/bin/chromium``, installed by
``.ci/run``): without it these tests fail, they do not skip.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers.lab import (
    DEFAULT_SUBSHELLS,
    REPO,
    TIMEOUT,
    VIEWPORT,
    JupyterServer,
    LabError,
    Notebook,
    close_browser,
    launch_browser,
)

ARTIFACTS = REPO / "test-artifacts" / "browser"


# -- servers ---------------------------------------------------------------------------------------


class Servers:
    """Servers started on first use and kept for every browser module, one per (app, setting,
    theme)."""

    def __init__(self, base: Path):
        self.base = base
        self.running: dict[tuple[str, str, str], JupyterServer] = {}

    def get(self, app: str, subshells: str = DEFAULT_SUBSHELLS,
            theme: str = "light") -> JupyterServer:
        key = (app, subshells, theme)
        if key not in self.running:
            server = JupyterServer(app, subshells, self.base / f"{app}-{subshells}-{theme}",
                                   theme)
            try:
                server.start()
            except LabError as error:
                pytest.fail(str(error))
            self.running[key] = server
        return self.running[key]

    def stop(self) -> None:
        for server in self.running.values():
            server.stop()


@pytest.fixture(scope="package")
def servers(tmp_path_factory):
    started = Servers(tmp_path_factory.mktemp("jupyter"))
    yield started
    started.stop()


# -- the browser -----------------------------------------------------------------------------------


# Package scope, not session: while Playwright's sync API is started, the main thread has a
# running asyncio loop, and every later asyncio.run() in the suite would fail. The package's
# fixtures end after its last test, before any test outside tests/browser runs.
@pytest.fixture(scope="package")
def browser():
    try:
        playwright, launched = launch_browser()
    except LabError as error:
        pytest.fail(str(error), pytrace=False)
    yield launched
    close_browser(playwright, launched)


# -- failure reporting -----------------------------------------------------------------------------

ARTIFACT_DIR = pytest.StashKey[Path]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
    where = item.stash.get(ARTIFACT_DIR, None)
    if where is not None and report.failed:
        report.sections.append(("browser artifacts", _artifact_text(where)))


def _artifact_text(where: Path) -> str:
    return (f"screenshots, server log, browser console and demo journal in {where}/\n"
            f"  final screenshot: {where / 'final.png'}\n"
            f"  server log:       {where / 'jupyter.log'}")


def _failed(item) -> bool:
    return any(getattr(item, f"rep_{when}", None) is not None
               and getattr(item, f"rep_{when}").failed for when in ("setup", "call"))


# -- the notebook driver ---------------------------------------------------------------------------


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


def _open_notebook(request, server: JupyterServer, browser, viewport: dict | None = None,
                   scale: float = 1):
    """Context for one test: fresh artifacts dir, browser context, and a Notebook driver."""
    name = _safe(request.node.name)
    artifacts = ARTIFACTS / name
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    request.node.stash[ARTIFACT_DIR] = artifacts
    log_start = server.log_size()
    context = browser.new_context(viewport=viewport or VIEWPORT, device_scale_factor=scale)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: console.append(f"[pageerror] {e}"))
    notebook = Notebook(server, page, name, artifacts)
    notebook.console = console  # (what the page logged so far, for tests that read it)
    return notebook, context, console, log_start


def _close_notebook(request, notebook: Notebook, context, console, log_start) -> None:
    try:
        notebook.screenshot("final")
    except Exception as error:  # noqa: BLE001 - a broken page must not hide the test's failure
        console.append(f"[screenshot failed] {error}")
    context.close()
    try:
        notebook.server.shut_down_sessions(notebook.name)
    except OSError as error:
        console.append(f"[kernel shutdown failed] {error}")
    (notebook.artifacts / "console.log").write_text("\n".join(console) + "\n", encoding="utf-8")
    (notebook.artifacts / "jupyter.log").write_text(notebook.server.log_since(log_start),
                                                    encoding="utf-8")
    if _failed(request.node):
        print(_artifact_text(notebook.artifacts))


@pytest.fixture
def lab(request, servers, browser):
    """A notebook in JupyterLab; parametrize indirectly with a ``commsOverSubshells`` value."""
    server = servers.get("lab", getattr(request, "param", DEFAULT_SUBSHELLS))
    notebook, *rest = _open_notebook(request, server, browser)
    yield notebook
    _close_notebook(request, notebook, *rest)


@pytest.fixture
def notebook_on(request, browser):
    """``notebook_on(server)``: a notebook driver in JupyterLab on a server the test started
    itself (its artifacts, console and kernels handled as for ``lab``)."""
    opened = []

    def open_on(server: JupyterServer) -> Notebook:
        notebook, *rest = _open_notebook(request, server, browser)
        opened.append((notebook, rest))
        return notebook

    yield open_on
    for notebook, rest in opened:
        _close_notebook(request, notebook, *rest)


@pytest.fixture
def lab_dark(request, servers, browser):
    """A notebook in JupyterLab with the JupyterLab Dark theme."""
    server = servers.get("lab", DEFAULT_SUBSHELLS, "dark")
    notebook, *rest = _open_notebook(request, server, browser)
    yield notebook
    _close_notebook(request, notebook, *rest)


@pytest.fixture
def lab_zoomed(request, servers, browser):
    """JupyterLab at 200% zoom: a 1280x1600 window lays out 640x800 CSS pixels, each 2x2."""
    server = servers.get("lab")
    notebook, *rest = _open_notebook(request, server, browser,
                                     viewport={"width": 640, "height": 800}, scale=2)
    yield notebook
    _close_notebook(request, notebook, *rest)


#: The looks a layout test runs in: (theme, zoom); 200% is a 640x800 CSS-pixel window at 2x.
LOOKS = [("light", 1), ("dark", 1), ("light", 2), ("dark", 2)]


@pytest.fixture(params=LOOKS, ids=[f"{theme}-{zoom * 100}" for theme, zoom in LOOKS])
def lab_look(request, servers, browser):
    """A notebook in JupyterLab in each theme at 100% and 200% zoom; ``look`` names it."""
    theme, zoom = request.param
    server = servers.get("lab", DEFAULT_SUBSHELLS, theme)
    viewport = {"width": 640, "height": 800} if zoom == 2 else None
    notebook, *rest = _open_notebook(request, server, browser, viewport=viewport, scale=zoom)
    notebook.look = f"{theme}-{zoom * 100}"
    yield notebook
    _close_notebook(request, notebook, *rest)


@pytest.fixture
def notebook7(request, servers, browser):
    """A notebook in Notebook 7 (``jupyter notebook``)."""
    try:
        import notebook  # noqa: F401
    except ImportError:
        pytest.fail("Notebook 7 is missing: pip install 'notebook>=7,<8'", pytrace=False)
    server = servers.get("notebook")
    driver, *rest = _open_notebook(request, server, browser)
    yield driver
    _close_notebook(request, driver, *rest)
