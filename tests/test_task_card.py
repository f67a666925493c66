"""The task card, without a kernel: its badge, the server's text as text, Cancel and Detach,
the clock on the running event loop, and the static transcript it leaves."""

from __future__ import annotations

import asyncio
import html
import re
import time

import ipywidgets as widgets
import pytest

from nb_elicit import set_language
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._core.tasks.model import TaskState
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.clock import clock_task
from nb_elicit._ui.task_card import TaskCard

HOSTILE = "<img src=x onerror=alert(1)>"
HUGE = (HOSTILE + "\n") * 3000 + "x" * 100_000  # more than 100 kB, many lines


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language(None)


def card(**values) -> TaskCard:
    return TaskCard(values.get("server", "demo"), values.get("tool", "research"),
                    values.get("task_id", "3f2a9c1e-0000-4000-8000-00000000c9d1"),
                    values.get("shape", "2025-11-25 tasks"))


def state(status: str, message: str | None = None, **values) -> TaskState:
    return TaskState("3f2a9c1e-0000-4000-8000-00000000c9d1", status, message, **values)


def classes(widget: widgets.HTML) -> set[str]:
    return {c for found in re.findall(r'class="([^"]*)"', widget.value) for c in found.split()}


def texts(widget: widgets.Widget) -> str:
    """Every HTML value inside ``widget``, tags removed and unescaped."""
    found = []

    def visit(node):
        if isinstance(node, widgets.HTML):
            found.append(html.unescape(re.sub(r"<[^>]+>", " ", node.value)))
        for child in getattr(node, "children", ()):
            visit(child)

    visit(widget)
    return " ".join(" ".join(found).split())


def test_the_header_names_the_server_and_tool_and_the_task_id_and_shape():
    shown = card()
    assert "demo · research" in texts(shown.header)
    assert texts(shown.id_line) == ("task 3f2a9c1e… details task id: "
                                    "3f2a9c1e-0000-4000-8000-00000000c9d1 protocol: 2025-11-25 tasks")
    assert "nb-elicit-task-card" in shown._dom_classes
    assert "nb-elicit-task-forms" in shown.forms._dom_classes
    assert shown.forms in shown.children
    assert [b.description for b in shown.actions.children] == ["Cancel task", "Detach"]


def test_the_header_shows_a_short_id_and_the_whole_one_and_the_protocol_in_its_details():
    shown = card(shape="MCP 2025-11-25 tasks")
    head, _, details = shown.id_line.value.partition("<details")
    assert "3f2a9c1e…" in head and "3f2a9c1e-0000" not in head
    assert "2025-11-25" not in head + texts(shown.header)  # (a protocol word: in the details)
    assert "user-select: all" in details  # (one click selects the whole id, to copy)
    assert "3f2a9c1e-0000-4000-8000-00000000c9d1</span>" in details
    assert "protocol: MCP 2025-11-25 tasks" in details
    assert card(task_id="t1").id_line.value.startswith('<div style="color: var(--jp-content-font-color2)'
                                                       '; font-size: var(--jp-ui-font-size0)">'
                                                       "task t1</div>")


def test_a_long_task_id_and_hostile_names_are_shown_short_and_escaped():
    shown = card(server=HOSTILE, tool="<b>t</b>", task_id="id-" + "9" * 5000, shape=HUGE)
    assert "<img" not in shown.header.value and "&lt;img src=x" in shown.header.value
    assert "<b>" not in shown.header.value
    line = texts(shown.id_line)
    assert line.startswith("task id-99999… details task id: id-999") and len(line) < 400
    assert "<img" not in shown.id_line.value
    assert shown.task_id == "id-" + "9" * 5000  # (kept whole: the runtime polls with it)


def test_each_update_changes_the_badge_and_the_message():
    shown = card()
    assert shown.badge.value == ""
    assert shown.update(state("working", "Gathering sources…")) is None
    assert {"nb-elicit-task-status", "nb-elicit-task-working"} <= classes(shown.badge)
    assert texts(shown.badge) == "Running"
    assert texts(shown.message) == "Gathering sources…"
    shown.update(state("input_required", "Which region?"))
    assert "nb-elicit-task-input_required" in classes(shown.badge)
    assert "nb-elicit-task-working" not in classes(shown.badge)
    assert texts(shown.message) == "Which region?"
    shown.update(state("working"))
    assert "nb-elicit-task-working" in classes(shown.badge) and shown.message.value == ""
    assert shown.timeline.status == "working" and len(shown.timeline.entries) == 3


def test_hostile_status_text_is_shown_escaped_and_short():
    shown = card()
    shown.update(state("working", HUGE))
    value = shown.message.value
    assert "<img" not in value and "&lt;img src=x onerror=alert(1)&gt;" in value
    assert len(texts(shown.message)) <= 300 and "\n" not in texts(shown.message)
    shown.end(state("failed", HUGE, error=HUGE))
    for widget in (shown.message, shown.status_line):
        assert "<img" not in widget.value and len(widget.value) < 2000
    assert texts(shown.status_line).startswith("Failed after 0 s: <img src=x")


def test_an_out_of_order_status_shows_a_warning_and_is_ignored():
    shown = card()
    shown.update(state("working"))
    shown.update(state("completed", "Done"))
    assert shown.notice_line.layout.display == "none"
    problem = shown.update(state("working", "again"))
    assert problem == ("The server reported “Running” after “Done”, which is final; it is "
                       "ignored.")
    assert shown.notice_line.layout.display is None
    assert "Warning:" in texts(shown.notice_line) and problem in texts(shown.notice_line)
    assert "nb-elicit-task-completed" in classes(shown.badge)
    assert texts(shown.message) == "" and texts(shown.badge) == "Done"  # (its "Done": once)
    assert [e.status for e in shown.timeline.entries] == ["working", "completed"]
    shown.update(state(HOSTILE))
    assert "<img" not in shown.notice_line.value
    assert "2 status reports ignored so far." in texts(shown.notice_line)


def test_progress_is_a_bar_with_a_total_and_a_count_without():
    shown = card()
    shown.show_progress(5, 20, "Reading <b>files</b>\n" + "x" * 10_000)
    bar = shown.progress.bar
    assert bar.value == 0.25 and bar.layout.display is None
    text = texts(shown.progress.text)
    assert text.startswith("Reading <b>files</b> x") and text.endswith("(25%)")
    assert "<b>" not in shown.progress.text.value and len(text) < 320
    shown.show_progress(42, None, None)
    assert bar.layout.display == "none" and texts(shown.progress.text) == "42"
    shown.show_progress(float("nan"), float("inf"), "odd")
    assert bar.layout.display == "none" and texts(shown.progress.text) == "odd"


def test_the_call_and_the_card_show_progress_with_the_same_line():
    view = CallView("demo", "tool", show_waiting=False)
    shown = card()
    for target in (view, shown):
        target.show_progress(1, 4, "Copying")
    assert type(view.progress) is type(shown.progress)
    assert texts(view.progress.text) == texts(shown.progress.text) == "Copying (25%)"
    assert "nb-elicit-progress" in view.progress._dom_classes
    assert "nb-elicit-task-progress" in shown.progress._dom_classes
    assert view.children[0] is view.progress and shown.children[3] is shown.progress


def test_cancel_calls_its_callback_once_and_disables_itself():
    shown = card()
    calls = []
    shown.on_cancel(lambda: calls.append("cancel"))
    shown.cancel_button.click()
    shown.cancel_button.click()  # (a second click before the frontend disabled the button)
    assert calls == ["cancel"]
    assert shown.cancel_button.disabled and not shown.detach_button.disabled
    assert texts(shown.status_line) == "Cancel sent…"


def test_a_confirmed_cancel_ends_the_card():
    shown = card()
    shown.on_cancel(lambda: None)
    shown.update(state("working"))
    shown.cancel_button.click()
    shown.cancel_confirmed(state("cancelled", "Stopped by request"))
    assert "Cancelled (the server confirmed)" in texts(shown.status_line)
    assert "nb-elicit-task-cancelled" in classes(shown.badge)
    assert shown.ended and shown.actions.layout.display == "none"


def test_a_cancel_not_yet_final_says_the_server_confirmed_and_keeps_following():
    shown = card()
    shown.update(state("working"))
    shown.cancel_button.click()
    shown.cancel_confirmed(state("working", "Stopping…"))
    assert texts(shown.status_line) == "Cancelled (the server confirmed)"
    assert not shown.ended and shown.cancel_button.disabled


def test_a_failed_cancel_shows_the_reason_and_offers_cancel_again():
    shown = card()
    calls = []
    shown.on_cancel(lambda: calls.append(1))
    shown.cancel_button.click()
    shown.cancel_failed("the server said: " + HOSTILE + "\n" * 5 + "y" * 10_000)
    line = texts(shown.status_line)
    assert line.startswith("Cancel failed: the server said: <img src=x onerror=alert(1)> y")
    assert "<img" not in shown.status_line.value and len(line) < 350
    assert not shown.cancel_button.disabled
    shown.cancel_button.click()
    assert calls == [1, 1] and shown.cancel_button.disabled


def test_a_cancel_callback_that_raises_is_reported_and_cancel_comes_back(capsys):
    shown = card()

    def broken():
        raise RuntimeError("no session")

    shown.on_cancel(broken)
    shown.cancel_button.click()
    assert texts(shown.status_line) == ("Cancel failed: nb_elicit could not send it "
                                        "(RuntimeError)")
    assert not shown.cancel_button.disabled
    assert "no session" in capsys.readouterr().err  # (the traceback, for whoever debugs)


def test_detach_calls_its_callback_once_and_detached_shows_the_hint():
    async def scenario():
        shown = card()
        calls = []
        shown.on_detach(lambda: calls.append("detach"))
        ticking = shown.ticking
        shown.detach_button.click()
        shown.detach_button.click()
        disabled = shown.detach_button.disabled
        shown.detached("Attach again with %mcp task demo 3f2a9c1e")
        return shown, calls, ticking, disabled

    shown, calls, ticking, disabled = asyncio.run(scenario())
    assert calls == ["detach"] and ticking and disabled
    assert texts(shown.status_line) == ("Detached: the task keeps running on the server. "
                                        "Attach again with %mcp task demo 3f2a9c1e")
    assert shown.ended and not shown.ticking
    assert shown.actions.layout.display == "none"
    shown.cancel_button.click()  # (hidden, and ignored)
    assert "Cancel sent" not in texts(shown.status_line)


def test_the_clock_ticks_on_the_running_loop_and_stops_at_the_end():
    async def scenario():
        shown = card()
        shown.update(state("working"))
        ticker = clock_task()
        before = shown.elapsed.value
        await asyncio.sleep(1.3)  # one tick
        during = shown.elapsed.value
        shown.end(state("completed"), result_text="3 sources found")
        await asyncio.sleep(0)  # (the cancelled ticker ends)
        await asyncio.sleep(1.2)
        return shown, ticker, clock_task(), before, during

    shown, ticker, after, before, during = asyncio.run(scenario())
    assert "started 0 s ago" in before and "started 1 s ago" in during
    assert ticker.cancelled() and after is None and not shown.ticking
    assert shown.elapsed.value == during  # it ticked no more after the end
    assert shown.elapsed.layout.display == "none" and shown.actions.layout.display == "none"
    assert texts(shown.status_line) == "Completed after 1 s."
    # (the result is the call's view's to show, once: the card keeps it, not shows it)
    assert shown.result_text == "3 sources found"
    assert "3 sources found" not in repr([c.value for c in shown.children
                                          if isinstance(c, widgets.HTML)])


def test_without_a_running_loop_nothing_ticks():
    shown = card()
    shown.update(state("working"))
    assert not shown.ticking
    shown.end(state("completed"))
    assert texts(shown.status_line) == "Completed after 0 s."


def test_closing_the_card_stops_its_clock():
    async def scenario():
        shown = card()
        ticking = shown.ticking
        shown.close()
        return ticking, shown.ticking

    assert asyncio.run(scenario()) == (True, False)


def test_how_a_task_ends_is_said_by_its_final_status():
    ends = {}
    for status, extra in [("completed", {}), ("failed", {}), ("failed", {"error": "disk full"}),
                          ("cancelled", {}), ("working", {})]:
        shown = card()
        shown.end(state(status, **extra))
        ends[status + ("+error" if extra else "")] = shown.status_text
    assert ends == {"completed": "Completed after 0 s.", "failed": "Failed after 0 s.",
                    "failed+error": "Failed after 0 s: disk full",
                    "cancelled": "Cancelled after 0 s.",
                    "working": "Stopped following after 0 s; the last status was “Running”."}


def test_the_transcript_is_static_escaped_text_of_the_whole_timeline():
    shown = card()
    shown.start.mono -= 100  # (the task began 100 s ago)
    start = shown.started
    shown.timeline.record(state("working", "Gathering sources…"), now=start, wall=0.0)
    shown.timeline.record(state("input_required", HOSTILE), now=start + 2.4, wall=2.0)
    shown.update(state("weird"))  # (ignored: a notice)
    shown.cancel_button.click()
    # (165.2, not 165.0: (start + 165.0) - start may come out as 164.99…, "2 min 44 s")
    shown.timeline.record(state("cancelled"), now=start + 165.2, wall=165.0)
    shown.end(state("cancelled"), result_text="partial: <script>alert(1)</script>")
    lines = shown.transcript_lines()
    # In the order it happened, each once: the final status and the line that says how the
    # task ended are one line, with one time; "Cancel sent…" gave way to it; no result (the
    # call's view tells it).
    assert lines[0] == "task 3f2a9c1e-0000-4000-8000-00000000c9d1 · 2025-11-25 tasks"
    assert re.fullmatch(r"  \d\d:\d\d:\d\d Running · Gathering sources… \(0 s\)", lines[1])
    assert re.fullmatch(r"  \d\d:\d\d:\d\d Needs your answer · <img src=x onerror=alert\(1\)> "
                        r"\(2 s\)", lines[2])
    assert lines[3] == ("  Warning: The server reported an unknown task status 'weird' after "
                        "“Needs your answer”; it is ignored.")
    assert re.fullmatch(r"  \d\d:\d\d:\d\d Cancelled after 2 min 45 s\.", lines[4])
    assert len(lines) == 5 and shown.status_text == "Cancelled after 2 min 45 s."
    view = CallView("demo", "research", show_waiting=False)
    view.show_task(shown)
    page = transcript_bundle(view.transcript())["text/html"]  # what the cell keeps
    assert "<script" not in page and "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;script&gt;" not in page and "Cancel sent" not in page
    assert "onerror=alert(1)&gt;" in page and "jupyter-widgets" not in page
    # what the lines say, the page says as text
    plain = html.unescape(re.sub(r"<[^>]+>", "", page))
    for text in (lines[0], "Gathering sources… (0 s)", HOSTILE + " (2 s)",
                 lines[3].removeprefix("  Warning: "), lines[4].strip()):
        assert text in plain
    assert [line[2:10] for line in lines[1:3] + lines[4:]] == re.findall(
        r"\d\d:\d\d:\d\d", plain)


def test_a_card_sits_in_a_calls_view():
    view = CallView("demo", "research", show_waiting=False)
    shown = card()
    view.call_log.set_asked((shown,))
    shown.update(state("working"))
    shown.end(state("completed"))
    assert view.transcript().items == []  # (the view tells no card as a request)
    assert not view.call_log.open_prompts()


def test_the_card_in_chinese():
    set_language("zh")
    shown = card()
    shown.update(state("working"))
    assert [b.description for b in shown.actions.children] == ["取消任务", "分离"]
    assert texts(shown.badge) == "进行中"
    shown.cancel_button.click()
    assert texts(shown.status_line) == "已发送取消请求…"
    shown.cancel_confirmed(state("cancelled"))
    assert texts(shown.status_line) == "0 秒 后已取消（服务器已确认）。"


def test_a_note_shows_in_the_card_and_stays_in_the_transcript():
    shown = card()
    shown.note("The server asked for 0 ms between polls; polling every 0.5 s.")
    assert shown.notice_line.layout.display is None
    assert texts(shown.notice_line) == ("Note: The server asked for 0 ms between polls; polling "
                                        "every 0.5 s.")
    shown.end(state("completed"))
    assert ("  Note: The server asked for 0 ms between polls; polling every 0.5 s."
            in shown.transcript_lines())
    view = CallView("demo", "research", show_waiting=False)
    view.show_task(shown)
    page = transcript_bundle(view.transcript())["text/html"]
    assert "Note: The server asked for 0 ms between polls" in html.unescape(page)


def test_a_backlog_line_during_a_task_keeps_the_card_in_the_call_view():
    import asyncio

    from nb_elicit._ui.call_view import CallView
    from nb_elicit._ui.closing import close_tree

    async def scenario():
        view = CallView("demo", "research", show_waiting=False)
        card = TaskCard("demo", "research", "t1", "MCP 2025-11-25 tasks")
        view.show_task(card)
        view.show_backlog("demo", 3, lambda: None)
        children = view.children
        inside = view.call_log.asked_box in card.forms.children
        close_tree(view)  # (none of its models is left open for the next test)
        return children, view, inside

    children, view, inside = asyncio.run(scenario())
    # the card is still where the forms were, above the waiting line
    assert children.index(view.task_card) < children.index(view.status)
    assert view.backlog.widget in children
    assert inside


def test_while_its_task_card_follows_the_task_the_call_shows_no_clock_of_its_own():
    async def scenario():
        view = CallView("demo", "research")  # (its waiting line ticks)
        await asyncio.sleep(0)
        before = view.status.layout.display
        card = TaskCard("demo", "research", "t1", "MCP 2025-11-25 tasks")
        view.show_task(card)
        await asyncio.sleep(1.2)  # a tick of both clocks
        during = view.status.layout.display, card.ticking
        card.end(TaskState("t1", "completed"))
        await asyncio.sleep(1.2)
        after = view.status.layout.display, view.status.value
        view.freeze()
        return before, during, after

    before, during, (after, line) = asyncio.run(scenario())
    assert before != "none"
    assert during == ("none", True)  # the card's clock alone
    assert after != "none" and "Waiting for demo · research" in line  # then the call's again


# -- one clock: the task's age, from when the server created it --------------------------------


def stamp(seconds_ago: float) -> str:
    """A server's createdAt, ``seconds_ago`` seconds ago, as ISO 8601 with "Z"."""
    import datetime

    when = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(
        seconds=seconds_ago)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_the_clock_counts_from_when_the_server_created_the_task_not_from_the_card():
    shown = card()  # (made now: as when a task is attached to again)
    shown.update(state("working", "6 s left", created_at=stamp(40.2)))
    assert shown.dated and "started 40 s ago" in shown.elapsed.value
    assert shown.timeline.entry_line(shown.timeline.latest).endswith("(40 s)")
    # a later createdAt (untrusted, changing) does not move it again
    shown.update(state("working", "5 s left", created_at=stamp(1)))
    shown._tick()
    assert "started 40 s ago" in shown.elapsed.value
    shown.end(state("completed"))
    assert shown.status_text == "Completed after 40 s."


def test_a_task_seen_only_once_it_ended_ran_until_the_server_says_it_ended():
    created = stamp(40.2)
    import datetime

    ended = (datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%S.%fZ")
             + datetime.timedelta(seconds=25)).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
    shown = card()
    shown.end(state("completed", created_at=created, last_updated_at=ended))
    (line,) = shown.timeline.text_lines()
    assert line == "Done (25 s)" and shown.status_text == "Completed after 25 s."


@pytest.mark.parametrize(("created_at", "dated"), [
    (-60, True),  # (a server clock a minute ahead: created now, 0 s)
    (-3600, False),  # (an hour in the future: not believed)
    (400 * 86400, False),  # (more than a year ago: not believed)
    ("yesterday", False), ("2026-12-05T10:00:00.1234567890Z", False), ("", False),
])
def test_a_created_at_that_cannot_be_believed_leaves_the_clock_at_the_card(created_at, dated):
    if isinstance(created_at, int):  # (seconds ago)
        created_at = stamp(created_at)
    shown = card()
    shown.update(state("working", created_at=created_at))
    assert shown.dated is dated
    assert "started 0 s ago" in shown.elapsed.value  # never negative, never silly
    shown.end(state("completed"))
    assert shown.status_text == "Completed after 0 s."


def test_the_record_tells_the_task_and_what_was_asked_inside_it_in_order_each_once():
    from nb_elicit._core.notices import NoticeKind
    from nb_elicit._core.types import ToolResult

    view = CallView("demo", "research", show_waiting=False)
    shown = card()
    view.show_task(shown)
    shown.update(state("working", "Gathering sources"))
    shown.update(state("input_required", "Which python?"))
    view.notice("asked inside the task, answered", NoticeKind.INFO)  # (an item, mid-task)
    shown.update(state("working", "Going on with: historical"))
    shown.end(state("completed", "Going on with: historical"), result_text="Report on python")
    view.show_result(ToolResult([{"type": "text", "text": "Report on python"}]), render=False)
    plain = transcript_bundle(view.transcript())["text/plain"].splitlines()
    said = [re.sub(r"^\s*\d\d:\d\d:\d\d ", "", line).strip() for line in plain]
    assert said == [
        "[demo · research]", "task 3f2a9c1e-0000-4000-8000-00000000c9d1 · 2025-11-25 tasks",
        "Running · Gathering sources (0 s)", "Needs your answer · Which python? (0 s)",
        "Note: asked inside the task, answered",
        "Running · Going on with: historical (0 s)", "Completed after 0 s.",
        "Result from demo:", "Report on python"], plain
    page = transcript_bundle(view.transcript())["text/html"]
    assert page.count("Report on python") == 1
    assert page.index("Which python?") < page.index("asked inside the task") < page.index(
        "Going on with") < page.index("Completed after") < page.index("Report on python")


def test_a_question_that_came_before_the_poll_saw_input_required_is_told_after_it():
    """2025-11-25: the server's question comes as a request of its own, often before the poll
    that sees the task's input_required; the record tells the status first, then the question."""
    from nb_elicit._core.notices import NoticeKind

    view = CallView("demo", "research", show_waiting=False)
    shown = card()
    view.show_task(shown)
    shown.update(state("working", "Analysing"))
    view.notice("the question, answered", NoticeKind.INFO)  # (shown before the poll)
    shown.update(state("input_required", "Which python?"))
    shown.update(state("working", "Going on"))
    plain = transcript_bundle(view.transcript())["text/plain"]
    assert (plain.index("Analysing") < plain.index("Which python?")
            < plain.index("the question, answered") < plain.index("Going on")), plain


# -- statuses in words ------------------------------------------------------------------------

WORDS = [("working", "Running", "进行中"), ("input_required", "Needs your answer", "等您回答"),
         ("completed", "Done", "已完成"), ("failed", "Failed", "失败"),
         ("cancelled", "Cancelled", "已取消")]


@pytest.mark.parametrize(("status", "word", "chinese"), WORDS)
def test_the_badge_says_the_status_in_words_and_the_details_keep_the_protocols_word(
        status, word, chinese):
    shown = card()
    shown.update(state(status))
    assert texts(shown.badge) == word
    assert f"nb-elicit-task-{status}" in classes(shown.badge)  # (styles and tests key on it)
    # the protocol's word, nowhere but in the details line and the badge's tooltip (text)
    assert f'title="status in the protocol: {status}"' in shown.badge.value
    head, _, details = shown.id_line.value.partition("<details")
    assert f"status in the protocol: {status}" in html.unescape(details)
    if status != word.lower():
        assert status not in texts(shown.header) + texts(shown.badge) + head
    assert shown._repr_mimebundle_()["text/plain"].endswith(f", {word}]")
    set_language("zh")
    shown = card()
    shown.update(state(status))
    assert texts(shown.badge) == chinese


def test_an_unknown_status_in_a_badge_is_the_servers_text_as_it_came_escaped():
    from nb_elicit._ui.task_card import badge_html

    value = badge_html(HOSTILE)
    assert "<img" not in value and "&lt;img src=x onerror=alert(1)&gt;" in value
    assert "nb-elicit-task-other" in value and "nb-elicit-task-&lt;" not in value
    assert html.unescape(re.sub(r"<[^>]+>", "", value)) == HOSTILE
    assert "nb-elicit-task-paused" not in badge_html("paused")
    assert re.sub(r"<[^>]+>", "", badge_html("paused")) == "paused"


# -- a form inside the card ---------------------------------------------------------------------

CHOICE = {"type": "object", "properties": {"interpretation": {
    "type": "string", "title": "Interpretation", "enum": ["historical", "language"]}}}


def test_a_question_asked_inside_the_card_is_said_once_with_one_clock():
    """The status line does not repeat the question the form shows; the form shows no clock
    of its own while the card's ticks; the message comes back once the form is answered."""
    from nb_elicit._ui.form import ElicitationForm

    async def scenario():
        view = CallView("demo", "research")
        shown = card()
        view.show_task(shown)
        shown.update(state("input_required", "Which python?"))
        before = texts(shown.message)
        form = ElicitationForm("Which python?", CHOICE, server="demo")
        view.add_form(form)
        await asyncio.sleep(1.2)  # (one tick of the clock)
        during = (texts(view).count("Which python?"), texts(shown.message), form.waited.value,
                  texts(shown.elapsed))
        other = ElicitationForm("Something else?", CHOICE, server="demo")
        view.add_form(other)  # (a question the status line does not say: no change)
        form.decline_button.click()
        other.decline_button.click()
        await asyncio.sleep(0.1)
        after = texts(shown.message)
        shown.end(state("completed"))
        view.close()
        return before, during, after

    before, during, after = asyncio.run(scenario())
    assert before == "Which python?"
    count, message, waited, clock = during
    assert count == 1 and message == ""  # (the form says it: "demo asks: Which python?")
    assert waited == "" and "waiting" not in waited  # (the card's clock is the one clock)
    assert clock.startswith("started ")
    assert after == "Which python?"  # (no form says it now)


def test_a_form_inside_the_card_still_says_its_calls_timeout():
    from nb_elicit._ui.form import ElicitationForm

    class Clock:
        paused = True

        def time_left(self):
            return 30.0

    view = CallView("demo", "research", show_waiting=False)
    view.follow(Clock())
    shown = card()
    view.show_task(shown)
    form = ElicitationForm("Which python?", CHOICE, server="demo")
    view.add_form(form)
    assert texts(form.waited) == "timeout paused while you answer"
    shown.end(state("completed"))  # (no card's clock now: the form's own, as anywhere)
    form.show_waited(30.0, True, clock=True)
    assert texts(form.waited).startswith("waiting ")


def test_the_tasks_buttons_stand_in_its_header_apart_from_a_forms_buttons():
    from nb_elicit._ui.form import ElicitationForm

    view = CallView("demo", "research", show_waiting=False)
    shown = card()
    view.show_task(shown)
    form = ElicitationForm("Which python?", CHOICE, server="demo")
    view.add_form(form)
    head = shown.children[0]
    assert list(head.children) == [shown.header, shown.actions]  # (one line: who, then them)
    assert [b.description for b in shown.actions.children] == ["Cancel task", "Detach"]
    assert shown.children.index(head) < shown.children.index(shown.forms)
    assert shown.actions not in shown.children  # (not under the form's Decline)
    assert form.decline_button.description == "Decline"
    shown.end(state("completed"))
    assert shown.actions.layout.display == "none"


# -- one start, one count ---------------------------------------------------------------------

def test_the_tasks_start_is_kept_once_and_the_record_reads_it():
    shown = card()
    assert shown.timeline.start is shown.start
    shown.update(state("working", created_at=stamp(40)))
    assert shown.dated and shown.start.dated
    assert shown.timeline.started == shown.start.mono == shown.started
    assert 39 <= time.time() - shown.start.wall <= 42
    assert "started 40 s ago" in shown.elapsed.value


def test_the_card_marks_its_lines_with_the_count_its_call_view_tells():
    class Asked:
        """What shows the questions: a count, and no open question."""

        asked_box = widgets.VBox()
        told = 7

        def told_count(self):
            return self.told

        def open_messages(self):
            return []

    asked = Asked()
    shown = card()
    shown.show_asked(asked)
    shown.update(state("working"))
    asked.told = 9
    shown.update(state("completed"))
    assert [entry.mark for entry in shown.timeline.entries] == [7, 9]
    assert shown.forms.children == (asked.asked_box,)


def test_a_poll_that_says_nothing_new_sends_no_widget_message(monkeypatch):
    """Polling a long task costs the kernel only the request: the card sends nothing for a
    poll that brings the status it shows, and its age goes on with the clock's tick alone."""
    from comm.base_comm import BaseComm

    sent = []

    class Recording(BaseComm):
        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            sent.append((msg_type, data or {}))

    monkeypatch.setattr(widgets.widget.comm, "create_comm", lambda **kw: Recording(**kw))

    async def scenario():
        shown = card()
        shown.update(state("working", "Reading sources"))  # (the clock starts)
        opened = len(sent)
        shown.start.mono -= 5.0  # (as if 5 s went by since: the age to show has changed)
        for _ in range(10):
            shown.update(state("working", "Reading sources"))
        polled = sent[opened:]
        shown.update(state("working", "Writing the report"))  # (something new: shown)
        told = sent[opened + len(polled):]
        shown.ticker.stop()
        return shown, polled, told

    shown, polled, told = asyncio.run(scenario())
    assert polled == []
    assert any("Writing the report" in str(data) for _, data in told)
    assert "started 5 s ago" in shown.elapsed.value  # (the new status shows the age at once)
