"""The demo server's clock app in a real JupyterLab: ``%mcp call demo clock`` shows the tool's
text result and, under it, the app (the committed ``nb_elicit/demo/static/clock_app.html``,
written with the official app side). The app shows the result; its buttons call the app-only
tool ``clock_now`` through nb_elicit, send a message and ask to open a link, which waits for the
consent card's **Open**; ``%mcp apps demo off`` ends it with a line. Each thing the app did is
told once in the cell, as a line of the call after its result.
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
    line = cell.locator(".nb-elicit-notice-text")
    expect(line.filter(has_text="The app called clock_now.")).to_have_count(1)
    expect(line.filter(has_text="The app set its context for the model")).to_have_count(1)

    # Send message: kept on the result, shown once, as a line of the call, after its result.
    app.locator("#message").click()
    expect(app.locator("#status")).to_have_text("Message sent.")
    said = cell.get_by_text("The app says: The clock showed ")
    expect(said).to_have_count(1)
    result = cell.get_by_text("Result from demo")
    expect(result).to_have_count(1)
    assert result.bounding_box()["y"] < said.bounding_box()["y"]

    # Open link: the consent card; nothing happens before Open.
    app.locator("#link").click()
    card = cell.locator(".nb-elicit-url-card")
    card.wait_for()
    expect(card).to_contain_text("modelcontextprotocol.io")
    expect(card.locator("a")).to_have_count(0)
    expect(app.locator("#status")).to_have_text("Message sent.")  # (still waiting)
    card.locator(".nb-elicit-open").click()
    expect(app.locator("#status")).to_have_text("The host took the link.")
    # (the card leaves the app: the cell tells the request once, with the link to open)
    expect(card).to_have_count(0)
    expect(cell.locator('a[href="https://modelcontextprotocol.io"]')).to_have_count(1)
    expect(cell.get_by_text("You agreed to open the page")).to_have_count(1)
    expect(cell.get_by_text("The clock showed ")).to_have_count(1)  # (still once)
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
    expect(cell.get_by_text("The app ended: apps were turned off for 'demo'.")).to_have_count(1)
    expect(cell.get_by_text("is shown here")).to_have_count(0)  # (that line says why, now)
    expect(cell).to_contain_text("Kitchen: ")  # (the text result stays)
