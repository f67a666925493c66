"""Calls in flight (nb_elicit._runtime.calls): how a call ends, and which view its forms use.

Real servers over stdio; the display is replaced by handles that keep every transcript (the
transcript a finished call leaves in its cell), so tests can read what a cell would keep.
"""

import asyncio
import contextvars
import json
import types

import pytest
from helpers.servers import (
    demo_command,
    drive,
    hostile_command,
)

import nb_elicit
from nb_elicit._ui.call_view import CallView

pytestmark = pytest.mark.timeout(120)


class Handle:
    """A display handle that keeps every bundle its output was updated to."""

    def __init__(self):
        self.bundles: list[dict] = []

    def update(self, obj) -> None:
        self.bundles.append(obj._repr_mimebundle_())

    @property
    def transcript(self) -> str:
        assert self.bundles, "nothing was left in the cell"
        return self.bundles[-1]["text/plain"]


@pytest.fixture
def shown(monkeypatch) -> list[CallView]:
    """Every CallView a call displays, in order; ``view.display_handle`` is a :class:`Handle`."""
    views = []

    def display(obj, **kwargs):
        if isinstance(obj, CallView):
            views.append(obj)
        return Handle()

    monkeypatch.setattr("nb_elicit._ui.cell_outputs.display", display)
    return views


# -- defect: success was told from sys.exc_info() ----------------------------------------------

def test_a_call_awaited_inside_an_except_block_shows_its_result_in_the_transcript(journal, shown):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        try:
            raise KeyError("something the caller is handling")
        except KeyError:
            return await conn.call_tool("hello")

    result = drive(scenario)
    assert result.text == "Hello, world!"
    (view,) = shown
    assert view.frozen
    assert view.display_handle.transcript.splitlines()[:3] == [
        "[demo · hello]", "Result from demo:", "Hello, world!"]


# -- closing -----------------------------------------------------------------------------------

def test_cancelling_a_task_that_waits_for_a_slow_close_cancels_it():
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", hostile_command())
        await conn.call_tool("linger", {"seconds": 1.5})  # the server takes 1.5 s to exit
        closing = asyncio.ensure_future(conn.close())
        await asyncio.sleep(0.3)
        slow = not closing.done()
        closing.cancel()
        ended = await asyncio.wait({closing}, timeout=0.5)
        for _ in range(100):  # the close goes on without the task that gave up waiting
            if "lingered 1.5 s" in conn.log_tail():
                break
            await asyncio.sleep(0.05)
        return slow, bool(ended[0]), closing.cancelled(), conn.status, conn.log_tail()

    slow, ended, cancelled, status, log = drive(scenario)
    assert slow and ended
    assert cancelled
    assert status == "closed" and "hostile" not in nb_elicit.connections
    assert "lingered 1.5 s" in log


# -- which call a form belongs to --------------------------------------------------------------

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


async def ask(conn, message: str) -> dict:
    """The hostile server asks ``message`` with a name field; what came back to it."""
    result = await conn.call_tool("ask", {"schema_json": json.dumps(NAME_FORM),
                                          "message": message})
    return json.loads(result.text)


def answered(name: str) -> dict:
    return {"result": {"action": "accept", "content": {"name": name}}}


def test_a_session_reopened_during_a_call_shows_later_forms_in_the_later_call(shown):
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", hostile_command(), rate_limit=None)
        with pytest.raises(nb_elicit.ServerDisconnected):
            await conn.call_tool("crash", {"after": 0.3})
        person.will("accept", {"name": "Ada"}).will("accept", {"name": "Bob"})
        first = await ask(conn, "First")  # the server is started again inside this call
        second = await ask(conn, "Second")
        return first, second

    first, second = drive(scenario)
    assert (first, second) == (answered("Ada"), answered("Bob"))
    crashed, first_view, second_view = shown
    assert [form.message for form in first_view.asked] == ["First"]
    assert [form.message for form in second_view.asked] == ["Second"]
    assert "Second" in second_view.display_handle.transcript
    assert "Second" not in first_view.display_handle.transcript


def test_two_background_calls_on_one_connection_each_show_their_own_form(http_hostile, shown):
    # Over HTTP a request the server makes during a call comes back on that call's own stream,
    # so it can be told which call it belongs to. (Over stdio nothing in the protocol says so:
    # a form goes to the latest call in flight.)
    async def scenario(person):
        conn = await nb_elicit.connect("hostile", url=http_hostile, rate_limit=None)
        calls = [conn.start_tool("ask", {"schema_json": json.dumps(NAME_FORM),
                                         "message": message}) for message in ("One", "Two")]
        forms = [await person.wait_for_form(1), await person.wait_for_form(2)]
        for form in forms:
            person._act(form, "accept", {"name": form.message})
        return [json.loads((await call).text) for call in calls]

    results = drive(scenario)
    assert results == [answered("One"), answered("Two")]
    one, two = shown
    assert (one.what, two.what) == ("ask", "ask")
    assert [form.message for form in one.asked] == ["One"]
    assert [form.message for form in two.asked] == ["Two"]


@pytest.mark.parametrize("python", ["3.11+", "3.10"])
def test_session_tasks_start_without_the_callers_context_variables(monkeypatch, python):
    from nb_elicit._mcp import session as _mcp

    if python == "3.10":  # no context= argument there: the task is made inside a fresh Context
        monkeypatch.setattr(_mcp, "sys", types.SimpleNamespace(version_info=(3, 10, 0)))
    marker = contextvars.ContextVar("marker", default="unset")

    async def seen() -> str:
        return marker.get()

    async def main():
        marker.set("the caller's")
        return await _mcp._task_of_its_own(seen(), name="probe"), marker.get()

    assert asyncio.run(main()) == ("unset", "the caller's")


# -- which calls a form pauses: the one that asked, or every call that may have ------------------

def hostile_target(request, transport: str) -> dict:
    if transport == "stdio":
        return {"command": hostile_command()}
    return {"url": request.getfixturevalue("http_hostile")}


async def warm(request, transport: str, timeout: float = 1):
    """The hostile server, its first result behind it (which waits for jsonschema's import,
    seconds on a busy machine), then with a timeout of ``timeout`` s."""
    conn = await nb_elicit.connect("hostile", **hostile_target(request, transport),
                                   rate_limit=None)
    await conn.call_tool("nap", {"seconds": 0})
    conn.timeout = timeout
    return conn


def ask_later(conn, message: str, delay: float = 0.3):
    """A call that asks ``message`` after ``delay`` s: calls started meanwhile are newer."""
    return conn.start_tool("ask_later", {"schema_json": json.dumps(NAME_FORM), "delay": delay,
                                         "message": message})


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_call_that_asked_is_not_cut_off_while_a_newer_call_runs(request, transport, shown):
    """Over stdio nothing says which call a request belongs to: every running call keeps its
    timeout paused while the form is open, not only the newest one's."""
    async def scenario(person):
        # (2 s: the asking call's clock runs until its form is open, 0.3 s and a round trip
        # later, which took over 1 s once on a loaded machine's niced run)
        conn = await warm(request, transport, timeout=2)
        asking = ask_later(conn, "Who?")
        # The newest call when the form comes (at 0.3 s). Over HTTP its request is not the one
        # that asked, so its own clock runs: a quarter of the timeout leaves room for a busy
        # machine.
        newer = conn.start_tool("nap", {"seconds": 0.5})
        form = await person.wait_for_form(unless=asking)
        await asyncio.sleep(4)  # twice the timeout, with the form open
        still_open = (form.final_answer(), asking.done())
        person._act(form, "accept", {"name": "Ada"})
        return still_open, json.loads((await asking).text), (await newer).text, form

    still_open, result, napped, form = drive(scenario)
    assert still_open == (None, False)
    assert result == answered("Ada")
    assert napped == "rested"
    assert "Submitted." in form.status.value and "withdrew" not in form.status.value


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_quiet_request_in_flight_never_takes_the_form(request, transport, shown):
    async def scenario(person):
        # (2 s: the asking call's clock runs until its form is open, which took over 1 s on a
        # loaded machine's niced run)
        conn = await warm(request, transport, timeout=2)
        asking = ask_later(conn, "Who?")
        reading = asyncio.ensure_future(conn.read_resource("slow://nap"))  # takes 2 s
        form = await person.wait_for_form(unless=asking)
        await asyncio.sleep(2.5)  # past the timeout, with the form open
        still_open = (form.final_answer(), asking.done())
        person._act(form, "accept", {"name": "Ada"})
        return still_open, json.loads((await asking).text), await reading, form

    still_open, result, read, form = drive(scenario)
    assert still_open == (None, False)
    assert result == answered("Ada")
    assert read["contents"][0]["text"] == "read slowly"
    asked = next(view for view in shown if view.what == "ask_later")
    assert list(asked.asked) == [form]
