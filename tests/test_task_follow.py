"""Following a task while a question inside it is open (2026-07-28), against the hostile tasks
server (tests/servers/hostile_tasks_server.py, which logs every ``tasks/get``, ``tasks/update``
and ``tasks/cancel`` it answered): Cancel and Detach withdraw the open form and act at once,
no answer goes out after a cancel, and a task that ends on the server withdraws its form. Also
answers about another task, which codes forget a task, and what the registry keeps of runs that
ended."""

import asyncio
import time
import tracemalloc

import pytest
from helpers.fill import fill
from helpers.servers import TasksServer, drive

import nb_elicit
import nb_elicit._runtime.connection  # noqa: F401  (the SDK, imported before the loops start)
from nb_elicit._core.errors import ServerError
from nb_elicit._core.i18n import set_language
from nb_elicit._core.tasks.model import TaskStart, TaskState
from nb_elicit._core.tasks.store import TaskStore
from nb_elicit._runtime.state import kernel_state
from nb_elicit._runtime.task_follow import follow
from nb_elicit._runtime.tasks import TaskRun, Tasks

pytestmark = pytest.mark.timeout(120)

#: Seconds a step may take before the test calls it a hang (the bug: forever).
HANG = 15


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch, views):
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


@pytest.fixture
def extension(tmp_path) -> TasksServer:
    return TasksServer("extension", tmp_path / "server.jsonl")


async def question_open(person, call):
    """The form of the task's one question, once it shows (and the task, which asked it)."""
    form = await person.wait_for_form(unless=call)
    return form, call.task


@pytest.fixture
def chinese():
    set_language("zh")
    yield
    set_language(None)


def said_at_the_end(form) -> tuple[str, str, str, str]:
    """What the withdrawn form says, what its transcript and its history entry say, and how
    the history says it ended."""
    (entry,) = [e for e in kernel_state().history.entries if e.message == form.message][-1:]
    return form.status_text, form.outcome().status, entry.answered_by, form.answered_by


async def ended(call):
    """How the call ended, within :data:`HANG` seconds (a call still waiting is the bug), once
    its withdrawn forms have said why and ended (while the connection is still open)."""
    try:
        return await asyncio.wait_for(asyncio.shield(call), HANG)
    except nb_elicit.NbElicitError as error:
        return error
    finally:
        await asyncio.wait_for(_no_form_open(), HANG)


async def _no_form_open() -> None:
    while len(kernel_state().pending):
        await asyncio.sleep(0.005)


def test_cancel_while_a_question_is_open_withdraws_it_and_cancels_at_once(extension):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 1})
        form, run = await question_open(person, call)
        clicked = time.time()
        run.card.cancel_button.click()
        outcome = await ended(call)
        fill(form, {"name": "Ada"})  # (too late: the form was withdrawn)
        form.submit_button.click()
        await asyncio.sleep(1)
        return outcome, form, clicked, run

    outcome, form, clicked, run = drive(scenario)
    assert isinstance(outcome, nb_elicit.TaskCancelled), outcome
    (cancel,) = extension.lines("tasks/cancel")
    assert cancel["at"] >= clicked and cancel["task"] == run.task_id
    assert extension.lines("tasks/update") == []  # the server never got an answer
    assert form.final_answer() is None
    assert said_at_the_end(form) == (
        "You cancelled its task: this request is withdrawn.",
        "You cancelled its task: this request is withdrawn.", "task cancelled", "task cancelled")
    # ("Cancel sent…" gave way to the line that says how it ended: one line, not two)
    assert run.card.ended and list(run.card.said) == [run.card.status_text]
    assert run.card.status_text.startswith("Cancelled (the server confirmed) after ")
    assert len(kernel_state().pending) == 0


def test_cancel_then_detach_while_a_question_is_open_still_cancels(extension):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 1})
        form, run = await question_open(person, call)
        run.card.cancel_button.click()
        run.card.detach_button.click()
        return await ended(call), form

    outcome, form = drive(scenario)
    assert len(extension.lines("tasks/cancel")) == 1
    assert extension.lines("tasks/update") == []
    assert isinstance(outcome, nb_elicit.TaskCancelled), outcome
    assert form.answered_by == "task cancelled"


def test_detach_while_a_question_is_open_withdraws_it_and_ends_the_call(extension):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 1})
        form, run = await question_open(person, call)
        run.card.detach_button.click()
        return await ended(call), form, run

    outcome, form, run = drive(scenario)
    assert isinstance(outcome, nb_elicit.TaskDetached), outcome
    assert f"%mcp task ht {run.task_id}" in str(outcome)
    assert said_at_the_end(form) == (
        "You detached from its task: this request is withdrawn.",
        "You detached from its task: this request is withdrawn.", "task detached",
        "task detached")
    assert extension.lines("tasks/update") == [] and extension.lines("tasks/cancel") == []
    assert run.detached and kernel_state().tasks.find("ht", run.task_id) is run


@pytest.mark.usefixtures("chinese")
@pytest.mark.parametrize("button, said, how", [
    ("cancel_button", "您取消了它所在的任务：此请求已撤回。", "task cancelled"),
    ("detach_button", "您已从它所在的任务分离：此请求已撤回。", "task detached")])
def test_a_form_withdrawn_by_cancel_or_detach_says_so_in_chinese(extension, button, said, how):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 1})
        form, run = await question_open(person, call)
        getattr(run.card, button).click()
        await ended(call)
        return form

    form = drive(scenario)
    assert said_at_the_end(form) == (said, said, how, how)


def test_an_answer_given_as_cancel_is_clicked_is_not_sent(extension):
    """Submit and Cancel in the same moment: the cancel wins, and no tasks/update goes out."""
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("flood", {"count": 1})
        form, run = await question_open(person, call)
        fill(form, {"name": "Ada"})
        form.submit_button.click()
        run.card.cancel_button.click()
        return await ended(call)

    outcome = drive(scenario)
    assert isinstance(outcome, nb_elicit.TaskCancelled), outcome
    assert len(extension.lines("tasks/cancel")) == 1
    assert extension.lines("tasks/update") == []


def test_the_task_is_polled_while_its_question_is_open_and_its_end_withdraws_the_form(extension):
    async def scenario(person):
        conn = await nb_elicit.connect("ht", extension.command)
        call = conn.start_tool("gives_up", {"seconds": 1.5})
        form, run = await question_open(person, call)
        return await ended(call), form

    outcome, form = drive(scenario)
    assert getattr(outcome, "text", None) == "gave up waiting", outcome
    assert said_at_the_end(form) == ("ht withdrew this request.", "ht withdrew this request.",
                                     "withdrawn", "withdrawn")  # (the server's withdrawal)
    assert extension.lines("tasks/update") == []
    assert len(extension.lines("tasks/get")) >= 3  # (polled on while the form was open)


# -- answers about another task --------------------------------------------------------------


@pytest.mark.parametrize("shape", ["extension", "2025"])
def test_a_tasks_get_answer_about_another_task_is_malformed(tmp_path, shape):
    server = TasksServer(shape, tmp_path / "server.jsonl")

    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("malformed", {"what": "other-task-id"})
        return await ended(call)

    outcome = drive(scenario)
    assert isinstance(outcome, ServerError), outcome
    assert "malformed" in str(outcome) and "someone-elses-task" in str(outcome)
    assert "\n" not in str(outcome)


@pytest.mark.parametrize("shape", ["extension", "2025"])
def test_a_tasks_cancel_answer_about_another_task_is_a_failed_cancel(tmp_path, shape):
    server = TasksServer(shape, tmp_path / "server.jsonl")

    async def scenario(person):
        conn = await nb_elicit.connect("ht", server.command)
        call = conn.start_tool("malformed", {"what": "cancel-other-task-id"})
        deadline = time.monotonic() + HANG
        while call.task is None or call.task.state is None:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        run = call.task
        run.card.cancel_button.click()
        while not any("Cancel failed" in line for line in run.card.said):
            assert time.monotonic() < deadline, list(run.card.said)
            assert not call.done(), call
            await asyncio.sleep(0.01)
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        return list(run.card.said)

    said = drive(scenario)
    (failed,) = [line for line in said if line.startswith("Cancel failed")]
    assert "malformed" in failed and "someone-elses-task" in failed


# -- which errors forget a task (stub remotes, no server) -------------------------------------


class Remote:
    """An adapter's RemoteTask whose tasks/get answers with one JSON-RPC error."""

    shape = "io.modelcontextprotocol/tasks"

    def __init__(self, task_id: str, code: int | None = None):
        self.task_id, self.tool, self.code = task_id, "slow", code
        self.first = TaskState(task_id, "working", poll_interval_ms=0)

    async def get(self):
        raise ServerError(self.code, "no luck")

    def input_requests(self, state):
        return {}


@pytest.mark.parametrize(("code", "forgotten"), [
    (-32602, True), (-32002, True),  # the server does not know the task
    (-32001, False), (-32600, False), (-32603, False)])  # a timeout, anything else: it may run
def test_only_unknown_task_errors_forget_the_saved_task(code, forgotten):
    from nb_elicit._core.tasks.store import ServerIdentity

    registry = kernel_state().tasks  # (this test's own, its file in tmp_path: see task_file)

    async def scenario():
        run = TaskRun("h", Remote("t-1", code))
        registry.begin(run, ServerIdentity("http://127.0.0.1:9/mcp", "srv"))
        assert [s.task_id for s in registry.store.entries()] == ["t-1"]
        with pytest.raises(ServerError):
            await follow(run, None, hint="")
        return run

    run = asyncio.run(scenario())
    assert run.ended and registry.find("h", "t-1") is None
    entries = registry.store.entries()
    assert [s.task_id for s in entries] == ([] if forgotten else ["t-1"])
    assert all(s.kernel is None for s in entries)  # (followed by nobody now)


class Unsure:
    """A task attached to again (a placeholder) whose server first tells statuses no version of
    the protocol knows, then completes."""

    shape = "io.modelcontextprotocol/tasks"
    placeholder = True

    def __init__(self):
        self.task_id, self.tool = "t-2", "slow"
        self.told = ["paused", "paused", "completed"]

    async def get(self):
        return TaskState(self.task_id, self.told.pop(0), poll_interval_ms=0)

    async def result(self, state):
        return nb_elicit.ToolResult([{"type": "text", "text": "done"}])

    def input_requests(self, state):
        return {}


def test_a_task_whose_first_statuses_no_version_knows_is_polled_on_to_its_end():
    async def scenario():
        run = TaskRun("h", Unsure())
        return run, await asyncio.wait_for(follow(run, None, hint=""), 30)

    run, result = asyncio.run(scenario())
    assert result.text == "done" and run.state.status == "completed"


# -- what the registry keeps of runs that ended -------------------------------------------------


class Card:
    """A stand-in for a run's TaskCard."""

    run = None

    def __init__(self):
        self.start = TaskStart()


def test_runs_that_ended_leave_the_registry_and_a_bounded_light_record_stays(tmp_path):
    import gc
    import weakref

    from nb_elicit._core.tasks.store import ServerIdentity
    from nb_elicit._runtime.tasks import FINISHED_KEPT

    registry = Tasks(TaskStore(tmp_path / "tasks.json"))
    cards = []

    async def scenario():
        for n in range(FINISHED_KEPT + 50):
            run = TaskRun("h", Remote(f"t-{n}"), card=Card(), call=object())
            cards.append(weakref.ref(run.card))
            registry.begin(run, ServerIdentity("http://127.0.0.1:9/mcp"))
            run.state = TaskState(run.task_id, "completed")
            registry.end(run)

    asyncio.run(scenario())
    gc.collect()
    assert [card for card in cards if card() is not None] == []  # (no card is held)
    kept = registry.runs("h")
    assert len(kept) == FINISHED_KEPT  # (the oldest went)
    assert kept[-1].task_id == f"t-{FINISHED_KEPT + 49}" and kept[0].task_id == "t-50"
    assert all(r.status == "completed" and r.terminal and r.ended for r in kept)
    assert not any(hasattr(r, "card") or hasattr(r, "call") or hasattr(r, "remote")
                   for r in kept)
    assert registry.find("h", "t-0") is None and registry.store.entries() == []


def test_a_light_record_is_small():
    """What one finished run costs the registry (measured, not asserted exactly)."""
    from nb_elicit._runtime.tasks import FinishedTask

    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    records = [FinishedTask(connection="demo", tool="countdown", task_id=f"{n:036d}",
                            shape="2025-11-25", status="completed", started=time.time(),
                            terminal=True) for n in range(1000)]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    size = sum(s.size_diff for s in after.compare_to(before, "filename")) / len(records)
    assert size < 2_000, size  # (a run with its card and view: about 91 kB)


def test_a_run_and_its_card_keep_the_tasks_start_once():
    """The run's start (``%mcp tasks``, the file) is its card's (the clock): when the server
    says when it created the task, both tell the same age."""
    import datetime

    from nb_elicit._ui.task_card import TaskCard

    created = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=40))

    async def scenario():
        card = TaskCard("h", "slow", "t-1", "task")
        run = TaskRun("h", Remote("t-1"), card=card)
        shared = run.start is card.start
        before = run.started
        state = TaskState("t-1", "working",
                          created_at=created.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
        run.saw(state)
        card.update(state)
        card.close()
        return shared, before, run, card

    shared, before, run, card = asyncio.run(scenario())
    assert shared and card.dated
    assert 39 <= time.time() - run.started <= 42 and abs(before - run.started) >= 39
    assert "started 40 s ago" in card.elapsed.value
