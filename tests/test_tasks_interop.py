"""Tasks against servers that others wrote, answered by a scripted person in the real widgets.

- the official "everything" server (npm), 2025-11-25 experimental tasks: a tool that runs as a
  task and asks inside it (``simulate-research-query``), and a form the server asks to run as a
  task of ours (``trigger-elicitation-request-async``);
- a FastMCP server with the ``io.modelcontextprotocol/tasks`` extension
  (``tests/servers/fastmcp_tasks_server.py``, FastMCP and fastmcp-tasks pinned), over stdio
  and over streamable HTTP.
"""

import asyncio
import json
import os
import re
import socket
import subprocess
import time

import pytest
from helpers.fill import fill
from helpers.interop import everything_command, fastmcp_tasks_command
from helpers.servers import Journal, demo_command, drive, free_port, served

import nb_elicit
from nb_elicit._runtime.state import kernel_state
from nb_elicit._ui.form import ElicitationForm
from nb_elicit._ui.task_card import TaskCard

pytestmark = [pytest.mark.timeout(600), pytest.mark.once]


@pytest.fixture(scope="module", params=["stdio", "http"])
def everything(request, tmp_path_factory):
    """How to connect to the everything server: over stdio, or over streamable HTTP."""
    command = everything_command()
    if request.param == "stdio":
        yield lambda name: nb_elicit.connect(name, command)
        return
    port = free_port()
    log = tmp_path_factory.mktemp("everything") / "server.log"
    with open(log, "w") as out:
        process = subprocess.Popen([*command[:2], "streamableHttp"], stdout=out,
                                   stderr=subprocess.STDOUT, env={**os.environ, "PORT": str(port)})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, log.read_text()
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        yield lambda name: nb_elicit.connect(name, url=url, auth="off")
    finally:
        process.kill()
        process.wait(10)


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch):
    """Each test keeps its running tasks in a file of its own."""
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


async def task_of(call, timeout: float = 10, status: str | None = None):
    """The task a call runs as, once the server said so (and its first state is known), or,
    given a ``status``, once a poll has seen the task in it."""
    for _ in range(int(timeout / 0.01)):
        task = call.task
        if task is not None and task.state is not None and status in (None, task.status):
            return task
        await asyncio.sleep(0.01)
    seen = f" in status {status!r}" if status else ""
    raise AssertionError(f"the call ran as no task{seen} within {timeout} s")


async def marked(marker, timeout: float = 30) -> None:
    """Wait (up to ``timeout``) for the server's mark that its task was cancelled."""
    for _ in range(int(timeout / 0.02)):
        if marker.exists():
            return
        await asyncio.sleep(0.02)


def raw_result(text: str) -> dict:
    match = re.search(r"Raw result: (\{.*\})\s*$", text, re.DOTALL)
    assert match, text
    return json.loads(match.group(1))


def test_everything_research_query_asks_inside_its_task_card_and_reports_the_answer(everything):
    async def scenario(person):
        conn = await everything("everything")
        call = conn.start_tool("simulate-research-query", {"topic": "python", "ambiguous": True})
        form = await person.wait_for_form(unless=call)
        # The person answers once the card has seen the task wait for them (a poll of the
        # task's status); an answer given at once can land before any poll sees it.
        await task_of(call, timeout=30, status="input_required")
        fill(form, {"interpretation": "snake"})
        form.submit_button.click()
        card = call._view.task_card
        result = await call
        return result, form, card, call.task

    result, form, card, run = drive(scenario, timeout=90)
    assert isinstance(form, ElicitationForm)
    assert isinstance(card, TaskCard)
    # the form was shown inside the task's card
    assert form in card.forms.children[0].children
    assert "Python snake species" in [o.label for o in form.controls["interpretation"].field.options]
    assert not result.is_error
    assert "**Clarification**: snake" in result.text
    lines = card.transcript_lines()
    statuses = [line.split(" ")[0] for line in lines]
    assert "Needs your answer" in " ".join(lines), lines
    assert "Completed after" in " ".join(statuses + lines), lines
    assert run.status == "completed"
    # ended: no longer in the file of running tasks
    assert kernel_state().tasks.store.entries() == []


def test_everything_async_elicitation_runs_our_form_as_a_task_and_gets_what_was_typed(everything):
    async def scenario(person):
        person.will("accept", {"name": "Grace Hopper"})
        conn = await everything("everything")
        tools = [t["name"] for t in await conn.list_tools()]
        result = await conn.call_tool("trigger-elicitation-request-async")
        return tools, result, person.seen

    tools, result, seen = drive(scenario, timeout=90)
    assert "trigger-elicitation-request-async" in tools  # listed: we declared form tasks
    assert len(seen) == 1
    assert "[COMPLETED]" in result.text, result.text
    received = raw_result(result.text)
    assert received["action"] == "accept"
    assert received["content"]["name"] == "Grace Hopper"
    assert received["_meta"]["io.modelcontextprotocol/related-task"]["taskId"].startswith(
        "nb-elicit-")


def test_everything_research_query_cancel_ends_the_task_on_the_server(everything):
    async def scenario(person):
        conn = await everything("everything")
        call = conn.start_tool("simulate-research-query", {"topic": "tides"})
        run = await task_of(call)
        run.card.cancel_button.click()
        with pytest.raises(nb_elicit.NbElicitError) as ended:
            await call
        return run, str(ended.value)

    run, said = drive(scenario, timeout=90)
    assert run.status == "cancelled", said
    assert "cancelled" in said


# -- FastMCP with io.modelcontextprotocol/tasks, over stdio and streamable HTTP ------------------


@pytest.fixture(scope="module")
def fastmcp_tasks() -> list[str]:
    return fastmcp_tasks_command()


@pytest.fixture(params=["stdio", "http"])
def tasks_server(request, fastmcp_tasks, tmp_path, monkeypatch):
    """How to connect to the FastMCP tasks server: ``connect(name)`` over stdio or HTTP."""
    marker = tmp_path / "cancelled.txt"
    monkeypatch.setenv("NB_ELICIT_TASKS_MARKER", str(marker))
    if request.param == "stdio":
        yield (lambda name: nb_elicit.connect(name, fastmcp_tasks,
                                              env={"NB_ELICIT_TASKS_MARKER": str(marker)})), marker
        return
    with served([*fastmcp_tasks, "--http"], tmp_path / "server.log") as url:
        yield (lambda name: nb_elicit.connect(name, url=url, auth="off")), marker


def test_fastmcp_plain_task_returns_its_result_on_a_card(tasks_server):
    connect, _ = tasks_server

    async def scenario(person):
        conn = await connect("ft")
        call = conn.start_tool("slow_sum", {"a": 2, "b": 40, "seconds": 0.4})
        result = await call
        return result, call._view.task_card, call.task

    result, card, run = drive(scenario, timeout=120)
    assert isinstance(card, TaskCard) and card.ended
    assert result.text == "2 + 40 = 42"
    assert run.status == "completed"
    assert run.remote.shape == "io.modelcontextprotocol/tasks"


def test_fastmcp_task_that_asks_mid_run_receives_the_typed_answer(tasks_server):
    connect, _ = tasks_server

    async def scenario(person):
        person.will("accept", {"answer": "it bites"})
        conn = await connect("ft")
        call = conn.start_tool("ask_mid_run", {"topic": "otters"})
        form = await person.wait_for_form(unless=call)
        result = await call
        return result, form, call._view.task_card

    result, form, card = drive(scenario, timeout=120)
    assert form in card.forms.children[0].children  # asked inside the card
    received = json.loads(result.text)
    assert received == {"topic": "otters", "action": "accept", "content": {"answer": "it bites"}}
    assert "Needs your answer" in " ".join(card.transcript_lines())


def test_fastmcp_cancel_ends_a_task_that_runs_until_cancelled(tasks_server):
    connect, marker = tasks_server

    async def scenario(person):
        conn = await connect("ft")
        call = conn.start_tool("run_until_cancelled")
        run = await task_of(call)
        await asyncio.sleep(0.5)
        run.card.cancel_button.click()
        with pytest.raises(nb_elicit.NbElicitError) as ended:
            await call
        await marked(marker)  # the server writes its mark as the task ends
        return run, str(ended.value)

    run, said = drive(scenario, timeout=120)
    assert run.status == "cancelled", said
    assert marker.exists() and "cancelled after" in marker.read_text()


def test_fastmcp_interrupt_cancels_the_task_on_the_server(tasks_server):
    connect, marker = tasks_server

    async def scenario(person):
        conn = await connect("ft")
        call = conn.start_tool("run_until_cancelled")
        run = await task_of(call)
        call.cancel()  # what Kernel > Interrupt does to the cell's call
        with pytest.raises(asyncio.CancelledError):
            await call
        await marked(marker)
        return run

    run = drive(scenario, timeout=120)
    assert marker.exists() and "cancelled after" in marker.read_text()
    assert run.ended and not run.detached
    assert kernel_state().tasks.store.entries() == []


def test_fastmcp_detach_then_attach_again_gets_the_result(fastmcp_tasks, tmp_path):
    with served([*fastmcp_tasks, "--http"], tmp_path / "server.log") as url:
        async def scenario(person):
            conn = await nb_elicit.connect("ft", url=url, auth="off")
            call = conn.start_tool("slow_sum", {"a": 1, "b": 2, "seconds": 2})
            run = await task_of(call)
            run.card.detach_button.click()
            with pytest.raises(nb_elicit.NbElicitError) as detached:
                await call
            saved = kernel_state().tasks.saved("ft")
            result = await conn.attach_task(run.task_id)
            return run, str(detached.value), saved, result

        run, said, saved, result = drive(scenario, timeout=120)
    assert run.detached
    assert f"%mcp task ft {run.task_id}" in said
    assert [(s.connection, s.task_id, s.tool) for s in saved] == [("ft", run.task_id, "slow_sum")]
    assert result.text == "1 + 2 = 3"
    assert kernel_state().tasks.store.entries() == []


def test_fastmcp_attach_to_an_unknown_task_is_one_line(fastmcp_tasks, tmp_path):
    with served([*fastmcp_tasks, "--http"], tmp_path / "server.log") as url:
        async def scenario(person):
            conn = await nb_elicit.connect("ft", url=url, auth="off")
            await conn.list_tools()
            with pytest.raises(nb_elicit.NbElicitError) as failed:
                await conn.attach_task("no-such-task", tool="slow_sum")
            return str(failed.value)

        said = drive(scenario, timeout=120)
    assert "no-such-task" in said
    assert "\n" not in said


def test_fastmcp_a_task_that_never_ends_is_cut_by_the_connection_timeout(fastmcp_tasks, tmp_path,
                                                                          monkeypatch):
    marker = tmp_path / "cancelled.txt"

    async def scenario(person):
        conn = await nb_elicit.connect("ft", fastmcp_tasks, timeout=2,
                                       env={"NB_ELICIT_TASKS_MARKER": str(marker)})
        # FastMCP starts its task worker on the first task, which can take longer than 2 s
        # on a slow machine: a task that is only created after the timeout cut the request
        # that asked for it would never be known here, and so never cancelled.
        conn.timeout = 60
        await conn.call_tool("slow_sum", {"a": 1, "b": 2, "seconds": 0})
        conn.timeout = 2
        call = conn.start_tool("run_until_cancelled")
        with pytest.raises(nb_elicit.NbElicitError) as cut:
            await call
        await marked(marker)
        return str(cut.value), call._view.task_card

    said, card = drive(scenario, timeout=120)
    assert "took longer than the connection's timeout of 2 s" in said
    assert marker.exists()  # the task was cancelled on the server, not left running
    assert card.ended


# -- the demo server: a tool with optional task support -------------------------------------------


def test_demo_countdown_runs_as_a_task_and_task_false_runs_it_inline(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        tasked = conn.start_tool("countdown", {"seconds": 1})
        first = await tasked
        inline = conn.start_tool("countdown", {"seconds": 1}, task=False)
        second = await inline
        return first, tasked, second, inline

    first, tasked, second, inline = drive(scenario, timeout=60)
    assert first.text == second.text == "Counted down from 1 s: done."
    assert tasked._view.task_card is not None and tasked.task.status == "completed"
    assert inline._view.task_card is None and inline.task is None
