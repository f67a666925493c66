"""The demo server's clock app in a real JupyterLab: ``%mcp call demo clock`` shows the tool's
text result and, under it, the app (the committed ``nb_elicit/demo/static/clock_app.html``,
written with the official app side). The app shows the result; its buttons call the app-only
tool ``clock_now`` through nb_elicit, send a message and ask to open a link, which waits for the
consent card's **Open**; ``%mcp apps demo off`` ends it with a line.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

TIME = re.compile(r"^\d\d:\d\d:\d\d UTC$")


def test_the_clock_app_shows_its_result_calls_its_tool_sends_and_asks_to_open(lab):
    lab.open('%mcp call demo clock {"label": "Kitchen"}',
             "conn = nb_elicit.connections['demo']\n"
             "print(len(conn.apps.shown), conn.apps.shown[0].log.messages[0]['content'][0]['text'],"
             " conn.apps.shown[0].log.model_context['content'][0]['text'])",
             "%mcp apps demo off")
    lab.run(2)
    cell = lab.cell(2)
    expect(cell).to_contain_text("An app of demo · clock is shown here")
    expect(cell).to_contain_text("Kitchen: ")
    outer = cell.locator("iframe.nb-elicit-app-frame-outer")
    outer.wait_for()
    assert "allow-same-origin" not in outer.get_attribute("sandbox").split()
    app = cell.frame_locator("iframe.nb-elicit-app-frame-outer").frame_locator("iframe")
    expect(app.locator("#state")).to_have_text("connected")

    # The tool's input and result reached the app.
    expect(app.locator("#label")).to_have_text("Kitchen")
    expect(app.locator("#source")).to_have_text("from the clock tool's result")
    expect(app.locator("#time")).to_have_text(TIME)

    # Ask the server: the app-only tool, called through nb_elicit, reaches the server.
    app.locator("#again").click()
    expect(app.locator("#source")).to_have_text("from clock_now, called by this app")
    expect(app.locator("#status")).to_have_text("The server answered.")
    expect(app.locator("#time")).to_have_text(TIME)
    (called,) = lab.wait_journal(1)
    assert called["tool"] == "clock_now" and called["event"] == "called"
    expect(cell).to_contain_text("The app called clock_now: It is ")
    expect(cell).to_contain_text("The app set its context: The clock app shows ")

    # Send message: kept on the result, shown under the app as text.
    app.locator("#message").click()
    expect(app.locator("#status")).to_have_text("Message sent.")
    expect(cell).to_contain_text("The app says: The clock showed ")

    # Open link: the consent card; nothing happens before Open.
    app.locator("#link").click()
    card = cell.locator(".nb-elicit-url-card")
    card.wait_for()
    expect(card).to_contain_text("modelcontextprotocol.io")
    expect(card.locator("a")).to_have_count(0)
    expect(app.locator("#status")).to_have_text("Message sent.")  # (still waiting)
    card.locator(".nb-elicit-open").click()
    expect(app.locator("#status")).to_have_text("The host took the link.")
    expect(card.locator('a[href="https://modelcontextprotocol.io"]')).to_have_count(1)
    expect(cell).to_contain_text("You agreed to open https://modelcontextprotocol.io.")
    lab.screenshot("clock-app", of=cell)

    # What the app said is on the Python side.
    lab.settle()
    lab.run(3)
    expect(lab.cell(3)).to_contain_text("1 The clock showed ")
    expect(lab.cell(3)).to_contain_text("The clock app shows ")

    # Apps off: the app ends, and a line says so where it was.
    lab.run(4)
    expect(lab.cell(4)).to_contain_text("MCP Apps of 'demo' are off")
    expect(cell.locator("iframe")).to_have_count(0)
    expect(cell).to_contain_text("The app ended: apps were turned off for 'demo'.")
    expect(cell).to_contain_text("Kitchen: ")  # (the text result stays)
