"""The model of a call the server runs as a task: its state, the poll interval, its timeline."""

from __future__ import annotations

import math

import pytest

from nb_elicit import set_language
from nb_elicit._core.tasks.model import (
    CLOCK_SKEW,
    MAX_AGE,
    MAX_POLL,
    MIN_POLL,
    STATUSES,
    TERMINAL,
    TaskStart,
    TaskState,
    TaskTimeline,
    age_of,
    parse_instant,
    poll_seconds,
    status_word,
)


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language(None)


def state(status: str, message: str | None = None, **values) -> TaskState:
    return TaskState("task-1", status, message, **values)


def start_at(mono: float) -> TaskStart:
    """A task's start at ``mono`` on the monotonic clock (the tests pass their own times)."""
    start = TaskStart()
    start.mono = mono
    return start


# -- the state ---------------------------------------------------------------------------------

def test_the_statuses_and_which_are_final():
    assert STATUSES == ("working", "input_required", "completed", "failed", "cancelled")
    assert isinstance(TERMINAL, frozenset) and sorted(TERMINAL) == ["cancelled", "completed", "failed"]
    assert [state(s).terminal for s in STATUSES] == [False, False, True, True, True]


def test_a_long_multi_line_message_and_error_are_kept_short_on_one_line():
    long = "line one\nline two\r\n\tline three " + "x" * 100_000
    kept = state("failed", long, error=long)
    for text in (kept.status_message, kept.error):
        assert len(text) <= 300 and text.endswith("…")
        assert text.startswith("line one line two line three x")
        assert "\n" not in text and "\t" not in text and "\r" not in text
    assert state("working", "short").status_message == "short"
    assert state("working").status_message is None and state("working").error is None


def test_the_task_id_is_kept_as_the_server_sent_it():
    task_id = "a" * 5000
    assert TaskState(task_id, "working").task_id == task_id


# -- the poll interval -------------------------------------------------------------------------

@pytest.mark.parametrize(("interval", "seconds", "note"), [
    (1000, 1.0, None),
    (2500.0, 2.5, None),
    (500, MIN_POLL, None),
    (30_000, MAX_POLL, None),
    (None, 1.0, None),
    (0, MIN_POLL, "The server asked for 0 ms between polls; polling every 0.5 s."),
    (100, MIN_POLL, "The server asked for 100 ms between polls; polling every 0.5 s."),
    (36_000_000, MAX_POLL,
     "The server asked for 36000000 ms between polls; polling every 30 s."),
    (-5, 1.0, "The server asked for -5 ms between polls; polling every 1 s."),
    (math.inf, MAX_POLL, "The server asked for inf ms between polls; polling every 30 s."),
    (10 ** 400, MAX_POLL, "The server asked for inf ms between polls; polling every 30 s."),
    (-(10 ** 400), 1.0, "The server asked for -inf ms between polls; polling every 1 s."),
    (math.nan, 1.0, "The server asked for NaN as the poll interval, which is not a number of "
                    "milliseconds; polling every 1 s."),
    ("abc", 1.0, "The server asked for 'abc' as the poll interval, which is not a number of "
                 "milliseconds; polling every 1 s."),
    ("1000", 1.0, "The server asked for '1000' as the poll interval, which is not a number of "
                  "milliseconds; polling every 1 s."),
    (True, 1.0, "The server asked for True as the poll interval, which is not a number of "
                "milliseconds; polling every 1 s."),
])
def test_poll_seconds_clamps_or_replaces_and_says_so(interval, seconds, note):
    assert poll_seconds(interval) == (seconds, note)


def test_a_hostile_interval_is_quoted_short_on_one_line():
    seconds, note = poll_seconds("<b>\n" + "9" * 10_000)
    assert seconds == 1.0
    assert len(note) < 200 and "\n" not in note and "…" in note


def test_poll_notes_in_chinese():
    set_language("zh")
    assert poll_seconds(0) == (0.5, "服务器要求每 0 毫秒轮询一次；现每 0.5 秒轮询一次。")
    assert poll_seconds("abc")[1] == "服务器给出的轮询间隔 'abc' 不是毫秒数；现每 1 秒轮询一次。"


# -- the timeline ------------------------------------------------------------------------------

def test_a_timeline_records_each_status_with_its_times_and_message():
    timeline = TaskTimeline()
    assert (timeline.status, timeline.entries, timeline.elapsed(5.0)) == (None, [], 0.0)
    assert timeline.record(state("working", "Gathering sources…"), now=100.0, wall=1.0) is None
    assert timeline.record(state("input_required", "Which region?"), now=102.4) is None
    assert timeline.record(state("working"), now=103.0) is None
    assert timeline.record(state("completed", "Done"), now=172.9) is None
    assert timeline.status == "completed"
    assert [e.status for e in timeline.entries] == ["working", "input_required", "working",
                                                     "completed"]
    assert timeline.entries[0].wall == 1.0 and timeline.entries[0].at == 100.0
    assert timeline.elapsed(now=110.0) == 10.0
    assert timeline.text_lines() == [
        "Running · Gathering sources… (0 s)",
        "Needs your answer · Which region? (2 s)",
        "Running (3 s)",
        "Done (1 min 12 s)"  # (the message "Done" is the word: said once),
    ]


def test_times_are_since_the_start_it_was_given():
    timeline = TaskTimeline(start_at(50.0))
    timeline.record(state("working"), now=53.0)
    assert timeline.text_lines() == ["Running (3 s)"]
    assert timeline.elapsed(now=60.0) == 10.0


def test_clock_lines_start_with_the_wall_clock_time():
    timeline = TaskTimeline()
    timeline.record(state("working", "Go"), now=0.0, wall=1_700_000_000.0)
    (line,) = timeline.text_lines(clock=True)
    clock, rest = line.split(" ", 1)
    assert rest == "Running · Go (0 s)"
    assert len(clock) == 8 and clock[2] == clock[5] == ":"


def test_a_new_message_in_the_same_status_is_recorded_and_a_repeat_is_not():
    timeline = TaskTimeline()
    timeline.record(state("working", "Step 1"), now=0.0)
    assert timeline.record(state("working", "Step 1"), now=1.0) is None  # nothing new
    assert timeline.record(state("working", "Step 2"), now=2.0) is None
    assert timeline.text_lines() == ["Running · Step 1 (0 s)", "Running · Step 2 (2 s)"]


def test_a_failed_tasks_error_is_in_its_line():
    timeline = TaskTimeline()
    timeline.record(state("failed", "Stopped", error="disk full"), now=0.0)
    assert timeline.text_lines() == ["Failed · Stopped · disk full (0 s)"]


@pytest.mark.parametrize("final", sorted(TERMINAL))
@pytest.mark.parametrize("after", STATUSES)
def test_after_a_final_status_only_the_same_one_is_taken(final, after):
    timeline = TaskTimeline()
    timeline.record(state("working"), now=0.0)
    timeline.record(state(final), now=1.0)
    problem = timeline.record(state(after, "late"), now=2.0)
    if after == final:
        assert problem is None
        assert [e.status for e in timeline.entries] == ["working", final, final]
    else:
        assert problem == (f"The server reported “{status_word(after)}” after "
                           f"“{status_word(final)}”, which is final; it is ignored.")
        assert [e.status for e in timeline.entries] == ["working", final]
    assert timeline.status == final


def test_an_unknown_status_is_not_recorded():
    timeline = TaskTimeline()
    assert timeline.record(state("bogus"), now=0.0) == (
        "The server reported an unknown task status 'bogus'; it is ignored.")
    assert timeline.entries == [] and timeline.status is None
    timeline.record(state("working"), now=1.0)
    hostile = "<img src=x onerror=alert(1)>\n" * 1000
    problem = timeline.record(state(hostile), now=2.0)
    assert problem.startswith("The server reported an unknown task status '<img src=x")
    assert problem.endswith("after “Running”; it is ignored.")
    assert len(problem) < 150 and "\n" not in problem
    assert [e.status for e in timeline.entries] == ["working"]


def test_a_long_run_keeps_the_first_and_the_latest_entries_and_counts_the_rest():
    timeline = TaskTimeline(max_entries=5)
    for step in range(20):
        timeline.record(state("working", f"step {step}"), now=float(step))
    timeline.record(state("completed"), now=20.0)
    entries = timeline.entries
    assert len(entries) == 5 and timeline.omitted == 16
    assert [e.message for e in entries] == ["step 0", "step 17", "step 18", "step 19", None]
    lines = timeline.text_lines()
    assert lines[:2] == ["Running · step 0 (0 s)", "… 16 more updates not kept"]
    assert lines[-1] == "Done (20 s)"


def test_the_default_limit_is_fifty_entries():
    timeline = TaskTimeline()
    for step in range(200):
        timeline.record(state("working", f"step {step}"), now=float(step))
    assert len(timeline.entries) == 50 and timeline.omitted == 150
    assert timeline.entries[-1].message == "step 199"


def test_timeline_lines_in_chinese():
    set_language("zh")
    timeline = TaskTimeline()
    timeline.record(state("working", "Gathering"), now=0.0)
    timeline.record(state("input_required"), now=2.0)
    assert timeline.text_lines() == ["进行中 · Gathering (0 秒)", "等您回答 (2 秒)"]
    assert timeline.record(state("weird"), now=3.0) == (
        "服务器在“等您回答”之后报告了未知的任务状态 'weird'；已忽略。")


# -- when the server created the task (createdAt) ----------------------------------------------

#: 2026-12-05T10:00:00Z, in seconds since the epoch.
TEN = 1796464800.0


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-12-05T10:00:00Z", TEN),
    ("2026-12-05T10:00:00z", TEN),
    ("2026-12-05T10:00:00+00:00", TEN),
    ("2026-12-05T10:00:00", TEN),  # (no offset: UTC)
    ("2026-12-05 10:00:00Z", TEN),
    ("2026-12-05T12:30:00+02:30", TEN),
    ("2026-12-05T05:00:00-05:00", TEN),
    ("2026-12-05T05:00:00-0500", TEN),
    ("2026-12-05T10:00:00.5Z", TEN + 0.5),
    ("2026-12-05T10:00:00.25Z", TEN + 0.25),
    ("2026-12-05T10:00:00.123Z", TEN + 0.123),
    ("2026-12-05T10:00:00.1234Z", TEN + 0.1234),
    ("2026-12-05T10:00:00.12345Z", TEN + 0.12345),
    ("2026-12-05T10:00:00.123456+00:00", TEN + 0.123456),
    ("2026-12-05T10:00:00.1234567Z", TEN + 0.1234567),
    ("2026-12-05T10:00:00.12345678Z", TEN + 0.12345678),
    ("2026-12-05T10:00:00.123456789Z", TEN + 0.123456789),
    ("2026-12-05T10:00:00,5Z", TEN + 0.5),
])
def test_created_at_is_read_with_z_offsets_and_fractions_of_1_to_9_digits(text, expected):
    assert parse_instant(text) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("text", [
    None, 0, 1796464800, "", "   ", "now", "yesterday", "2026-12-05", "10:00:00Z",
    "2026-12-05T10:00Z", "2026-13-05T10:00:00Z", "2026-02-30T10:00:00Z",
    "2026-12-05T24:00:00Z", "2026-12-05T10:60:00Z", "2026-12-05T10:00:61Z",
    "2026-12-05T10:00:00.Z", "2026-12-05T10:00:00.1234567890Z", "2026-12-05T10:00:00+24:00",
    "2026-12-05T10:00:00+05:99", "2026-12-05T10:00:00 UTC", "2026-12-05T10:00:00Z trailing",
    "0000-01-01T00:00:00Z",
    "２０２６-12-05T10:00:00Z", "2026-12-05T10:00:00Z" + "0" * 100, "\x00" * 10_000,
    ["2026-12-05T10:00:00Z"], b"2026-12-05T10:00:00Z",
])
def test_a_created_at_that_is_no_time_is_unknown_and_never_an_error(text):
    assert parse_instant(text) is None
    assert age_of(text, now=TEN) is None
    assert TaskState("t", "working", created_at=text).age(now=TEN) is None


def test_an_age_is_never_negative_nor_beyond_belief():
    assert age_of("2026-12-05T10:00:00Z", now=TEN + 4.5) == pytest.approx(4.5)
    assert age_of("2026-12-05T10:00:00Z", now=TEN) == 0.0
    # a server's clock a little ahead of ours: created "now", not in a negative time
    assert age_of("2026-12-05T10:01:00Z", now=TEN) == 0.0
    assert age_of("2026-12-05T10:00:00Z", now=TEN - CLOCK_SKEW - 1) is None  # (far ahead)
    assert age_of("2099-01-01T00:00:00Z", now=TEN) is None
    # far in the past: not believed either
    assert age_of("2026-12-05T10:00:00Z", now=TEN + MAX_AGE - 1) == pytest.approx(MAX_AGE - 1)
    assert age_of("2026-12-05T10:00:00Z", now=TEN + MAX_AGE + 1) is None
    assert age_of("1970-01-01T00:00:00Z", now=TEN) is None
    for edge in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"):  # (times, absurd)
        assert parse_instant(edge) is not None and age_of(edge, now=TEN) is None


def test_a_timeline_says_how_long_the_task_ran_at_its_final_status():
    timeline = TaskTimeline(start_at(100.0))
    timeline.record(state("working"), now=100.0, wall=0.0)
    assert timeline.took(now=103.7) == pytest.approx(3.7)  # (still running: until now)
    timeline.record(state("completed"), now=102.0, wall=2.0)
    # one duration: the final status's, however late it is asked
    assert timeline.took(now=109.0) == pytest.approx(2.0)
    assert timeline.entry_line(timeline.latest).endswith("(2 s)")
