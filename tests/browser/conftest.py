"""Real-browser fixtures: JupyterLab and Notebook 7 servers, Chromium, and a notebook driver.

One server per (application, ``commsOverSubshells`` setting, theme) and one Chromium serve every
browser module (package scope: each is started on first use and stopped after the last browser
test); each test gets its own notebook file, its own workspace, its own browser context, its own
kernel and its own demo-server journal. Every test leaves a screenshot, the server log written
during it, the browser console and the demo server's journal in
``test-artifacts/browser/<test>/``.

Chromium is Debian's (``/usr/bin/chromium``, installed by ``.ci/run``): without it these tests
fail, they do not skip.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]
#: The bin directory of the Python running the tests (the venv): its python is the kernel's.
VENV_BIN = Path(sys.executable).parent
#: The longest any single wait may take, in milliseconds.
TIMEOUT = 60_000
#: How long an expect() assertion retries before it fails, in milliseconds.
EXPECT_TIMEOUT = 30_000
VIEWPORT = {"width": 1280, "height": 1600}
DEFAULT_SUBSHELLS = "perCommTarget"


# -- servers ---------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


class JupyterServer:
    """``jupyter lab`` or ``jupyter notebook`` on 127.0.0.1, with every directory temporary."""

    def __init__(self, app: str, subshells: str, base: Path, theme: str = "light"):
        self.app, self.subshells, self.base, self.theme = app, subshells, base, theme
        self.root = base / "root"
        self.log_path = base / "server.log"
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ)
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                     "JUPYTERLAB_WORKSPACES_DIR"):
            env[name] = str(self.base / name.lower())
            Path(env[name]).mkdir(parents=True)
        for name in ("JUPYTERLAB_SETTINGS_DIR", "JUPYTER_PATH", "JPY_SESSION_NAME",
                     "NB_ELICIT_RESPOND", "NB_ELICIT_HEADLESS_WAIT"):
            env.pop(name, None)
        env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
        self.root.mkdir()
        settings = Path(env["JUPYTER_CONFIG_DIR"]) / "lab" / "user-settings" / "@jupyterlab"
        _write_json(settings / "apputils-extension" / "kernels-settings.jupyterlab-settings",
                    {"commsOverSubshells": self.subshells})
        if self.theme == "dark":
            _write_json(settings / "apputils-extension" / "themes.jupyterlab-settings",
                        {"theme": "JupyterLab Dark"})
        # No "Would you like to get notified about official Jupyter news?" toast.
        _write_json(settings / "apputils-extension" / "notification.jupyterlab-settings",
                    {"fetchNews": "false", "checkForUpdates": False})
        jupyter = VENV_BIN / "jupyter"
        if not jupyter.exists():
            pytest.fail(f"{jupyter} is missing: run the tests with the venv's python "
                        "(bash scripts/test.sh sets it up)")
        log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - the process keeps it
        self.process = subprocess.Popen(
            [str(jupyter), self.app, "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={self.port}", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={self.root}", "--ServerApp.port_retries=0",
             "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=self.root)
        log.close()
        deadline = time.monotonic() + TIMEOUT / 1000
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"jupyter {self.app} exited with {self.process.returncode}:\n"
                            f"{self.log_tail()}")
            try:
                self.api("GET", "/api/status", timeout=2)
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"jupyter {self.app} did not answer /api/status within "
                                f"{TIMEOUT // 1000} s:\n{self.log_tail()}")
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}?token={self.token}"

    def api(self, method: str, path: str, timeout: float = 30):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shut_down_sessions(self, notebook: str) -> None:
        """End the kernels of ``notebook`` (and with them its demo server)."""
        for session in self.api("GET", "/api/sessions") or []:
            if session.get("path") == notebook:
                self.api("DELETE", f"/api/sessions/{session['id']}")

    def log_size(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_since(self, offset: int) -> str:
        with open(self.log_path, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_since(0).splitlines()[-lines:])


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
            server.start()
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
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing: the browser tests need {CHROMIUM}. Install it as root "
                    "with `apt-get install -y chromium` (.ci/run does this when it is missing).",
                    pytrace=False)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing: pip install -e '.[test]' "
                    "(no `playwright install` needed; the tests use Debian's Chromium)",
                    pytrace=False)
    # expect()'s own default is 5 s: too tight on a loaded 2-core machine, and no hang-catcher.
    expect.set_options(timeout=EXPECT_TIMEOUT)
    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    except Exception as error:
        playwright.stop()
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {error}", pytrace=False)
    yield launched
    launched.close()
    playwright.stop()


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


def _ws_frame(payload) -> dict | None:
    """A kernel websocket frame as {channel, header, parent_header, content}, or None."""
    try:
        if isinstance(payload, str):
            message = json.loads(payload)
            return {k: message.get(k) for k in ("channel", "header", "parent_header",
                                                  "content")}
        # The v1 protocol (v1.kernel.websocket.jupyter.org): the number of offsets, the offsets
        # (uint64 little-endian), then channel, header, parent_header, metadata, content and
        # buffers; the last part runs to the end of the frame.
        count = int.from_bytes(payload[:8], "little")
        offsets = [int.from_bytes(payload[8 * (i + 1):8 * (i + 2)], "little")
                   for i in range(count)]
        parts = [payload[offsets[i]:offsets[i + 1]] for i in range(count - 1)]
        parts.append(payload[offsets[-1]:])
        return {"channel": parts[0].decode(), "header": json.loads(parts[1]),
                "parent_header": json.loads(parts[2]), "content": json.loads(parts[4])}
    except (ValueError, IndexError, UnicodeDecodeError):
        return None


class Wire:
    """Watches the page's kernel websocket: which widget messages the kernel has finished.

    JupyterLab's widget manager keeps one message in flight per widget and sends the next update
    only after the kernel's ``status: idle`` for the previous one. :meth:`settle` waits until
    every widget message the page sent has its idle and the page has been quiet for a moment,
    so a click that follows cannot overtake the last keystroke.
    """

    QUIET = 0.15  # seconds without a new widget message

    def __init__(self, page):
        self.page = page
        self.in_flight: dict[str, float] = {}
        self.last_sent = 0.0
        #: Every widget message sent, as (msg_id, subshell_id or None).
        self.sent: list[tuple[str, str | None]] = []
        #: The page's kernel connection got its kernel_info_reply: the kernel is there.
        self.kernel_answered = False
        page.on("websocket", self._attach)

    def _attach(self, ws) -> None:
        if "/api/kernels/" in ws.url:
            ws.on("framesent", self._sent)
            ws.on("framereceived", self._received)

    def _sent(self, payload) -> None:
        frame = _ws_frame(payload)
        if frame and frame["header"].get("msg_type") == "comm_msg":
            header = frame["header"]
            self.in_flight[header["msg_id"]] = time.monotonic()
            self.sent.append((header["msg_id"], header.get("subshell_id")))
            self.last_sent = time.monotonic()

    def _received(self, payload) -> None:
        frame = _ws_frame(payload)
        if frame and frame["header"].get("msg_type") == "kernel_info_reply":
            self.kernel_answered = True
        if (frame and frame["channel"] == "iopub" and frame["header"].get("msg_type") == "status"
                and frame["content"].get("execution_state") == "idle"):
            self.in_flight.pop((frame["parent_header"] or {}).get("msg_id"), None)

    def wait_kernel(self, timeout: float = TIMEOUT / 1000) -> None:
        deadline = time.monotonic() + timeout
        while not self.kernel_answered:
            if time.monotonic() > deadline:
                raise AssertionError(f"the page's kernel did not answer within {timeout:g} s")
            self.page.wait_for_timeout(20)

    def settle(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while self.in_flight or time.monotonic() - self.last_sent < self.QUIET:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{len(self.in_flight)} widget message(s) got no idle from the kernel "
                    f"within {timeout:g} s: JupyterLab will not send later edits of those "
                    "widgets (the lost-keystrokes trap)")
            self.page.wait_for_timeout(20)  # lets Playwright deliver websocket events


class Notebook:
    """One test's notebook, opened in a browser page: run cells, find forms, read the journal."""

    def __init__(self, server: JupyterServer, page, name: str, artifacts: Path):
        self.server, self.page, self.artifacts = server, page, artifacts
        self.stem = name
        self.name = f"{name}.ipynb"
        self.journal_path = artifacts / "journal.jsonl"
        self.wire = Wire(page)

    # opening and running

    def open(self, *cells: str) -> None:
        """Write the notebook (load, connect, then ``cells``), open it, wait for the kernel."""
        # (--cwd: `-m` imports the demo from this checkout, not from wherever nb_elicit is
        # installed; the server's environment does not carry PYTHONPATH.)
        connect = ("import sys, nb_elicit\n"
                   f"%mcp connect demo --cwd {shlex.quote(str(REPO))} -- {{sys.executable}} "
                   "-m nb_elicit.demo --journal "
                   f"{shlex.quote(str(self.journal_path))}")
        notebook = nbformat.v4.new_notebook()
        notebook.cells = [nbformat.v4.new_code_cell(source)
                          for source in ("%load_ext nb_elicit", connect, *cells)]
        notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                           "display_name": "Python 3 (ipykernel)"}
        nbformat.write(notebook, self.server.root / self.name)
        if self.server.app == "lab":
            workspace = f"{self.stem.replace('.', '-')}-{secrets.token_hex(4)}"
            self.page.goto(self.server.url(f"/lab/workspaces/{workspace}/tree/{self.name}"))
        else:
            self.page.goto(self.server.url(f"/notebooks/{self.name}"))
        self.page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=TIMEOUT)
        self.wait_kernel_ready()
        self.run(0)
        self.run(1)
        from playwright.sync_api import expect

        expect(self.cell(1)).to_contain_text("Connected 'demo'", timeout=TIMEOUT)

    def wait_kernel_ready(self) -> None:
        """The kernel exists and is idle (before that a Shift+Enter is silently lost)."""
        self.wire.wait_kernel()
        if self.server.app == "lab":
            self.page.wait_for_function(
                """() => {
                    const bar = document.querySelector('#jp-main-statusbar');
                    const name = document.querySelector('.jp-KernelName');
                    return bar && bar.innerText.includes('Idle') && name
                        && !name.innerText.includes('No Kernel');
                }""", timeout=TIMEOUT)
        else:
            self.page.wait_for_function(
                """() => {
                    const name = document.querySelector('.jp-KernelName');
                    const status = document.querySelector('.jp-Notebook-ExecutionIndicator');
                    return name && name.innerText.trim() && !name.innerText.includes('No Kernel')
                        && status && status.dataset.status === 'idle';
                }""", timeout=TIMEOUT)

    def cell(self, index: int):
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def run(self, index: int, wait: bool = True) -> None:
        """Select cell ``index`` and press Shift+Enter; ``wait`` for its prompt number."""
        cell = self.cell(index)
        cell.locator(".jp-InputArea-editor").click()
        self.page.keyboard.press("Shift+Enter")
        if wait:
            self.wait_done(index)
        else:
            self.wait_running(index)

    def wait_running(self, index: int) -> None:
        prompt = self.cell(index).locator(".jp-InputArea-prompt")
        prompt.filter(has_text=re.compile(r"\[(\*|\d+)\]")).wait_for(timeout=TIMEOUT)

    def wait_done(self, index: int) -> None:
        prompt = self.cell(index).locator(".jp-InputArea-prompt")
        prompt.filter(has_text=re.compile(r"\[\d+\]")).wait_for(timeout=TIMEOUT)

    # forms

    def form(self, cell: int, index: int = 0):
        """The ``index``-th form in cell ``cell``, once it is shown."""
        form = self.cell(cell).locator(".nb-elicit-form").nth(index)
        form.wait_for(timeout=TIMEOUT)
        return form

    def settle(self) -> None:
        """Wait until the kernel has handled every widget message the page sent."""
        self.wire.settle()

    # the demo server's journal

    def journal(self) -> list[dict]:
        if not self.journal_path.exists():
            return []
        text = self.journal_path.read_text(encoding="utf-8")
        complete = text[:text.rfind("\n") + 1]  # not a line the server is still writing
        return [json.loads(line) for line in complete.splitlines() if line.strip()]

    def answers(self) -> list[dict]:
        """The journal without the times."""
        return [{k: v for k, v in entry.items() if k != "at"} for entry in self.journal()]

    def wait_journal(self, count: int, timeout: float = 30) -> list[dict]:
        """The journal once it has ``count`` entries (fails if it has more)."""
        deadline = time.monotonic() + timeout
        while len(self.journal()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the demo server recorded {len(self.journal())} answers "
                                     f"within {timeout:g} s, expected {count}: {self.answers()}")
            self.page.wait_for_timeout(25)
        entries = self.answers()
        assert len(entries) == count, entries
        return entries

    def screenshot(self, name: str, of=None) -> Path:
        """A PNG of the page, or of the element ``of``, in the test's artifacts."""
        path = self.artifacts / f"{name}.png"
        (of or self.page).screenshot(path=str(path))
        return path


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
