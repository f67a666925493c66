"""The kernel's one clock: one task per event loop, ticking while anything subscribes."""

from __future__ import annotations

import asyncio

from nb_elicit._core.kernel import part
from nb_elicit._core.tasks.model import TaskState
from nb_elicit._core.types import ToolResult
from nb_elicit._ui import clock
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.clock import clock_task, subscribe
from nb_elicit._ui.task_card import TaskCard


async def until(condition, timeout: float = 30) -> None:
    """Wait until ``condition()`` holds; ``timeout`` is a hang guard (a loaded machine ticks
    late), not a timing."""
    async def holds():
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(holds(), timeout)


def test_the_clock_starts_with_the_first_subscriber_and_stops_with_the_last(monkeypatch):
    monkeypatch.setattr(clock, "TICK", 0.01)

    async def scenario():
        before = clock_task()
        ticks = []
        first = subscribe(lambda: ticks.append("first"))
        task = clock_task()
        second = subscribe(lambda: ticks.append("second"))
        same = clock_task() is task
        await until(lambda: ticks.count("first") >= 2 and ticks.count("second") >= 2)
        first.cancel()
        still = clock_task() is task and not task.done()
        second.cancel()
        second.cancel()  # (harmless)
        await asyncio.sleep(0)
        return before, task, same, still, ticks, clock_task()

    before, task, same, still, ticks, after = asyncio.run(scenario())
    assert before is None and same and still
    assert ticks.count("first") >= 2 and ticks.count("second") >= 2
    assert task.cancelled() and after is None


def test_without_a_running_loop_nothing_subscribes():
    assert subscribe(lambda: None) is None


def test_a_failing_subscriber_is_reported_and_dropped_and_the_others_tick_on(monkeypatch):
    monkeypatch.setattr(clock, "TICK", 0.01)
    failures, ticks = [], []

    async def scenario():
        asyncio.get_running_loop().set_exception_handler(
            lambda _loop, context: failures.append(context["exception"]))

        def fail():
            raise RuntimeError("broken")

        bad = subscribe(fail)
        good = subscribe(lambda: ticks.append(1))
        await until(lambda: len(ticks) >= 2)
        dropped = not bad.active
        good.cancel()
        return dropped

    assert asyncio.run(scenario())
    assert [str(e) for e in failures] == ["broken"] and len(ticks) >= 2


def test_many_views_and_cards_share_one_task_and_finished_ones_unsubscribe(monkeypatch):
    monkeypatch.setattr(clock, "TICK", 0.01)

    async def scenario():
        views = [CallView("demo", f"tool{i}") for i in range(5)]
        card = TaskCard("demo", "slow", "t-1", "tasks")
        tasks = {id(t) for t in asyncio.all_tasks() if t.get_name() == "nb_elicit clock"}
        ticking = clock.clock_task()
        views[0].show_result(ToolResult([{"type": "text", "text": "done"}]))
        views[1].finish()
        views[2].show_failure("it failed")
        views[3].display_handle = None
        views[3].freeze()
        card.end(TaskState("t-1", "completed"))
        alive = clock_task() is ticking
        views[4].finish()
        await asyncio.sleep(0)
        return tasks, ticking, alive, clock_task(), [v.waiting_line.ticker.subscription for v in views], card.ticking

    tasks, ticking, alive, after, tickers, card_ticking = asyncio.run(scenario())
    assert len(tasks) == 1 and alive
    assert ticking.cancelled() and after is None
    assert tickers == [None] * 5 and not card_ticking


def test_the_waiting_line_ticks_with_the_clock(monkeypatch):
    monkeypatch.setattr(clock, "TICK", 0.01)

    async def scenario():
        view = CallView("demo", "tool")
        view.waiting_line.started -= 3
        await until(lambda: "(3 s so far)" in view.status.value)
        shown = view.status.value
        view.finish()
        return shown

    assert "(3 s so far)" in asyncio.run(scenario())


def test_a_view_whose_loop_closed_stops_ticking_without_a_fuss():
    async def made():
        return CallView("demo", "tool"), clock_task()

    view, task = asyncio.run(made())  # (the loop closes with the view still ticking)
    assert task.done()
    view.finish()  # the subscription is given up on a closed loop
    assert view.waiting_line.ticker.subscription is None


def test_a_clock_does_not_keep_its_loop_alive():
    import gc
    import weakref

    async def scenario():
        subscribe(lambda: None).cancel()
        return weakref.ref(asyncio.get_running_loop())

    gc.collect()
    before = len(part(clock.LoopClocks))  # (loops of earlier tests that something else still holds)
    loop = asyncio.new_event_loop()
    ref = loop.run_until_complete(scenario())
    loop.close()
    del loop
    gc.collect()
    assert ref() is None and len(part(clock.LoopClocks)) == before
