"""What a call shows of a tool's result, with every value from the server taken as hostile.

End to end against the hostile test server (tests/servers/hostile_server.py), whose ``image``
tool returns any data and mimeType between two text blocks.
"""

import html

import ipywidgets as widgets
import pytest
from helpers.servers import drive, hostile_command

import nb_elicit
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._core.types import ToolResult
from nb_elicit._ui.call_view import CallView

pytestmark = pytest.mark.timeout(120)

#: A 1x1 PNG.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5"
       "ErkJggg==")


def shown_result(view: CallView) -> list[widgets.Widget]:
    """What the result shows, under its label "Result from SERVER:"."""
    (box,) = view.result.children
    label, *shown = box.children
    assert "nb-elicit-result-label" in label._dom_classes
    assert html.unescape(label.value).count(f"Result from {view.server}:") == 1
    return shown


def texts(parts: list[widgets.Widget]) -> list[str]:
    return [html.unescape(p.value) for p in parts if isinstance(p, widgets.HTML)]


@pytest.mark.parametrize(("data", "mime", "why"), [
    ("not base64 at all!", "image/png", "its data is not valid base64"),
    ("aGVsbG8", "image/png", "its data is not valid base64"),  # padding missing
    (PNG, "text/html", "its type 'text/html' is not an image type"),
    (PNG, 'image/png" onerror="alert(1)', "is not an image type"),
    ("", "image/png", "it has no data"),
], ids=["bad-base64", "no-padding", "text-html", "quote-in-type", "empty"])
def test_a_bad_image_shows_a_notice_in_its_place_and_the_call_returns(views, data, mime, why):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", hostile_command())
        return await conn.call_tool("image", {"data": data, "mime_type": mime})

    result = drive(scenario)
    assert [block["type"] for block in result.content] == ["text", "image", "text"]
    (view,) = views
    before, notice, after = shown_result(view)
    assert not any(isinstance(p, widgets.Image) for p in (before, notice, after))
    assert "before" in texts([before])[0] and "after" in texts([after])[0]
    (shown,) = texts([notice])
    assert "An image was not shown" in shown and why in shown
    assert "\n" not in html.unescape(notice.value).split(">", 1)[1].rsplit("</", 1)[0]
    transcript = transcript_bundle(view.transcript())
    lines = transcript["text/plain"].splitlines()
    assert lines[1] == "Result from hostile:" and lines[2] == "before" and lines[4] == "after"
    assert lines[3].startswith("[An image was not shown") and why in lines[3]
    assert "<img" not in transcript["text/html"]
    assert html.escape(why) in transcript["text/html"]


def test_a_good_image_is_shown_and_kept_in_the_transcript(views):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", hostile_command())
        return await conn.call_tool("image", {"data": PNG, "mime_type": "image/png"})

    drive(scenario)
    (view,) = views
    _, image, _ = shown_result(view)
    assert isinstance(image, widgets.Image) and image.format == "png"
    assert bytes(image.value).startswith(b"\x89PNG")
    transcript = transcript_bundle(view.transcript())
    assert f'src="data:image/png;base64,{PNG}"' in transcript["text/html"]


@pytest.mark.parametrize(("block", "why"), [
    ({"type": "image", "data": 12345, "mimeType": "image/png"}, "its data is not text"),
    ({"type": "image", "data": PNG}, "it has no mimeType"),
    ({"type": "image", "data": PNG, "mimeType": ["image/png"]}, "it has no mimeType"),
    ({"type": "image", "data": None, "mimeType": None}, "it has no mimeType"),
], ids=["int-data", "no-type", "list-type", "nulls"])
def test_image_blocks_the_sdk_would_refuse_get_the_notice_too(block, why):
    # The SDK refuses such blocks before a result reaches nb_elicit, so no server can send
    # them; a result made by hand checks the view does not rely on that.
    view = CallView("hostile", "image", show_waiting=False)
    view.show_result(ToolResult(content=[block]))
    (notice,) = shown_result(view)
    assert not isinstance(notice, widgets.Image)
    assert why in texts([notice])[0]
    transcript = transcript_bundle(view.transcript())
    assert why in transcript["text/plain"] and "<img" not in transcript["text/html"]
