"""A call's notices as one model: the live view draws it and the transcript tells it."""

from __future__ import annotations

from nb_elicit._core.notices import Notice, NoticeKind, Notices, overflow_text
from nb_elicit._core.records.transcript import Asked
from nb_elicit._ui.call_view import CallView


def test_notice_kinds_keep_their_words():
    assert [k.value for k in NoticeKind] == ["info", "warning", "error"]
    assert NoticeKind.WARNING == "warning" and f"{NoticeKind.ERROR}" == "error"
    assert NoticeKind.of("nonsense") is NoticeKind.INFO
    assert Notice("x", "warning") == Notice("x", NoticeKind.WARNING)


def test_past_the_limit_one_line_counts_the_rest_from_the_count():
    notices = Notices(limit=2)
    first, new = notices.add("one", "info")
    assert new and (first.text, first.kind) == ("one", NoticeKind.INFO)
    notices.add("two")
    overflow, new = notices.add("three")
    assert new and overflow is notices.overflow and overflow.text == overflow_text(1)
    again, new = notices.add("four")
    assert again is overflow and not new and overflow.text == overflow_text(2)
    assert [e.text for e in notices.entries] == ["one", "two", overflow_text(2)]
    assert notices.count == 4


def test_a_line_updated_after_it_was_taken_is_told_again():
    notices = Notices()
    entry, _ = notices.add("1 declined")
    notices.say("Result.")
    assert notices.take_lines() == ["1 declined", "Result."]
    assert notices.lines == []
    notices.update(entry, "2 declined")
    notices.update(entry, "3 declined")
    assert notices.take_lines() == ["3 declined"]


def test_the_view_draws_the_model_and_its_transcript_tells_it():
    view = CallView("demo", "tool", show_waiting=False)
    asked = Asked("demo", "Who?", "Submitted.", "accept")
    view.notice("a request was refused", NoticeKind.ERROR)
    view.notice("demo asked: Who? Submitted.", NoticeKind.INFO, asked=asked)
    counted = view.notice("1 declined", NoticeKind.WARNING)
    view.update_notice(counted, "2 declined")
    lines = view.asked
    assert [line.notice for line in lines] == view.notices.entries
    assert "2 declined" in lines[2].value and "nb-elicit-notice-warning" in lines[2]._dom_classes
    assert view.transcript().items == [Notice("a request was refused", NoticeKind.ERROR), asked,
                                       Notice("2 declined", NoticeKind.WARNING)]
    assert view.lines == ["a request was refused", "demo asked: Who? Submitted.", "2 declined"]


def test_a_flood_of_notices_stays_one_counted_line():
    view = CallView("demo", "tool", show_waiting=False)
    for i in range(view.notices.limit + 3):
        view.notice(f"notice {i}", "info")
    *_, last = view.asked
    assert len(view.asked) == view.notices.limit + 1
    assert "3 more notices" in last.value and last.notice is view.notices.overflow
    assert view.transcript().items[-1] == Notice(overflow_text(3), NoticeKind.INFO)


def test_a_live_view_and_its_transcript_tell_one_log_in_time_order_the_result_in_its_place():
    from nb_elicit._core.records.transcript import transcript_bundle
    from nb_elicit._core.types import ToolResult

    view = CallView("demo", "clock", show_waiting=False)
    view.notice("before the result", NoticeKind.INFO)
    view.show_result(ToolResult([{"type": "text", "text": "12:00"}]))
    view.notice("after the result", NoticeKind.INFO)
    # The live view: the later line under the result, each line once.
    shown = [line.notice.text for line in view.asked]
    later = [line.notice.text for line in view.call_log.later.children]
    assert shown == ["before the result"] and later == ["after the result"]
    order = list(view.children)
    assert order.index(view.result) < order.index(view.call_log.later)
    # The transcript: the same log, in the same order.
    text = transcript_bundle(view.transcript())["text/plain"].splitlines()
    assert text == ["[demo · clock]", "Note: before the result", "Result from demo:", "12:00",
                    "Note: after the result"]
    html = transcript_bundle(view.transcript())["text/html"]
    assert (html.index("before the result") < html.index("12:00")
            < html.index("after the result"))
    assert html.count("after the result") == 1


def test_a_transcript_says_who_ended_a_request_once():
    """"demo withdrew this request." needs no "(withdrawn)" after it; an interrupt's "Cancelled."
    still says what cancelled it."""
    from nb_elicit._core.outcome import AnsweredBy
    from nb_elicit._core.records.transcript import transcript_bundle

    view = CallView("demo", "tool", show_waiting=False)
    view.notice("x", NoticeKind.WARNING, asked=Asked(
        "demo", "Who?", "demo withdrew this request.", "cancel", AnsweredBy.WITHDRAWN))
    view.notice("y", NoticeKind.WARNING, asked=Asked(
        "demo", "Where?", "Cancelled.", "cancel", AnsweredBy.INTERRUPT))
    bundle = transcript_bundle(view.transcript())
    for text in (bundle["text/plain"], bundle["text/html"]):
        assert "demo withdrew this request." in text and "(withdrawn)" not in text
        assert "Cancelled. (interrupt)" in text
