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

    monkeypatch.setattr("nb_elicit._ui.call_view.display", display)
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
    assert view.display_handle.transcript.splitlines()[:2] == ["[demo · hello]", "Hello, world!"]


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
    assert [form.message for form in first_view.forms.children] == ["First"]
    assert [form.message for form in second_view.forms.children] == ["Second"]
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
    assert [form.message for form in one.forms.children] == ["One"]
    assert [form.message for form in two.forms.children] == ["Two"]


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
