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
import re

import pytest
from helpers.interop import everything_command
from helpers.servers import drive

import nb_elicit
from nb_elicit._runtime.tasks import TASKS
from nb_elicit._ui.form import ElicitationForm
from nb_elicit._ui.task_card import TaskCard

pytestmark = [pytest.mark.timeout(600), pytest.mark.once]


@pytest.fixture(scope="module")
def everything() -> list[str]:
    return everything_command()


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch):
    """Each test keeps its running tasks in a file of its own."""
    monkeypatch.setattr(TASKS.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


def raw_result(text: str) -> dict:
    match = re.search(r"Raw result: (\{.*\})\s*$", text, re.DOTALL)
    assert match, text
    return json.loads(match.group(1))


def test_everything_research_query_asks_inside_its_task_card_and_reports_the_answer(everything):
    async def scenario(person):
        person.will("accept", {"interpretation": "snake"})
        conn = await nb_elicit.connect("everything", everything)
        call = conn.start_tool("simulate-research-query", {"topic": "python", "ambiguous": True})
        form = await person.wait_for_form(unless=call)
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
    assert "input_required" in " ".join(lines)
    assert "completed" in " ".join(statuses + lines)
    assert run.status == "completed"
    assert TASKS.store.entries() == []  # ended: no longer in the file of running tasks


def test_everything_async_elicitation_runs_our_form_as_a_task_and_gets_what_was_typed(everything):
    async def scenario(person):
        person.will("accept", {"name": "Grace Hopper"})
        conn = await nb_elicit.connect("everything", everything)
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
        conn = await nb_elicit.connect("everything", everything)
        call = conn.start_tool("simulate-research-query", {"topic": "tides"})
        for _ in range(400):
            if call.task is not None:
                break
            await asyncio.sleep(0.01)
        run = call.task
        run.card.cancel_button.click()
        with pytest.raises(nb_elicit.NbElicitError) as ended:
            await call
        return run, str(ended.value)

    run, said = drive(scenario, timeout=90)
    assert run.status == "cancelled", said
    assert "cancelled" in said
