"""The hooks other MCP clients call (``nb_elicit.elicitation_callback``, ``elicitation_handler``),
in-process: the SDK's and FastMCP's real clients against the real demo server, a scripted person
answering. The real-kernel proofs are in test_hooks_kernel.py."""

import asyncio
import json
import sys

import fastmcp
import mcp_types as types
import pytest
from fastmcp.client.transports import StdioTransport
from helpers.servers import demo_command, drive, stdio_params
from mcp import Client

import nb_elicit
from nb_elicit._core.frameworks import UNKNOWN, blocking_call
from nb_elicit._runtime.state import kernel_state

NESTED = {"type": "object", "properties": {"address": {"type": "object", "properties": {}}}}


def sdk_target(journal):
    return stdio_params(demo_command(journal))


def fastmcp_target(journal, tmp_path):
    command, *args = demo_command(journal)
    return StdioTransport(command=command, args=args, log_file=tmp_path / "demo.log")


def test_the_synchronous_call_nearest_the_cell_is_named():
    stack = [("threading", "join"), ("google.adk.runners", "run"), ("__main__", "<module>")]
    assert blocking_call(stack).instead == "async for event in runner.run_async(...)"
    nested = [("asyncio.runners", "run"), ("pydantic_ai.agent", "run_sync"), ("x", "f")]
    assert blocking_call(nested).sync == "agent.run_sync(...)"  # (the outermost known one)
    assert blocking_call([("pydantic_aix", "run_sync"), ("threading", "join")]) is UNKNOWN


def test_what_is_no_elicitation_is_an_error_or_a_cancel_never_an_exception(capsys):
    async def main():
        return (await nb_elicit.elicitation_callback(None, object()),
                await nb_elicit.elicitation_handler("hi", None, 42, None))

    error, cancel = asyncio.run(main())
    assert isinstance(error, types.ErrorData) and error.code == types.INVALID_PARAMS
    assert isinstance(cancel, types.ElicitResult) and cancel.action == "cancel"
    printed = capsys.readouterr().err
    assert "sent a request nb_elicit cannot show, so it answered with an error" in printed
    assert "sent a request nb_elicit cannot show, so it answered cancel" in printed
    assert [e.answered_by for e in kernel_state().history.entries] == ["refused", "refused"]


def test_a_form_it_cannot_show_is_an_error_for_the_sdk_and_cancel_for_fastmcp(journal, tmp_path):
    async def scenario(person):
        arguments = {"message": "Where do you live?", "requested_schema": NESTED}
        async with Client(sdk_target(journal), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            sdk = json.loads((await client.call_tool("custom_form", arguments)).content[0].text)
        async with fastmcp.Client(fastmcp_target(journal, tmp_path), mode="legacy",
                                  elicitation_handler=nb_elicit.elicitation_handler) as client:
            fast = json.loads((await client.call_tool("custom_form", arguments)).content[0].text)
        return sdk, fast

    sdk, fast = drive(scenario)
    assert sdk["error"]["code"] == types.INVALID_PARAMS
    assert fast == {"action": "cancel", "content": None}
    assert [e.answered_by for e in kernel_state().history.entries] == ["refused", "refused"]


def test_labels_tell_servers_apart_for_policies_mute_and_history(journal):
    nb_elicit.respond("decline", connection="github")
    quiet = nb_elicit.elicitation_callback.named("quiet")
    quiet.mute()

    async def scenario(person):
        person.will("accept", {"name": "octocat"})
        texts = []
        for hook in (nb_elicit.elicitation_callback.named("github"), quiet,
                     nb_elicit.elicitation_callback):
            async with Client(sdk_target(journal), mode="legacy",
                              elicitation_callback=hook) as client:
                texts.append((await client.call_tool("github_username")).content[0].text)
        return texts, len(person.seen)

    try:
        texts, forms = drive(scenario)
    finally:
        quiet.unmute()
        nb_elicit.respond("ask", connection="github")
    assert texts == ["No username: you chose decline.", "No username: you chose cancel.",
                     "Hello, @octocat!"]
    assert forms == 1  # (only the unlabelled one reached the person)
    assert [(e.server, e.action, e.answered_by) for e in kernel_state().history.entries] == [
        ("github", "decline", "policy"), ("quiet", "cancel", "muted"),
        ('"nb-elicit-demo" (named by the server)', "accept", "person")]
    assert repr(quiet) == "<nb_elicit.elicitation_callback.named('quiet')>"


def test_a_label_is_a_non_empty_string():
    with pytest.raises(ValueError, match="non-empty string"):
        nb_elicit.elicitation_handler.named("  ")
    with pytest.raises(ValueError, match=r"needs a labelled hook"):
        nb_elicit.elicitation_handler.mute()
    assert sys.modules["nb_elicit._runtime.hooks"].guard_for("x") is \
        nb_elicit.elicitation_handler.named("x").guard


@pytest.mark.skipif(sys.version_info < (3, 11), reason="pydantic-ai needs Python >= 3.11")
def test_show_app_shows_a_pydantic_ai_apps_record_and_routes_its_calls_through_the_toolset(
        journal, tmp_path, monkeypatch, views):
    """The demo's clock, called by a pydantic-ai agent (TestModel): its ToolReturnPart's
    mcp_app record is shown through the app host, and the app's own tools/call (clock_now) and
    resources/read go through the agent's MCPToolset to the server. (No kernel here: the check
    for a widget frontend is told yes.)"""
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ToolReturnPart
    from pydantic_ai.models.test import TestModel

    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)

    async def scenario(person):
        toolset = MCPToolset(fastmcp.Client(fastmcp_target(journal, tmp_path), mode="legacy"))
        agent = Agent(TestModel(call_tools=["clock"]), toolsets=[toolset])
        async with agent:
            run = await agent.run("What time is it?")
            (part,) = [p for m in run.new_messages() for p in m.parts
                       if isinstance(p, ToolReturnPart)]
            shown = await nb_elicit.show_app(part, toolset, server="clock-agent")
            called = await shown.answer("tools/call", {"name": "clock_now", "arguments": {}})
            read = await shown.answer("resources/read", {"uri": part.metadata["mcp_app"][
                "resource_uri"]})
            with pytest.raises(Exception, match="has no tool 'nope'"):
                await shown.answer("tools/call", {"name": "nope", "arguments": {}})
        return shown, called, read

    shown, called, read = drive(scenario)
    assert shown.frame.tool["name"] == "clock" and "<html" in shown.resource.html.lower()
    assert "UTC on the server" in shown.frame.tool_result["content"][0]["text"]
    assert "UTC" in called["content"][0]["text"]
    assert read["contents"][0]["uri"].startswith("ui://")
    assert [e["tool"] for e in journal.entries()] == ["clock_now"]  # (through the toolset)
    (view,) = views
    assert view.server == "clock-agent" and view.what == "clock"


def test_show_app_refuses_what_is_no_app_record_in_one_line():
    with pytest.raises(ValueError, match="ToolReturnPart"):
        asyncio.run(nb_elicit.show_app(42, None))
    with pytest.raises(ValueError, match="no ui:// resource"):
        asyncio.run(nb_elicit.show_app({"resource_uri": "https://x", "tool": "t"}, None))


def test_claude_hooks_answer_the_clis_elicitation_hook_input_through_the_form():
    """The hook input the Claude CLI sends (its documented shape), answered by the person
    through the form, and a form that cannot be shown answered cancel."""
    (matcher,) = nb_elicit.claude_hooks(timeout=600)["Elicitation"]
    (hook,) = matcher.hooks
    assert matcher.matcher is None and matcher.timeout == 600
    hook_input = {"hook_event_name": "Elicitation", "mcp_server_name": "github",
                  "message": "Which repository?", "mode": "form", "elicitation_id": "e1",
                  "requested_schema": {"type": "object", "properties": {
                      "repo": {"type": "string"}}, "required": ["repo"]}}

    async def scenario(person):
        person.will("accept", {"repo": "nb_elicit"})
        accepted = await hook(hook_input, None, None)
        refused = await hook({**hook_input, "requested_schema": NESTED}, None, None)
        return accepted, refused

    accepted, refused = drive(scenario)
    assert accepted == {"hookSpecificOutput": {"hookEventName": "Elicitation",
                                               "action": "accept",
                                               "content": {"repo": "nb_elicit"}}}
    assert refused == {"hookSpecificOutput": {"hookEventName": "Elicitation",
                                              "action": "cancel"}}
    assert [(e.server, e.answered_by) for e in kernel_state().history.entries] == [
        ("github", "person"), ("github", "refused")]


def test_answer_interrupt_returns_langgraphs_resume_value():
    interrupt = {"type": "mcp_elicitation", "tool_name": "book", "requests": [
        {"key": "party", "message": "How many?", "mode": "form", "requested_schema": {
            "type": "object", "properties": {"people": {"type": "integer"}},
            "required": ["people"]}},
        {"key": "ok", "message": "Confirm?", "mode": "form", "requested_schema": {
            "type": "object", "properties": {"yes": {"type": "boolean"}}}}]}

    async def scenario(person):
        person.will("accept", {"people": 3}).will("decline")
        return await nb_elicit.answer_interrupt(interrupt)

    assert drive(scenario) == {"responses": {"party": {"action": "accept",
                                                       "content": {"people": 3}},
                                             "ok": {"action": "decline"}}}
    assert {e.server for e in kernel_state().history.entries} == {'"book" (named by the server)'}
    with pytest.raises(ValueError, match="mcp_elicitation"):
        asyncio.run(nb_elicit.answer_interrupt({"type": "other"}))


def test_the_hooks_import_no_framework():
    import subprocess

    code = ("import sys, nb_elicit\n"
            "for name in ('elicitation_callback', 'elicitation_handler', 'show_app', "
            "'claude_hooks', 'answer_interrupt'):\n"
            "    getattr(nb_elicit, name)\n"
            "nb_elicit.elicitation_handler.named('x')\nnb_elicit.claude_hooks()\n"
            "frameworks = ('fastmcp', 'pydantic_ai', 'google', 'strands', 'mcp_use', "
            "'langchain', 'langgraph', 'claude_agent_sdk')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in frameworks))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout


def test_show_app_routes_an_adk_shaped_widget_through_the_sdks_client(journal, monkeypatch, views):
    """ADK's UiWidget read by its documented fields (provider, payload: resource_uri, tool,
    tool_args; ADK itself is not installed here, so the widget is a plain object of that
    shape), its app's requests sent through the SDK's own Client."""
    from types import SimpleNamespace

    monkeypatch.setattr("nb_elicit._runtime.kernel_compat.widget_frontend_attached", lambda: True)
    widget = SimpleNamespace(provider="mcp", payload={
        "resource_uri": "ui://nb-elicit-demo/clock.html", "tool": "clock",
        "tool_args": {"label": "Kitchen"}})

    async def scenario(person):
        async with Client(sdk_target(journal), mode="legacy") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            widget.payload["resource_uri"] = listed["clock"].meta["ui"]["resourceUri"]
            shown = await nb_elicit.show_app(widget, client)
            called = await shown.answer("tools/call", {"name": "clock_now", "arguments": {}})
        return shown, called

    shown, called = drive(scenario)
    assert shown.frame.tool_input == {"label": "Kitchen"}
    assert "UTC" in called["content"][0]["text"]
    assert [e["tool"] for e in journal.entries()] == ["clock_now"]
    (view,) = views
    # (the server's own name, from the session: its claim)
    assert view.server == '"nb-elicit-demo" (named by the server)'
    with pytest.raises(ValueError, match="provider is 'a2ui'"):
        asyncio.run(nb_elicit.show_app(SimpleNamespace(provider="a2ui", payload={}), None))


def test_a_secret_typed_into_a_hooks_form_reaches_the_server_and_nothing_else(journal):
    schema = {"type": "object", "properties": {"user": {"type": "string"},
                                               "password": {"type": "string"}},
              "required": ["user", "password"]}

    async def scenario(person):
        person.will("accept", {"user": "ada", "password": "hunter2-secret"})
        async with Client(sdk_target(journal), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            result = await client.call_tool("custom_form", {
                "message": "Sign in to the archive", "requested_schema": schema})
        return json.loads(result.content[0].text), person.seen[0].outcome()

    sent, told = drive(scenario)
    assert sent == {"action": "accept", "content": {"user": "ada", "password": "hunter2-secret"}}
    (entry,) = kernel_state().history.entries
    assert "hunter2" not in entry.sent and "hunter2" not in kernel_state().history.as_text()
    assert entry.content["user"] == "ada"
    assert "hunter2" not in repr(told)  # (what the form leaves in the transcript)
    assert "ada" in repr(told)


def test_a_hooks_answers_are_recorded_and_replayed_by_its_label(journal, tmp_path):
    path = tmp_path / "answers.json"
    hook = nb_elicit.elicitation_handler.named("gh")

    async def once(person, script):
        for action, content in script:
            person.will(action, content)
        async with fastmcp.Client(fastmcp_target(journal, tmp_path), mode="legacy",
                                  elicitation_handler=hook) as client:
            return (await client.call_tool("github_username")).content[0].text, len(person.seen)

    nb_elicit.record(path)
    try:
        recorded = drive(lambda person: once(person, [("accept", {"name": "octocat"})]))
    finally:
        nb_elicit.record(None)
    nb_elicit.replay(path)
    try:
        replayed = drive(lambda person: once(person, []))
    finally:
        nb_elicit.replay(None)
    assert recorded == ("Hello, @octocat!", 1)
    assert replayed == ("Hello, @octocat!", 0)  # (nobody was asked)
    assert [(e.server, e.answered_by) for e in kernel_state().history.entries] == [("gh", "person"),
                                                                     ("gh", "replay")]


def test_url_mode_through_a_hook_shows_the_consent_card(journal):
    async def scenario(person):
        person.will("accept").will("decline")
        async with Client(sdk_target(journal), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            opened = await client.call_tool("sign_in", {"done_after": 0.1})
            declined = await client.call_tool("sign_in", {"done_after": 0.1})
        return opened.content[0].text, declined.content[0].text, person.seen

    opened, declined, seen = drive(scenario)
    assert opened == "Signed in: you finished on the sign-in page."
    assert declined == "Not signed in: you declined to open the page."
    assert all(hasattr(card, "open_button") for card in seen)  # (the URL consent card)
    assert [e["action"] for e in journal.entries()] == ["accept", "decline"]


def test_a_hooks_view_is_titled_in_words_not_by_the_protocols_name(journal, monkeypatch):
    from nb_elicit._core.records.transcript import transcript_bundle
    from nb_elicit._runtime import hooks
    from nb_elicit._ui.call_view import CallView

    views = []

    class Seen(CallView):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            views.append(self)

    monkeypatch.setattr(hooks, "CallView", Seen)

    async def scenario(person):
        person.will("accept", {"user": "ada"})
        async with Client(sdk_target(journal), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback.named("demo")) \
                as client:
            await client.call_tool("custom_form", {
                "message": "Who?", "requested_schema": {
                    "type": "object", "properties": {"user": {"type": "string"}}}})

    drive(scenario)
    (view,) = views
    title = transcript_bundle(view.transcript())["text/plain"].splitlines()[0]
    assert title == "[demo · question]"
    assert kernel_state().history.entries[0].tool == "elicitation"  # (the history's key stays)
