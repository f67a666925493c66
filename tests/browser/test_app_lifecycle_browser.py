"""Apps end, in a real JupyterLab: 25 calls of the demo's ``clock`` leave at most the cap of
live frames (each older app's place says why it ended), and a page reload fetches no app HTML
(it is no widget state, and it goes to one page once: the reloaded page's frames say so and the
apps end).
"""

from __future__ import annotations

import pytest

from nb_elicit._runtime.apps import MAX_LIVE_APPS

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

#: Text of the clock app's own HTML (its body), found in no other message.
MARK = "waiting for the clock tool's result"
CALLS = 25


def frames_holding(payloads: list, mark: str) -> list[int]:
    """The sizes of the websocket frames (str or bytes) that carry ``mark``."""
    found = []
    for payload in payloads:
        data = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        if mark.encode("utf-8") in data:
            found.append(len(data))
    return found


def show_all(cell) -> None:
    """JupyterLab shows the first 50 outputs of a cell; the rest after "Show more outputs"
    (when it has more: 25 calls with their apps make 50)."""
    cell.page.wait_for_timeout(500)  # (the last outputs of the cell, which has run)
    more = cell.locator(".jp-TrimmedOutputs")
    if more.count():
        more.click()


def test_25_clock_calls_leave_at_most_the_cap_of_live_frames_and_a_reload_fetches_no_html(lab):
    received: list = []

    def watch(ws) -> None:
        if "/api/kernels/" in ws.url:
            ws.on("framereceived", lambda payload: received.append(payload))

    lab.page.on("websocket", watch)
    lab.open("conn = nb_elicit.connections['demo']\n"
             f"for _ in range({CALLS}):\n"
             "    await conn.call_tool('clock')",
             "print('live', len(conn.apps.shown))")
    lab.run(2)
    cell = lab.cell(2)
    show_all(cell)
    outer = cell.locator("iframe.nb-elicit-app-frame-outer")
    expect(outer).to_have_count(MAX_LIVE_APPS)
    ended = f"The app ended: {MAX_LIVE_APPS} apps of 'demo' are live at most"
    expect(cell.get_by_text(ended).first).to_be_visible()
    # The live ones run: the newest shows its result.
    newest = cell.frame_locator("iframe.nb-elicit-app-frame-outer").last.frame_locator("iframe")
    expect(newest.locator("#state")).to_have_text("connected")
    lab.settle()
    lab.run(3)
    expect(lab.cell(3)).to_contain_text(f"live {MAX_LIVE_APPS}")
    first_page = frames_holding(received, MARK)
    # (each live app's HTML came once, by message; none of the 25 as synced state)
    assert 1 <= len(first_page) <= CALLS, first_page
    lab.screenshot("apps-capped", of=cell)

    # Saved (so that the reloaded page has the outputs), then reloaded with the kernel alive:
    # the page fetches every live widget's state again, and no app HTML with it.
    assert MARK not in lab.save(holding=f"live {MAX_LIVE_APPS}")  # (nor does the saved notebook)
    received.clear()
    lab.page.reload()
    lab.page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    lab.wait_kernel_ready()
    cell = lab.cell(2)
    show_all(cell)
    expect(cell.locator("iframe.nb-elicit-app-frame-outer")).to_have_count(0)
    # (each frame of the reloaded page asked for its HTML and heard it is gone: the apps end,
    # and their places say so)
    again = cell.locator(".nb-elicit-app-ended", has_text="The app ended: it was shown again")
    expect(again).to_have_count(MAX_LIVE_APPS)
    # (the transcripts this page kept said those apps were shown, and the kernel's updates of
    # them do not reach it: each line that says why its app ended hides that line)
    expect(cell.get_by_text("is shown here").filter(visible=True)).to_have_count(0)
    expect(cell.get_by_text("is shown here")).to_have_count(MAX_LIVE_APPS)
    lab.settle()
    lab.page.wait_for_timeout(1000)
    assert frames_holding(received, MARK) == []
    assert received, "the reloaded page heard nothing from its kernel"
    lab.run(3)
    expect(lab.cell(3)).to_contain_text("live 0")  # (the apps of the earlier page ended)
