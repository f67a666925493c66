"""An MCP App from a Python server: FastMCP's own app API (``tests/servers/fastmcp_app_server.py``,
the pinned ``fastmcp`` in its own virtualenv), over stdio and over streamable HTTP, in a real
JupyterLab in Chromium. Its app is the demo's clock: it shows the tool's result, and calls the
server's app-only ``clock_now`` through nb_elicit.
"""

from __future__ import annotations

import contextlib
import re
import shlex

import pytest
from helpers.interop import fastmcp_app_command
from helpers.servers import served

pytestmark = [pytest.mark.once, pytest.mark.timeout(600)]

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

TIME = re.compile(r"^\d\d:\d\d:\d\d UTC$")
OUTER = "iframe.nb-elicit-app-frame-outer"
FIRST = 2


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_fastmcp_servers_app_shows_its_result_and_calls_its_app_only_tool(lab, transport,
                                                                            tmp_path):
    with contextlib.ExitStack() as stack:
        if transport == "http":
            url = stack.enter_context(served([*fastmcp_app_command(), "--http"],
                                             tmp_path / "server.log"))
            connect = f"%mcp connect fm --url {url}"
        else:
            connect = "%mcp connect fm -- " + shlex.join(fastmcp_app_command())
        lab.open(connect, '%mcp call fm clock {"label": "Kitchen"}')
        lab.run(FIRST)
        expect(lab.cell(FIRST)).to_contain_text("Connected 'fm'")
        call = FIRST + 1
        lab.run(call)
        cell = lab.cell(call)
        expect(cell).to_contain_text("An app of fm · clock is shown here")
        expect(cell).to_contain_text("on the FastMCP server")
        app = cell.frame_locator(OUTER).frame_locator("iframe")
        expect(app.locator("#state")).to_have_text("connected")
        expect(app.locator("#label")).to_have_text("Kitchen")
        expect(app.locator("#source")).to_have_text("from the clock tool's result")
        expect(app.locator("#time")).to_have_text(TIME)
        # The app calls clock_now (visibility: app only) through nb_elicit.
        app.locator("#again").click()
        expect(app.locator("#source")).to_have_text("from clock_now, called by this app")
        expect(app.locator("#time")).to_have_text(TIME)
        expect(cell).to_contain_text("The app called clock_now.")  # (what it returned: the app shows)
        lab.screenshot(f"fastmcp-app-{transport}", of=cell)
        assert "Traceback" not in cell.inner_text()
