"""A real JupyterLab (or Notebook 7) in Chromium, for the browser tests and the benchmarks:
a Jupyter server with every directory temporary, Chromium started through Playwright, a watcher
of the page's kernel websocket, and a notebook driver.

Chromium is Debian's (``/usr/bin/chromium``, installed by ``.ci/run``). What cannot start (no
Chromium, no Playwright, no ``jupyter``, a server that exits) raises `LabError`, one paragraph
saying why; the browser tests' fixtures turn it into a failure.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
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


class LabError(RuntimeError):
    """JupyterLab or Chromium could not start (the message says why)."""


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
        env = self.environment(("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                                "JUPYTERLAB_WORKSPACES_DIR"), drop=("JUPYTERLAB_SETTINGS_DIR",))
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
            raise LabError(f"{jupyter} is missing: run the tests with the venv's python "
                           "(bash scripts/test.sh sets it up)")
        self.launch(
            [str(jupyter), self.app, "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={self.port}", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={self.root}", "--ServerApp.port_retries=0",
             "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            env, f"jupyter {self.app}", lambda: self.api("GET", "/api/status", timeout=2))

    def environment(self, dirs: tuple[str, ...], drop: tuple[str, ...] = ()) -> dict[str, str]:
        """This process's environment for the server: each of ``dirs`` a new folder under the
        base, nothing of the person's Jupyter or of nb_elicit's headless settings, the venv's
        commands first on PATH; the root folder made."""
        env = dict(os.environ)
        for name in dirs:
            env[name] = str(self.base / name.lower())
            Path(env[name]).mkdir(parents=True)
        for name in ("JUPYTER_PATH", "JPY_SESSION_NAME", "NB_ELICIT_RESPOND",
                     "NB_ELICIT_HEADLESS_WAIT", "VOILA_KERNEL_ID", *drop):
            env.pop(name, None)
        env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
        self.root.mkdir()
        return env

    def launch(self, argv: list[str], env: dict[str, str], what: str,
               ready: Callable[[], object], timeout: float = TIMEOUT / 1000) -> None:
        """Start the server (``what``, for messages) and wait until ``ready()`` stops raising
        OSError; LabError if it exits or does not answer within ``timeout`` seconds."""
        log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - the process keeps it
        self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, env=env, cwd=self.root)
        log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise LabError(f"{what} exited with {self.process.returncode}:\n"
                               f"{self.log_tail()}")
            try:
                ready()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise LabError(f"{what} did not answer within {timeout:g} s:\n"
                                   f"{self.log_tail()}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server; its kernels end with it (and their demo servers with them)."""
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


# -- the browser -----------------------------------------------------------------------------------


def launch_browser():
    """Start Playwright and Chromium: ``(playwright, browser)``; stop both with
    :func:`close_browser`. While Playwright's sync API is started, the thread that started it has
    a running asyncio loop."""
    if not CHROMIUM.exists():
        raise LabError(f"Chromium is missing: the browser tests need {CHROMIUM}. Install it as "
                       "root with `apt-get install -y chromium` (.ci/run does this when it is "
                       "missing).")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        raise LabError("the Python package playwright is missing: pip install -e '.[test]' "
                       "(no `playwright install` needed; the tests use Debian's Chromium)"
                       ) from None
    # expect()'s own default is 5 s: too tight on a loaded 2-core machine, and no hang-catcher.
    expect.set_options(timeout=EXPECT_TIMEOUT)
    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    except Exception as error:
        playwright.stop()
        raise LabError(f"Chromium at {CHROMIUM} did not start: {error}") from None
    return playwright, launched


def close_browser(playwright, launched) -> None:
    launched.close()
    playwright.stop()


# -- the notebook driver ---------------------------------------------------------------------------


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
    so a click that follows cannot overtake the last keystroke. A message to a widget the kernel
    has closed gets no handler and so, while a cell runs, no idle; nothing more goes to that
    widget, and the wait leaves it out.
    """

    QUIET = 0.15  # seconds without a new widget message

    def __init__(self, page):
        self.page = page
        #: msg_id -> comm_id of each widget message that has no idle yet.
        self.in_flight: dict[str, str] = {}
        #: The comms the kernel closed (comm_close on IOPub).
        self.closed_comms: set[str] = set()
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
            comm_id = frame["content"].get("comm_id")
            if comm_id not in self.closed_comms:
                self.in_flight[header["msg_id"]] = comm_id
            self.sent.append((header["msg_id"], header.get("subshell_id")))
            self.last_sent = time.monotonic()

    def _received(self, payload) -> None:
        frame = _ws_frame(payload)
        if frame and frame["header"].get("msg_type") == "kernel_info_reply":
            self.kernel_answered = True
        if (frame and frame["channel"] == "iopub" and frame["header"].get("msg_type") == "status"
                and frame["content"].get("execution_state") == "idle"):
            self.in_flight.pop((frame["parent_header"] or {}).get("msg_id"), None)
        if frame and frame["channel"] == "iopub" and frame["header"].get("msg_type") == "comm_close":
            comm_id = frame["content"].get("comm_id")
            self.closed_comms.add(comm_id)
            for msg_id in [m for m, c in self.in_flight.items() if c == comm_id]:
                del self.in_flight[msg_id]

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


def read_saved(page, path: Path, holding: str = "", timeout: float = 30) -> str:
    """The text of the notebook at ``path`` once it is whole JSON holding ``holding``.

    The server may still be writing it when the page says it is saved: a read can find the
    file empty or cut short, so a read that does not parse is tried again."""
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if holding in text:
            try:
                json.loads(text)
                return text
            except json.JSONDecodeError:
                pass  # (still being written)
        if time.monotonic() > deadline:
            raise AssertionError(f"JupyterLab did not save {path.name} holding {holding!r} "
                                 f"within {timeout:g} s")
        page.wait_for_timeout(100)


class Notebook:
    """One test's notebook, opened in a browser page: run cells, find forms, read the journal."""

    #: Where the demo server starts (``--cwd``): its ``nb_elicit.demo`` is imported from there.
    demo_cwd = REPO

    def __init__(self, server: JupyterServer, page, name: str, artifacts: Path):
        self.server, self.page, self.artifacts = server, page, artifacts
        self.stem = name
        self.name = f"{name}.ipynb"
        self.journal_path = artifacts / "journal.jsonl"
        self.wire = Wire(page)
        #: What the page logged, ``[type] text`` a line (the browser tests' fixtures fill it).
        self.console: list[str] = []

    # opening and running

    def open(self, *cells: str) -> None:
        """Write the notebook (load, connect, then ``cells``), open it, wait for the kernel."""
        # (--cwd: `-m` imports the demo from this checkout, not from wherever nb_elicit is
        # installed; the server's environment does not carry PYTHONPATH.)
        connect = ("import sys, nb_elicit\n"
                   f"%mcp connect demo --cwd {shlex.quote(str(self.demo_cwd))} -- "
                   "{sys.executable} "
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

    # saving

    def save(self, holding: str = "") -> str:
        """Save the notebook in JupyterLab (Ctrl+S, in command mode) and read it from disk once
        the file is whole and holds ``holding``."""
        self.cell(0).locator(".jp-InputArea-prompt").click()  # command mode, the notebook focused
        self.page.keyboard.press("Control+s")
        return read_saved(self.page, self.server.root / self.name, holding)

    def screenshot(self, name: str, of=None) -> Path:
        """A PNG of the page, or of the element ``of``, in the test's artifacts."""
        path = self.artifacts / f"{name}.png"
        (of or self.page).screenshot(path=str(path))
        return path
