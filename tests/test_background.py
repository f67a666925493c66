"""A connection owns its background work: closing it leaves none of its tasks running.

:class:`~nb_elicit._runtime.background.Background` on its own, then a real server over stdio:
the tasks running after a connection closed are those that ran before it was made.
"""

import asyncio
import json

import pytest
from helpers.servers import drive, hostile_command

import nb_elicit
from nb_elicit._runtime.background import Background

pytestmark = pytest.mark.timeout(120)

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}


def test_closing_cancels_what_is_left_and_waits_for_it():
    async def scenario():
        background = Background("demo")
        ended = []

        async def forever():
            try:
                await asyncio.Event().wait()
            finally:
                ended.append("forever")

        task = background.spawn(forever(), "forever")
        quick = background.spawn(asyncio.sleep(0), "quick")
        await quick
        running = background.running
        await background.close()
        late = forever()
        with pytest.raises(RuntimeError, match="closed"):
            background.spawn(late, "late")
        return running == {task}, task.cancelled(), ended, background.running

    assert asyncio.run(scenario()) == (True, True, ["forever"], frozenset())


def test_a_failure_nobody_awaits_goes_to_the_loops_exception_handler():
    async def scenario():
        reported = []
        asyncio.get_running_loop().set_exception_handler(
            lambda loop, context: reported.append(context))

        async def fail():
            raise ValueError("broken")

        unheard = Background("demo").spawn(fail(), "unheard")
        heard = Background("demo").spawn(fail(), "heard", awaited=True)
        await asyncio.wait({unheard, heard})
        with pytest.raises(ValueError):
            await heard
        return [(c["message"], repr(c["exception"]), c["task"] is unheard) for c in reported]

    assert asyncio.run(scenario()) == [
        ("nb_elicit: background work of 'demo' failed", "ValueError('broken')", True)]


def test_a_task_that_closes_its_own_owner_is_not_waited_for():
    async def scenario():
        background = Background("demo")

        async def close_mine():
            await background.close()
            return "closed"

        return await background.spawn(close_mine(), "closer")

    assert asyncio.run(scenario()) == "closed"


def test_closing_a_connection_leaves_none_of_its_tasks_running(views):
    async def scenario(person):
        before = asyncio.all_tasks()
        conn = await nb_elicit.connect("hostile", hostile_command(), rate_limit=None)
        call = conn.start_tool("ask", {"schema_json": json.dumps(NAME_FORM),
                                       "message": "Still there?"})
        await person.wait_for_form(unless=call)
        during = asyncio.all_tasks() - before
        await conn.close()
        left = asyncio.all_tasks() - before
        with pytest.raises(nb_elicit.ServerDisconnected):  # (as before: not cancelled)
            await call
        return during, left, conn.background.running

    during, left, running = drive(scenario)
    assert during  # (the session, the call, the form's request: all running then)
    assert left == set(), [task.get_name() for task in left]
    assert running == frozenset()


def test_closing_from_another_loop_cancels_without_waiting_for_ever():
    """A terminal IPython runs cells on a loop of its own; %unload_ext closes on a fresh one."""
    first = asyncio.new_event_loop()
    background = Background("demo")

    async def start():
        return background.spawn(asyncio.sleep(3600), "sleeper")

    task = first.run_until_complete(start())
    asyncio.run(asyncio.wait_for(background.close(), 30))
    first.run_until_complete(asyncio.sleep(0))
    assert task.cancelled()
    first.close()
