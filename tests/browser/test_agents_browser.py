"""A pydantic-ai agent's form in a real JupyterLab: the agent (driven by TestModel: no model, no
key) runs over ``MCPToolset`` with ``nb_elicit.elicitation_handler``; its session is opened in one
cell and the agent runs in the next, where the form must appear; a person types into it in
Chromium, and the demo server's journal shows what arrived."""

from __future__ import annotations

import pytest
from helpers.lab import REPO
from helpers.page import type_text

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

WAIT = 60_000
CONTACT_MESSAGE = "Please provide your contact information"
ADA = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}


def agent_cell(lab) -> str:
    log = lab.artifacts / "agent-demo.log"
    return (
        "import pathlib, fastmcp\nfrom fastmcp.client.transports import StdioTransport\n"
        "from pydantic_ai import Agent\nfrom pydantic_ai.mcp import MCPToolset\n"
        "from pydantic_ai.models.test import TestModel\n"
        "transport = StdioTransport(command=sys.executable, args=['-m', 'nb_elicit.demo', "
        f"'--journal', {str(lab.journal_path)!r}], cwd={str(REPO)!r}, "
        f"log_file=pathlib.Path({str(log)!r}))\n"
        "toolset = MCPToolset(fastmcp.Client(transport, mode='legacy', "
        "elicitation_handler=nb_elicit.elicitation_handler.named('agent-demo')))\n"
        "agent = Agent(TestModel(call_tools=['contact_info']), toolsets=[toolset])\n"
        "await agent.__aenter__()\nprint('agent ready')")


def test_a_pydantic_ai_agents_form_is_answered_in_jupyterlab(lab):
    lab.open(agent_cell(lab),
             "result = await agent.run('Who are you?')\nprint(result.output)")
    lab.run(2)
    expect(lab.cell(2)).to_contain_text("agent ready", timeout=WAIT)
    lab.run(3, wait=False)
    form = lab.form(3)
    expect(form).to_contain_text(CONTACT_MESSAGE)
    expect(form).to_contain_text("agent-demo")
    expect(lab.cell(2).locator(".nb-elicit-form")).to_have_count(0)
    type_text(form, "name", "Ada Lovelace")
    type_text(form, "email", "ada@example.com")
    type_text(form, "age", "36")
    lab.screenshot("agent-form-filled")
    lab.settle()
    form.locator(".nb-elicit-submit").click()
    assert lab.wait_journal(1) == [{"tool": "contact_info", "message": CONTACT_MESSAGE,
                                   "action": "accept", "content": ADA}]
    lab.wait_done(3)
    expect(lab.cell(3)).to_contain_text('"content":{"name":"Ada Lovelace"', timeout=WAIT)
    transcript = lab.cell(3).locator(".nb-elicit-transcript")
    expect(transcript).to_contain_text("Submitted.", timeout=WAIT)
    expect(lab.cell(3).locator(".nb-elicit-form")).to_have_count(0)
