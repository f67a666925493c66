"""VS Code's notebook output page, emulated around the real npm packages, for
``tests/browser/test_vscode_browser.py``.

What VS Code does (docs/frontends.md, "VS Code"), and what of it runs here:

- **The renderers' preloads**: require.js 2.3.7 and ``@vscode/jupyter-ipywidgets8`` 1.0.9, an ES
  module whose ``activate()`` sets ``window.vscIPyWidgets8 = {load, unload}``; ``load()`` defines
  ``@jupyter-widgets/base``, ``controls`` and ``output`` in require.js and exposes
  ``window.vscIPyWidgets.WidgetManager(kernel, el, scriptLoader, logger)``. Here: those npm
  packages at those versions (:data:`PACKAGES`, installed by :func:`helpers.node.npm_package`),
  loaded and called the same way.
- **The Jupyter extension's page code**, which is not on any package registry: here our own
  (``tests/browser/vscode/page.js``). It gives the manager a ``KernelConnection`` of
  ``@jupyterlab/services`` 7.5.1 (bundled for the browser by esbuild, pinned, when the page's
  folder is laid out) with comms off subshells, as VS Code's proxy kernel reports none; draws
  each widget output with the manager's ``get_model``, ``create_view`` and ``display_view``,
  falling back to the next renderer for a model it does not know; runs ``application/javascript``
  as a module script in the one page (a trusted workspace), ``text/html`` with its scripts, and
  shows ``text/plain``, streams and errors as text; applies ``update_display_data`` to every
  output of its display id.
- **The local kernel**: started without a session, so no ``JPY_SESSION_NAME`` (here: the Jupyter
  server's ``POST /api/kernels``); the manager never opens ipywidgets' ``jupyter.widget.control``
  comm (the bundle's own ``restoreWidgets``); the start-up code sets ``__vsc_ipynb_file__`` in
  the person's namespace before any cell runs (the page does, silently, unless a test leaves it
  out).
- **Widget scripts** (anywidget, the frame of an MCP App): VS Code copies the environment's
  ``share/jupyter/nbextensions`` next to its page, makes the copy require.js's base, and takes a
  module's entry from the require.js config of ``nbextensions/<module>/extension.js``. Here: the
  venv's folder is copied into the page's folder, and that ``extension.js`` is run to configure
  require.js (VS Code reads the config out of the file instead).

What it does not emulate: the extension host. VS Code's page reaches its kernel through
``postMessage`` (a fake websocket whose messages the extension acknowledges one by one), and the
extension, not the page, executes the cells; here the page's ``KernelConnection`` talks to the
kernel over the Jupyter server's websocket and executes the cells itself. Nor VS Code's cell
editors (outside the output page), its webview's Content Security Policy, its theme's CSS
variables, widget scripts from a CDN or a remote server, widget state saved in a notebook, or
kernel restarts.

The Jupyter server (``jupyter server``, every directory temporary) serves the page's folder as
``/static/vsc/`` (``ServerApp.extra_static_paths``, so the page and the kernel's websocket share
an origin), and its kernels get ``PYTHONPATH`` set to this checkout, so that they import the
nb_elicit of the tests that run (an older worktree's too).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from .lab import REPO, TIMEOUT, JupyterServer, Notebook
from .node import node, node_env, npm_files, npm_package

#: The npm packages of the page, pinned: VS Code's ipywidgets 8 bundle, the kernel's client
#: library, require.js, and the bundler that makes the client library a browser script.
PACKAGES = {
    "widgets": ("@vscode/jupyter-ipywidgets8", "1.0.9"),
    "services": ("@jupyterlab/services", "7.5.1"),
    "requirejs": ("requirejs", "2.3.7"),
    "esbuild": ("esbuild", "0.25.0"),
}
#: The page's own files: page.html, page.js and the bundle's entry, services_entry.js.
PAGE_SOURCES = REPO / "tests" / "browser" / "vscode"
#: Where the page's folder is served from.
PAGE_PATH = "/static/vsc/page.html"

_BUNDLE = """
const [esbuild, entry, outfile, modules] = process.argv.slice(1);
require(esbuild).buildSync({entryPoints: [entry], bundle: true, format: "iife",
  platform: "browser", minify: true, outfile, nodePaths: [modules], logLevel: "warning"});
"""


def lay_out_page(folder: Path) -> Path:
    """Write the page's folder (``folder/vsc``): page.html and page.js, require.js,
    ipywidgets.js, services.js (bundled now) and ``jupyter/nbextensions`` (a copy of the venv's).
    Returns ``folder``, for ``ServerApp.extra_static_paths``."""
    package = {key: (npm_files if key == "widgets" else npm_package)(name, version)
               for key, (name, version) in PACKAGES.items()}  # (the bundle: its file only)
    page = folder / "vsc"
    page.mkdir(parents=True)
    for name in ("page.html", "page.js"):
        shutil.copyfile(PAGE_SOURCES / name, page / name)
    shutil.copyfile(package["requirejs"] / "require.js", page / "require.js")
    shutil.copyfile(package["widgets"] / "dist" / "ipywidgets.js", page / "ipywidgets.js")
    subprocess.run([node(), "-e", _BUNDLE, str(package["esbuild"]),
                    str(PAGE_SOURCES / "services_entry.js"), str(page / "services.js"),
                    str(package["services"].parents[1])],
                   check=True, env=node_env(), timeout=120)
    shutil.copytree(Path(sys.prefix) / "share" / "jupyter" / "nbextensions",
                    page / "jupyter" / "nbextensions")
    return folder


class VSCodeServer(JupyterServer):
    """``jupyter server`` on 127.0.0.1 serving the page's folder (:func:`lay_out_page`), with
    every directory temporary; it starts each test's kernel without a session."""

    def __init__(self, base: Path):
        super().__init__("server", "disabled", base)
        self.static = base / "static"
        #: The kernel each test's notebook runs in.
        self.kernels: dict[str, str] = {}

    def start(self) -> None:
        lay_out_page(self.static)
        env = self.environment(("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"))
        env["PYTHONPATH"] = str(REPO)
        self.launch(
            [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
             "--ip=127.0.0.1", f"--port={self.port}", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={self.root}", "--ServerApp.port_retries=0",
             f"--ServerApp.extra_static_paths={self.static}"],
            env, "jupyter server", lambda: self.api("GET", "/api/status", timeout=2))

    def start_kernel(self, notebook: str) -> str:
        """A kernel started as VS Code starts its own: no session (``POST /api/kernels``)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/kernels", method="POST",
            data=json.dumps({"name": "python3"}).encode(),
            headers={"Authorization": f"token {self.token}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            kernel = json.loads(response.read())["id"]
        self.kernels[notebook] = kernel
        return kernel

    def shut_down_sessions(self, notebook: str) -> None:
        """End ``notebook``'s kernel (and with it its demo server)."""
        kernel = self.kernels.pop(notebook, None)
        if kernel is not None:
            self.api("DELETE", f"/api/kernels/{kernel}")


class OutputPage(Notebook):
    """One test's notebook in the emulated output page. Each cell the test runs is a
    ``.vsc-cell`` of the page, so the notebook driver's ``form``, ``settle`` (the page's kernel
    websocket), journal and screenshots work as they are; ``open`` starts the kernel, opens the
    page, loads nb_elicit and connects the demo server, as in JupyterLab."""

    server: VSCodeServer

    def open(self, *cells: str, startup: bool = True) -> None:
        """Start the kernel and open the page; run the loading and connecting cells. ``cells``
        are only written down (:attr:`sources`): :meth:`run` runs them by their index.
        ``startup=False``: without VS Code's start-up code (no ``__vsc_ipynb_file__``)."""
        connect = ("import sys, nb_elicit\n"
                   f"%mcp connect demo --cwd {shlex.quote(str(self.demo_cwd))} -- "
                   "{sys.executable} -m nb_elicit.demo --journal "
                   f"{shlex.quote(str(self.journal_path))}")
        self.sources = ["%load_ext nb_elicit", connect, *cells]
        self.ran = 0
        kernel = self.server.start_kernel(self.name)
        query = {"token": self.server.token, "kernel": kernel}
        if startup:
            query["file"] = str(self.server.root / self.name)
        self.page.goto(f"http://127.0.0.1:{self.server.port}{PAGE_PATH}?"
                       f"{urllib.parse.urlencode(query)}")
        self.page.wait_for_function("() => window.vsc && (vsc.ready || vsc.failure)",
                                    timeout=TIMEOUT)
        failure = self.page.evaluate("() => vsc.failure")
        if failure:
            raise AssertionError(f"the output page did not start: {failure}")
        self.run(0)
        self.run(1)
        from playwright.sync_api import expect

        expect(self.cell(1)).to_contain_text("Connected 'demo'", timeout=TIMEOUT)

    def cell(self, index: int):
        return self.page.locator(f'.vsc-cell[data-cell="{index}"]')

    def run(self, index: int, wait: bool = True) -> None:
        """Run the next cell, which must be cell ``index`` (VS Code runs what the person asks
        for; the page numbers its cells in the order they ran)."""
        assert index == self.ran, f"cell {self.ran} runs next, not {index}"
        self.ran += 1
        assert self.page.evaluate("code => vsc.run(code)", self.sources[index]) == index
        if wait:
            self.wait_done(index)

    def wait_running(self, index: int) -> None:
        self.cell(index).wait_for(timeout=TIMEOUT)

    def wait_done(self, index: int) -> None:
        self.page.locator(f'.vsc-cell[data-cell="{index}"][data-state="done"]').wait_for(
            timeout=TIMEOUT)

    def status(self, index: int) -> str:
        """``ok`` or ``error``: the kernel's reply to cell ``index`` (once it is done)."""
        self.wait_done(index)
        return self.cell(index).get_attribute("data-status")

    def text(self, index: int) -> str:
        """The text the cell printed (its streams)."""
        self.wait_done(index)
        return "".join(self.cell(index).locator("pre.vsc-stdout").all_inner_texts())


def errors_in(console: list[str]) -> list[str]:
    """What the page's scripts raised and nobody caught, and what the page code logged as a
    failure."""
    return [line for line in console
            if line.startswith("[pageerror]") or re.match(r"\[error\] \[vsc\]", line)]
