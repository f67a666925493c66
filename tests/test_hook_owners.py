"""Who owns a hook's form, and whose name selects what: the forms of other clients' sessions
(``elicitation_callback``, ``claude_hooks``) are never ended by a connection of the same name,
nb_elicit's own end of them is ``cancel`` (never a cancellation raised into the framework's
session), a server's claimed name selects nothing the person set for a name, and a hook on a
held kernel thread still obeys mute, the respond policy and replay. In-process: the SDK's real
client against real servers, a scripted person answering."""

import asyncio
import json
import threading
import types as pytypes

import mcp_types as types
import pytest
from helpers.fill import fill
from helpers.servers import demo_command, drive, hostile_command, stdio_params
from mcp import Client

import nb_elicit
from nb_elicit._core.records.recording import schema_hash
from nb_elicit._runtime import hooks
from nb_elicit._runtime.state import kernel_state

KEY_FORM = {"type": "object", "properties": {"api_key": {"type": "string"}},
            "required": ["api_key"]}


def claiming(name: str):
    """The hostile test server, calling itself ``name``."""
    return stdio_params(hostile_command(), HOSTILE_NAME=name)


def answer(form, action: str, content: dict | None = None) -> None:
    if action == "accept":
        fill(form, content or {})
        form.submit_button.click()
    else:
        form.decline_button.click()


# -- 1. who owns a hook's form --------------------------------------------------------------

def test_closing_a_connection_leaves_the_form_of_a_hook_with_the_same_label_waiting(journal):
    """The person's own connection ``demo`` closes; an agent session whose hook is labelled
    ``demo`` keeps its form, and its call ends with the person's answer."""
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        hook = nb_elicit.elicitation_callback.named("demo")
        async with Client(stdio_params(demo_command(journal)), mode="legacy",
                          elicitation_callback=hook) as client:
            call = asyncio.ensure_future(client.call_tool("github_username"))
            form = await person.wait_for_form(unless=call)
            await conn.close()
            await asyncio.sleep(0.3)
            still_waiting = not form.answer.done()
            answer(form, "accept", {"name": "octocat"})
            first = (await call).content[0].text
            person.will("accept", {"name": "ada"})
            second = (await client.call_tool("github_username")).content[0].text
        return still_waiting, first, second

    still_waiting, first, second = drive(scenario)
    assert still_waiting
    assert (first, second) == ("Hello, @octocat!", "Hello, @ada!")


def test_unloading_answers_a_hooks_form_cancel_and_its_session_goes_on(journal):
    """``%unload_ext`` closes every form; a hook's is answered cancel, so the framework's
    session lives on and its next call works (a cancellation raised into the SDK's handler
    would have ended the session: "Connection closed")."""
    from nb_elicit._magics import unload

    async def scenario(person):
        async with Client(stdio_params(demo_command(journal)), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            call = asyncio.ensure_future(client.call_tool("github_username"))
            form = await person.wait_for_form(unless=call)
            unload(pytypes.SimpleNamespace(input_transformers_post=[]))
            first = (await asyncio.wait_for(call, 30)).content[0].text
            person.will("accept", {"name": "ada"})
            second = (await client.call_tool("github_username")).content[0].text
        return form, first, second

    form, first, second = drive(scenario)
    assert (first, second) == ("No username: you chose cancel.", "Hello, @ada!")
    assert form.answered_by == "closed" and "unloaded" in form.status.value
    assert [(e.action, e.answered_by) for e in kernel_state().history.entries] == [
        ("cancel", "closed"), ("accept", "person")]


def test_pending_forms_belong_to_an_owner_object_not_a_name():
    class Form:
        def __init__(self):
            self.closed = []

        def dismiss(self, answered_by, status=None):
            self.closed.append((answered_by, status))
            return True

    mine, theirs, form_a, form_b = object(), object(), Form(), Form()
    pending = kernel_state().pending
    with pending.track(form_a, mine, None), pending.track(form_b, theirs, None):
        assert pending.close("closed.", mine) == 1
    assert form_a.closed == [("closed", "closed.")] and form_b.closed == []


# -- 2. a name a server gives itself is a claim -----------------------------------------------

def test_a_server_claiming_a_connections_name_gets_nothing_set_for_that_name(tmp_path):
    """A respond policy with a key set for the connection ``github``, and the label ``github``
    muted: a third-party server that calls itself ``github``, reached through the unlabelled
    hook, gets neither; the person sees its form, which shows the name as the server's."""
    nb_elicit.respond("accept", {"api_key": "sk-live-123"}, connection="github")
    muted = nb_elicit.elicitation_callback.named("github")
    muted.mute()

    async def scenario(person):
        person.will("decline")
        async with Client(claiming("github"), mode="legacy",
                          elicitation_callback=nb_elicit.elicitation_callback) as client:
            got = await client.call_tool("ask", {"schema_json": json.dumps(KEY_FORM),
                                                 "message": "Your key?"})
        return json.loads(got.content[0].text), person.seen

    try:
        got, seen = drive(scenario)
    finally:
        muted.unmute()
    assert got == {"result": {"action": "decline"}}
    (form,) = seen
    assert "sk-live-123" not in json.dumps(got)
    assert "&quot;github&quot; (named by the server)" in form.message_line.value
    assert [(e.server, e.action, e.answered_by) for e in kernel_state().history.entries] == [
        ('"github" (named by the server)', "decline", "person")]


class Session:
    """Stands for a framework's MCP session (the SDK's ``ClientSession``)."""

    __eq__ = lambda self, other: True  # noqa: E731 - (a session need not be hashable)


def test_a_claimed_name_is_shown_escaped_and_each_session_has_its_own_guard():
    one, two = Session(), Session()
    first = hooks.Asker.unlabelled(one, "git\u202ebuh", "mcp")
    assert first.server == '"git\\u202ebuh" (named by the server)' and not first.named
    assert hooks.Asker.unlabelled(one, "git\u202ebuh", "mcp").guard is first.guard
    assert hooks.Asker.unlabelled(two, "git\u202ebuh", "mcp").guard is not first.guard
    held = len(kernel_state().guards.by_session)
    del one, two
    assert len(kernel_state().guards.by_session) == held - 2  # (forgotten with their sessions)
    assert "git\u202ebuh" not in hooks.labels()  # (a claim never becomes a label)
    labelled = hooks.Asker.labelled("github")
    assert labelled.named and labelled.guard is nb_elicit.elicitation_callback.named(
        "github").guard


def test_answer_interrupt_shows_the_tool_name_as_a_claim_that_selects_no_policy():
    nb_elicit.respond("accept", {"people": 9}, connection="book")
    interrupt = {"type": "mcp_elicitation", "tool_name": "book", "requests": [
        {"key": "party", "message": "How many?", "mode": "form", "requested_schema": {
            "type": "object", "properties": {"people": {"type": "integer"}}}}]}

    async def scenario(person):
        person.will("decline")
        return await nb_elicit.answer_interrupt(interrupt)

    try:
        assert drive(scenario) == {"responses": {"party": {"action": "decline"}}}
    finally:
        nb_elicit.respond("ask", connection="book")


# -- 6. a held kernel thread: the rules still answer, and a burst is one line ----------------

FORM = {"message": "Your name?", "requestedSchema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}


@pytest.fixture
def held_kernel(monkeypatch):
    """The kernel's loop exists but is held (it never runs), and the hook runs on the main
    thread: what a synchronous agent call in a cell looks like to the hook."""
    loop = asyncio.new_event_loop()
    monkeypatch.setattr(hooks, "kernel_loop", lambda: loop)
    yield
    loop.close()


def _blocked_calls(hook, count: int = 1):
    async def main():
        params = types.ElicitRequestFormParams(message=FORM["message"],
                                               requested_schema=FORM["requestedSchema"])
        return [await hook(None, params) for _ in range(count)]

    assert threading.current_thread() is threading.main_thread()
    return asyncio.run(main())


def test_a_held_kernel_still_answers_by_the_respond_policy_mute_and_replay(held_kernel,
                                                                           tmp_path):
    nb_elicit.respond("accept", {"name": "Ada"}, connection="by-policy")
    muted = nb_elicit.elicitation_callback.named("muted")
    muted.mute()
    try:
        (by_policy,) = _blocked_calls(nb_elicit.elicitation_callback.named("by-policy"))
        (by_mute,) = _blocked_calls(muted)
    finally:
        muted.unmute()
        nb_elicit.respond("ask", connection="by-policy")
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"format": "nb_elicit answers", "version": 1, "answers": [{
        "server": "replayed", "tool": "elicitation",
        "schema": schema_hash(FORM["requestedSchema"]),
        "message": FORM["message"], "action": "accept", "content": {"name": "Grace"}}]}))
    nb_elicit.replay(path)
    try:
        (by_replay,) = _blocked_calls(nb_elicit.elicitation_callback.named("replayed"))
    finally:
        nb_elicit.replay(None)
    assert (by_policy.action, by_policy.content) == ("accept", {"name": "Ada"})
    assert by_mute.action == "cancel"
    assert (by_replay.action, by_replay.content) == ("accept", {"name": "Grace"})
    assert [(e.server, e.answered_by) for e in kernel_state().history.entries] == [
        ("by-policy", "policy"), ("muted", "muted"), ("replayed", "replay")]


def test_a_burst_on_a_held_kernel_is_one_line_and_every_request_is_in_the_history(
        held_kernel, capsys):
    answers = _blocked_calls(nb_elicit.elicitation_callback.named("burst"), count=5)
    assert [a.action for a in answers] == ["cancel"] * 5
    printed = capsys.readouterr().err
    assert printed.count("The kernel is blocked") == 1, printed
    assert "Further requests of burst while the kernel is blocked" in printed
    assert [e.answered_by for e in kernel_state().history.entries] == ["kernel blocked"] * 5


# -- 9. never raise into a framework ----------------------------------------------------------

def test_claude_hooks_answer_a_blank_or_odd_server_name_instead_of_raising():
    (matcher,) = nb_elicit.claude_hooks()["Elicitation"]
    (hook,) = matcher.hooks
    base = {"hook_event_name": "Elicitation", "message": "Which repository?", "mode": "form",
            "requested_schema": {"type": "object", "properties": {"repo": {"type": "string"}}}}

    async def scenario(person):
        person.will("accept", {"repo": "a"}).will("accept", {"repo": "b"})
        return [await hook({**base, "mcp_server_name": name}, None, None)
                for name in (" ", 42)]

    blank, odd = drive(scenario)
    assert blank["hookSpecificOutput"]["content"] == {"repo": "a"}
    assert odd["hookSpecificOutput"]["content"] == {"repo": "b"}
    assert [e.server for e in kernel_state().history.entries] == ["claude", "claude"]


def test_the_frameworks_own_cancellation_still_goes_on_as_a_cancellation():
    async def main():
        params = types.ElicitRequestFormParams(message=FORM["message"],
                                               requested_schema=FORM["requestedSchema"])
        asked = asyncio.ensure_future(nb_elicit.elicitation_callback(None, params))
        for _ in range(500):
            if kernel_state().pending.forms():
                break
            await asyncio.sleep(0.01)
        (form,) = kernel_state().pending.forms()
        asked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asked
        return form

    form = asyncio.run(main())
    assert form.answered_by == "withdrawn"


def test_a_request_nb_elicit_ends_by_itself_is_cancel_with_a_line_not_a_cancellation(capsys):
    """Whatever of nb_elicit's own ends the answering of a hook's request (here: its task on
    the kernel's loop cancelled, as a loop that shuts down does) is answered cancel with one
    line; the framework's session never sees a cancellation it did not make."""
    async def main():
        params = types.ElicitRequestFormParams(message=FORM["message"],
                                               requested_schema=FORM["requestedSchema"])
        asked = asyncio.ensure_future(nb_elicit.elicitation_callback.named("ours")(None, params))
        for _ in range(500):
            if kernel_state().pending.forms():
                break
            await asyncio.sleep(0.01)
        (inner,) = [task for task in asyncio.all_tasks()
                    if task.get_coro().__name__ == "_ask_in_cell"]
        inner.cancel()
        return await asked

    got = asyncio.run(main())
    assert isinstance(got, types.ElicitResult) and got.action == "cancel"
    assert "nb_elicit ended a request from ours by itself" in capsys.readouterr().err
