"""What finished calls, results, tables and notices read like: what the person saw and chose, a
result shown once, JSON in the code font, tables like JupyterLab's own, notices by kind."""

from __future__ import annotations

import html
import re

import pytest

from nb_elicit._core.answer import Answer
from nb_elicit._core.i18n import set_language
from nb_elicit._core.notices import Notice, NoticeKind
from nb_elicit._core.outcome import AnsweredBy, Outcome
from nb_elicit._core.records.history import History, table_html
from nb_elicit._core.records.transcript import (
    Asked,
    Transcript,
    redundant_structured,
    shown_fields,
    transcript_bundle,
)
from nb_elicit._core.schema.fields import parse_schema
from nb_elicit._core.types import ToolResult
from nb_elicit._magics.tables import Table, clean_doc
from nb_elicit._runtime import asking
from nb_elicit._runtime.guard import Guard
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.result_view import result_text

ORDER = parse_schema({
    "type": "object",
    "properties": {
        "size": {"type": "string", "title": "Size",
                 "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "plan": {"type": "string", "enum": ["free", "pro"],
                 "enumNames": ["Free plan", "Professional plan"]},
        "toppings": {"type": "array", "title": "Toppings",
                     "items": {"anyOf": [{"const": "cheese", "title": "Extra cheese"},
                                         {"const": "olives", "title": "Black olives"}]}},
        "gift": {"type": "boolean", "title": "Gift wrap"},
        "meet": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "age": {"type": "integer"},
        "password": {"type": "string"},
    },
})
ANSWER = {"size": "l", "plan": "pro", "toppings": ["cheese", "olives"], "gift": True,
          "meet": "2026-07-28T10:30:00Z", "day": "2026-07-28", "age": 36, "password": "hunter2"}


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language(None)


def by_label(fields) -> dict[str, tuple[str, str]]:
    return {label: (value, sent) for label, value, sent in fields}


# -- the transcript tells what the person saw and chose -------------------------------------------


def test_shown_fields_are_option_titles_yes_no_and_chosen_titles_with_what_was_sent():
    shown = by_label(shown_fields(ORDER, ANSWER))
    assert shown["Size"] == ("Large", '"l"')
    assert shown["plan"] == ("Professional plan", '"pro"')
    assert shown["Toppings"] == ("Extra cheese, Black olives", '["cheese", "olives"]')
    assert shown["Gift wrap"] == ("Yes", "true")
    assert shown["meet"] == ("2026-07-28 10:30 UTC", '"2026-07-28T10:30:00Z"')
    assert shown["day"] == ("2026-07-28", '"2026-07-28"')
    assert shown["age"] == ("36", "36")
    assert shown["password"][0] != "hunter2" and "hunter2" not in shown["password"][1]
    assert by_label(shown_fields(ORDER, {"gift": False}))["Gift wrap"] == ("No", "false")


def test_yes_and_no_follow_the_language():
    set_language("zh")
    assert by_label(shown_fields(ORDER, {"gift": True}))["Gift wrap"][0] == "是"
    assert by_label(shown_fields(ORDER, {"gift": False}))["Gift wrap"][0] == "否"


def test_the_transcript_shows_titles_and_keeps_the_sent_values_on_hover_and_in_text():
    asked = Asked("demo", "Your order", "Submitted.", "accept",
                  fields=shown_fields(ORDER, ANSWER))
    bundle = transcript_bundle(Transcript("demo", "custom_form", [asked]))
    page = bundle["text/html"]
    assert ">Large</td>" in page and ">l</td>" not in page
    assert 'title="sent &quot;l&quot;"' in page
    assert ">Extra cheese, Black olives</td>" in page and ">Yes</td>" in page
    assert "true" not in re.sub(r'title="[^"]*"', "", page)
    # A value that is just what was sent carries no hover text.
    assert re.search(r'<td[^>]*>Professional plan</td>', page)
    assert not re.search(r'title="[^"]*"[^>]*>36</td>', page)
    text = bundle["text/plain"]
    assert '  Size: Large  (sent "l")' in text and "  Gift wrap: Yes  (sent true)" in text
    assert "  age: 36\n" in text + "\n"


def test_a_policy_answer_is_told_with_titles_too():
    view = CallView("demo", "custom_form", show_waiting=False)
    outcome = Outcome(Answer("accept", {"size": "s"}), "policy", status="Answered accept.")
    asking.write_outcome("demo", "Your order", view, Guard(), outcome, spec=ORDER)
    (asked,) = view.transcript().items
    assert tuple(asked.fields) == (("Size", "Small", '"s"'),)


# -- a result is shown once, JSON in the code font ------------------------------------------------

CODE_FONT = "font-family: var(--jp-code-font-family)"


@pytest.mark.parametrize(("content", "structured", "redundant"), [
    ([{"type": "text", "text": "Hello, world!"}], {"result": "Hello, world!"}, True),
    ([{"type": "text", "text": '{"a": 1}'}], {"a": 1}, True),
    ([{"type": "text", "text": '{"a": 1}'}], {"result": {"a": 1}}, True),
    ([{"type": "text", "text": "[1, 2]"}], {"result": [1, 2]}, True),
    ([{"type": "text", "text": "Hello"}], {"result": "Hello", "extra": 1}, False),
    ([{"type": "text", "text": "Done."}], {"rows": 4}, False),
    ([{"type": "text", "text": "It is 12:00:05 UTC."}], {"time": "12:00:05 UTC"}, True),
    ([{"type": "text", "text": "It is 12:00:05 UTC."}], {"time": "12:00:05 UTC", "n": 1}, False),
    ([{"type": "text", "text": "It is 12:00:05 UTC."}], {"time": "13:00:00 UTC"}, False),
    ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], {"result": "a"}, False),
    ([], {"rows": 4}, False),
    ([{"type": "text", "text": "x"}], None, True),
])
def test_structured_content_is_shown_only_when_it_adds_something(content, structured, redundant):
    assert redundant_structured(content, structured) is redundant


def test_the_live_result_and_the_transcript_show_a_json_result_once_in_the_code_font():
    view = CallView("demo", "contact_info", show_waiting=False)
    data = {"action": "accept", "content": {"name": "Ada Lovelace"}}
    import json
    view.show_result(ToolResult([{"type": "text", "text": json.dumps(data)}], data))
    (box,) = view.result.children
    live = "".join(part.value for part in box.children)
    assert live.count("Ada Lovelace") == 1 and CODE_FONT in live and "<pre" in live
    assert '"action": "accept",\n' in html.unescape(live)  # indented
    bundle = transcript_bundle(view.transcript())
    assert bundle["text/html"].count("Ada Lovelace") == 1
    assert CODE_FONT in bundle["text/html"].split('class="nb-elicit-transcript-result"')[1]
    assert bundle["text/plain"].count("Ada Lovelace") == 1


def test_structured_content_that_adds_something_is_shown_in_the_code_font():
    view = CallView("demo", "import_rows", show_waiting=False)
    view.show_result(ToolResult([{"type": "text", "text": "Imported."}], {"rows": 4}))
    (box,) = view.result.children
    structured = box.children[-1].value
    assert CODE_FONT in structured and "&quot;rows&quot;: 4" in structured
    page = transcript_bundle(view.transcript())["text/html"]
    assert "Imported." in page and "&quot;rows&quot;: 4" in page
    assert result_text("demo", "x", ToolResult([{"type": "text", "text": "Hi"}],
                                               {"result": "Hi"})) == "Hi"


# -- tables ---------------------------------------------------------------------------------------


def test_tables_are_left_aligned_wrap_at_words_and_cut_long_cells_with_the_full_text_on_hover():
    long = "word " * 100
    page = Table(["tool", "description"], [["a_tool", long.strip()], ["b", "<short>"]],
                 code=(0,))._repr_html_()
    headers = re.findall(r"<th style=\"([^\"]*)\"", page)
    assert len(headers) == 2 and all("text-align: left" in h for h in headers)
    cells = re.findall(r"<td style=\"([^\"]*)\"", page)
    assert all("text-align: left" in c and "word-break: normal" in c
               and "overflow-wrap: break-word" in c for c in cells)  # words never break
    assert "word-break: break-all" not in page and "<pre" not in page
    (title,) = re.findall(r'title="([^"]*)"', page)
    assert title == long.strip()
    cut = re.search(r'title="[^"]*">([^<]*)</td>', page).group(1)
    assert cut.endswith("…") and len(cut) < len(long) and cut.rstrip("…").endswith("word")
    assert "&lt;short&gt;" in page and "<short>" not in page
    assert "var(--jp-code-font-family)" in re.findall(r"<td[^>]*>a_tool</td>", page)[0]
    # No background of its own on rows or cells: JupyterLab's stripes and hover stay even.
    assert "background" not in page


def test_the_history_table_is_the_same_table():
    history = History()
    history.add("demo", "Please " * 40, "accept", {"name": "Ada"}, "person", tool="contact_info")
    page = history.as_html()
    assert page.startswith('<table class="nb-elicit-table nb-elicit-history"')
    assert "text-align: left" in page and 'title="Please Please' in page


@pytest.mark.parametrize("content", [
    {"name": "Ada Lovelace", "age": 36, "ratio": 0.1, "ok": True},
    {"city": "Zürich", "note": "中文 ✓", "days": ["mon", "tue"]},
    {},
    None,
])
def test_a_history_entry_keeps_what_was_sent_as_the_text_the_history_shows(content):
    import json

    history = History()
    entry = history.add("demo", "Who?", "accept" if content is not None else "decline", content,
                        "person", tool="contact_info")
    assert not hasattr(entry, "__dict__")  # (a thousand are kept: no dict per entry)
    assert entry.content == content
    shown = json.dumps(content, ensure_ascii=False) if content is not None else None
    assert entry.sent == shown
    text = history.as_text()
    assert text.endswith(f"  {shown if shown is not None else '-'}")
    page = history.as_html()
    cell = html.escape(shown) if shown is not None else "–"
    assert f">{cell}</td></tr>" in page


@pytest.mark.parametrize(("doc", "plain"), [
    ("Wait ``after`` seconds.", "Wait after seconds."),
    ("See :func:`os.path.join` and :class:`~pkg.Thing`.", "See os.path.join and pkg.Thing."),
    ("First line\n    goes on here.\n\n    Second paragraph.",
     "First line goes on here.\n\nSecond paragraph."),
    ("Items:\n- one\n- two", "Items:\n- one\n- two"),
    (None, ""),
])
def test_descriptions_read_as_plain_text(doc, plain):
    assert clean_doc(doc) == plain


def test_the_tools_table_text_is_still_aligned_plain_text():
    table = Table(["tool", "description"], [["hello", "Say hello."]])
    assert repr(table).splitlines() == ["tool   description", "hello  Say hello."]


def test_an_empty_table_says_so():
    assert Table(["x"], [], "demo has no tools.")._repr_html_() == "<p>demo has no tools.</p>"


def test_table_html_escapes_headers():
    assert "&lt;b&gt;" in table_html(["<b>"], [["x"]])


# -- notices have a kind --------------------------------------------------------------------------

COLORS = {"info": "--jp-info-color1", "warning": "--jp-warn-color1",
          "error": "--jp-error-color1"}


@pytest.mark.parametrize("kind", ["info", "warning", "error"])
def test_a_notice_is_rendered_with_its_kinds_colour_a_left_border_and_a_word(kind):
    view = CallView("demo", "tool", show_waiting=False)
    entry = view.notice("Something happened: detail", kind)
    (line,) = view.asked
    assert line.notice is entry and (entry.text, entry.kind) == ("Something happened: detail", kind)
    assert f"nb-elicit-notice-{kind}" in line._dom_classes
    assert f"border-left: 3px solid var({COLORS[kind]})" in line.value
    others = set(COLORS.values()) - {COLORS[kind]}
    assert not any(other in line.value for other in others)
    word = {"info": "Note:", "warning": "Warning:", "error": "Error:"}[kind]
    assert f">{word}</span> Something happened: detail" in line.value
    (notice,) = view.transcript().items
    assert notice == Notice("Something happened: detail", kind)
    frozen = transcript_bundle(view.transcript())
    assert f"var({COLORS[kind]})" in frozen["text/html"]
    assert f"{word} Something happened: detail" in frozen["text/plain"]


def test_a_counted_notice_keeps_its_kind_when_its_count_grows():
    view = CallView("demo", "tool", show_waiting=False)
    guard = Guard()
    guard.count_notice("x", view, lambda n: f"{n} requests", "info")
    guard.count_notice("x", view, lambda n: f"{n} requests", "info")
    (line,) = view.asked
    assert "2 requests" in line.value and "--jp-info-color1" in line.value
    assert view.lines == ["2 requests"]


def test_notice_text_is_escaped():
    view = CallView("demo", "tool", show_waiting=False)
    view.notice("<img src=x onerror=alert(1)>", "error")
    (line,) = view.asked
    assert "<img" not in line.value and "&lt;img" in line.value


@pytest.mark.parametrize(("schema", "kind", "phrase"), [
    ({"type": "object", "properties": {"x": {"type": "object"}}}, "error",
     "demo sent a form nb_elicit cannot show, so it answered with an error: properties.x"),
])
def test_a_refused_form_is_an_error_notice_in_one_sentence(schema, kind, phrase, monkeypatch):
    import asyncio

    from nb_elicit._core.types import ElicitationRequest

    view = CallView("demo", "tool", show_waiting=False)
    request = ElicitationRequest(mode="form", message="Address?", requested_schema=schema)

    async def run():
        with pytest.raises(Exception):  # noqa: B017 - whichever error the schema raises
            await asking.ask(asking.RequestContext("demo", view, Guard()), request)

    asyncio.run(run())
    (line,) = view.asked
    assert f"nb-elicit-notice-{kind}" in line._dom_classes
    (text,) = view.lines
    assert text.startswith(phrase), text
    assert ". " not in text.split(": ", 1)[0]  # one sentence before the detail


def test_answers_given_for_the_person_are_warnings_and_the_persons_own_are_not():
    assert Outcome(Answer("cancel"), AnsweredBy.PERSON).notice_kind == NoticeKind.INFO
    outcome = asking._no_frontend("demo")
    assert outcome.notice_kind == NoticeKind.WARNING


# -- what a newcomer noticed: a labelled result, the page once, words whole, plain descriptions ----


@pytest.mark.parametrize(("lang", "label"), [("en", "Result from demo:"),
                                             ("zh", "来自 demo 的结果：")])
def test_a_result_is_labelled_as_the_servers_in_the_live_view_and_the_transcript(lang, label):
    set_language(lang)
    view = CallView("demo", "contact_info", show_waiting=False)
    asked = Asked("demo", "Who?", "Submitted.", "accept", fields=(("name", "Ada", '"Ada"'),))
    view.notice("Submitted.", "info", asked=asked)
    view.show_result(ToolResult([{"type": "text", "text": "Hello, Ada!"}]))
    (box,) = view.result.children
    first, *rest = box.children
    assert "nb-elicit-result-label" in first._dom_classes and label in first.value
    assert "Hello, Ada!" in rest[0].value and label not in rest[0].value
    bundle = transcript_bundle(view.transcript())
    page = bundle["text/html"]
    assert page.count(label) == 1
    # under the answer's table, before the result itself
    assert page.index("nb-elicit-transcript-fields") < page.index(label) < page.index(
        "Hello, Ada!")
    lines = bundle["text/plain"].splitlines()
    assert lines[lines.index(label) + 1] == "Hello, Ada!"
    assert lines.index("  name: Ada") < lines.index(label)


def test_an_error_result_keeps_its_own_label_alone():
    view = CallView("demo", "fail", show_waiting=False)
    view.show_result(ToolResult([{"type": "text", "text": "boom"}], is_error=True))
    page = transcript_bundle(view.transcript())["text/html"]
    assert "demo · fail reported an error:" in page and "Result from" not in page


PAGE = "https://example.com/nb-elicit/sign-in?a=<b>"


@pytest.mark.parametrize("consented", [True, False])
def test_a_url_record_names_the_page_once_as_the_link_only_after_consent(consented):
    asked = Asked("demo", "Please sign in.", "✓ demo reports this is done.",
                  "accept" if consented else "decline", url=PAGE,
                  consented_host="example.com" if consented else None)
    bundle = transcript_bundle(Transcript("demo", "sign_in", [asked]))
    page, text = bundle["text/html"], bundle["text/plain"]
    escaped = html.escape(PAGE)
    shown = re.sub(r"<[^>]+>", "", page)  # what a reader sees
    assert shown.count(escaped) == 1 and text.count(PAGE) == 1
    assert "Open example.com" not in shown
    links = re.findall(r"<a [^>]*>[^<]*</a>", page)
    if consented:
        (link,) = links
        assert f'href="{escaped}"' in link and f">{escaped} ↗</a>" in link
        assert 'rel="noopener noreferrer"' in link and 'target="_blank"' in link
    else:
        assert links == []


def test_table_words_never_break_inside_and_only_long_unbroken_strings_may():
    token = "x" * 31
    page = Table(["tool", "description"],
                 [["github_username", f"Ask for a GitHub username {token} and more"]])._repr_html_()
    assert "overflow-wrap: anywhere" not in re.sub(r"<span[^>]*>x+</span>", "", page)
    assert f'<span style="overflow-wrap: anywhere; word-break: normal">{token}</span>' in page
    assert ">github_username</td>" in page and "Ask for a GitHub username " in page
    # Not even at a hyphen: a date or "input-required" stays whole.
    dated = Table(["when"], [["on 2026-07-28, input-required"]])._repr_html_()
    assert ('<span style="white-space: nowrap">2026-07-28,</span> '
            '<span style="white-space: nowrap">input-required</span>') in dated
    history = History()
    history.add("demo", "Please provide your GitHub username", "accept", {"name": "ada"},
                "person", tool="github_username")
    (time_cell,) = re.findall(r'<td style="([^"]*)">\d\d:\d\d:\d\d</td>', history.as_html())
    assert "white-space: nowrap" in time_cell


def test_the_demo_tools_descriptions_read_as_sentences_and_its_answers_in_plain_words():
    import inspect

    from nb_elicit.demo import server

    for name, tool in inspect.getmembers(server, inspect.iscoroutinefunction):
        doc = clean_doc(tool.__doc__)
        if not doc or name in ("ask", "journal"):
            continue
        assert not re.search(r"\b(\w+)\s+\1\b", doc, re.I), (name, doc)  # "after after"
        for argument in inspect.signature(tool).parameters:
            assert not re.search(rf"\b{argument}\s+seconds\b", doc), (name, doc)
    for said in (*server.ANSWERED.values(), *server.NOT_SIGNED_IN.values()):
        assert not re.search(r"\b(chose|accept|decline|cancel)\b", said), said


def test_the_calls_waiting_line_is_under_its_forms_so_nothing_moves_above_a_form():
    view = CallView("demo", "sign_in", show_waiting=False)
    view.show_backlog("demo", 2, lambda: None)
    view.notice("asked first", "info")
    (asked,) = view.asked  # (what is asked sits in the view itself, above the waiting line)
    result = view.result  # (made when first needed)
    children = list(view.children)
    assert children.index(asked) < children.index(view.status) < children.index(result)
