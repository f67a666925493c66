"""Signing in from a real JupyterLab in Chromium, against the demo behind its local
authorization server (``python -m nb_elicit.demo --http PORT --auth``).

A cell connects and calls a tool; the server answers 401, so the sign-in card appears in that
cell. Nothing is fetched from the authorization server until the person clicks **Sign in** (a
route recorder and a request listener on the browser context see every request, redirect hops
included); that one click opens the demo's sign-in page in a new tab with no opener (Sign in is
the link itself), the card says in one line what happens next and shows the long address no
more, the test clicks the page's button, and the browser lands on the kernel's loopback
callback (or, with the loopback blocked in that tab, the landed address is pasted into the
card). The call then ends in the same cell with its result, and the card holds the address
nowhere, not even in its link. Afterwards the saved notebook holds no token, no client secret,
no authorization code and no authorization address, and the token files (in a data directory of
the test's own) are owner-only.
"""

from __future__ import annotations

import html
import json
import re
import stat
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
from helpers.servers import free_port, start_http_server

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

DEMO_BUTTON = "Sign in as the demo user"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def secured(tmp_path):
    """The demo behind its authorization server on 127.0.0.1; yields the port of both."""
    port = free_port()
    process = start_http_server([sys.executable, "-m", "nb_elicit.demo", "--http", str(port),
                                 "--auth"], port, tmp_path / "demo.log")
    yield port
    process.terminate()
    process.wait(10)


def _open(lab, cells: list[str]) -> None:
    """Write the notebook (just ``cells``), open it in JupyterLab, wait for its kernel."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                       "display_name": "Python 3 (ipykernel)"}
    nbformat.write(notebook, lab.server.root / lab.name)
    lab.page.goto(lab.server.url(f"/lab/workspaces/{lab.stem.replace('.', '-')}-signin"
                                 f"/tree/{lab.name}"))
    lab.page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    lab.wait_kernel_ready()


def _strings(value) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("deliver", ["loopback", "paste"])
def test_a_tool_call_signs_in_from_the_card_and_finishes_in_its_cell(lab, secured, tmp_path,
                                                                      deliver):
    data_dir = tmp_path / "jupyter-data"
    server = f"http://127.0.0.1:{secured}"
    context = lab.page.context
    routed: list[str] = []  # first requests (routes do not see redirect hops)
    seen: list[str] = []  # every request, redirect hops included

    def record(route):
        routed.append(route.request.url)
        route.continue_()

    context.route(f"{server}/**", record)
    context.on("request", lambda r: seen.append(r.url) if r.url.startswith(server) else None)

    _open(lab, [
        f"import os\nos.environ['JUPYTER_DATA_DIR'] = {str(data_dir)!r}\n"
        "import nb_elicit\nprint(nb_elicit.__file__)",
        f"conn = await nb_elicit.connect('secured', url={server + '/mcp'!r})\n"
        "r = await conn.call_tool('hello', {'name': 'Ada'})\nprint(r.text)",
    ])
    lab.run(0)
    expect(lab.cell(0)).to_contain_text(str(REPO / "nb_elicit"))  # the code under test
    lab.run(1, wait=False)

    card = lab.cell(1).locator(".nb-elicit-signin")
    card.wait_for()
    expect(card.locator(".nb-elicit-url-host")).to_have_text("127.0.0.1")
    expect(card).to_contain_text("secured")
    address = card.locator(".nb-elicit-url-full").inner_text()
    assert address.startswith(f"{server}/authorize?"), address
    redirect = parse_qs(urlsplit(address).query)["redirect_uri"][0]
    callback = urlsplit(redirect)
    assert (callback.hostname, callback.path) == ("127.0.0.1", "/callback")
    # Sign in is the card's one link: the address is set, as an attribute, before the click.
    link = card.get_by_role("link", name="Sign in")
    expect(link).to_be_visible()
    assert card.locator("a").count() == 1
    assert link.get_attribute("href") == address
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer"
    lab.page.wait_for_timeout(1000)
    assert routed == [] and seen == []  # nothing fetched from the authorization server
    lab.screenshot(f"card-{deliver}", of=card)

    with context.expect_page() as opened:  # one click opens the page
        link.click()
    clicked = time.monotonic()
    tab = opened.value
    tab.wait_for_load_state()
    # The card says what happens next, in one line, and drops the long address.
    expect(card.locator(".nb-elicit-status")).to_have_text(
        "Finish signing in at 127.0.0.1 in the new tab; this cell goes on by itself once you "
        "have.")
    expect(card.locator(".nb-elicit-url-full")).to_be_hidden()
    assert address not in card.inner_text()
    assert tab.evaluate("window.opener") is None
    assert "/demo-sign-in?request=" in tab.url
    assert routed[0] == address  # the first request of all is the link's own address

    landed: list[str] = []
    if deliver == "paste":
        # The loopback is out of this tab's reach, as from Binder or JupyterHub: every request
        # of the tab to the callback's port fails. (Routes do not see redirect hops, so the demo's
        # 302 to the callback is handed to the tab as a page that goes there itself.)
        def unreachable(route):
            landed.append(route.request.url)
            route.abort("connectionrefused")

        def hop_by_page(route):
            if route.request.method != "POST":
                route.continue_()
                return
            answer = route.fetch(max_redirects=0)
            target = answer.headers["location"]
            assert target.startswith(redirect + "?"), target
            route.fulfill(status=200, content_type="text/html",
                          body='<meta http-equiv="refresh" content="0;url='
                               f'{html.escape(target, quote=True)}">')

        tab.route(f"http://127.0.0.1:{callback.port}/**", unreachable)
        tab.route(f"{server}/demo-sign-in", hop_by_page)
    tab.get_by_role("button", name=DEMO_BUTTON).click()

    if deliver == "loopback":
        expect(tab.locator("body")).to_contain_text("Signed in to secured. You can close this tab.")
        assert tab.url.startswith(redirect + "?")
    else:
        deadline = time.monotonic() + 30
        while not landed:
            assert time.monotonic() < deadline, f"the tab never went to the loopback: {tab.url}"
            tab.wait_for_timeout(50)
        lab.page.wait_for_timeout(1000)
        assert "close this tab" not in tab.locator("body").inner_text()  # an error page
        assert lab.cell(1).locator(".jp-InputArea-prompt").inner_text().strip() == "[*]:"
        assert "Signed in" not in card.inner_text()  # the blocked loopback brought nothing
        box = card.locator(".nb-elicit-signin-paste input")
        box.fill(landed[0])
        lab.settle()
        card.locator(".nb-elicit-signin-finish").click()
        pasted = time.monotonic()

    lab.wait_done(1)
    finished = time.monotonic()
    took = finished - clicked
    expect(lab.cell(1)).to_contain_text("Hello, Ada")
    expect(card).to_contain_text("Signed in to secured.")
    assert "Traceback" not in lab.cell(1).inner_text()
    # The sign-in is over: its address is nowhere on the card, not even in Sign in's link.
    button = card.locator("a.nb-elicit-link-button")  # (no href: no link role any more)
    expect(button).to_have_text("Sign in")
    expect(button).to_have_attribute("aria-disabled", "true")
    assert button.get_attribute("href") is None
    assert address not in card.inner_html()
    lab.screenshot(f"signed-in-{deliver}", of=lab.cell(1))
    tab.close()

    text = lab.save(holding="Hello, Ada")
    saved = nbformat.reads(text, as_version=4)
    assert "Hello, Ada" in json.dumps(saved.cells[1].outputs)

    # The token files: under the test's data directory, owner-only.
    root = data_dir / "nb_elicit" / "tokens"
    files = sorted(root.rglob("*.json"))
    assert [f.name for f in files] == ["client.json", "tokens.json"], files
    for file in files:
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file
    for folder in (root, files[0].parent, files[0].parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    tokens = json.loads(files[1].read_text(encoding="utf-8"))
    client = json.loads(files[0].read_text(encoding="utf-8"))
    secrets = [tokens["token"]["access_token"], tokens["token"]["refresh_token"]]
    if client.get("client_secret"):
        secrets.append(client["client_secret"])
    # Nothing of the token file, no client secret, no code, in the saved notebook.
    stored = [s for s in _strings(tokens["token"]) if len(s) >= 16]
    code = [parse_qs(urlsplit(u).query)["code"][0] for u in landed]
    for secret in {*secrets, *stored, *code}:
        assert secret not in text
    assert address not in text and html.escape(address) not in text
    assert re.search(r"access_token|refresh_token|client_secret", text) is None

    line = f"click Sign in -> finished call: {took * 1000:.0f} ms ({deliver})"
    if deliver == "paste":  # (that includes the 1 s the test waits on the blocked loopback)
        line += f"; Finish sign-in -> finished call: {(finished - pasted) * 1000:.0f} ms"
    (lab.artifacts / "timing.txt").write_text(line + "\n", encoding="utf-8")
    print("\n" + line)

