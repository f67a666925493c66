"""10. An MCP App in a real JupyterLab in headless Chromium: from the tool's result in the kernel
to the app's first paint in its frame (several rounds, with where the time goes); and a cell with
the most live apps one connection keeps (four), then a form whose text field is typed into key
by key: the server must receive exactly what was typed."""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..common import CELL, HERE, REPO, BenchError, Section, Target, log, median, ms, pct

if str(REPO / "tests") not in sys.path:
    sys.path.insert(0, str(REPO / "tests"))

TITLE = "10. An app's first paint"

#: The median from the tool's result in the kernel to the app's first paint (ms).
PAINT_TARGET = 300.0
#: The largest an AppFrame's comm_open may be, as the page receives it (bytes; 64 kB).
COMM_OPEN_TARGET = 64_000
#: Apps shown in one cell before the form is typed into: the most one connection keeps live
#: (nb_elicit._runtime.apps.MAX_LIVE_APPS; one more would end the first).
LIVE = 4
#: What is typed into the form's text field, one key press at a time, and the pause between keys.
TYPED = "Ada Lovelace, ada@example.com #1815 (Byron & Babbage)"
KEY_DELAY_MS = 20
PROBE = HERE / "app_probe.js"
OUTER = "iframe.nb-elicit-app-frame-outer"
#: The window for the live apps and the form under them.
TALL = {"width": 1280, "height": 2800}

#: The kernel's side, run in the notebook before the rounds: times (time.time()) around
#: ``show_app`` (the frame built and shown, before the tool is called) and ``deliver`` (the
#: call's result handed to the frame, where the call was started), by the frame's model id;
#: and around the call runner's ``_call_tool``, AppFrame's ``_send_host_code`` (the host code
#: asked for), its ``_push_html`` (the app's HTML sent unasked right after the comm_open) and
#: its ``_send_html`` (the HTML asked for by the frame's view), each with the size of its
#: message, where the AppFrame has them. Nothing of nb_elicit changes but these names, each
#: wrapped.
INSTRUMENT = """\
import json as _json, time as _time
import nb_elicit
import nb_elicit._runtime.apps as _bench_apps
import nb_elicit._runtime.runner as _bench_runner
_bench_rounds = {}
_bench_show, _bench_deliver = _bench_apps.show_app, _bench_apps.deliver
_bench_size = lambda value: len(_json.dumps(value, ensure_ascii=False).encode())

def _bench_frame(**kwargs):
    started = _time.time()
    frame = _bench_apps.AppFrame(**kwargs)
    frame._bench = {"frame_start": started, "frame_end": _time.time()}
    return frame

async def _bench_show_app(apps, tool, view, arguments, frame_class=None):
    started = _time.time()
    app = await _bench_show(apps, tool, view, arguments, frame_class=_bench_frame)
    if app is not None:
        state = app.frame.get_state()
        _bench_rounds[app.frame.model_id] = dict(
            app.frame._bench, label=(arguments or {}).get("label"), show_start=started,
            show_end=_time.time(), state_bytes=_bench_size(state),
            esm_bytes=_bench_size(state.get("_esm")), model=app.frame.model_id,
            esm_text=state.get("_esm") if len(state.get("_esm") or "") < 100_000 else None)
    return app

def _bench_delivered(app, result, error=None):
    got = _time.time()
    _bench_deliver(app, result, error)
    if app is not None and app.frame.model_id in _bench_rounds:
        _bench_rounds[app.frame.model_id].update(result_at=got, delivered=_time.time(),
                                                 failed=result is None)

_bench_code = {}
_bench_send_code = getattr(_bench_apps.AppFrame, "_send_host_code", None)

def _bench_sent_code(self):
    got = _time.time()
    _bench_send_code(self)
    found = _bench_code.setdefault(self.model_id, {})
    found.setdefault("code_got", got)
    found.setdefault("code_sent", _time.time())

if _bench_send_code is not None:
    _bench_apps.AppFrame._send_host_code = _bench_sent_code

_bench_send_html = getattr(_bench_apps.AppFrame, "_send_html", None)

def _bench_sent_html(self):
    got, html = _time.time(), getattr(self, "_html", None)
    _bench_send_html(self)
    if html is not None:
        _bench_code.setdefault(self.model_id, {}).update(
            html_got=got, html_sent=_time.time(),
            html_bytes=_bench_size({"kind": "html", "html": html}))

if _bench_send_html is not None:
    _bench_apps.AppFrame._send_html = _bench_sent_html

_bench_push_html = getattr(_bench_apps.AppFrame, "_push_html", None)

def _bench_pushed_html(self):
    got, html = _time.time(), getattr(self, "_html", None)
    _bench_push_html(self)
    if html is not None:
        _bench_code.setdefault(self.model_id, {}).update(
            html_got=got, html_sent=_time.time(), html_pushed=True,
            html_bytes=_bench_size({"kind": "html", "html": html, "pushed": True}))

if _bench_push_html is not None:
    _bench_apps.AppFrame._push_html = _bench_pushed_html

def _bench_end(path):
    for app in list(nb_elicit.connections["demo"].apps.shown):
        app.end("measured")
    for model, times in _bench_code.items():
        if model in _bench_rounds:
            _bench_rounds[model].update(times)
    with open(path, "w", encoding="utf-8") as out:
        _json.dump(list(_bench_rounds.values()), out)

_bench_call = _bench_runner.CallRunner._call_tool

async def _bench_call_tool(self, tool, arguments, task=None):
    started = _time.time()
    try:
        return await _bench_call(self, tool, arguments, task)
    finally:
        label = (arguments or {}).get("label")
        for found in _bench_rounds.values():
            if found["label"] == label and "call_start" not in found:
                found.update(call_start=started, call_end=_time.time())

_bench_apps.show_app, _bench_apps.deliver = _bench_show_app, _bench_delivered
_bench_runner.CallRunner._call_tool = _bench_call_tool
_bench_warm = _time.time()
_bench_hello = await nb_elicit.connections["demo"].call_tool("hello")  # (its first tools/call)
_bench_warm = _time.time() - _bench_warm
print("instrumented", _json.dumps(nb_elicit.__file__), _bench_warm)"""

LIVE_CELL = f"""\
_bench_live = nb_elicit.connections["demo"]
for _i in range({LIVE}):
    await _bench_live.call_tool("clock", {{"label": f"live-{{_i}}"}})"""
FORM_CELL = "%mcp call demo github_username"


def prerequisites():
    """The lab harness, or a BenchError that says what is missing."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        raise BenchError("JupyterLab is missing: this section runs the app in a real JupyterLab "
                         "(pip install -e '.[test]' installs it)") from None
    try:
        from helpers import lab
    except ImportError as error:
        raise BenchError(f"the JupyterLab harness (tests/helpers/lab.py) did not import: {error}"
                         ) from None
    if not lab.CHROMIUM.exists():
        raise BenchError(f"Chromium is missing: this section needs {lab.CHROMIUM}. Install it as "
                         "root with `apt-get install -y chromium`.")
    return lab


def in_lab(name: str, measure: Callable[[Any, Any, Any, Path], dict]) -> dict:
    """``measure(lab, server, browser, tmp)`` in a JupyterLab started for it (its directories
    under ``tmp``, new) and a headless Chromium, both stopped after; either failing to start
    is a BenchError that says so. (The app and paint sections.)"""
    lab = prerequisites()
    tmp = Path(tempfile.mkdtemp(prefix=f"nb-elicit-bench-{name}-"))
    server = lab.JupyterServer("lab", lab.DEFAULT_SUBSHELLS, tmp / "jupyter")
    try:
        server.start()
    except lab.LabError as error:
        raise BenchError(f"JupyterLab did not start: {error}") from None
    try:
        try:
            playwright, browser = lab.launch_browser()
        except lab.LabError as error:
            raise BenchError(str(error)) from None
        try:
            return measure(lab, server, browser, tmp)
        finally:
            lab.close_browser(playwright, browser)
    finally:
        server.stop()


def run(opts, sec: Section) -> None:
    rounds = getattr(opts, "app_rounds", None) or (3 if opts.quick else 10)
    try:
        bundle = floor_bundle()
    except Exception as error:  # noqa: BLE001 - the section runs without its floor, and says so
        bundle = None
        log(f"  app: no floor host ({type(error).__name__}: {error})")
    measured = in_lab("app", lambda lab, server, browser, tmp: measure(
        opts, lab, server, browser, tmp, rounds, bundle))
    report(sec, measured, rounds)


#: The floor host's page and its sandbox proxy: one site, two origins, as the reference host
#: serves them (its host on one port, its proxy on the next); the browser has them from the
#: section (Playwright's routes), never from a network.
FLOOR_HOST = "http://floor.test:8000/"
FLOOR_PROXY = "http://floor.test:8001/sandbox.html"
#: The framings the floor measures: the reference host's, and nb_elicit's (see app_floor.js).
FLOOR_MODES = ("origin", "opaque")


def floor_bundle() -> str:
    """benchmarks/app_floor.js bundled with the app-bridge package and esbuild that
    scripts/build_app_host.py installs from its lock file (into its cache, once)."""
    import shutil
    import subprocess

    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))
    import build_app_host as build

    build.install()
    folder = Path(tempfile.mkdtemp(prefix="floor-", dir=build.WORK))
    try:
        shutil.copyfile(HERE / "app_floor.js", folder / "app_floor.js")
        out = folder / "out.js"
        with contextlib.redirect_stdout(sys.stderr):
            build.esbuild([str((folder / "app_floor.js").relative_to(build.WORK)),
                           *build.ESBUILD, f"--outfile={out}"])
        return out.read_text(encoding="utf-8")
    except subprocess.CalledProcessError as error:
        raise BenchError(f"esbuild failed on app_floor.js: {error}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def measure_floor(context, probe: Probe, code: Path, bundle: str, rounds: int) -> dict:
    """The floor's rounds in a page of their own, in the same browser after JupyterLab's: for
    each framing, one cold round then ``rounds``, each from the HTML in the host's hand (t0)
    to the app's result painted, with the same probe in every document."""
    from nb_elicit._core.apps import content_security_policy

    html = (code / "nb_elicit" / "demo" / "static" / "clock_app.html").read_text(
        encoding="utf-8")
    policy = content_security_policy({})
    host_page = ('<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                 '<body style="margin:0"><script type="module" src="/floor.js"></script>'
                 "</body></html>")
    proxy: dict[str, str] = {}

    def serve_host(route) -> None:
        if route.request.url.endswith("/floor.js"):
            route.fulfill(status=200, content_type="text/javascript", body=bundle)
        else:
            route.fulfill(status=200, content_type="text/html", body=host_page)

    def serve_proxy(route) -> None:
        route.fulfill(status=200, content_type="text/html",
                      headers={"Content-Security-Policy": policy},
                      body='<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
                           f'<body style="margin:0"><script>{proxy["script"]}</script>'
                           "</body></html>")

    context.route(FLOOR_HOST + "**", serve_host)
    context.route(FLOOR_PROXY, serve_proxy)
    page = context.new_page()
    try:
        page.goto(FLOOR_HOST)
        page.wait_for_function("typeof window.floorRound === 'function'")
        proxy["script"] = page.evaluate("window.__floorProxy")
        found: dict[str, list[dict]] = {}
        for mode in FLOOR_MODES:
            found[mode] = []
            for k in range(rounds + 1):
                label = f"floor-{mode}-{k}"
                page.evaluate("(a) => window.floorRound(a)", {
                    "html": html, "label": label, "mode": mode, "proxyUrl": FLOOR_PROXY,
                    "policy": policy})
                (app,) = probe.wait(page, [label])
                times = page.evaluate("(label) => window.__floor[label]", label)
                found[mode].append(floor_points(times, app))
                page.evaluate("window.floorClear()")
                page.wait_for_timeout(300)
        return found
    finally:
        page.close()


def floor_points(times: dict, app: dict) -> dict:
    """One floor round's points, in ms after its t0 (the HTML in the host's hand)."""
    t0 = times["t0"]
    fcp = [p["at"] for p in app["paints"] if p["name"] == "first-contentful-paint"]
    found = {key: times[key] - t0 for key in ("frame", "proxy_ready", "html_posted",
                                              "initialized") if times.get(key)}
    found.update(app_doc=app["timeOrigin"] - t0, fcp=fcp[0] - t0,
                 result_painted=app["painted"] - t0)
    return found


class Probe:
    """The browser side: the init script in every document, and the app frames' reports (by the
    label the tool was called with)."""

    def __init__(self, context, artifacts: Path):
        self.apps: dict[str, dict] = {}
        self.artifacts = artifacts
        context.add_init_script(path=str(PROBE))
        context.expose_binding("__benchApp", self._app)

    def _app(self, _source, payload: str) -> None:
        data = json.loads(payload)
        self.apps[data["label"]] = data

    def wait(self, page, labels: list[str], timeout: float = CELL) -> list[dict]:
        """The reports of ``labels`` once each app has painted its result and its first
        contentful paint is known (Playwright's events come while the page is waited on)."""
        deadline = time.monotonic() + timeout

        def done(label: str) -> bool:
            found = self.apps.get(label)
            return bool(found and found.get("painted")
                        and any(p["name"] == "first-contentful-paint" for p in found["paints"]))

        while not all(done(label) for label in labels):
            if time.monotonic() > deadline:
                missing = [label for label in labels if not done(label)]
                seen = {label: "painted" if got.get("painted") else "result in its DOM, unpainted"
                        for label, got in self.apps.items() if label in missing}
                raise BenchError(f"the app(s) {', '.join(missing)} did not paint their result "
                                 f"within {timeout:g} s (of those: {seen or 'no result'}; the "
                                 f"page and its console are kept in {self.artifacts})")
            page.wait_for_timeout(20)
        return [self.apps[label] for label in labels]


def clock_offset(page) -> dict:
    """The browser's epoch ms minus the kernel's (time.time()), both this machine's clock: the
    median of the five tightest of 15 reads, each bracketed by two of ours; ``spread`` is half
    the widest of those brackets."""
    reads = []
    for _ in range(15):
        before = time.time() * 1000
        theirs = page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time() * 1000
        reads.append((theirs - (before + after) / 2, (after - before) / 2))
    tight = sorted(reads, key=lambda r: r[1])[:5]
    return {"offset": median([r[0] for r in tight]), "spread": max(r[1] for r in tight)}


def measure(opts, lab, server, browser, tmp: Path, rounds: int, bundle: str | None = None
            ) -> dict:
    context = browser.new_context(viewport=lab.VIEWPORT)
    context.set_default_timeout(lab.TIMEOUT)
    probe = Probe(context, tmp)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: console.append(f"[pageerror] {e}"))
    nb = lab.Notebook(server, page, "app-bench", tmp)
    nb.demo_cwd = Path(opts.nb_elicit) if opts.nb_elicit else REPO
    kernel_file = tmp / "kernel-rounds.json"
    calls = [f'%mcp call demo clock {{"label": "round-{k}"}}' for k in range(rounds + 1)]
    end = f"_bench_end({str(kernel_file)!r})"
    cells = [INSTRUMENT]
    for call in calls:
        cells += [call, end]
    cells += [LIVE_CELL, FORM_CELL]
    first_call = 3  # (0: %load_ext, 1: %mcp connect, 2: INSTRUMENT)
    try:
        try:
            nb.open(*cells)
        except AssertionError as error:
            raise BenchError(f"the notebook did not open and connect the demo server: {error}"
                             ) from None
        nb.run(2)
        said = nb.cell(2).locator(".jp-OutputArea").inner_text()
        if "instrumented" not in said:
            raise BenchError(f"the instrumenting cell failed: {said[-2000:]}")
        where, warm = said.split("instrumented", 1)[1].strip().splitlines()[0].rsplit(" ", 1)
        where = json.loads(where)
        if opts.nb_elicit and not Path(where).is_relative_to(opts.nb_elicit):
            raise BenchError(f"the kernel imported {where}, not the nb_elicit in "
                             f"{opts.nb_elicit}")
        clock = clock_offset(page)
        log(f"  app: {rounds} rounds (and one cold round first) of %mcp call demo clock; "
            f"browser clock {clock['offset']:+.2f} ms from the kernel's (±{clock['spread']:.2f})")
        browser_rounds = []
        for k in range(rounds + 1):
            index = first_call + 2 * k
            run_in_place(nb, index)
            (app,) = probe.wait(page, [f"round-{k}"])
            nb.wait_done(index)
            page_side = page.evaluate(
                "(() => { const b = window.__bench; const out = JSON.parse(JSON.stringify(b));"
                " b.messages.length = 0; b.blobs.length = 0; b.frames.length = 0;"
                " return out; })()")
            browser_rounds.append({"app": app, "page": page_side})
            nb.run(index + 1)
            page.wait_for_function(f"!document.querySelector({OUTER!r})", timeout=lab.TIMEOUT)
            page.wait_for_timeout(300)
        kernel = {r["label"]: r for r in json.loads(kernel_file.read_text(encoding="utf-8"))}
        alone = costs_alone(page, Path(opts.nb_elicit) if opts.nb_elicit else REPO,
                            kernel.get("round-0", {}).get("esm_text"))
        typing = live_apps(nb, page, probe, first_call + 2 * (rounds + 1))
        floor = (measure_floor(context, probe, Path(opts.nb_elicit) if opts.nb_elicit else REPO,
                               bundle, rounds) if bundle else None)
    finally:
        with contextlib.suppress(Exception):
            nb.screenshot("final")
        (tmp / "console.log").write_text("\n".join(console) + "\n", encoding="utf-8")
        context.close()
        with contextlib.suppress(OSError):
            server.shut_down_sessions(nb.name)  # (the kernel, and with it the demo server)
    return {"clock": clock, "kernel": kernel, "browser": browser_rounds, "typing": typing,
            "alone": alone, "first_call": float(warm), "artifacts": str(tmp), "floor": floor}


#: In JupyterLab's page, after the rounds: what importing the frame's `_esm` costs by itself (as
#: anywidget does it, from a new blob each time), and the host code (when `_esm` is a loader
#: that fetches it), and parsing JSON like its comm_open (the `_esm` its bulk) and like the
#: HTML's own message.
ALONE = """async ([esm, host, html]) => {
  const out = { imports: [], host_imports: [], parses: [], html_parses: [] };
  const time = async (code, into) => {
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
      await import(url);
      URL.revokeObjectURL(url);
      into.push(performance.now() - started);
    }
  };
  await time(esm, out.imports);
  if (host !== esm) await time(host, out.host_imports);
  const parse = (text, into) => {
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      JSON.parse(text);
      into.push(performance.now() - started);
    }
  };
  parse(JSON.stringify({ content: { data: { state: { _esm: esm } } } }), out.parses);
  const message = { method: "custom", content: { kind: "html", html } };
  parse(JSON.stringify({ content: { data: message } }), out.html_parses);
  return out;
}"""


def costs_alone(page, code: Path, esm: str | None) -> dict:
    """``esm``: the frame's `_esm` as the kernel sent it, when it is small (else it is the host
    bundle itself)."""
    host = (code / "nb_elicit" / "_ui" / "static" / "app_host.js").read_text(encoding="utf-8")
    html = (code / "nb_elicit" / "demo" / "static" / "clock_app.html").read_text(encoding="utf-8")
    page.wait_for_timeout(500)
    return page.evaluate(ALONE, [esm or host, host, html])


def run_in_place(nb, cell: int, on_top: bool = True) -> None:
    """Run cell ``cell`` with Ctrl+Enter (it stays selected: JupyterLab scrolls to no next
    cell) and scroll it to the top of the notebook (``on_top``), so that its output shows below
    it on screen (Chromium neither paints nor runs animation frames in a frame out of view)."""
    nb.cell(cell).locator(".jp-InputArea-editor").click()
    nb.page.keyboard.press("Control+Enter")
    nb.wait_running(cell)
    if on_top:
        nb.cell(cell).evaluate("e => e.scrollIntoView({block: 'start'})")


def live_apps(nb, page, probe: Probe, cell: int) -> dict:
    """`LIVE` live apps in one cell, then the form of the next cell typed into key by key; the
    window is made tall enough for all of them and the form to be on screen."""
    page.set_viewport_size(TALL)
    started = time.time()
    run_in_place(nb, cell)
    labels = [f"live-{i}" for i in range(LIVE)]
    try:
        probe.wait(page, labels, timeout=CELL)
    except BenchError:
        # (Playwright now and then fails to attach to one of several frames that load at
        # once, so that the probe never runs in its app; the app paints all the same, and the
        # cell's frames are counted below: the first paints are reported for those it reached)
        if not any(probe.apps.get(label, {}).get("painted") for label in labels):
            raise
    nb.wait_done(cell)
    reached = [label for label in labels if probe.apps.get(label, {}).get("painted")]
    all_painted = max(probe.apps[label]["painted"] for label in reached)
    frames = nb.cell(cell).locator(OUTER)
    if frames.count() != LIVE:
        raise BenchError(f"the cell shows {frames.count()} app frames, not {LIVE}")
    run_in_place(nb, cell + 1, on_top=False)  # (the live apps stay on screen)
    form = nb.form(cell + 1)
    field = form.locator(".nb-elicit-field-name input")
    field.click()
    typed_at = time.monotonic()
    page.keyboard.type(TYPED, delay=KEY_DELAY_MS)
    typing_s = time.monotonic() - typed_at
    shown = field.input_value()
    nb.settle()
    form.locator(".nb-elicit-submit").click()
    entries = nb.wait_journal(1, timeout=CELL)
    nb.wait_done(cell + 1)
    received = (entries[0].get("content") or {}).get("name")
    live = 0
    for i in range(nb.cell(cell).locator(OUTER).count()):
        app = nb.cell(cell).locator(OUTER).nth(i).content_frame.locator("iframe").content_frame
        try:
            if (app.locator("#label").text_content(timeout=10_000) == f"live-{i}"
                    and app.locator("#state").text_content(timeout=10_000) == "connected"):
                live += 1
        except Exception:  # noqa: BLE001 - a frame Playwright did not attach to is not counted
            continue
    return {"received": received, "shown": shown, "action": entries[0].get("action"),
            "typing_s": typing_s, "all_painted_ms": all_painted - started * 1000,
            "live_after": live, "unreached": [label for label in labels if label not in reached]}


# -- the report --------------------------------------------------------------------------------

#: The points of one round, in the order they come: (key, what).
POINTS = [
    ("show_start", "kernel: the call begins (`show_app` entered)"),
    ("frame_start", "kernel: AppFrame's construction begins (the resource in hand)"),
    ("frame_end", "kernel: AppFrame constructed (its comm_open sent)"),
    ("show_end", "kernel: the frame shown in the call's cell (`show_app` returns)"),
    ("call_start", "kernel: tools/call begins"),
    ("call_end", "kernel: tools/call returns"),
    ("result_at", "kernel: the tool's result in hand (t0)"),
    ("delivered", "kernel: the result set on the frame (its comm_msg sent)"),
    ("comm_open", "browser: the AppFrame's comm_open received on the websocket"),
    ("result_msg", "browser: the comm_msg with the result received"),
    ("esm", "browser: anywidget imports the frame's `_esm` (its blob made)"),
    ("code_asked", "browser: the frame asks the kernel for the host code (the page's first)"),
    ("code_got", "kernel: the request for the host code handled (`_send_host_code` entered)"),
    ("code_sent", "kernel: the host code sent (`_send_host_code` returns)"),
    ("code_msg", "browser: the host code received (the page's first frame)"),
    ("host_import", "browser: the host code's import begins (its blob made; once per page)"),
    ("view", "browser: the frame's view rendered (outer iframe in the page)"),
    ("html_asked", "browser: the view asks the kernel for the app's HTML"),
    ("html_got", "kernel: the request for the HTML handled (`_send_html` entered)"),
    ("html_sent", "kernel: the HTML sent, its own message (`_send_html` returns)"),
    ("html_msg", "browser: the app's HTML received (pushed after the comm_open, or the answer "
                 "to the view's ask)"),
    ("proxy_ready", "browser: the proxy says it is ready (the app's HTML is posted to it)"),
    ("proxy_load", "browser: the sandbox proxy loaded (outer iframe's load)"),
    ("app_doc", "app: its document begins (the inner frame's timeOrigin)"),
    ("fcp", "app: first contentful paint"),
    ("app_dcl", "app: DOMContentLoaded (its HTML parsed, its module script run)"),
    ("initialized", "browser: the app connected (ui/notifications/initialized)"),
    ("result_dom", "app: the result in its DOM"),
    ("result_painted", "app: the frame with the result painted (rAF, then the next task)"),
]


def points(kernel: dict, browser: dict, offset: float) -> dict:
    """One round's points, in ms after t0 (the kernel's ``deliver`` entered)."""
    t0 = kernel["result_at"] * 1000
    model = kernel["model"]
    app, page = browser["app"], browser["page"]
    found = {key: kernel[key] * 1000 for key, _ in POINTS if key in kernel}
    found["result_at"] = t0
    mine = [m for m in page["messages"] if m["comm"] == model]
    came = [m for m in mine if not m.get("out")]
    opens = [m for m in came if m["type"] == "comm_open"]
    if opens:
        found["comm_open"] = opens[0]["at"] - offset
        found["comm_open_bytes"] = opens[0]["bytes"]
    msgs = [m for m in came if m["type"] == "comm_msg" and not m.get("kind")
            and m["at"] - offset >= t0 - 1]
    if msgs:
        found["result_msg"] = msgs[0]["at"] - offset
    # (this model's custom messages: the page's request, the kernel's answer and its size)
    for kind, asked, answered, size in (("host-code", "code_asked", "code_msg", "code_bytes"),
                                        ("html", "html_asked", "html_msg", "html_msg_bytes")):
        requests = [m for m in mine if m.get("out") and m.get("kind") == kind]
        if requests:
            found[asked] = requests[0]["at"] - offset
        answers = [m for m in came if m.get("kind") == kind]
        if answers:
            found[answered] = answers[0]["at"] - offset
            found[size] = answers[0]["bytes"]
    blobs = page["blobs"]
    if blobs:
        found["esm"] = blobs[0]["at"] - offset  # (anywidget's, of `_esm`: the first)
    big = [b for b in blobs[1:] if b["bytes"] > 100_000]
    if big:
        found["host_import"] = big[0]["at"] - offset
    if page["frames"]:
        frame = page["frames"][0]
        for key, name in (("at", "view"), ("load", "proxy_load"), ("ready", "proxy_ready"),
                          ("initialized", "initialized")):
            if frame.get(key):
                found[name] = frame[key] - offset
    fcp = [p["at"] for p in app["paints"] if p["name"] == "first-contentful-paint"]
    found.update(app_doc=app["timeOrigin"] - offset, fcp=fcp[0] - offset,
                 result_dom=app["result"] - offset, result_painted=app["painted"] - offset)
    if app.get("dcl"):
        found["app_dcl"] = app["dcl"] - offset
    sizes = {k: kernel.get(k) for k in ("state_bytes", "esm_bytes", "html_bytes")}
    rel = {k: v - t0 for k, v in found.items() if not k.endswith("_bytes")}
    return {**rel, **sizes, **{k: found.get(k) for k in (
        "comm_open_bytes", "code_bytes", "html_msg_bytes")}}


#: The page's first frame, from its `_esm`'s import to its view: the host code fetched once.
CODE_LEGS = [
    ("the `_esm`'s import -> the host code asked for (the loader compiled and run)", "esm",
     "code_asked"),
    ("asked -> the kernel handles the request (the websocket, the Jupyter server, the kernel's "
     "shell or subshell)", "code_asked", "code_got"),
    ("the kernel sends the host code (the message serialized and sent)", "code_got",
     "code_sent"),
    ("sent -> the host code received in the page (the Jupyter server, the websocket, "
     "JupyterLab's main thread free)", "code_sent", "code_msg"),
    ("received -> the host code's import begins (the message parsed, the blob made)",
     "code_msg", "host_import"),
    ("the host code's import -> the view rendered (the host code compiled and run, the view "
     "made)", "host_import", "view"),
]

#: The legs from t0 to the result painted, one after the other: (what, from, to).
LEGS = [
    ("t0 -> comm_open received (it left the kernel when the frame was built, before t0: the "
     "kernel's send, the Jupyter server, the websocket, JupyterLab's main thread free)",
     "result_at", "comm_open"),
    ("comm_open received -> the `_esm`'s import begins (JupyterLab parses the message, makes "
     "the model)", "comm_open", "esm"),
    ("the `_esm`'s import -> the view asks for the app's HTML (the `_esm` compiled and run, in "
     "the page's first frame the host code fetched and imported, the view made)", "esm",
     "html_asked"),
    ("asked -> the kernel handles the request for the HTML (the websocket, the Jupyter "
     "server, the kernel's shell or subshell)", "html_asked", "html_got"),
    ("the kernel sends the HTML (the message serialized and sent)", "html_got", "html_sent"),
    ("sent -> the HTML received in the page (the Jupyter server, the websocket, JupyterLab's "
     "main thread free)", "html_sent", "html_msg"),
    ("the HTML received -> the proxy ready (its srcdoc document loads)", "html_msg",
     "proxy_ready"),
    ("proxy ready -> the app's document begins (the bridge connects, the app's HTML is posted "
     "to the proxy, which makes the inner frame)", "proxy_ready", "app_doc"),
    ("the app's document begins -> its first contentful paint", "app_doc", "fcp"),
    ("first paint -> the app connected (its module script run, the initialize handshake)",
     "fcp", "initialized"),
    ("the app connected -> the result painted (tool input and result sent, drawn)",
     "initialized", "result_painted"),
]


#: The same, where the kernel pushes the app's HTML right after the frame's comm_open (a frame
#: not held) and the view asks for nothing: its proxy's document is set as it renders.
PUSHED_LEGS = [
    LEGS[0],
    ("comm_open received -> the app's HTML received (pushed by the kernel right after the "
     "comm_open, a message of its own)", "comm_open", "html_msg"),
    ("the HTML received -> the `_esm`'s import begins (JupyterLab makes the model; anywidget "
     "hands it its messages once the `_esm`'s initialize ran)", "html_msg", "esm"),
    ("the `_esm`'s import -> the view rendered, its proxy's document set (the `_esm` compiled "
     "and run, JupyterLab shows the output, the view made)", "esm", "view"),
    ("the view -> the proxy ready (its srcdoc document loads)", "view", "proxy_ready"),
    *LEGS[-4:],
]

#: The floor's points (ms after the HTML is in the host's hand), in order: (key, what).
FLOOR_POINTS = [
    ("frame", "the outer frame made (the proxy's document set)"),
    ("proxy_ready", "the proxy says it is ready"),
    ("html_posted", "the bridge connected; the app's HTML posted to the proxy"),
    ("app_doc", "the app's document begins (the inner frame's timeOrigin)"),
    ("fcp", "the app's first contentful paint"),
    ("initialized", "the app connected (ui/notifications/initialized)"),
    ("result_painted", "the frame with the result painted"),
]
#: nb_elicit's first paint (from the result in the kernel) as a multiple of the floor's (from
#: the HTML in the host's hand) with the same framing (an opaque sandboxed srcdoc proxy: the
#: security model, whose own cost is not the host's part), in the same browser and run: at most
#: as long again as a page that has the app's HTML in hand, for the kernel, the Jupyter server,
#: the websocket, JupyterLab's model and view. Next to the reference host's framing (a proxy on
#: an origin of its own, which a notebook page has no server for) the ratio is information.
FLOOR_RATIO_TARGET = 2.0


def legs_of(warm: list[dict]) -> list[tuple[str, str, str]]:
    """The legs of these rounds: the view asked for the HTML (`LEGS`), or it was pushed."""
    return LEGS if any("html_asked" in r for r in warm) else PUSHED_LEGS


def report(sec: Section, measured: dict, rounds: int) -> None:
    offset = measured["clock"]["offset"]
    kernel = measured["kernel"]
    all_rounds = []
    for k, browser in enumerate(measured["browser"]):
        label = f"round-{k}"
        if label not in kernel or "result_at" not in kernel[label]:
            raise BenchError(f"the kernel recorded no result for {label}: {sorted(kernel)}")
        all_rounds.append(points(kernel[label], browser, offset))
    cold, warm = all_rounds[0], all_rounds[1:]
    fcp = [r["fcp"] for r in warm]
    shown = [r["result_painted"] for r in warm]

    def stat(key: str) -> list[str]:
        values = [r[key] for r in warm if key in r]
        first = ms(cold[key]) if key in cold else "-"
        if not values:
            return ["-", "-", first]
        return [ms(median(values)), ms(pct(values, 95)), first]

    sec.table(f"Where the time goes, {rounds} rounds of `%mcp call demo clock` (and one cold "
              "round first, not counted): each point in ms after t0, the moment the kernel "
              "holds the tool's result (negative: before it)",
              ["point", "median", "p95", "cold round"],
              [[what, *stat(key)] for key, what in POINTS])
    rows = []
    for what, start, stop in legs_of(warm):
        values = [r[stop] - r[start] for r in warm if start in r and stop in r]
        rows.append([what, ms(median(values)) if values else "-",
                     ms(pct(values, 95)) if values else "-",
                     ms(cold[stop] - cold[start]) if start in cold and stop in cold else "-"])
    sec.table("The same rounds, leg by leg (ms; the legs follow each other, from t0 to the "
              "result painted)", ["leg", "median", "p95", "cold round"], rows)
    if "code_asked" in cold:
        sec.table("The cold round (the page's first frame): its `_esm`, a loader, fetches the "
                  "host code from the kernel (ms)", ["leg", "cold round"],
                  [[what, ms(cold[stop] - cold[start]) if start in cold and stop in cold
                    else "-"] for what, start, stop in CODE_LEGS])
    alone = measured["alone"]
    rows = [["import the frame's `_esm` from a new blob (what anywidget does for every "
             "AppFrame)", ", ".join(f"{v:.0f}" for v in alone["imports"])]]
    if alone.get("host_imports"):
        rows.append(["import the host code (static/app_host.js) from a new blob (what the "
                     "loader does once per page)",
                     ", ".join(f"{v:.0f}" for v in alone["host_imports"])])
    rows.append(["JSON.parse of a message holding that `_esm` (the bulk of the comm_open)",
                 ", ".join(f"{v:.1f}" for v in alone["parses"])])
    if alone.get("html_parses"):
        rows.append(["JSON.parse of a message holding the app's HTML (its own message)",
                     ", ".join(f"{v:.1f}" for v in alone["html_parses"])])
    sec.table("In JupyterLab's page after the rounds, alone (3 times each, ms)",
              ["what", "each time"], rows)
    sizes = warm[-1]
    loader = cold.get("code_bytes") is not None
    sec.table("What the AppFrame's comm_open carries (bytes of JSON; the last round), the "
              "app's HTML's message (the last round) and the host code's message (the cold "
              "round)", ["part", "bytes"],
              [["the whole comm_open frame on the websocket",
                f"{sizes['comm_open_bytes']:,}" if sizes.get("comm_open_bytes") else "?"],
               ["the widget's state (all synced traits)", f"{sizes['state_bytes']:,}"],
               ["of which `_esm` (anywidget's front end: "
                + ("a loader, static/app_loader.js)" if loader else "static/app_host.js)"),
                f"{sizes['esm_bytes']:,}"],
               ["the app's HTML, not in the state: one message to the view that asks for it, "
                "on the websocket", f"{sizes['html_msg_bytes']:,}"
                if sizes.get("html_msg_bytes") else "?"],
               ["of which the message's content as the kernel sends it (`{\"kind\": "
                "\"html\", \"html\": ...}`)",
                f"{sizes['html_bytes']:,}" if sizes.get("html_bytes") else "?"],
               ["the host code's message, once per page (static/app_host.js)",
                f"{cold['code_bytes']:,}" if loader else "none (it is the `_esm`)"]])
    floor = measured.get("floor")
    if floor:
        floor_table(sec, floor, rounds)
        for framing, what, judged in (
                ("opaque", "nb_elicit's framing (an opaque sandboxed srcdoc proxy)", True),
                ("origin", "the reference host's framing (a proxy on an origin of its own)",
                 False)):
            base = median([r["fcp"] for r in floor[framing][1:]])
            ratio = median(fcp) / base
            passed = ratio <= FLOOR_RATIO_TARGET if judged else None
            sec.targets.append(Target(
                "The tool's result in the kernel -> the app's first paint, next to a minimal "
                f"host of the same app-bridge package with {what}, from the HTML in its hand "
                f"(same browser and run; {rounds} rounds each)",
                f"≤ {FLOOR_RATIO_TARGET:g}× the floor" if judged else "(info)",
                f"{ratio:.2f}× (median {ms(median(fcp))} vs {ms(base)})", passed,
                f"{ratio - FLOOR_RATIO_TARGET:.2f}×" if passed is False else None))
    missed = median(fcp) - PAINT_TARGET
    sec.targets.append(Target(
        "The tool's result in the kernel -> the app's first paint (first contentful paint in "
        f"its frame; {rounds} rounds)", f"median ≤ {PAINT_TARGET:g} ms" if not floor
        else f"(info; was median ≤ {PAINT_TARGET:g} ms)",
        f"median {ms(median(fcp))}, p95 {ms(pct(fcp, 95))} (cold round {ms(cold['fcp'])})",
        (missed <= 0) if not floor else None, ms(missed) if missed > 0 and not floor else None))
    sec.targets.append(Target(
        "The tool's result in the kernel -> the app's frame with the result painted",
        "(info)", f"median {ms(median(shown))}, p95 {ms(pct(shown, 95))}", None))
    typing = measured["typing"]
    intact = typing["received"] == TYPED and typing["action"] == "accept"
    sec.targets.append(Target(
        f"A cell with {LIVE} live apps, then a form typed into key by key "
        f"({len(TYPED)} keys, {KEY_DELAY_MS} ms apart)", "intact",
        "intact" if intact else f"received {typing['received']!r}", intact,
        None if intact else "not intact"))
    opens = [r["comm_open_bytes"] for r in all_rounds if r.get("comm_open_bytes")]
    if opens:
        most = max(opens)
        sec.targets.append(Target(
            "AppFrame comm_open size (the whole message on the websocket, as JupyterLab's page "
            "receives it)", f"<= {COMM_OPEN_TARGET / 1000:g} kB",
            f"{most / 1000:.1f} kB ({most:,} bytes, the largest of {len(opens)} rounds)",
            most <= COMM_OPEN_TARGET,
            f"{(most - COMM_OPEN_TARGET) / 1000:.1f} kB" if most > COMM_OPEN_TARGET else None))
    notes(sec, measured, cold, warm)


def floor_table(sec: Section, floor: dict, rounds: int) -> None:
    """The floor's points, both framings side by side (medians of the warm rounds)."""
    def stat(mode: str, key: str) -> str:
        values = [r[key] for r in floor[mode][1:] if key in r]
        return f"{ms(median(values))} (p95 {ms(pct(values, 95))})" if values else "-"

    sec.table(f"The floor, in the same browser after the rounds: a minimal host of the same "
              f"app-bridge package (benchmarks/app_floor.js), {rounds} rounds of each framing "
              "(and a cold one first, not counted); each point in ms after the HTML is in the "
              "host's hand", ["point", "reference host's framing (proxy on its own origin)",
                              "nb_elicit's framing (opaque srcdoc proxy)"],
              [[what, stat("origin", key), stat("opaque", key)] for key, what in FLOOR_POINTS])


def notes(sec: Section, measured: dict, cold: dict, warm: list[dict]) -> None:
    clock = measured["clock"]
    typing = measured["typing"]
    sec.notes.append(
        "A real JupyterLab (`jupyter lab`, every directory temporary, the browser tests' "
        "harness in `tests/helpers/lab.py`) in headless Chromium (Debian's, through "
        "Playwright), a 1280x1600 window; one notebook, one kernel, connected over stdio to the "
        "demo server (`python -m nb_elicit.demo`, on the official `mcp` SDK), whose `clock` tool "
        "answers at once and comes with an app (`ui://demo/clock.html`, "
        "`nb_elicit/demo/static/clock_app.html`, written with the official app side). Each round "
        "runs `%mcp call demo clock {\"label\": \"round-K\"}` in a cell of its own, waits for "
        "the app to paint its result, then ends the app (its frame is removed) before the next.")
    sec.notes.append(
        "t0 is taken in the kernel when nb_elicit's `deliver()` is entered: the call's "
        "`tools/call` has returned and nb_elicit holds the tool's result, about to set it on "
        "the app's frame (`tool_result`). nb_elicit builds and shows the frame *before* it calls "
        "the tool (the app gets the tool's input first), so the frame's comm_open leaves the "
        "kernel before t0, and the whole of the app's loading lies after it when the tool "
        "answers at once, as here. The kernel's times are `time.time()` in two wrappers put "
        "around `show_app` and `deliver` by a cell before the rounds. The browser's are "
        "`performance.timeOrigin + performance.now()` in each document (an init script in every "
        "frame; the websocket's messages are seen by a listener added before JupyterLab's); "
        f"the browser's clock read {clock['offset']:+.2f} ms from the kernel's "
        f"(±{clock['spread']:.2f} ms), and that offset is taken off.")
    sec.notes.append(
        "The app's first paint is the first-contentful-paint entry of the app's own document "
        "(the inner frame): its static HTML drawn, before its script has connected. The frame "
        "with the result is the next task after the requestAnimationFrame that follows the "
        "app's writing the result into its DOM.")
    if "code_asked" in cold and "code_msg" in cold:
        fetched = (f"; its `_esm`, a loader, asked the kernel for the host code "
                   f"{ms(cold['code_asked'])} after t0 and had it "
                   f"{ms(cold['code_msg'] - cold['code_asked'])} later, "
                   f"{(cold.get('code_bytes') or 0) / 1e3:.0f} kB, which no later round asks for")
    else:
        fetched = ""
    sec.notes.append(
        f"The cold round is the page's first app (the app's resource read from the server "
        f"once, for the connection; the page's first anywidget{fetched}): first paint "
        f"{ms(cold['fcp'])}, result painted {ms(cold['result_painted'])} after t0. Before the "
        f"rounds, the "
        f"instrumenting cell calls the demo's `hello` (no app): the connection's first "
        f"`tools/call` took {measured['first_call'] * 1000:.0f} ms, so that no round pays for it "
        "(the SDK's client imports `jsonschema` on its first `call_tool`).")
    legs = legs_of(warm)
    leg = {stop: median([r[stop] - r[start] for r in warm if start in r and stop in r])
           for _, start, stop in legs}
    fcp = median([r["fcp"] for r in warm])
    imports = median(measured["alone"]["imports"])
    host_imports = measured["alone"].get("host_imports")
    if host_imports:
        esm_said = (f"its `_esm` is a {warm[-1]['esm_bytes'] / 1e3:.1f} kB loader that "
                    f"anywidget imports from a new blob for every frame ({imports:.0f} ms alone "
                    f"in this page); the host code it hands the frame to was imported once, in "
                    f"the cold round ({median(host_imports):.0f} ms alone)")
    else:
        esm_said = (f"importing its {warm[-1]['esm_bytes'] / 1e3:.0f} kB ESM alone takes "
                    f"{imports:.0f} ms in this page, and anywidget imports it anew from a new "
                    "blob for every frame")
    html_kb = (f"{warm[-1]['html_msg_bytes'] / 1e3:.0f} kB" if warm[-1].get("html_msg_bytes")
               else "the HTML")
    if legs is LEGS:
        html_trip = leg["html_got"] + leg["html_sent"] + leg["html_msg"]
        html_said = (f"{leg['esm'] + leg['html_asked']:.0f} ms from there until the frame's "
                     f"view asks for the app's HTML ({esm_said}), {html_trip:.0f} ms for the "
                     f"HTML's round trip (asked, handled in the kernel, {html_kb} received in a "
                     "message of its own)")
    else:
        html_said = (f"the app's HTML {leg['html_msg']:.0f} ms after it ({html_kb} in a message "
                     f"of its own, pushed by the kernel right after the comm_open), "
                     f"{leg['esm'] + leg['view']:.0f} ms from there until the frame's view "
                     f"rendered and set its proxy's document ({esm_said})")
    sec.notes.append(
        f"Where the median round's {fcp:.0f} ms to the first paint go (medians of the legs, "
        f"which need not add up exactly): {leg['comm_open']:.0f} ms until JupyterLab's page "
        f"has the frame's comm_open (built {-median([r['frame_start'] for r in warm]):.0f} ms "
        f"before t0, {warm[-1]['state_bytes'] / 1e3:.1f} kB of state), {html_said}, "
        f"{leg['proxy_ready']:.0f} ms to the sandbox proxy, {leg['app_doc']:.0f} ms to the app's "
        f"document (the HTML posted into it) and "
        f"{leg['fcp']:.0f} ms to its first paint. To the result painted: {leg['initialized']:.0f} "
        f"ms more until the app has connected (its own bundled SDK run, the handshake) and "
        f"{leg['result_painted']:.0f} ms to draw the result. In the kernel, before the tool "
        f"is called: constructing the AppFrame (its state serialized and sent as the comm_open) "
        f"took {median([r['frame_end'] - r['frame_start'] for r in warm]):.0f} ms, and the "
        f"call waited {median([r['call_start'] - r['show_start'] for r in warm]):.0f} ms in all "
        "for its app to be shown before `tools/call` went out.")
    sec.notes.append(
        f"{LIVE} live apps (the most one connection keeps): one cell awaits `call_tool('clock', "
        f"...)` {LIVE} times; all {LIVE} had "
        f"painted their result {typing['all_painted_ms']:.0f} ms after the cell was started"
        + (f" (those the probe reached: Playwright did not attach to the frame of "
           f"{', '.join(typing['unreached'])}), " if typing.get("unreached") else ", ") +
        f"and {typing['live_after']} frames were still live after the form was answered. Then "
        f"`%mcp call demo github_username`: its text field clicked, then `{TYPED}` typed with "
        f"Playwright's `keyboard.type` ({KEY_DELAY_MS} ms between keys, "
        f"{typing['typing_s']:.1f} s in all); the field showed {typing['shown']!r}, and the "
        f"server received {typing['received']!r} ({typing['action']}).")
