"""An in-process client against real SDK servers, over stdio and streamable HTTP.

No kernel here: a scripted person answers forms through their widgets, and the servers' own
records (or tool results) show what reached them.
"""

import asyncio
import html
import json
import sys
import time

import pytest
from helpers.fill import fill
from helpers.servers import SERVERS, demo_command, drive, sdk2_command

import nb_elicit
from nb_elicit import Answer, ConnectError, ServerDisconnected
from nb_elicit._mcp import Era

CONTACT = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}

pytestmark = pytest.mark.timeout(120)



def transports(journal, http_url=None):
    return {"command": demo_command(journal)} if http_url is None else {"url": http_url}


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize(("action", "content"), [
    ("accept", CONTACT), ("decline", None), ("cancel", None)])
def test_each_action_reaches_the_demo_server(request, journal, transport, action, content):
    target = {"command": demo_command(journal)} if transport == "stdio" else {
        "url": request.getfixturevalue("http_demo")}

    async def scenario(person):
        person.will(action, content)
        conn = await nb_elicit.connect("demo", **target)
        result = await conn.call_tool("contact_info")
        return result

    result = drive(scenario)
    expected = {"action": action, "content": content}
    assert not result.is_error
    assert [(e["action"], e["content"]) for e in journal.entries()] == [(action, content)]
    assert f'"action": "{action}"' in result.text
    assert expected["action"] in result.text


def test_a_form_shows_in_the_calls_view_and_the_result_replaces_the_waiting_line(journal, views):
    async def scenario(person):
        person.will("accept", {"name": "octocat"})
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return await conn.call_tool("github_username")

    result = drive(scenario)
    assert result.text == "Hello, @octocat!"
    (view,) = views
    (form,) = view.asked
    assert form.answer.result() == Answer("accept", {"name": "octocat"})
    assert "Submitted." in form.status.value
    assert view.status.layout.display == "none"
    label, text = view.result.children[0].children[:2]
    assert "Result from demo:" in label.value  # (labelled as the server's, not the answer again)
    assert "Hello, @octocat!" in text.value


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_sdk2_ctx_elicit_and_resolver_tools(request, transport):
    target = {"command": sdk2_command()} if transport == "stdio" else {
        "url": request.getfixturevalue("http_sdk2")}

    async def scenario(person):
        person.will("accept", {"name": "Ada", "age": 36}).will("accept", {"name": "Bob", "age": 7})
        conn = await nb_elicit.connect("sdk2", **target)
        first = await conn.call_tool("ask_person")
        second = await conn.call_tool("ask_resolved")
        return first.text, second.text, conn.protocol_version

    first, second, protocol = drive(scenario)
    assert first == "accept:Ada:36"
    assert second == "resolved:Bob:7"
    assert protocol == "2025-11-25"


def test_input_required_tools_are_retried_in_the_2026_era_and_remembered(journal):
    async def scenario(person):
        person.will("accept", {"people": 4}).will("decline")
        conn = await nb_elicit.connect("demo", demo_command(journal))
        booked = await conn.call_tool("book_table")
        again = await conn.call_tool("book_table")
        eras = {tool: conn.sessions.era_for(tool) for tool in ("book_table", "hello")}
        return booked, again, eras, conn.sessions.current(Era.V2026).protocol_version

    booked, again, modes, modern = drive(scenario)
    assert booked.text == "Booked for 4."
    assert again.text == "Not booked: you chose decline."
    assert modes == {"book_table": Era.V2026, "hello": Era.HANDSHAKE}
    assert modern == "2026-07-28"
    assert [(e["action"], e["content"]) for e in journal.entries()] == [
        ("accept", {"people": 4}), ("decline", None)]


def test_an_sdk1_server_elicits(sdk1_python):
    async def scenario(person):
        person.will("accept", {"name": "Ada", "age": 36}).will("cancel")
        conn = await nb_elicit.connect("v1", [sdk1_python, str(SERVERS / "sdk1_server.py")])
        accepted = await conn.call_tool("ask_profile")
        cancelled = await conn.call_tool("ask_profile")
        return accepted.text, cancelled.text, conn.server_name

    accepted, cancelled, server = drive(scenario, timeout=90)
    assert (accepted, cancelled, server) == ("accept:Ada:36", "cancel", "sdk1-test")


def test_two_elicitations_in_one_call_appear_in_order(journal, views):
    async def scenario(person):
        person.will("accept", {"name": "Ada"}).will("accept", {"confirm": True})
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return await conn.call_tool("two_step")

    drive(scenario)
    (view,) = views
    first, second = view.asked
    assert first.message == "Step 1 of 2: what should we call you?"
    assert second.message == "Step 2 of 2: create an account for Ada?"
    assert [e["content"] for e in journal.entries()] == [{"name": "Ada"}, {"confirm": True}]


def test_a_withdrawn_request_closes_its_form_with_a_reason(journal, views):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        result = await conn.call_tool("withdraw", {"after": 0.5})
        await asyncio.sleep(0.2)
        return result

    result = drive(scenario)
    assert result.text == "The question was withdrawn."
    (form,) = views[0].asked
    assert form.answer.cancelled()
    assert "demo withdrew this request." in form.status.value
    assert form.submit_button.disabled
    assert journal.entries() == [{"tool": "withdraw", "event": "withdrawn"}]


def test_a_server_that_exits_mid_form_locks_the_form_and_raises_a_clear_error(views):
    async def scenario(person):
        conn = await nb_elicit.connect("sdk2", sdk2_command())
        with pytest.raises(ServerDisconnected) as caught:
            await conn.call_tool("ask_then_exit", {"after": 0.5})
        status = conn.status
        again = await nb_elicit.connect("sdk2", sdk2_command())
        person.will("accept", {"name": "Ada", "age": 1})
        return caught.value, status, (await again.call_tool("ask_person")).text

    error, status, after = drive(scenario)
    assert "sdk2 · ask_then_exit" in str(error) and "went away" in str(error)
    assert status == "disconnected"
    (form,) = views[0].asked
    assert "sdk2 disconnected." in form.status.value and form.submit_button.disabled
    assert "went away" in views[0].status.value
    assert after == "accept:Ada:1"


def test_an_unsupported_schema_is_answered_with_invalid_params(journal, views):
    schema = {"type": "object", "properties": {"address": {"type": "object"}}}

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return await conn.call_tool("custom_form", {"message": "m", "requested_schema": schema})

    result = drive(scenario)
    assert result.structured is None
    assert '"code": -32602' in result.text
    assert "properties.address: nested objects are not supported" in result.text
    (notice,) = views[0].asked
    assert "nb-elicit-notice-error" in notice._dom_classes
    assert "cannot show" in notice.value and "properties.address" in notice.value


def test_a_bug_in_nb_elicit_is_an_internal_error_shown_once(journal, views, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("nb_elicit._runtime.asking.ElicitationForm", broken)

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return await conn.call_tool("custom_form", {"message": "m", "requested_schema": {
            "type": "object", "properties": {}}})

    result = drive(scenario)
    assert '"code": -32603' in result.text and "boom" in result.text
    notices = [w for w in views[0].asked if "nb-elicit-notice-error" in w._dom_classes]
    assert len(notices) == 1 and "RuntimeError('boom')" in html.unescape(notices[0].value)


def test_a_failure_while_a_form_is_open_closes_it_and_tells_the_cell_and_the_server(
        journal, views, monkeypatch):
    """Past the schema and the request checks, any failure of nb_elicit's own ends the same
    way: one line in the cell, an internal error to the server, the history, and no form left
    open (or locked on a bare exception name)."""
    from nb_elicit._runtime.state import kernel_state
    from nb_elicit._ui.prompt import PromptWidget

    async def overflow(self):
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(PromptWidget, "wait", overflow)
    kernel_state().history.clear()

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        with pytest.raises(nb_elicit.ServerError) as failed:
            await conn.call_tool("github_username")
        return failed.value

    error = drive(scenario)
    assert error.code == -32603 and "OverflowError" in error.message
    assert [e["error"]["code"] for e in journal.entries()] == [-32603]
    (view,) = views
    form, *notices = view.asked
    assert "nb_elicit failed while showing this request" in html.unescape(form.status.value)
    assert form.submit_button.disabled
    errors = [w for w in notices if "nb-elicit-notice-error" in w._dom_classes]
    assert len(errors) == 1 and "OverflowError" in html.unescape(errors[0].value)
    assert [(e.action, e.answered_by) for e in kernel_state().history.entries] == [
        ("error", "failed")]


def test_concurrent_elicitations_on_two_connections_each_get_their_own_form(journal, views):
    async def scenario(person):
        demo = await nb_elicit.connect("demo", demo_command(journal))
        sdk2 = await nb_elicit.connect("sdk2", sdk2_command())
        calls = [asyncio.ensure_future(demo.call_tool("github_username")),
                 asyncio.ensure_future(sdk2.call_tool("ask_person"))]
        first = await person.wait_for_form(1)
        second = await person.wait_for_form(2)
        for form in (first, second):
            values = {"name": "octocat"} if form.server == "demo" else {"name": "Ada", "age": 3}
            person._act(form, "accept", values)
        return [c.text for c in await asyncio.gather(*calls)], {first.server, second.server}

    texts, servers = drive(scenario)
    assert texts == ["Hello, @octocat!", "accept:Ada:3"]
    assert servers == {"demo", "sdk2"}


def test_cancelling_a_waiting_call_answers_cancel_and_tells_the_server():
    async def scenario(person):
        conn = await nb_elicit.connect("sdk2", sdk2_command())
        call = asyncio.ensure_future(conn.call_tool("ask_forever"))
        form = await person.wait_for_form()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(100):
            if "ask_forever" in conn.log_tail():
                break
            await asyncio.sleep(0.05)
        return form.answer.result(), conn.log_tail()

    answer, log = drive(scenario)
    assert answer == Answer("cancel")
    assert "ask_forever got cancel" in log


def test_start_tool_returns_at_once_and_can_be_awaited_later(journal, views):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        call = conn.start_tool("github_username")
        running = call.done()
        person.will("accept", {"name": "later"})
        result = await call
        return running, result, repr(call)

    running, result, text = drive(scenario)
    assert running is False
    assert result.text == "Hello, @later!"
    assert text == "<nb_elicit.ToolCall demo · github_username: done>"
    assert "Hello, @later!" in views[0].result.children[0].children[1].value


def test_a_command_that_is_not_found_is_a_one_line_connect_error():
    async def scenario(person):
        with pytest.raises(ConnectError) as caught:
            await nb_elicit.connect("nope", ["/no/such/server-binary"])
        return str(caught.value)

    message = drive(scenario)
    assert "could not connect to 'nope'" in message and "/no/such/server-binary" in message
    assert "\n" not in message


def test_a_server_that_dies_at_start_shows_its_stderr():
    code = "import sys; print('missing API key FOO', file=sys.stderr); sys.exit(2)"

    async def scenario(person):
        with pytest.raises(ConnectError) as caught:
            await nb_elicit.connect("dies", [sys.executable, "-c", code])
        return str(caught.value)

    message = drive(scenario)
    assert message.splitlines()[0].startswith("could not connect to 'dies'")
    assert "missing API key FOO" in message


def test_env_and_cwd_reach_a_stdio_server(tmp_path, journal):
    code = ("import os, sys; sys.argv[1:] = []; "
            "from nb_elicit.demo.server import server; "
            "print(os.environ.get('NB_TEST_FLAG'), os.getcwd(), file=sys.stderr, flush=True); "
            "server.run('stdio')")

    async def scenario(person):
        conn = await nb_elicit.connect("env", [sys.executable, "-c", code],
                                       env={"NB_TEST_FLAG": "on"}, cwd=tmp_path)
        await conn.call_tool("hello")
        return conn.log_tail()

    assert f"on {tmp_path}" in drive(scenario)


def test_an_sdk1_server_with_optional_fields_gets_only_what_was_entered(sdk1_python, views):
    async def scenario(person):
        person.will("accept", {"name": "Ada", "age": 36}).will("accept", {"name": "Bob"})
        conn = await nb_elicit.connect("v1", [sdk1_python, str(SERVERS / "sdk1_server.py")])
        both = await conn.call_tool("ask_optionals")
        name_only = await conn.call_tool("ask_optionals")
        return both.text, name_only.text

    both, name_only = drive(scenario, timeout=90)
    assert both == "accept:{'name': 'Ada', 'age': 36, 'nickname': None}"
    assert name_only == "accept:{'name': 'Bob', 'age': None, 'nickname': None}"
    second_form = views[1].asked[0]
    assert second_form.answer.result().content == {"name": "Bob"}  # no nulls were sent


AWKWARD = ["first name", "a.b", "名前", "1st", "x" * 200, "50%", "with-dash_and_underscore"]


def test_awkward_property_names_render_are_found_by_their_hooks_and_are_answered(journal, views):
    from nb_elicit._ui.html import field_class, property_of_class

    schema = {"type": "object", "properties": {n: {"type": "string"} for n in AWKWARD}}
    content = {n: f"value {i}" for i, n in enumerate(AWKWARD)}

    async def scenario(person):
        person.will("accept", content)
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return await conn.call_tool("custom_form", {"message": "m", "requested_schema": schema})

    drive(scenario)
    (form,) = views[0].asked
    for name, control in form.controls.items():
        hooks = [c for c in control.widget._dom_classes if c.startswith("nb-elicit-field-")]
        assert hooks == [field_class(name)] and property_of_class(hooks[0]) == name
        assert not any(ch.isspace() for ch in hooks[0])
    assert journal.entries()[0]["content"] == content


def test_a_stderr_without_a_file_descriptor_does_not_stop_stdio_servers(journal, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stderr", io.StringIO())  # as in a kernel under pytest -s

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        return (await conn.call_tool("hello")).text

    assert drive(scenario) == "Hello, world!"


def test_progress_shows_in_the_calling_view_while_a_form_waits(journal, views):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), timeout=60)
        call = asyncio.ensure_future(conn.call_tool("import_rows", {"rows": 4, "delay": 0.1}))
        form = await person.wait_for_form()
        view = views[-1]
        during = (view.progress.bar.value, view.progress.text.value, form.waited.value,
                  form.message)
        person._act(form, "accept", {"overwrite": True})
        result = await call
        return during, view, result.text

    (value, text, waited, message), view, result = drive(scenario)
    assert result == "Imported 4 rows (overwrote row 3)."
    assert 0 < value < 1 and "Importing row 3 of 4" in text
    assert message == "Row 3 already exists. Overwrite it?"  # (the row it is importing)
    assert "waiting 0 s" in waited and "timeout paused" in waited  # the connection has a timeout
    assert view.progress.bar.value == 1.0 and "Import finished (100%)" in view.progress.text.value


def test_a_call_past_the_connection_timeout_fails_in_one_line(journal, views):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), timeout=0.5)
        with pytest.raises(nb_elicit.NbElicitError) as error:
            await conn.call_tool("import_rows", {"rows": 4, "delay": 0.5})
        return str(error.value)

    message = drive(scenario)
    assert "\n" not in message and "import_rows" in message
    with pytest.raises(ValueError):
        asyncio.run(nb_elicit.connect("demo", demo_command(journal), timeout=0))


def test_finished_calls_leave_no_widget_models_alive(journal, views):
    """Every widget of a call (forms, layouts, styles, the result) is closed when it ends, but
    the few layout and style models every prompt of the kernel shares."""
    from ipywidgets.widgets import widget as widget_module

    from nb_elicit._ui.kit import is_shared

    def live() -> int:
        return sum(not is_shared(m) for m in list(widget_module._instances.values()))

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), rate_limit=None)
        before = live()
        for action in ("accept", "decline", "cancel", "accept"):
            person.will(action, {"name": "octocat"})
            await conn.call_tool("github_username")
        person.will("accept", {"ok": True})  # a form with no text field at all
        await conn.call_tool("custom_form", {"message": "OK?", "requested_schema": {
            "type": "object", "properties": {"ok": {"type": "boolean"}}}})
        # (a finished view is closed a few models per turn of the loop, 4 ms apart: on a busy
        # machine the last ones are still open when the call returns)
        deadline = time.monotonic() + 10
        while live() != before and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return before, live()

    before, after = drive(scenario)
    assert after == before
    assert len(views) == 5 and all(v.frozen for v in views)


def test_the_timeout_stands_still_while_a_form_is_open_and_the_form_says_so(journal, views):
    """A person who takes longer than the connection's timeout to answer is not cut off."""
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), timeout=1)
        call = asyncio.ensure_future(conn.call_tool("contact_info"))
        form = await person.wait_for_form()
        await asyncio.sleep(2.5)  # longer than the timeout, with the form open
        waited = form.waited.value
        line = views[-1].status.layout.display
        fill(form, {"name": "Ada", "email": "ada@example.com"})
        form.submit_button.click()
        return await call, waited, line

    result, waited, line = drive(scenario)
    assert json.loads(result.text)["action"] == "accept"
    assert "timeout paused while you answer" in waited
    assert line == "none"  # the form's clock is the one shown
    assert [e["action"] for e in journal.entries()] == ["accept"]


def test_the_timeout_still_ends_a_call_that_runs_long_after_its_form(journal, views):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal), timeout=1.5)
        person.will("accept", {"overwrite": True})
        with pytest.raises(nb_elicit.ServerError) as error:
            await conn.call_tool("import_rows", {"rows": 6, "delay": 0.4})
        return error.value

    error = drive(scenario)
    assert error.code == -32001 and "timeout of 1.5 s" in error.message


def test_a_pydantic_schema_with_bounds_steps_and_an_enum_reaches_the_server_typed():
    """pydantic's own model_json_schema() (exclusive bounds, multipleOf, extra="forbid", Literal,
    an Enum behind $defs/$ref, a set): a wrong answer is held back on the form, the fixed one
    reaches the server, and its model reads it into typed values."""

    async def scenario(person):
        person.will("wait").will("accept", {"quantity": 10, "weight": 2.5, "size": "S"})
        conn = await nb_elicit.connect("sdk2", sdk2_command())
        call = asyncio.ensure_future(conn.call_tool("ask_order"))
        form = await person.wait_for_form()
        fill(form, {"quantity": 12, "weight": 0, "size": "L", "colour": "blue",
                    "extras": ["rush", "gift"]})
        form.submit_button.click()
        refused = {name: c.error_text for name, c in form.controls.items() if c.error_text}
        assert not form.answer.done()
        fill(form, {"quantity": 15, "weight": 0.3})
        form.submit_button.click()
        first = await call
        second = await conn.call_tool("ask_sdk_order")
        return refused, first.text, second.text

    refused, first, second = drive(scenario)
    assert "Enter a multiple of 5." in refused.pop("quantity")
    assert "Enter a number greater than 0." in refused.pop("weight")
    assert not refused
    assert json.loads(first) == {
        "quantity": ["int", 15], "weight": ["float", 0.3], "size": ["str", "L"],
        "colour": ["Colour", "blue"], "extras": ["set", ["gift", "rush"]]}
    assert json.loads(second) == {
        "quantity": ["int", 10], "weight": ["float", 2.5], "size": ["str", "S"],
        "extras": ["set", []]}
