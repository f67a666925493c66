"""Task tools that misbehave (tests/servers/hostile_tasks_server.py) against an in-process
client, in both shapes of tasks where the misbehaviour exists in both.

Each case ends with at most one clear line, no traceback, nothing left pending, no hang, and
the event loop free all along (a heartbeat keeps ticking). The server logs every ``tasks/get``
and ``tasks/update`` it answered, which the tests count.
"""

import asyncio
import json
import time

import pytest
from helpers.fill import fill
from helpers.servers import TasksServer, drive

import nb_elicit
import nb_elicit._runtime.connection  # (the SDK too: imported before any heartbeat starts)
from nb_elicit._core.notices import Notice
from nb_elicit._core.records.transcript import transcript_bundle
from nb_elicit._runtime.state import kernel_state

# once: the subject is each server's misbehaviour, one scenario a test, some waiting out real
# poll intervals (30 s); the follow loop they drive runs on every Python in test_task_follow,
# test_task_magics and test_demo_tasks.
pytestmark = [pytest.mark.timeout(120), pytest.mark.once]

BOTH = ["extension", "2025"]
#: Seconds the event loop may go without a heartbeat: far more than any step here takes.
STALL = 2.0


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch, views):
    """Each test keeps its running tasks in a file of its own (and displays nothing)."""
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


@pytest.fixture(params=BOTH)
def server(request, tmp_path) -> TasksServer:
    return TasksServer(request.param, tmp_path / "server.jsonl")


@pytest.fixture
def extension(tmp_path) -> TasksServer:
    return TasksServer("extension", tmp_path / "server.jsonl")


@pytest.fixture
def legacy(tmp_path) -> TasksServer:
    return TasksServer("2025", tmp_path / "server.jsonl")


def hostile(scenario, timeout: float = 60):
    """``drive(scenario)`` with a heartbeat on the event loop: what the scenario returned, after
    checking that the loop never stalled and that no form was left pending."""
    async def beating(person):
        gaps = []

        async def beat():
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.05)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        heart = asyncio.create_task(beat())
        try:
            return await scenario(person), gaps
        finally:
            heart.cancel()

    outcome, gaps = drive(beating, timeout)
    assert gaps and max(gaps) < STALL, f"the event loop stalled for {max(gaps):.1f} s"
    assert len(kernel_state().pending) == 0
    return outcome


async def started(call, timeout: float = 20):
    """The call's task, once the server has said it runs as one."""
    deadline = time.monotonic() + timeout
    while call.task is None:
        assert time.monotonic() < deadline, "the call never became a task"
        assert not call.done(), f"the call ended first: {call.result()!r}"
        await asyncio.sleep(0.01)
    return call.task


async def failure(call) -> str:
    """What the call failed with: one line of nb_elicit's, never a traceback."""
    with pytest.raises(nb_elicit.NbElicitError) as failed:
        await call
    return str(failed.value)


def one_line(text: str) -> str:
    assert "\n" not in text and "Traceback" not in text, text
    return text


def said(view) -> list[str]:
    """The lines the call's cell showed about its requests (as its transcript keeps them)."""
    return [item.text for item in view.transcript().items if isinstance(item, Notice)]


def card_statuses(card) -> list[str]:
    return [entry.status for entry in card.timeline.entries]


# -- 1. a status out of order ---------------------------------------------------------------------


def test_an_unknown_status_is_a_warning_and_the_first_final_status_wins(server):
    """working, "paused", completed, then working again: the card warns once about "paused",
    the call ends with the completed task's result, and no status after it counts."""
    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("out_of_order")
        run = await started(call)
        statuses = set()
        while not call.done():  # what the follower takes for the task's status meanwhile
            statuses.add(run.status)
            await asyncio.sleep(0.01)
        return await call, run, call._view, statuses

    result, run, view, statuses = hostile(scenario)
    assert statuses <= {"working", "completed"}
    assert result.text == "done once"
    card = view.task_card
    (warning,) = card.notices
    assert warning.kind == "warning" and "'paused'" in warning.text and "ignored" in warning.text
    assert card_statuses(card)[-1] == "completed" and "paused" not in card_statuses(card)
    assert card.ended and card.status_text.startswith("Completed after")
    assert run.status == "completed"
    # nb_elicit stops polling at the first final status (2025-11-25 may look once more, after
    # tasks/result answered): "working again" is never taken for the task's state
    assert server.polls(run.task_id) in (3, 4)
    assert kernel_state().tasks.store.entries() == []


def test_a_task_that_tools_call_answers_as_completed_already_gives_its_result(extension):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("born_completed")
        result = await call
        return result, call._view.task_card

    result, card = hostile(scenario)
    assert result.text == "born completed"
    assert card.ended and card.status_text.startswith("Completed after")


# -- 2. poll intervals of 0 ms and of 10 hours ------------------------------------------------------


def test_a_poll_interval_of_0_ms_is_polled_every_half_second(server):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("poll_every", {"ms": 0, "seconds": 3})
        run = await started(call)
        result = await call
        return result, run, call._view.task_card

    result, run, card = hostile(scenario)
    assert result.text == "done after 3 s"
    assert 2 <= server.polls(run.task_id) < 20  # no tight loop
    (note,) = card.notices  # said once, however often it was polled
    assert note.text == "The server asked for 0 ms between polls; polling every 0.5 s."
    assert card.notice_count == 1


def test_a_poll_interval_of_10_hours_is_polled_at_most_every_30_seconds(server):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        began = time.monotonic()
        call = conn.start_tool("poll_every", {"ms": 36_000_000, "seconds": 1})
        run = await started(call)
        result = await call
        return result, run, call._view.task_card, time.monotonic() - began

    result, run, card, took = hostile(scenario, timeout=90)
    assert result.text == "done after 1 s"
    assert took < 40  # not 10 hours
    assert run.status == "completed"
    (note,) = card.notices
    assert note.text == ("The server asked for 36000000 ms between polls; polling every 30 s.")


# -- 3. a flood of questions in one poll -------------------------------------------------------------


def test_a_flood_of_200_questions_in_one_poll_goes_through_the_backlog(extension):
    """Three shown, a hundred waiting, 97 answered cancel at once with one counted line; the
    person cancels the waiting ones and answers the three: all 200 in one tasks/update."""
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 200})
        backlog = conn.guard.backlog
        deadline = time.monotonic() + 30
        # (the three forms are built one per turn of the loop, a moment apart, once their
        # requests have their places: wait for all three)
        while not (backlog.open == 3 and backlog.waiting == 100
                   and len(kernel_state().pending.forms()) == 3):
            assert time.monotonic() < deadline, (backlog.open, backlog.waiting)
            assert not call.done()
            await asyncio.sleep(0.02)
        call._view.backlog.widget.children[1].click()  # "Cancel waiting requests"
        shown = kernel_state().pending.forms()
        for form in shown:
            fill(form, {"name": "Ada"})
            form.submit_button.click()
        result = await call
        return result, said(call._view), len(shown), backlog.most_open

    result, lines, shown, most_open = hostile(scenario)
    assert json.loads(result.text) == {"accept": 3, "cancel": 197}
    assert shown == 3 and most_open == 3
    assert any("answered cancel to 97 requests without showing them" in line for line in lines)
    assert "You cancelled 100 requests from ht that waited." in lines
    (update,) = extension.lines("tasks/update")  # everything answered at once
    assert update["actions"] == {"accept": 3, "cancel": 197}


# -- 4. a server that forgets the task ---------------------------------------------------------------


def test_a_task_the_server_drops_mid_run_is_one_line_and_leaves_the_file(server):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("dropped", {"after": 2})
        run = await started(call)
        saved = [s.task_id for s in kernel_state().tasks.store.entries()]
        said = await failure(call)
        return run, saved, said, call._view

    run, saved, said, view = hostile(scenario)
    assert saved == []  # (a stdio server's task dies with the kernel: never in the file)
    assert f"the server no longer knows the task {run.task_id}" in one_line(said)
    assert "Task not found" in said
    assert kernel_state().tasks.store.entries() == []
    assert run.ended and kernel_state().tasks.find("ht", run.task_id) is None
    assert view.task_card.ended and not view.task_card.ticking  # the card stopped too


# -- 5. malformed answers to tasks/get ---------------------------------------------------------------


@pytest.mark.parametrize(("what", "said", "completed"), [
    ("no-task-id", "taskId", False),
    ("status-number", "status", False),
    ("result-not-object", "result", False),
    ("result-not-call-tool-result", "content", True),  # (a completed task, its result broken)
    ("result-off-schema", "structured content", True),
])
def test_a_malformed_task_is_one_line(extension, what, said, completed):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("malformed", {"what": what})
        run = await started(call)
        return await failure(call), call._view.task_card, run

    text, card, run = hostile(scenario)
    assert "malformed" in one_line(text) and said in text
    assert card.ended and not card.ticking
    assert run.ended and not run.detached  # followed no more
    # (only a light record of it is kept)
    assert kernel_state().tasks.find("ht", run.task_id) is None
    (record,) = [r for r in kernel_state().tasks.runs("ht") if r.task_id == run.task_id]
    assert record.ended and record.terminal == completed
    # (a stdio server's task is never in the file)
    assert kernel_state().tasks.store.entries() == []


@pytest.mark.parametrize("what", ["no-task-id", "status-number"])
def test_a_malformed_2025_task_is_one_line(legacy, what):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", legacy.command)
        call = conn.start_tool("malformed", {"what": what})
        await started(call)
        return await failure(call), call._view.task_card

    text, card = hostile(scenario)
    assert "malformed" in one_line(text)
    assert card.ended and not card.ticking


# -- 6. a question nb_elicit refuses, inside a 2026-07-28 task -------------------------------------


def test_a_question_with_a_refused_schema_is_answered_cancel_and_the_cell_says_why(extension):
    async def scenario(person):
        person.will("accept", {"name": "Ada"})
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("refused_question")
        result = await call
        return result, said(call._view), person.seen

    result, lines, seen = hostile(scenario)
    assert json.loads(result.text) == {"nested": {"action": "cancel"},
                                       "plain": {"action": "accept", "content": {"name": "Ada"}}}
    assert len(seen) == 1  # the plain question alone was shown
    (refused,) = [line for line in lines if "cannot show" in line]
    assert "nested objects are not supported" in refused
    assert "answered cancel" in refused  # (tasks/update has no place for an error)
    (update,) = extension.lines("tasks/update")
    assert update["actions"] == {"accept": 1, "cancel": 1}


# -- 7. a 2025-11-25 question about a task nobody knows ---------------------------------------------


def test_a_question_about_an_unknown_task_shows_in_the_newest_calls_cell(legacy):
    async def scenario(person):
        person.will("accept", {"name": "Ada"})
        conn = await nb_elicit.connect("ht", legacy.command)
        running = conn.start_tool("poll_every", {"ms": 500, "seconds": 2})
        await started(running)
        asking = conn.start_tool("ask_unrelated", {"task_id": "no-such-task"})
        form = await person.wait_for_form(unless=asking)
        in_asking = form in asking._view.asked
        in_task = form in running._view.asked
        return await asking, await running, in_asking, in_task

    answer, done, in_asking, in_task = hostile(scenario)
    assert json.loads(answer.text) == {"action": "accept", "content": {"name": "Ada"}}
    assert in_asking and not in_task
    assert done.text == "done after 2 s"


# -- 8. hostile text ----------------------------------------------------------------------------------


def test_a_100_kb_status_message_of_markup_is_escaped_and_shortened(server):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("loud")
        run = await started(call)
        shown = None
        deadline = time.monotonic() + 20
        while not (shown and "script" in shown):
            assert time.monotonic() < deadline, "the status message never showed"
            shown = run.card.message.value
            await asyncio.sleep(0.02)
        result = await call
        return result, shown, call._view

    result, shown, view = hostile(scenario)
    assert result.text == "loud and done"
    assert "<script" not in shown and "<b onmouseover" not in shown
    assert "&lt;script&gt;" in shown
    assert len(shown) < 2_000
    lines = view.task_card.transcript_lines()
    (loud,) = [line for line in lines if "alert" in line]
    assert "\n" not in loud and len(loud) < 500 and "…" in loud
    transcript = view.transcript()
    assert sum(len(line) for line in transcript.task) < 3_000
    bundle = transcript_bundle(transcript)  # what the cell keeps once the call ended
    page = bundle["text/html"]
    assert "<script" not in page and "<b onmouseover" not in page and "&lt;script&gt;" in page
