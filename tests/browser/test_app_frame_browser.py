"""AppFrame in a real JupyterLab in Chromium, with an app written with the official app side
(``tests/browser/apps/probe_app.js``, bundled with ``App`` of ``@modelcontextprotocol/ext-apps``):
neither frame may share the notebook's origin; the app gets the tool input, the tool result (or
the cancel) and the theme, and hears the theme change; its ``tools/call`` reaches the Python
handler (sync or async) and the answer comes back into it, as does a deliberate error; it
cannot read the page, the host's cookies or the notebook server; Python closes it, and a
second close asks the app for no second teardown.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from helpers.apps import app_html

from nb_elicit._ui.app_frame import HOST_SHA

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

BODY = ('<p id="state">starting</p><p id="reach"></p><p id="fetch"></p><p id="violations"></p>'
        '<p id="input"></p><p id="result"></p><p id="theme"></p>'
        '<button id="call">Call echo</button><p id="called"></p>'
        '<button id="link">Open link</button><p id="linked"></p>')


def frame_cell(html_path) -> str:
    return f"""\
import pathlib
from nb_elicit._ui.app_frame import AppFrame, AppRequestError
calls = []
def handler(method, params):
    calls.append(method)
    if method == "tools/call":
        return {{"content": [{{"type": "text", "text": "pong " + params["arguments"]["word"]}}]}}
    raise AppRequestError(-32000, "Link opening denied by user")
frame = AppFrame(html=pathlib.Path({str(html_path)!r}).read_text(encoding="utf-8"),
                 tool_input={{"word": "hi"}})
frame.add_class("nb-elicit-test-app")
frame.on_request(handler)
frame"""


RESULT_CELL = ('frame.tool_result = {"content": [{"type": "text", "text": "the result 42"}], '
               '"structuredContent": {"n": 42}}')
STATE_CELL = "print(frame.status, frame.height, calls)"


@pytest.mark.parametrize("lab", ["perCommTarget", "disabled"], indirect=True)
def test_an_app_is_sandboxed_gets_its_result_and_calls_the_handler(lab, tmp_path):
    server = f"http://127.0.0.1:{lab.server.port}"
    html_path = tmp_path / "probe.html"
    html_path.write_text(app_html("probe_app", tmp_path, BODY, server=server), encoding="utf-8")
    lab.open(frame_cell(html_path), RESULT_CELL, STATE_CELL,
             "frame.teardown()\nframe.teardown()", STATE_CELL)
    console: list[str] = []
    lab.page.on("console", lambda message: console.append(message.text))
    lab.run(2)
    widget = lab.cell(2).locator(".nb-elicit-test-app")
    outer = widget.locator("iframe.nb-elicit-app-frame-outer")
    outer.wait_for()
    app = lab.page.frame_locator(".nb-elicit-test-app iframe").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")

    # Neither frame shares the notebook's origin.
    for sandbox in (outer.get_attribute("sandbox"),
                    lab.page.frame_locator(".nb-elicit-test-app iframe").locator("iframe")
                    .get_attribute("sandbox")):
        assert "allow-scripts" in sandbox.split()
        assert "allow-same-origin" not in sandbox.split()

    # What the host sent at initialize.
    expect(app.locator("#input")).to_have_text(json.dumps({"word": "hi"}, separators=(",", ":")))
    expect(app.locator("#theme")).to_have_text("light")
    # JupyterLab's theme changes: the app hears it (host-context-changed).
    lab.page.evaluate("document.body.dataset.jpThemeLight = 'false'")
    expect(app.locator("#theme")).to_have_text("dark")
    lab.page.evaluate("document.body.dataset.jpThemeLight = 'true'")
    expect(app.locator("#theme")).to_have_text("light")

    # What the sandbox lets it reach: not the page, not the host's cookies, not the server.
    assert "_xsrf" in lab.page.evaluate("document.cookie")  # (there is a cookie to steal)
    expect(app.locator("#reach")).to_have_text("parent:blocked top:blocked cookie:blocked")
    expect(app.locator("#fetch")).to_have_text("fetch:blocked")
    expect(app.locator("#violations")).to_contain_text("connect-src")

    # The tool result, set in Python after the app is up.
    lab.run(3)
    expect(app.locator("#result")).to_have_text("the result 42")

    # tools/call: app -> AppBridge -> Python handler -> back into the app; and an AppRequestError.
    app.locator("#call").click()
    expect(app.locator("#called")).to_have_text("pong ping")
    app.locator("#link").click()
    expect(app.locator("#linked")).to_have_text("error -32000: Link opening denied by user")
    lab.screenshot("app", of=lab.cell(2))

    # The front end told Python: ready, and the height the app asked for.
    lab.settle()
    lab.run(4)
    expect(lab.cell(4)).to_contain_text("ready")
    expect(lab.cell(4)).to_contain_text("['tools/call', 'ui/open-link']")
    height = int(re.search(r"ready (\d+)", lab.cell(4).inner_text()).group(1))
    assert 40 < height <= 800
    assert outer.evaluate("e => e.style.height") == f"{height}px"

    # Python closes it (twice): the app is asked to tear down once, then its frame is gone.
    lab.run(5)
    expect(widget.locator("iframe")).to_have_count(0)
    expect(widget).to_contain_text("The app was closed.")
    lab.settle()
    lab.run(6)
    expect(lab.cell(6)).to_contain_text("torn down")
    assert [line for line in console if line.startswith("probe-app teardown")] == [
        "probe-app teardown 1"]


def test_in_the_dark_theme_an_async_handler_answers_and_a_cancel_arrives(lab_dark, tmp_path):
    server = f"http://127.0.0.1:{lab_dark.server.port}"
    html_path = tmp_path / "probe.html"
    html_path.write_text(app_html("probe_app", tmp_path, BODY, server=server), encoding="utf-8")
    cell = frame_cell(html_path).replace("def handler(method, params):",
                                         "async def handler(method, params):\n"
                                         "    await asyncio.sleep(0.05)")
    lab_dark.open("import asyncio\n" + cell, 'frame.cancelled = "the person stopped it"')
    lab_dark.run(2)
    app = lab_dark.page.frame_locator(".nb-elicit-test-app iframe").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")
    expect(app.locator("#theme")).to_have_text("dark")
    app.locator("#call").click()
    expect(app.locator("#called")).to_have_text("pong ping")
    app.locator("#link").click()
    expect(app.locator("#linked")).to_have_text("error -32000: Link opening denied by user")
    lab_dark.run(3)
    expect(app.locator("#result")).to_have_text("cancelled: the person stopped it")


def steady(lab, locator, timeout: float = 20) -> None:
    """Wait until ``locator`` has stayed in place for half a second (a click lands on it)."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() - since < 0.5:
        if time.monotonic() > deadline:
            raise AssertionError(f"{locator} kept moving for {timeout:g} s")
        box = locator.bounding_box()
        if box != last:
            last, since = box, time.monotonic()
        lab.page.wait_for_timeout(50)


def frames_cell(html_path) -> str:
    """A frame whose kernel side never sends the host code (and waits 2 s for it); then two
    frames in one output, then a third in a cell of its own."""
    return f"""\
import pathlib
import ipywidgets as widgets
from nb_elicit._ui.app_frame import AppFrame, loader
html = pathlib.Path({str(html_path)!r}).read_text(encoding="utf-8")
class Silent(AppFrame):
    _esm = loader(2)
    def _send_host_code(self):
        pass
def made(name, kind=AppFrame):
    frame = kind(html=html, tool_input={{"word": name}})
    frame.add_class(f"nb-elicit-test-{{name}}")
    return frame
silent = made("silent", Silent)
silent"""


def test_the_host_code_comes_once_per_page_and_a_frame_without_it_says_so(lab, tmp_path):
    server = f"http://127.0.0.1:{lab.server.port}"
    html_path = tmp_path / "probe.html"
    html_path.write_text(app_html("probe_app", tmp_path, BODY, server=server), encoding="utf-8")
    lab.open(frames_cell(html_path),
             "print(silent.status, '|', silent.host_code_requests)",
             'first, second = made("first"), made("second")\nwidgets.VBox([first, second])',
             'third = made("third")\nthird',
             "print([f.host_code_requests for f in (first, second, third)], "
             "first.status, second.status, third.status)")
    # The page's first frame gets no host code: after its wait, it says the app did not start.
    lab.run(2)
    silent = lab.cell(2).locator(".nb-elicit-test-silent")
    expect(silent).to_contain_text("The app did not start.")
    expect(silent.locator("iframe")).to_have_count(0)
    lab.settle()
    lab.run(3)
    expect(lab.cell(3)).to_contain_text("failed: no host code from the kernel within 2 s | 1")

    # Two frames in one output: one request between them (the failure above was forgotten),
    # both apps run; a third frame later asks for nothing.
    lab.run(4)
    for name in ("first", "second"):
        app = lab.page.frame_locator(f".nb-elicit-test-{name} iframe").frame_locator("iframe")
        expect(app.locator("#state")).to_have_text("connected")
        expect(app.locator("#input")).to_have_text(f'{{"word":"{name}"}}')
    lab.run(5)
    app = lab.page.frame_locator(".nb-elicit-test-third iframe").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")
    assert lab.page.evaluate("Object.keys(globalThis).filter("
                             "k => k.startsWith('nb_elicit.app_host.'))") == [
        f"nb_elicit.app_host.{HOST_SHA}"]
    lab.settle()
    # (the last cell at the top, where no frame is: a click meant for its editor that landed
    # on a frame would move the focus into it, and the cell would not run)
    lab.cell(6).evaluate("e => e.scrollIntoView({block: 'start'})")
    steady(lab, lab.cell(6))
    lab.run(6)
    said = lab.cell(6).inner_text()
    requests = json.loads(re.search(r"(\[\d+, \d+, \d+\])", said).group(1))
    assert sorted(requests) == [0, 0, 1] and requests[2] == 0, said
    assert said.count("ready") == 3, said
