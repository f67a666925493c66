"""Server text on every card is shown through ``visible()``: a bidi override, a zero-width or
another invisible character in a name, a message or a status shows as its escape, never
raw (raw, ``invoice<U+202E>fdp.exe`` reads "invoiceexe.pdf"). One table of surfaces, each a
card or line that shows a server's string, built as the runtime builds it; the trust card's
own table is in test_trust_consent.py."""

from __future__ import annotations

import asyncio
import html
import re
import unicodedata

import pytest
from helpers.trust_world import widget_html

import nb_elicit
from nb_elicit._core.apps import APP_MIME, AppResource
from nb_elicit._core.i18n import set_language
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._core.tasks.model import TaskState
from nb_elicit._core.url import check_url
from nb_elicit._runtime.apps import Apps, ShownApp
from nb_elicit._ui.app_frame import AppFrame
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.download_card import DownloadCard, SavedFile
from nb_elicit._ui.form import ElicitationForm
from nb_elicit._ui.permission_card import PermissionCard
from nb_elicit._ui.task_card import TaskCard
from nb_elicit._ui.url_card import UrlConsentCard

pytestmark = pytest.mark.timeout(60)

#: A name that reads "invoiceexe.pdf" where the override is obeyed.
EVIL = "invoice\u202efdp.exe"
SHOWN = "invoice\\u202efdp.exe"
#: Zero-width and isolate characters too.
HIDDEN = "pay\u200bpal\u2066x\u2069"
HIDDEN_SHOWN = "pay\\u200bpal\\u2066x\\u2069"


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language(None)


def raw_invisible(text: str) -> list[str]:
    """The invisible characters (bidi, zero-width, separators) left raw in ``text``."""
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cf", "Zl", "Zp")]


def shown_text(widget) -> str:
    """What the widget shows, as text (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", widget_html(widget)))


# -- the surfaces ------------------------------------------------------------------------------

def download_card(text):
    card = DownloadCard("Its app sent this file.", SavedFile(text, "application/pdf", b"%PDF"),
                        server="demo")
    card.save_button.click()  # (the link, with its name, shows only now)
    return widget_html(card)


def permission_card_message(text):
    return widget_html(PermissionCard(f"The app of {text} asks for these permissions.",
                                      ["camera"], server="demo"))


def url_card_message(text):
    return widget_html(UrlConsentCard(f"Open {text} to go on", check_url("https://example.com/"),
                                      server="demo"))


def form_message(text):
    return widget_html(ElicitationForm(f"Who sent {text}?", {
        "type": "object", "properties": {"name": {"type": "string"}}}, server="demo"))


def task_card_message(text):
    card = TaskCard("demo", "research", "t-1", "2025-11-25 tasks")
    card.update(TaskState("t-1", "working", f"Reading {text}"))
    return widget_html(card)


def task_card_status(text):
    card = TaskCard("demo", "research", "t-1", "2025-11-25 tasks")
    card.update(TaskState("t-1", text))
    return widget_html(card)


def task_card_id(text):
    return widget_html(TaskCard("demo", "research", f"id-{text}", "2025-11-25 tasks"))


def task_card_error(text):
    card = TaskCard("demo", "research", "t-1", "2025-11-25 tasks")
    card.end(TaskState("t-1", "failed", error=f"could not read {text}"))
    return widget_html(card)


class _Connection:
    name = "apps"

    def __init__(self):
        from nb_elicit._runtime.guard import Guard

        self.guard = Guard(server=self.name)


TOOL = {"name": "get-time", "_meta": {"ui": {"resourceUri": "ui://get-time/app.html"}}}


def _app() -> ShownApp:
    app = ShownApp(Apps(_Connection()), TOOL, AppResource("ui://get-time/app.html", "<p>a</p>"),
                   AppFrame(html="<p>a</p>"))
    app.view = CallView("apps", "get-time", show_waiting=False)
    app.shown_line = app.view.show_app(app.box)
    return app


def app_message_line(text):
    app = _app()
    asyncio.run(app.answer("ui/message", {"role": "user",
                                          "content": [{"type": "text", "text": text}]}))
    return widget_html(app.view) + transcript_bundle(app.view.transcript())["text/plain"]


class _Named:
    """A framework session whose server calls itself ``text`` in its handshake."""

    def __init__(self, text):
        self.server_info = type("Info", (), {"name": text})()
        self.client = self

    async def list_tools(self):
        return [TOOL]

    async def read_resource_for_app(self, uri):
        return {"contents": [{"uri": uri, "mimeType": APP_MIME, "text": "<p>a</p>"}]}

    async def call_tool_for_app(self, name, arguments):
        return {"content": []}


def framework_app_label(text, monkeypatch):
    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display", lambda *a, **kw: None)

    async def show():
        shown = await nb_elicit.show_app({"resource_uri": TOOL["_meta"]["ui"]["resourceUri"],
                                          "tool": "get-time"}, _Named(text))
        said = widget_html(shown.view) + transcript_bundle(shown.view.transcript())["text/plain"]
        shown.end("ended by the test")
        return said

    return asyncio.run(show())


def form_field_title(text):
    return widget_html(ElicitationForm("Who?", {"type": "object", "properties": {
        "name": {"type": "string", "title": f"Name of {text}"}}}, server="demo"))


def form_field_description(text):
    return widget_html(ElicitationForm("Who?", {"type": "object", "properties": {
        "name": {"type": "string", "description": f"As on {text}"}}}, server="demo"))


def form_checkbox_label(text):
    return widget_html(ElicitationForm("Agree?", {"type": "object", "properties": {
        "ok": {"type": "boolean", "title": f"I agree to {text}", "default": False}}},
        server="demo"))


def form_option_label(text):
    form = ElicitationForm("Which?", {"type": "object", "properties": {
        "pick": {"type": "string", "oneOf": [{"const": "a", "title": f"Send {text}"},
                                             {"const": "b", "title": "Keep"}]}}},
        server="demo")
    (control,) = form.controls.values()
    return widget_html(form) + " ".join(label for label, _ in control.widget.options)


def form_choices_label(text):
    return widget_html(ElicitationForm("Which?", {"type": "object", "properties": {
        "picks": {"type": "array", "items": {"anyOf": [{"const": "a", "title": f"Send {text}"},
                                                       {"const": "b", "title": "Keep"}]}}}},
        server="demo"))


def progress_message(text):
    view = CallView("demo", "t", show_waiting=False)
    view.show_progress(1, 4, f"Reading {text}")
    return widget_html(view)


def hook_claimed_name(text):
    from nb_elicit._runtime.hooks import Asker

    asker = Asker.unlabelled(None, text, "mcp")
    return widget_html(ElicitationForm("Who?", {"type": "object", "properties": {}},
                                       server=asker.server))


def transcript_of_an_answer(text):
    from nb_elicit._core.records.transcript import Asked

    view = CallView("demo", "t", show_waiting=False)
    view.notice(f"demo asked: Pay {text}?", asked=Asked(
        "demo", f"Pay {text}?", "Answered accept.", "accept", "person",
        ((f"To {text}", f"{text}"),)))
    bundle = transcript_bundle(view.transcript())
    return bundle["text/html"] + bundle["text/plain"]


SURFACES = [download_card, permission_card_message, url_card_message, form_message,
            task_card_message, task_card_status, task_card_id, task_card_error, app_message_line,
            framework_app_label, form_field_title, form_field_description, form_checkbox_label,
            form_option_label, form_choices_label, progress_message, hook_claimed_name,
            transcript_of_an_answer]


@pytest.mark.parametrize("surface", SURFACES, ids=[s.__name__ for s in SURFACES])
@pytest.mark.parametrize(("text", "escaped"), [(EVIL, SHOWN), (HIDDEN, HIDDEN_SHOWN)])
def test_server_text_on_every_card_shows_its_invisible_characters_as_escapes(
        surface, text, escaped, monkeypatch):
    kwargs = {"monkeypatch": monkeypatch} if surface is framework_app_label else {}
    said = surface(text, **kwargs)
    assert not raw_invisible(said), f"{surface.__name__} shows {raw_invisible(said)} raw"
    assert escaped in html.unescape(said)


# -- the download card's file --------------------------------------------------------------------

def test_the_file_saved_is_named_without_its_invisible_characters():
    card = DownloadCard("Its app sent this file.", SavedFile(EVIL, "application/pdf", b"%PDF"),
                        server="demo")
    assert SHOWN in shown_text(card)  # (the card shows what was sent, escapes and all)
    card.save_button.click()
    (download,) = re.findall(r'download="([^"]*)"', card.link.value)
    assert download == "invoice_fdp.exe"  # (what is saved: its true extension, in the open)
    assert not raw_invisible(card.link.value)


def test_a_form_s_message_keeps_its_lines():
    form = ElicitationForm("First line\nsecond \u202eline", {"type": "object", "properties": {}},
                           server="demo")
    assert "First line\nsecond \\u202eline" in html.unescape(form.message_line.value)
