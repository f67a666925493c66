"""MCP Apps of the official example servers (npm ``@modelcontextprotocol/server-*``, pinned in
``tests/helpers/interop.py``) in a real JupyterLab in Chromium, called by ``%mcp call``.

- the basic example (``server-basic-vanillajs``): ``get-time``'s app shows in the calling
  cell, in frames without ``allow-same-origin``, with the tool's result; its **Get Server Time**
  calls the server through nb_elicit; **Open Link** shows nb_elicit's consent card and nothing
  opens before **Open**; **Send Message** becomes a plain-text line of the call;
- three more examples that need no network: the system monitor (it polls a tool only its app
  may call), the cohort heatmap (it loads its data itself, and again for another metric) and the
  budget allocator (sliders, no server calls): each renders, and each interaction works;
- the notebook JupyterLab saves afterwards holds the text result and the line that says an app
  was shown, and none of the app's HTML; opened again without the kernel, it shows that text.

Each test writes how long its steps took to ``timing.txt`` beside its screenshots (not asserted).
"""

from __future__ import annotations

import json
import re
import shlex
import socket
import time

import nbformat
import pytest
from helpers.interop import (
    APPS_BASIC,
    APPS_BUDGET_ALLOCATOR,
    APPS_COHORT_HEATMAP,
    APPS_SYSTEM_MONITOR,
    apps_server_command,
)

pytestmark = [pytest.mark.once, pytest.mark.timeout(600)]

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

#: The sandbox proxy's frame; the app's own frame is inside it.
OUTER = "iframe.nb-elicit-app-frame-outer"
LINK = "https://modelcontextprotocol.io/"
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
#: Cells the notebook driver writes first: %load_ext, then the demo's connect.
FIRST = 2


class Steps:
    """How long each step of a test took, written to the test's ``timing.txt``."""

    def __init__(self, lab):
        self.lab = lab
        self.last = time.monotonic()
        self.lines: list[str] = []

    def done(self, what: str) -> None:
        now = time.monotonic()
        self.lines.append(f"{what}: {now - self.last:.2f} s")
        self.last = now
        (self.lab.artifacts / "timing.txt").write_text("\n".join(self.lines) + "\n",
                                                       encoding="utf-8")


def open_apps(lab, pin: tuple[str, str], *cells: str) -> None:
    """The notebook, with ``%mcp connect apps -- node SERVER --stdio`` run in cell 2 (after the
    driver's two); ``cells`` follow, not run."""
    lab.open("%mcp connect apps -- " + shlex.join(apps_server_command(pin)), *cells)
    lab.run(FIRST)
    expect(lab.cell(FIRST)).to_contain_text("Connected 'apps'")


def app_frame(lab, cell: int):
    """The app's own document in cell ``cell``, inside the proxy's frame."""
    return lab.cell(cell).frame_locator(OUTER).frame_locator("iframe")


def the_app(lab, cell: int):
    """The app's box in ``cell``: its frame, and nb_elicit's lines under it."""
    return lab.cell(cell).locator(".nb-elicit-app")


def assert_sandboxed(lab, cell: int) -> None:
    """Both frames run scripts, and neither shares the notebook's origin or opens popups."""
    outer = lab.cell(cell).locator(OUTER)
    inner = lab.cell(cell).frame_locator(OUTER).locator("iframe")
    expect(outer).to_have_count(1)
    expect(inner).to_have_count(1)
    for frame in (outer, inner):
        sandbox = frame.get_attribute("sandbox").split()
        assert "allow-scripts" in sandbox
        assert "allow-same-origin" not in sandbox and "allow-popups" not in sandbox, sandbox


def app_line(lab, cell: int, text: str):
    """nb_elicit's lines of the call in ``cell`` (its one log, live or in the transcript)
    that contain ``text``."""
    return lab.cell(cell).locator(".nb-elicit-notice-text", has_text=text)


def wait_count(locator, at_least: int, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while (count := locator.count()) < at_least:
        if time.monotonic() > deadline:
            raise AssertionError(f"{count} of {at_least} expected within {timeout:g} s")
        time.sleep(0.1)
    return count


# -- the basic example ---------------------------------------------------------------------------


@pytest.mark.parametrize("lab", ["perCommTarget", "disabled"], indirect=True)
def test_the_basic_app_shows_its_result_calls_its_server_asks_before_a_link_and_says(lab):
    steps = Steps(lab)
    call = FIRST + 1
    open_apps(lab, APPS_BASIC, "%mcp call apps get-time")
    steps.done("notebook open, both servers connected")
    context = lab.page.context
    # Nothing of the link is fetched, and no page opens, before the person agrees.
    fetched: list[str] = []
    pages: list = []

    def linked_page(route) -> None:
        fetched.append(route.request.url)
        route.fulfill(status=200, content_type="text/html",
                      body="<title>MCP</title><p>the linked page</p>")

    def new_page(page) -> None:
        pages.append(page)

    context.route("https://modelcontextprotocol.io/**", linked_page)
    context.on("page", new_page)

    lab.run(call)
    cell = lab.cell(call)
    app = app_frame(lab, call)
    # The tool's result, in the app: the time get-time returned, which the transcript shows too.
    shown = app.locator("#server-time")
    expect(shown).to_have_text(ISO_TIME)
    steps.done("%mcp call -> the app shows the tool's result")
    first = shown.inner_text()
    transcript = cell.locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("An app of apps · get-time is shown here")
    expect(transcript).to_contain_text(first)
    assert_sandboxed(lab, call)
    lab.screenshot("basic-shown", of=cell)

    # Get Server Time: the app calls get-time through nb_elicit, and shows the new time.
    app.get_by_role("button", name="Get Server Time").click()
    expect(shown).not_to_have_text(first)
    expect(shown).to_have_text(ISO_TIME)
    steps.done("Get Server Time -> a new time in the app")
    expect(app_line(lab, call, "The app called get-time.")).to_have_count(1)
    # A second call of the app goes through too (each has a view of its own under the app);
    # the app's line for get-time now counts both.
    second = shown.inner_text()
    app.get_by_role("button", name="Get Server Time").click()
    expect(shown).not_to_have_text(second)
    expect(app_line(lab, call, "The app called get-time 2 times.")).to_have_count(1)
    expect(app_line(lab, call, "The app called get-time")).to_have_count(1)

    # Send Message: a plain-text line of the call.
    app.get_by_role("button", name="Send Message").click()
    expect(app_line(lab, call, "The app says: This is message text.")).to_have_count(1)

    # Open Link: nb_elicit's consent card in the cell, the host in large type; nothing opened.
    app.get_by_role("button", name="Open Link").click()
    card = cell.locator(".nb-elicit-url-card")
    expect(card).to_be_visible()
    steps.done("Open Link -> the consent card")
    host = card.locator(".nb-elicit-url-host").get_by_text("modelcontextprotocol.io", exact=True)
    expect(host).to_be_visible()
    big = host.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    body = card.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert big >= 1.3 * body, (big, body)
    expect(card.locator(".nb-elicit-url-full")).to_have_text(LINK)
    expect(card.locator("a")).to_have_count(0)
    lab.page.wait_for_timeout(500)  # (a page that would open by itself has had the time to)
    assert pages == [] and fetched == [], (pages, fetched)
    assert len(context.pages) == 1
    lab.screenshot("basic-link-card", of=cell)

    # Open: the link shows, and opens in a new tab only when the person clicks it.
    card.get_by_role("button", name="Open").click()
    # (the card leaves the app; the call's output tells the request once, with the link)
    expect(card).to_have_count(0)
    asked = cell.locator(".nb-elicit-transcript-asked", has_text=LINK)
    expect(asked).to_have_count(1)
    expect(asked).to_contain_text("You agreed to open the page")
    link = asked.locator("a.nb-elicit-url-link")
    expect(link).to_have_attribute("href", LINK)
    assert pages == [] and fetched == []
    with context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == LINK
    assert tab.evaluate("window.opener") is None
    assert fetched == [LINK]
    tab.close()
    lab.screenshot("basic-after", of=cell)
    assert "Traceback" not in cell.inner_text()


# -- three more examples -------------------------------------------------------------------------


def test_the_system_monitor_polls_a_tool_only_its_app_may_call(lab):
    steps = Steps(lab)
    tools, call = FIRST + 1, FIRST + 2
    open_apps(lab, APPS_SYSTEM_MONITOR, "%mcp tools apps", "%mcp call apps get-system-info")
    lab.run(tools)
    expect(lab.cell(tools)).to_contain_text("get-system-info")
    expect(lab.cell(tools)).to_contain_text("poll-system-stats")
    steps.done("open, connected, tools listed")

    lab.run(call)
    app = app_frame(lab, call)
    # The tool's result: this machine's host name (the server runs here).
    expect(app.locator("#info-hostname")).to_have_text(socket.gethostname())
    expect(app.locator("#info-platform")).not_to_have_text("--")
    steps.done("%mcp call -> the app shows the tool's result")
    assert_sandboxed(lab, call)
    # The app starts polling poll-system-stats (visibility ["app"]) through nb_elicit, every 2 s.
    expect(app.locator("#memory-percent")).to_have_text(re.compile(r"^\d+(\.\d+)?%$"))
    expect(app.locator("#status-text")).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    # (one line counts them: "The app called poll-system-stats N times; the last: ...")
    polls = app_line(lab, call, re.compile(r"The app called poll-system-stats [0-9]+ times"))
    wait_count(polls, 1, timeout=60)
    expect(app_line(lab, call, "The app called poll-system-stats")).to_have_count(1)
    steps.done("two polls through nb_elicit")
    expect(app.locator("#cpu-chart")).to_be_visible()
    lab.screenshot("system-monitor", of=the_app(lab, call))

    # Stop: the polls stop.
    app.get_by_role("button", name="Stop").click()
    expect(app.locator("#status-text")).to_have_text("Stopped")
    def calls() -> int:
        return int(re.search(r"poll-system-stats ([0-9]+) times", polls.inner_text()).group(1))

    stopped = calls()
    lab.page.wait_for_timeout(2500)  # (longer than the app's 2 s poll interval)
    assert calls() <= stopped + 1  # (one poll may have been under way)
    assert "Traceback" not in lab.cell(call).inner_text()


def test_the_cohort_heatmap_loads_its_data_and_again_for_another_metric(lab):
    steps = Steps(lab)
    tools, call = FIRST + 1, FIRST + 2
    open_apps(lab, APPS_COHORT_HEATMAP, "%mcp tools apps", "%mcp call apps get-cohort-data")
    lab.run(tools)
    expect(lab.cell(tools)).to_contain_text("get-cohort-data")
    lab.run(call)
    app = app_frame(lab, call)
    expect(app.get_by_text("Cohort Retention Analysis")).to_be_visible()
    # Twelve monthly periods, M0 to M11; the app fetched them itself through nb_elicit.
    expect(app.get_by_text("M11", exact=True)).to_be_visible()
    expect(app_line(lab, call, "The app called get-cohort-data.")).to_have_count(1)
    steps.done("open, %mcp call -> the heatmap, loaded by the app's own call")
    assert_sandboxed(lab, call)
    lab.screenshot("cohort-heatmap", of=the_app(lab, call))

    # Another metric: the app calls get-cohort-data again, with it.
    app.locator("select").first.select_option("revenue")
    expect(app_line(lab, call, "The app called get-cohort-data 2 times.")).to_have_count(1)
    expect(app.get_by_text("M11", exact=True)).to_be_visible()
    expect(app.get_by_text("Failed to load data")).to_have_count(0)
    steps.done("metric changed -> the app's call with it")
    lab.screenshot("cohort-heatmap-revenue", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()


def test_the_budget_allocator_renders_and_its_sliders_move_the_total(lab):
    steps = Steps(lab)
    call = FIRST + 1
    open_apps(lab, APPS_BUDGET_ALLOCATOR, "%mcp call apps get-budget-data")
    lab.run(call)
    app = app_frame(lab, call)
    status = app.locator("#status-bar")
    # The tool's result: the budget's categories as sliders, and what they add up to.
    expect(status).to_have_text(re.compile(r"Allocated: \$[\d,.]+[KM]? / \$[\d,.]+[KM]?"))
    expect(status).not_to_have_text(re.compile(r"Allocated: \$0 / \$0"))
    sliders = app.locator("input.slider")
    assert wait_count(sliders, 2) >= 2
    expect(app.locator("#budget-chart")).to_be_visible()
    steps.done("open, %mcp call -> the budget's sliders")
    assert_sandboxed(lab, call)
    lab.screenshot("budget-allocator", of=the_app(lab, call))

    # The app stays live after its call ended: a slider moves the total.
    before = status.inner_text()
    value = float(sliders.first.input_value())
    sliders.first.fill(str(int(value + 20) if value <= 70 else int(value - 20)))
    expect(status).not_to_have_text(before)
    steps.done("slider moved -> a new total")
    lab.screenshot("budget-allocator-moved", of=the_app(lab, call))


# -- the saved notebook --------------------------------------------------------------------------

#: What the basic example's app HTML holds, none of which may reach the saved notebook.
APP_MARKERS = ("<script", "mcp-app", "get-time-btn", "srcdoc", "Watch activity", "sandbox")


def test_the_saved_notebook_holds_the_text_of_the_call_and_none_of_the_app(lab):
    steps = Steps(lab)
    call = FIRST + 1
    open_apps(lab, APPS_BASIC, "%mcp call apps get-time")
    lab.run(call)
    app = app_frame(lab, call)
    shown = app.locator("#server-time")
    expect(shown).to_have_text(ISO_TIME)
    result = shown.inner_text()
    app.get_by_role("button", name="Get Server Time").click()
    expect(shown).not_to_have_text(result)
    later = shown.inner_text()
    steps.done("open, call, the app's call")

    text = lab.save("The app called get-time.")
    steps.done("Ctrl+S -> the file holds the app's call")
    saved = nbformat.reads(text, as_version=4)
    outputs = saved.cells[call].outputs
    plain = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    # The text result, the line that says an app was shown, and what the app did.
    assert result in plain
    assert "An app of apps · get-time is shown here" in plain
    assert plain.count("The app called get-time.") == 1  # (what it returned: the app's own)
    assert later not in plain
    # None of the app: no HTML of it, no script, in any output.
    dumped = json.dumps([o for c in saved.cells for o in c.get("outputs", [])])
    for marker in APP_MARKERS:
        assert marker not in dumped, marker
    assert "iframe" not in dumped
    # The app's output is a reference to a widget and an empty text: nothing of the app.
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get(
        "data", {})]
    assert len(widgets) == 1 and widgets[0]["data"]["text/plain"] == ""
    # JupyterLab saves no widget state by default, and so none of the app's HTML with it.
    assert "widgets" not in saved.metadata
    for marker in APP_MARKERS:
        assert marker not in json.dumps(saved.metadata), marker

    # Opened again with the kernel gone: the cell reads as the transcript; no app comes back.
    lab.server.shut_down_sessions(lab.name)
    lab.page.reload()
    lab.page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    reopened = lab.cell(call)
    expect(reopened).to_contain_text("An app of apps · get-time is shown here")
    expect(reopened).to_contain_text("The app called get-time.")
    expect(reopened).to_contain_text(result)
    expect(reopened.locator("iframe")).to_have_count(0)
    steps.done("reload -> the transcript")
    lab.screenshot("reopened", of=reopened)
