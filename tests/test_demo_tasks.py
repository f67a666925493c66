"""The demo server's task tools, ``research`` and ``countdown``, at the wire level, in both
shapes of MCP tasks: 2025-11-25 (``params.task``; ``tasks/get``, ``tasks/result``,
``tasks/cancel``, ``tasks/list``) and the 2026-07-28 extension ``io.modelcontextprotocol/tasks``
(``resultType: "task"``; ``tasks/get``, ``tasks/update``, ``tasks/cancel``).

The clients are the SDK's (``tests/helpers/tasks.py``), over stdio, and once over streamable
HTTP; the server's journal shows what reached it.
"""

import asyncio
import json

import mcp_types as types
import pytest
from helpers.servers import Journal, demo_command, served
from helpers.tasks import RELATED_TASK, extension_client, legacy_client
from mcp import MCPError

pytestmark = pytest.mark.timeout(120)

TOPIC = "python"
READINGS = [{"const": "technical", "title": "python: the technical side"},
            {"const": "historical", "title": "python: its history"},
            {"const": "current", "title": "python: in the news now"}]
QUESTION = '"python" can be read three ways. Which do you mean?'
FORM = {"type": "object", "required": ["interpretation"], "properties": {"interpretation": {
    "type": "string", "title": "Which do you mean?", "oneOf": READINGS}}}
TASK_FIELDS = {"taskId", "status", "createdAt", "lastUpdatedAt"}


def run(scenario, timeout: float = 90):
    return asyncio.run(asyncio.wait_for(scenario, timeout))


@pytest.fixture
def journal(tmp_path) -> Journal:
    return Journal(tmp_path / "journal.jsonl")


def historical(params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"interpretation": "historical"})


def text(result: dict) -> str:
    (block,) = result["content"]
    return block["text"]


def clarified(action: str, content: dict | None) -> str:
    received = json.dumps({"action": action, "content": content}, sort_keys=True)
    return f"Research report on python: 4 stages done. Clarification received: {received}."


# -- 2025-11-25 ----------------------------------------------------------------------------------


def test_a_2025_client_learns_of_tasks_from_initialize_and_tools_list(journal):
    async def scenario():
        async with legacy_client(demo_command(journal)) as client:
            tools = {t["name"]: t for t in (await client.request("tools/list"))["tools"]}
            return client.initialize, tools

    initialize, tools = run(scenario())
    assert initialize["protocolVersion"] == "2025-11-25"
    assert initialize["capabilities"]["tasks"] == {
        "list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert tools["research"]["execution"] == {"taskSupport": "required"}
    assert tools["countdown"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["hello"]


def test_a_2025_task_asks_on_the_open_tasks_result_and_returns_what_was_answered(journal):
    async def scenario():
        async with legacy_client(demo_command(journal), historical) as client:
            created = await client.call_as_task("research", {"topic": TOPIC, "ambiguous": True},
                                                ttl=90_000)
            task_id = created["task"]["taskId"]
            result = await client.request("tasks/result", {"taskId": task_id})
            final = await client.request("tasks/get", {"taskId": task_id})
            listed = await client.request("tasks/list")
            return created, result, final, listed, client.asked, client.statuses

    created, result, final, listed, asked, statuses = run(scenario())
    task = created["task"]
    assert set(created) == {"task"}
    assert set(task) >= TASK_FIELDS
    assert (task["status"], task["ttl"], task["pollInterval"]) == ("working", 90_000, 500)
    assert asked == [{"mode": "form", "message": QUESTION, "requestedSchema": FORM,
                      "_meta": {RELATED_TASK: {"taskId": task["taskId"]}}}]
    assert text(result) == clarified("accept", {"interpretation": "historical"})
    assert result["isError"] is False
    assert result["_meta"] == {RELATED_TASK: {"taskId": task["taskId"]}}
    assert final["status"] == "completed"
    assert [t["taskId"] for t in listed["tasks"]] == [task["taskId"]]
    seen = [(s["status"], s.get("statusMessage")) for s in statuses]
    assert ("working", "Gathering sources (1 of 4)…") in seen
    assert ("input_required", QUESTION) in seen
    assert ("working", "Going on with: historical") in seen
    assert seen[-1] == ("completed", None)
    assert journal.entries() == [{"tool": "research", "message": QUESTION, "action": "accept",
                                  "content": {"interpretation": "historical"}}]


def test_a_2025_task_polled_until_it_needs_input_then_answered_declined(journal):
    async def scenario():
        async with legacy_client(demo_command(journal),
                                 lambda params: types.ElicitResult(action="decline")) as client:
            created = await client.call_as_task("research", {"topic": TOPIC, "ambiguous": True})
            task_id = created["task"]["taskId"]
            waiting = await client.until(task_id, "input_required")
            return waiting, await client.request("tasks/result", {"taskId": task_id})

    waiting, result = run(scenario())
    assert waiting["statusMessage"] == QUESTION
    assert text(result) == clarified("decline", None)
    assert journal.entries() == [{"tool": "research", "message": QUESTION, "action": "decline",
                                  "content": None}]


def test_a_2025_countdown_reports_each_second_and_its_cancel_reaches_the_tool(journal):
    async def scenario():
        async with legacy_client(demo_command(journal)) as client:
            created = await client.call_as_task("countdown", {"seconds": 30})
            task_id = created["task"]["taskId"]
            while not any(s.get("statusMessage") == "29 s left" for s in client.statuses):
                await asyncio.sleep(0.1)
            cancelled = await client.request("tasks/cancel", {"taskId": task_id})
            again = await refused(client.request("tasks/cancel", {"taskId": task_id}))
            result = await refused(client.request("tasks/result", {"taskId": task_id}))
            return cancelled, again, result, client.statuses, await entries(journal)

    cancelled, again, result, statuses, journaled = run(scenario())
    assert cancelled["status"] == "cancelled"
    assert cancelled["statusMessage"] == "The task was cancelled by request."
    assert again.code == -32602 and "already in terminal status 'cancelled'" in again.message
    assert result.code == -32602 and "was cancelled" in result.message
    messages = [s.get("statusMessage") for s in statuses]
    assert messages[:2] == ["30 s left", "29 s left"]
    assert statuses[-1]["status"] == "cancelled"
    assert journaled == [{"tool": "countdown", "event": "cancelled", "seconds": 30, "left": 29}]


def test_a_cancel_withdraws_the_question_open_on_tasks_result(journal):
    withdrawn = []

    async def never(params):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            withdrawn.append(params.message)
            raise

    async def scenario():
        async with legacy_client(demo_command(journal), never) as client:
            created = await client.call_as_task("research", {"topic": TOPIC, "ambiguous": True})
            task_id = created["task"]["taskId"]
            waiting = asyncio.ensure_future(client.request("tasks/result", {"taskId": task_id}))
            while not client.asked:
                await asyncio.sleep(0.05)
            await client.request("tasks/cancel", {"taskId": task_id})
            result = await refused(waiting)
            while not withdrawn:
                await asyncio.sleep(0.05)
            return result, await entries(journal)

    result, journaled = run(scenario())
    assert result.code == -32602
    assert withdrawn == [QUESTION]
    assert journaled == [{"tool": "research", "event": "cancelled", "topic": TOPIC}]


def test_2025_errors_unknown_task_plain_call_of_a_required_tool_and_task_of_a_plain_tool(
        journal):
    async def scenario():
        async with legacy_client(demo_command(journal)) as client:
            return (
                await refused(client.request("tasks/get", {"taskId": "no-such-task"})),
                await refused(client.request("tasks/result", {"taskId": "no-such-task"})),
                await refused(client.request("tasks/cancel", {"taskId": "no-such-task"})),
                await refused(client.request("tasks/list", {"cursor": "x"})),
                await refused(client.request("tasks/update", {"taskId": "x",
                                                              "inputResponses": {}})),
                await refused(client.request("tools/call", {"name": "research",
                                                            "arguments": {"topic": TOPIC}})),
                await refused(client.call_as_task("hello")),
                await client.request("tools/call", {"name": "countdown",
                                                    "arguments": {"seconds": 0}}),
            )

    get, result, cancel, listed, update, plain, hello, inline = run(scenario())
    for error in (get, result, cancel):
        assert error.code == -32602 and "Task not found" in error.message
    assert listed.code == -32602
    assert update.code == -32601  # tasks/update is the 2026-07-28 extension's
    assert plain.code == -32601 and "requires task augmentation" in plain.message
    assert hello.code == -32601 and "'hello' does not run as a task" in hello.message
    assert text(inline) == "Counted down from 0 s: done."  # optional: a plain call runs inline
    assert "task" not in inline


def test_a_2025_task_is_forgotten_once_its_ttl_runs_out(journal):
    async def scenario():
        async with legacy_client(demo_command(journal)) as client:
            created = await client.call_as_task("countdown", {"seconds": 30}, ttl=1)
            await asyncio.sleep(0.2)
            return created, await refused(client.request("tasks/get",
                                                         {"taskId": created["task"]["taskId"]}))

    created, error = run(scenario())
    assert created["task"]["ttl"] == 1
    assert error.code == -32602


# -- the 2026-07-28 extension --------------------------------------------------------------------


def test_an_extension_task_asks_in_input_requests_and_takes_the_answer_from_tasks_update(
        journal):
    async def scenario():
        async with extension_client(demo_command(journal)) as client:
            created = await client.call("research", {"topic": TOPIC, "ambiguous": True})
            task_id = created["taskId"]
            waiting = await client.until(task_id, "input_required")
            (key,) = waiting["inputRequests"]
            stray = await client.request("tasks/update", taskId=task_id, inputResponses={
                "never-asked": {"action": "accept", "content": {"interpretation": "current"}}})
            still = await client.request("tasks/get", taskId=task_id)
            ack = await client.request("tasks/update", taskId=task_id, inputResponses={
                key: {"action": "accept", "content": {"interpretation": "current"}}})
            done = await client.until(task_id, "completed", "failed")
            return created, waiting, stray, still, ack, done

    created, waiting, stray, still, ack, done = run(scenario())
    assert created["resultType"] == "task"
    assert set(created) >= TASK_FIELDS
    assert (created["status"], created["ttlMs"], created["pollIntervalMs"]) == (
        "working", 300_000, 500)
    assert "task" not in created and "content" not in created
    assert waiting["resultType"] == "complete"
    assert waiting["statusMessage"] == QUESTION
    assert list(waiting["inputRequests"].values()) == [{"method": "elicitation/create", "params": {
        "mode": "form", "message": QUESTION, "requestedSchema": FORM}}]
    assert stray["resultType"] == ack["resultType"] == "complete"
    assert still["status"] == "input_required"  # an answer to a key never asked is ignored
    assert done["status"] == "completed"
    assert "inputRequests" not in done
    assert text(done["result"]) == clarified("accept", {"interpretation": "current"})
    assert done["result"]["isError"] is False
    assert journal.entries() == [{"tool": "research", "message": QUESTION, "action": "accept",
                                  "content": {"interpretation": "current"}}]


def test_an_extension_countdown_is_cancelled_and_the_cancel_reaches_the_tool(journal):
    async def scenario():
        async with extension_client(demo_command(journal)) as client:
            created = await client.call("countdown", {"seconds": 30})
            task_id = created["taskId"]
            seen = [await client.until(task_id, "working")]
            while seen[-1].get("statusMessage") != "29 s left":
                await asyncio.sleep(0.1)
                seen.append(await client.request("tasks/get", taskId=task_id))
            ack = await client.request("tasks/cancel", taskId=task_id)
            after = await client.request("tasks/get", taskId=task_id)
            again = await client.request("tasks/cancel", taskId=task_id)
            return seen, ack, after, again, await entries(journal)

    seen, ack, after, again, journaled = run(scenario())
    assert "30 s left" in [s.get("statusMessage") for s in seen]
    assert {k: v for k, v in ack.items() if k != "_meta"} == {"resultType": "complete"}
    assert after["status"] == "cancelled"
    assert {k: v for k, v in again.items() if k != "_meta"} == {"resultType": "complete"}
    assert journaled == [{"tool": "countdown", "event": "cancelled", "seconds": 30, "left": 29}]


def test_extension_errors_unknown_task_bad_answer_and_the_2025_only_methods(journal):
    async def scenario():
        async with extension_client(demo_command(journal)) as client:
            created = await client.call("research", {"topic": TOPIC, "ambiguous": True})
            waiting = await client.until(created["taskId"], "input_required")
            (key,) = waiting["inputRequests"]
            return (
                await refused(client.request("tasks/get", taskId="no-such-task")),
                await refused(client.request("tasks/update", taskId="no-such-task",
                                             inputResponses={})),
                await refused(client.request("tasks/cancel", taskId="no-such-task")),
                await refused(client.request("tasks/update", taskId=created["taskId"],
                                             inputResponses={key: {"action": "maybe"}})),
                await refused(client.request("tasks/result", taskId=created["taskId"])),
                await refused(client.request("tasks/list")),
            )

    get, update, cancel, bad, result, listed = run(scenario())
    for error in (get, update, cancel):
        assert error.code == -32602 and "Task not found" in error.message
    assert bad.code == -32602 and "is not an ElicitResult" in bad.message
    assert result.code == listed.code == -32601  # removed by the extension


def test_a_client_without_the_extension_is_refused_research_and_gets_countdown_inline(journal):
    async def scenario():
        async with extension_client(demo_command(journal), tasks=False) as client:
            return (await refused(client.call("research", {"topic": TOPIC})),
                    await refused(client.request("tasks/get", taskId="any")),
                    await client.call("countdown", {"seconds": 0}))

    research, get, countdown = run(scenario())
    required = {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
    assert research.code == -32021 and research.data == required
    assert "runs only as a task" in research.message
    assert get.code == -32021 and get.data == required
    assert text(countdown) == "Counted down from 0 s: done."
    assert countdown["resultType"] == "complete"


# -- streamable HTTP -----------------------------------------------------------------------------


def test_both_shapes_over_streamable_http(journal, tmp_path):
    async def scenario(url):
        async with legacy_client(url, historical) as client:
            created = await client.call_as_task("research", {"topic": TOPIC, "ambiguous": True})
            legacy = await client.request("tasks/result", {"taskId": created["task"]["taskId"]})
            statuses = client.statuses
        async with extension_client(url) as client:
            created = await client.call("research", {"topic": TOPIC, "ambiguous": True})
            waiting = await client.until(created["taskId"], "input_required")
            (key,) = waiting["inputRequests"]
            await client.request("tasks/update", taskId=created["taskId"], inputResponses={
                key: {"action": "accept", "content": {"interpretation": "technical"}}})
            extension = await client.until(created["taskId"], "completed")
        return legacy, statuses, extension

    command = [*demo_command(journal), "--http"]
    with served(command, tmp_path / "server.log") as url:
        legacy, statuses, extension = run(scenario(url))
    assert text(legacy) == clarified("accept", {"interpretation": "historical"})
    assert statuses[-1]["status"] == "completed"  # on the session's GET stream
    assert text(extension["result"]) == clarified("accept", {"interpretation": "technical"})
    assert [e["content"] for e in journal.entries()] == [{"interpretation": "historical"},
                                                        {"interpretation": "technical"}]


# -- helpers ---------------------------------------------------------------------------------------


async def refused(request) -> MCPError:
    """The JSON-RPC error a request is answered with."""
    with pytest.raises(MCPError) as caught:
        await request
    return caught.value


async def entries(journal: Journal, timeout: float = 10) -> list[dict]:
    """The journal, once something is in it: a cancelled tool writes a moment after the cancel
    is answered (and before the client leaves, which stops a stdio server)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not journal.entries() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    return journal.entries()
