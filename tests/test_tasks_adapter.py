"""The adapter's tasks, without a server: the SDK hooks it relies on, the client's own form
tasks (2025-11-25), and reading both shapes' task states."""

import asyncio
import inspect

import mcp_types as types
import pytest
from mcp import MCPError
from mcp.client.session import ClientSession
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher

from nb_elicit._mcp import client_tasks
from nb_elicit._mcp.client_tasks import ClientTasks
from nb_elicit._mcp.sdk_patches import TASKS_AD, TaskAwareClient
from nb_elicit._mcp.tasks import (
    ExtensionTaskCreated,
    ExtensionTaskStatus,
    legacy_task,
    related_task_of,
)


def test_the_session_hooks_the_adapter_uses_are_there():
    """mcp 2.3 has no public hook for these; if the SDK renames them, this fails first."""
    assert list(inspect.signature(ClientSession._build_capabilities).parameters) == [
        "self", "version"]
    assert list(inspect.signature(ClientSession._on_request).parameters) == [
        "self", "dctx", "method", "params"]
    made = inspect.unwrap(ClientSession.__init__)  # (as the SDK wrote it: see every_session)
    assert "_stamp" in made.__code__.co_names
    assert "_dispatcher" in made.__code__.co_names
    assert list(inspect.signature(JSONRPCDispatcher.send_raw_request).parameters)[:4] == [
        "self", "method", "params", "opts"]
    assert "_build_session" in vars(TaskAwareClient)


def test_the_2025_ad_declares_form_tasks_list_and_cancel():
    ad = TASKS_AD.model_dump(by_alias=True, exclude_none=True)
    assert ad == {"list": {}, "cancel": {}, "requests": {"elicitation": {"create": {}}}}


def run(coro):
    return asyncio.run(coro)


def test_a_form_task_answers_get_result_and_list():
    async def scenario():
        tasks = ClientTasks()
        answered = asyncio.Event()

        async def person():
            await answered.wait()
            return types.ElicitResult(action="accept", content={"name": "Ada"})

        created = tasks.create(person())
        task_id = created["task"]["taskId"]
        got = await tasks.answer("tasks/get", {"taskId": task_id})
        listed = await tasks.answer("tasks/list", {})
        waiting = asyncio.ensure_future(tasks.answer("tasks/result", {"taskId": task_id}))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # tasks/result waits for the person
        answered.set()
        result = await waiting
        after = await tasks.answer("tasks/get", {"taskId": task_id})
        return created, got, listed, result, after

    created, got, listed, result, after = run(scenario())
    assert created["task"]["status"] == "working"
    assert got["status"] == "working" and got["pollInterval"] == client_tasks.POLL_MS
    assert [t["taskId"] for t in listed["tasks"]] == [created["task"]["taskId"]]
    assert result["action"] == "accept" and result["content"] == {"name": "Ada"}
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {
        "taskId": created["task"]["taskId"]}
    assert after["status"] == "completed"


def test_a_form_task_cancelled_takes_the_form_back_and_cannot_be_cancelled_twice():
    async def scenario():
        tasks = ClientTasks()
        taken_back = asyncio.Event()

        async def person():
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                taken_back.set()
                raise

        task_id = tasks.create(person())["task"]["taskId"]
        await asyncio.sleep(0)
        cancelled = await tasks.answer("tasks/cancel", {"taskId": task_id})
        await asyncio.wait_for(taken_back.wait(), 5)
        with pytest.raises(MCPError) as twice:
            await tasks.answer("tasks/cancel", {"taskId": task_id})
        with pytest.raises(MCPError) as result:
            await tasks.answer("tasks/result", {"taskId": task_id})
        return cancelled, twice.value, result.value

    cancelled, twice, result = run(scenario())
    assert cancelled["status"] == "cancelled"
    assert twice.code == types.INVALID_PARAMS and "already ended" in twice.message
    assert "cancelled" in result.message


@pytest.mark.parametrize("task_id", ["nope", 7, None])
def test_an_unknown_form_task_is_a_json_rpc_error(task_id):
    async def scenario():
        with pytest.raises(MCPError) as raised:
            await ClientTasks().answer("tasks/get", {"taskId": task_id})
        return raised.value

    error = run(scenario())
    assert error.code == types.INVALID_PARAMS and "unknown task id" in error.message


def test_finished_form_tasks_are_forgotten_past_the_cap(monkeypatch):
    monkeypatch.setattr(client_tasks, "KEEP", 3)

    async def scenario():
        tasks = ClientTasks()

        async def answer():
            return types.ElicitResult(action="decline")

        for _ in range(6):
            tasks.create(answer())
            await asyncio.sleep(0)
        return await tasks.answer("tasks/list", {})

    assert len(run(scenario())["tasks"]) <= 4


def test_a_2025_task_is_read_from_its_create_result():
    raw = {"task": {"taskId": "t1", "status": "working", "statusMessage": "Gathering",
                    "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
                    "ttl": 1000, "pollInterval": 250}}
    task = legacy_task(None, "research", raw)
    assert (task.task_id, task.tool, task.shape) == ("t1", "research", "2025-11-25")
    assert task.first.status_message == "Gathering" and task.first.poll_interval_ms == 250


def test_a_malformed_2025_task_is_one_line():
    from nb_elicit._core.errors import ServerError

    with pytest.raises(ServerError) as raised:
        legacy_task(None, "research", {"task": {"status": "working"}})
    assert "malformed" in str(raised.value) and "\n" not in str(raised.value)


def test_extension_task_shapes_read_the_wire_fields():
    created = ExtensionTaskCreated.model_validate(
        {"resultType": "task", "taskId": "x", "status": "working", "pollIntervalMs": 0},
        by_name=False)
    assert created.state().poll_interval_ms == 0
    status = ExtensionTaskStatus.model_validate(
        {"resultType": "complete", "taskId": "x", "status": "failed",
         "error": {"message": "boom"}}, by_name=False)
    assert status.state(error="boom").error == "boom"


def test_related_task_is_read_from_meta_only_when_well_formed():
    key = "io.modelcontextprotocol/related-task"
    assert related_task_of({key: {"taskId": "t9"}}) == "t9"
    assert related_task_of({key: {"taskId": 9}}) is None
    assert related_task_of({key: "t9"}) is None
    assert related_task_of(None) is None
