"""More official MCP Apps examples (npm ``@modelcontextprotocol/server-*``, pinned in
``tests/helpers/interop.py``), as their authors ship them, in a real JupyterLab in Chromium:
apps that need workers, WebGL, SVG, charts or permissions. For each, something the app draws or
does, not only that a frame exists:

- the PDF viewer (``server-pdf``) on a local PDF this module writes (``--stdio paper.pdf``,
  then ``display_pdf``): after its permission card (it asks to write to the clipboard), pdf.js
  draws the page, its text in pdf.js's text layer; the bytes came through nb_elicit, in the
  app-only ``read_pdf_bytes`` calls;
- Three.js (``server-threejs``, ``show_threejs_scene``) and ShaderToy (``server-shadertoy``,
  ``render-shadertoy``): their WebGL canvas holds pixels that are not all one colour;
- the sheet music (``server-sheet-music``, ``play-sheet-music``): abcjs draws the tune's title
  and its notes as SVG (its sound fonts come from the network, and only when it plays: not
  tried here);
- the scenario modeler (``server-scenario-modeler``, ``get-scenario-data``): its projections
  as numbers and a chart that is not blank, and another growth rate gives another projection;
- the customer segmentation (``server-customer-segmentation``, ``get-customer-data``): its
  scatter chart, not blank, and a legend naming the segments;
- the transcript (``server-transcript``, ``transcribe``): its permission card names the server
  and the clipboard, and says in one line that the microphone is not offered (no frame of an
  opaque origin can use it); declined, the frame has no ``allow`` attribute and the app's
  document is not allowed the microphone.

Left out, because it needs the network at run time: ``server-video-resource``. Its server
fetches each video it serves (``videos://bunny-1mb`` and the others) from test-videos.co.uk or
cdn.jsdelivr.net when the app reads the resource; with no network, there is no video to play.

The examples share one notebook (one kernel, one page): each test runs its own cells (connect,
call, then ``%mcp disconnect``, which ends the app so that animations stop), so each can also
run alone. Screenshots go to ``test-artifacts/browser/test_apps_examples_browser.py/``.
"""

from __future__ import annotations

import base64
import json
import re
import shlex

import pytest
from helpers.interop import (
    APPS_CUSTOMER_SEGMENTATION,
    APPS_PDF,
    APPS_SCENARIO_MODELER,
    APPS_SHADERTOY,
    APPS_SHEET_MUSIC,
    APPS_THREEJS,
    APPS_TRANSCRIPT,
    apps_server_command,
)
from helpers.lab import DEFAULT_SUBSHELLS

from .conftest import ARTIFACT_DIR, _close_notebook, _open_notebook
from .test_apps_interop import app_frame, app_line, assert_sandboxed, the_app

pytestmark = [pytest.mark.once, pytest.mark.timeout(600)]

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

#: The text the PDF's one page holds.
PDF_TEXT = "Hello from a local PDF"
#: Cells the notebook driver writes first: %load_ext, then the demo's connect.
FIRST = 2
#: ShaderToy's own example: a gradient over the canvas that changes with the time.
SHADER = """void mainImage(out vec4 fragColor, in vec2 fragCoord) {
    vec2 uv = fragCoord / iResolution.xy;
    fragColor = vec4(uv, 0.5 + 0.5*sin(iTime), 1.0);
}"""
#: The sheet music's own example tune.
TUNE = """X:1
T:Twinkle, Twinkle Little Star
M:4/4
L:1/4
K:C
C C G G | A A G2 | F F E E | D D C2 |"""
#: Each example's cells, in the notebook's order: name -> (pin, the tool and its arguments).
#: (The apps read their input from the call's arguments, which hold no schema defaults: the
#: shader and the tune are given.)
EXAMPLES = {
    "pdf": (APPS_PDF, "display_pdf {url}"),
    "three": (APPS_THREEJS, "show_threejs_scene"),
    "shader": (APPS_SHADERTOY, "render-shadertoy " + json.dumps({"fragmentShader": SHADER})),
    "music": (APPS_SHEET_MUSIC, "play-sheet-music " + json.dumps({"abcNotation": TUNE})),
    "scenario": (APPS_SCENARIO_MODELER, "get-scenario-data"),
    "segments": (APPS_CUSTOMER_SEGMENTATION, "get-customer-data"),
    "transcript": (APPS_TRANSCRIPT, "transcribe"),
}


def tiny_pdf(text: str) -> bytes:
    """A one-page PDF (Helvetica, not embedded) that says ``text``, written by hand."""
    stream = f"BT /F1 24 Tf 72 700 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


class Cells:
    """Where each example's cells are: connect, call, disconnect."""

    def __init__(self):
        self.index: dict[str, int] = {}

    def sources(self, pdf_path: str) -> list[str]:
        sources: list[str] = []
        for name, (pin, call) in EXAMPLES.items():
            self.index[name] = FIRST + len(sources)
            command = apps_server_command(pin)
            if name == "pdf":
                command.append(pdf_path)
            sources += [f"%mcp connect {name} -- {shlex.join(command)}",
                        f"%mcp call {name} " + call.replace("{url}", json.dumps({"url": pdf_path})),
                        f"%mcp disconnect {name}"]
        return sources

    def connect(self, name: str) -> int:
        return self.index[name]

    def call(self, name: str) -> int:
        return self.index[name] + 1

    def disconnect(self, name: str) -> int:
        return self.index[name] + 2


def run(lab, index: int, wait: bool = True) -> None:
    """Run cell ``index`` as ``lab.run`` does, once the click has put it in edit mode: an app
    above it that grows while the notebook scrolls can take the click (and keep the focus)."""
    cell = lab.cell(index)
    for _ in range(10):
        cell.scroll_into_view_if_needed()
        lab.page.wait_for_timeout(200)
        cell.locator(".jp-InputArea-editor").click()
        if cell.evaluate("e => e.classList.contains('jp-mod-active')"
                         " && e.contains(document.activeElement)"):
            break
    else:
        raise AssertionError(f"cell {index} never took the focus")
    lab.page.keyboard.press("Shift+Enter")
    if wait:
        lab.wait_done(index)
    else:
        lab.wait_running(index)


class Examples:
    """The module's one notebook, and where each example's cells are in it."""

    def __init__(self, lab, cells: Cells):
        self.lab, self.cells = lab, cells
        #: The examples connected and not yet ended.
        self.live: list[str] = []

    def call(self, name: str) -> int:
        """Connect ``name``'s server and run its call; the call's cell."""
        lab = self.lab
        connect = self.cells.connect(name)
        run(lab, connect)
        self.live.append(name)
        expect(lab.cell(connect)).to_contain_text(f"Connected '{name}'", timeout=120_000)
        call = self.cells.call(name)
        run(lab, call, wait=False)
        return call

    def end(self, name: str) -> None:
        """Disconnect ``name``'s server: its app ends (its animations stop)."""
        self.live.remove(name)
        run(self.lab, self.cells.disconnect(name))


@pytest.fixture(scope="module")
def examples_notebook(request, servers, browser, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pdf")
    paper = folder / "paper.pdf"
    paper.write_bytes(tiny_pdf(PDF_TEXT))
    cells = Cells()
    notebook, *rest = _open_notebook(request, servers.get("lab", DEFAULT_SUBSHELLS), browser)
    notebook.open(*cells.sources(str(paper)))
    yield Examples(notebook, cells)
    _close_notebook(request, notebook, *rest)


@pytest.fixture
def examples(request, examples_notebook):
    """The shared notebook; a failing test names its artifacts."""
    request.node.stash[ARTIFACT_DIR] = examples_notebook.lab.artifacts
    yield examples_notebook
    for name in list(examples_notebook.live):  # (a test that failed before its end)
        examples_notebook.end(name)


def pixel_spread(lab, png: bytes) -> dict:
    """How varied a PNG's pixels are: the number of distinct colours (4 bits a channel) and the
    standard deviation of their brightness, measured by the notebook page's own canvas."""
    return lab.page.evaluate(
        """async (data) => {
            const image = new Image();
            image.src = 'data:image/png;base64,' + data;
            await image.decode();
            const canvas = document.createElement('canvas');
            canvas.width = image.width;
            canvas.height = image.height;
            const context = canvas.getContext('2d');
            context.drawImage(image, 0, 0);
            const pixels = context.getImageData(0, 0, image.width, image.height).data;
            const colours = new Set();
            let sum = 0, squares = 0, count = 0;
            for (let i = 0; i < pixels.length; i += 4) {
                const [r, g, b] = [pixels[i], pixels[i + 1], pixels[i + 2]];
                colours.add((r >> 4) << 8 | (g >> 4) << 4 | (b >> 4));
                const y = 0.299 * r + 0.587 * g + 0.114 * b;
                sum += y; squares += y * y; count++;
            }
            const mean = sum / count;
            return {colours: colours.size, deviation: Math.sqrt(squares / count - mean * mean),
                    width: image.width, height: image.height};
        }""", base64.b64encode(png).decode())


def assert_drawn(lab, canvas, name: str, timeout: float = 60) -> dict:
    """``canvas`` (in an app's frame) shows pixels that are not all one colour, within
    ``timeout`` seconds; its screenshot is kept as ``name``.png."""
    expect(canvas).to_be_visible()
    deadline = lab.page.evaluate("Date.now()") + timeout * 1000
    while True:
        png = canvas.screenshot(path=str(lab.artifacts / f"{name}.png"))
        spread = pixel_spread(lab, png)
        if spread["colours"] >= 3 and spread["deviation"] > 2:
            return spread
        if lab.page.evaluate("Date.now()") > deadline:
            raise AssertionError(f"{name}: the canvas stayed blank: {spread}")
        lab.page.wait_for_timeout(500)


def overlap(a: dict, b: dict) -> bool:
    """Whether two boxes (``bounding_box()``) share any area."""
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


# -- pdf.js: a worker, and the file's bytes through the host --------------------------------------


def test_the_pdf_viewer_draws_the_local_files_text(examples):
    lab = examples.lab
    call = examples.call("pdf")
    cell = lab.cell(call)
    # The viewer asks to write to the clipboard: its card comes first, naming the server.
    card = cell.locator(".nb-elicit-permission-card")
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_contain_text("pdf asks for permissions for its app")
    expect(card).to_contain_text("writing to your clipboard")
    # No blank frame above the card: the app's place starts with it (its frame waits, hidden).
    place, card_box = cell.locator(".nb-elicit-app").bounding_box(), card.bounding_box()
    gap = card_box["y"] - place["y"]
    assert 0 <= gap < card_box["height"] / 4, (gap, place, card_box)
    card.get_by_role("button", name="Decline").click()
    expect(app_line(lab, call, "The app runs with no permission.")).to_have_count(1)
    app = app_frame(lab, call)
    # pdf.js draws the page, and its text layer holds the text. (Its worker code runs in the
    # frame, as pdf.js's "fake worker" imported from a data: URL: Chromium starts no module
    # worker from a blob: URL in a frame of an opaque origin, CSP or not.)
    text_layer = app.locator("#text-layer")
    expect(text_layer).to_contain_text(PDF_TEXT, timeout=90_000)
    expect(app.locator("#total-pages")).to_contain_text("1")
    expect(app.locator("#error")).not_to_be_visible()
    assert_drawn(lab, app.locator("#pdf-canvas"), "pdf-page")
    # nb_elicit's full-screen button covers none of the viewer: not its own "Toggle
    # fullscreen" in the top right corner, nor anything else of the frame.
    ours = cell.locator(".nb-elicit-app-frame-fullscreen")
    expect(ours).to_be_visible()
    theirs = app.locator("#fullscreen-btn")  # (its title: "Toggle fullscreen")
    expect(theirs).to_be_visible()
    box = cell.locator(".nb-elicit-app-frame-box")  # (the app as far as it shows: its box)
    box.evaluate("b => { b.scrollTop = 0; }")  # (the viewer's own scrolling moved it)
    for theirs_or_frame in (theirs.bounding_box(), box.bounding_box()):
        assert not overlap(ours.bounding_box(), theirs_or_frame), (ours.bounding_box(),
                                                                   theirs_or_frame)
    lab.screenshot("pdf-top", of=cell.locator(".nb-elicit-app"))
    # The file's bytes came through nb_elicit: the app's calls of read_pdf_bytes.
    expect(app_line(lab, call, "The app called read_pdf_bytes")).to_have_count(1)
    assert_sandboxed(lab, call)
    lab.screenshot("pdf", of=the_app(lab, call))
    assert "Traceback" not in cell.inner_text()
    examples.end("pdf")


# -- WebGL ----------------------------------------------------------------------------------------


def test_the_threejs_scene_draws_into_its_canvas(examples):
    lab = examples.lab
    call = examples.call("three")
    app = app_frame(lab, call)
    spread = assert_drawn(lab, app.locator("canvas").first, "threejs-canvas")
    assert spread["width"] > 50 and spread["height"] > 50, spread
    assert_sandboxed(lab, call)
    lab.screenshot("threejs", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()
    examples.end("three")


def test_the_shadertoy_shader_draws_into_its_canvas(examples):
    lab = examples.lab
    call = examples.call("shader")
    app = app_frame(lab, call)
    # The default shader paints a gradient over the whole canvas: many colours.
    spread = assert_drawn(lab, app.locator("#canvas"), "shadertoy-canvas")
    assert spread["colours"] >= 20, spread
    assert_sandboxed(lab, call)
    lab.screenshot("shadertoy", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()
    examples.end("shader")


# -- SVG and charts -------------------------------------------------------------------------------


def test_the_sheet_music_draws_the_tunes_notes(examples):
    lab = examples.lab
    call = examples.call("music")
    app = app_frame(lab, call)
    sheet = app.locator("#sheet-music svg")
    expect(sheet).to_be_visible(timeout=60_000)
    # abcjs draws the tune: its title, and one SVG group per note (14 of them).
    expect(sheet).to_contain_text("Twinkle, Twinkle Little Star")
    notes = app.locator("#sheet-music svg .abcjs-note")
    expect(notes).to_have_count(14)
    assert_sandboxed(lab, call)
    lab.screenshot("sheet-music", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()
    examples.end("music")


def test_the_scenario_modeler_and_the_customer_segments_draw_their_charts(examples):
    lab = examples.lab
    call = examples.call("scenario")
    app = app_frame(lab, call)
    # The projections: money figures, and a chart that is not blank.
    expect(app.locator("#root")).to_contain_text(re.compile(r"\$[\d,.]+[KM]?"), timeout=60_000)
    assert_drawn(lab, app.locator("canvas").first, "scenario-chart")
    assert_sandboxed(lab, call)
    lab.screenshot("scenario-modeler", of=the_app(lab, call))
    # The app stays live: another growth rate, another projection.
    end_mrr = app.get_by_text("End MRR").locator("xpath=..")
    before = end_mrr.inner_text()
    growth = app.locator("input[type=range]").nth(1)
    growth.fill(str(float(growth.get_attribute("max") or 20)))
    expect(end_mrr).not_to_have_text(before)
    lab.screenshot("scenario-modeler-moved", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()
    examples.end("scenario")

    call = examples.call("segments")
    app = app_frame(lab, call)
    # The scatter chart of the customers, and a legend naming the four segments.
    for segment in ("Enterprise", "Mid-Market", "SMB", "Startup"):
        expect(app.locator("#legend")).to_contain_text(segment, timeout=60_000)
    assert_drawn(lab, app.locator("#scatter-chart"), "segments-chart")
    lab.screenshot("customer-segmentation", of=the_app(lab, call))
    assert "Traceback" not in lab.cell(call).inner_text()
    examples.end("segments")


# -- permissions ----------------------------------------------------------------------------------


def test_the_transcript_asks_for_the_microphone_and_gets_none_when_declined(examples):
    lab = examples.lab
    call = examples.call("transcript")
    cell = lab.cell(call)
    card = cell.locator(".nb-elicit-permission-card")
    expect(card).to_be_visible(timeout=60_000)
    # The card names the server and each permission the app asks for.
    expect(card).to_contain_text("transcript asks for permissions for its app")
    expect(card.locator(".nb-elicit-permission-microphone")).to_have_count(0)
    expect(card.locator(".nb-elicit-permissions-not-offered")).to_contain_text(
        "Not offered: your microphone.")
    expect(card.locator(".nb-elicit-permission-clipboard-write")).to_contain_text(
        "writing to your clipboard")
    lab.screenshot("transcript-card", of=cell)
    # Before the answer, the app has not started: no frame holds its document yet.
    expect(app_frame(lab, call).locator("#start-btn")).to_have_count(0)

    card.get_by_role("button", name="Decline").click()
    expect(app_line(lab, call, "The app runs with no permission.")).to_have_count(1)
    app = app_frame(lab, call)
    expect(app.locator("#start-btn")).to_be_visible(timeout=60_000)
    # Neither frame carries an allow attribute, and the app's document may not use the
    # microphone.
    outer = cell.locator("iframe.nb-elicit-app-frame-outer")
    inner = cell.frame_locator("iframe.nb-elicit-app-frame-outer").locator("iframe")
    assert outer.get_attribute("allow") is None
    assert inner.get_attribute("allow") is None
    allowed = app.locator("body").evaluate(
        "() => document.featurePolicy ? document.featurePolicy.allowsFeature('microphone')"
        " : null")
    assert allowed is False, allowed
    assert_sandboxed(lab, call)
    lab.screenshot("transcript-declined", of=the_app(lab, call))
    assert "Traceback" not in cell.inner_text()
    examples.end("transcript")
