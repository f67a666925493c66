"""An app's frame in a real JupyterLab in Chromium, as its authors wrote it
(``tests/browser/apps/display_app.js``, written with ``App`` of
``@modelcontextprotocol/ext-apps``): under the reference host's policy a worker made from a
``blob:`` URL runs, as do a ``data:`` module and ``eval``, while the network stays closed; full
screen opens on the person's click on the frame's button (the app's request only offers it),
Escape brings it back inline, and the app hears each mode and its container's size; an app
3000 pixels tall is all there, its frame as tall as it, in a box that scrolls to its end.
"""

from __future__ import annotations

import re

import pytest
from helpers.apps import app_html

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

BODY = ('<p id="state">starting</p><p id="worker"></p><p id="import"></p><p id="eval"></p>'
        '<p id="violations"></p><p id="available"></p><p id="modes"></p><p id="granted"></p>'
        '<button id="full">Full screen</button><button id="inline">Inline</button>'
        '<button id="pip">Picture in picture</button>'
        '<div id="filler"></div><p id="bottom">the bottom</p>')


def frame_cell(html_path) -> str:
    return f"""\
import pathlib
from nb_elicit._ui.app_frame import AppFrame
asked = []
def handler(method, params):
    asked.append((method, params.get("mode")))
    return {{"mode": "inline"}}
frame = AppFrame(html=pathlib.Path({str(html_path)!r}).read_text(encoding="utf-8"))
frame.add_class("nb-elicit-test-app")
frame.on_request(handler)
frame"""


STATE_CELL = "print(frame.status, frame.height, asked)"


def open_app(lab, tmp_path, tall: int = 0):
    html_path = tmp_path / "display.html"
    html_path.write_text(app_html("display_app", tmp_path, BODY, tall=str(tall)),
                         encoding="utf-8")
    lab.open(frame_cell(html_path), STATE_CELL)
    lab.run(2)
    widget = lab.cell(2).locator(".nb-elicit-test-app")
    widget.locator("iframe.nb-elicit-app-frame-outer").wait_for()
    app = lab.page.frame_locator(".nb-elicit-test-app iframe").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")
    return widget, app


def test_workers_from_blob_data_modules_and_eval_run_and_full_screen_is_the_person_s(lab,
                                                                                      tmp_path):
    widget, app = open_app(lab, tmp_path)
    expect(app.locator("#worker")).to_have_text("worker:42")
    expect(app.locator("#import")).to_have_text("import:data-module")
    expect(app.locator("#eval")).to_have_text("eval:42")
    expect(app.locator("#available")).to_have_text("inline,fullscreen")
    button = widget.locator("button.nb-elicit-app-frame-fullscreen")
    assert button.get_attribute("data-offered") == "false"

    # The app asks: it is answered with the mode in effect, and the button lights up.
    app.locator("#full").click()
    expect(app.locator("#granted")).to_have_text("fullscreen->inline")
    expect(button).to_have_attribute("data-offered", "true")
    assert lab.page.evaluate("document.fullscreenElement") is None
    app.locator("#pip").click()
    expect(app.locator("#granted")).to_have_text("pip->inline")

    # The person clicks: the frame's container fills the screen, and the app hears it: the
    # frame takes all of it but the bar of the button above it (which covers none of the app).
    button.click()
    lab.page.wait_for_function(
        "document.fullscreenElement?.classList.contains('nb-elicit-test-app')")
    expect(app.locator("#modes")).to_contain_text("fullscreen:")
    screen = lab.page.evaluate("window.innerHeight")
    bar = widget.locator(".nb-elicit-app-frame-bar").bounding_box()
    assert bar["y"] <= 2 and bar["height"] < 40, bar
    below = screen - (bar["y"] + bar["height"])
    told = int(re.search(r"fullscreen:(\d+)", app.locator("#modes").inner_text()).group(1))
    assert abs(told - below) <= 4, (told, below)
    outer = widget.locator("iframe.nb-elicit-app-frame-outer")
    assert abs(outer.evaluate("e => e.getBoundingClientRect().height") - below) <= 4
    expect(button).to_have_attribute("aria-pressed", "true")
    # (asked again while in it: it is granted. The click is dispatched to the app's button:
    # while headless Chromium lays the page out for full screen, a pointer click can land on
    # nothing, and the app then sends no request at all, as a full run on a busy machine saw)
    app.locator("#full").dispatch_event("click")
    expect(app.locator("#granted")).to_have_text("fullscreen->fullscreen")

    # Escape: full screen ends, the frame is inline again, the app hears it. (Headless Chromium
    # has no window of its own to take the key: the frame's button, focused, takes it.)
    button.focus()
    lab.page.keyboard.press("Escape")
    lab.page.wait_for_function("document.fullscreenElement === null")
    expect(app.locator("#modes")).to_contain_text(re.compile(r"fullscreen:\d+ inline:\d+"))
    expect(button).to_have_attribute("aria-pressed", "false")
    assert outer.evaluate("e => e.getBoundingClientRect().height") < screen

    # Full screen again, and the app asks for inline: it is inline at once.
    button.click()
    lab.page.wait_for_function("document.fullscreenElement !== null")
    app.locator("#inline").dispatch_event("click")  # (in full screen: as above)
    expect(app.locator("#granted")).to_have_text("inline->inline")
    lab.page.wait_for_function("document.fullscreenElement === null")
    expect(app.locator("#modes")).to_contain_text(
        re.compile(r"fullscreen:\d+ inline:\d+ fullscreen:\d+ inline:\d+"))

    # The network stays closed: nothing was blocked but what the policy meant to block.
    assert app.locator("#violations").inner_text() == ""
    lab.settle()
    lab.run(3)
    expect(lab.cell(3)).to_contain_text("('ui/request-display-mode', 'fullscreen')")
    expect(lab.cell(3)).to_contain_text("('ui/request-display-mode', 'pip')")


def test_a_tall_app_is_all_there_and_its_box_scrolls_to_its_end(lab, tmp_path):
    widget, app = open_app(lab, tmp_path, tall=3000)
    outer = widget.locator("iframe.nb-elicit-app-frame-outer")
    box = widget.locator(".nb-elicit-app-frame-box")
    # The frame grows to the app's full height; the box shows part of it.
    lab.page.wait_for_function(
        """() => parseFloat(document.querySelector('.nb-elicit-test-app iframe').style.height)
                 > 3000""")
    frame_height = outer.evaluate("e => e.getBoundingClientRect().height")
    inner_height = app.locator("html").evaluate("e => e.scrollHeight")
    assert frame_height >= inner_height > 3000, (frame_height, inner_height)
    assert app.locator("html").evaluate("e => e.scrollHeight <= e.clientHeight + 1")
    shown = box.evaluate("e => e.clientHeight")
    assert shown <= 800 and shown <= lab.page.evaluate("window.innerHeight") * 0.8 + 1
    assert box.evaluate("e => e.scrollHeight > e.clientHeight")

    # The box scrolls to the app's last element, which is then in view.
    box.evaluate("e => { e.scrollTop = e.scrollHeight; }")
    bottom = app.locator("#bottom")
    expect(bottom).to_be_in_viewport()
    box_rect = box.evaluate("e => e.getBoundingClientRect().bottom")
    frame_rect = outer.evaluate("e => e.getBoundingClientRect().bottom")
    assert abs(frame_rect - box_rect) <= 2  # (the frame's end is the box's end)
    lab.screenshot("tall", of=lab.cell(2))
    lab.settle()
    lab.run(3)
    height = int(re.search(r"ready (\d+)", lab.cell(3).inner_text()).group(1))
    assert height == round(frame_height)
