"""The backlog on its own: order, the cap, cancelling, withdrawals and the bounded wait."""

import asyncio

import pytest

from nb_elicit._runtime.backlog import SHOW_PAUSE, Backlog, ShowTurns, Turn


class View:
    def __init__(self):
        self.counts = []

    def show_backlog(self, server, count, cancel_all):
        self.counts.append(count)
        return None


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 10))


def test_requests_past_the_open_ones_wait_and_are_shown_in_the_order_they_came():
    async def scenario():
        backlog, view, shown = Backlog("demo", open_at_once=2, max_waiting=10), View(), []

        async def request(i):
            assert await backlog.turn(view) is Turn.SHOWN
            shown.append(i)

        tasks = [asyncio.create_task(request(i)) for i in range(5)]
        await asyncio.sleep(0.01)
        assert (shown, backlog.open, backlog.waiting) == ([0, 1], 2, 3)
        for expected in ([0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4]):
            backlog.done()
            await asyncio.sleep(0.01)
            assert shown == expected
        await asyncio.gather(*tasks)
        return backlog, view

    backlog, view = run(scenario())
    assert backlog.most_open == 2 and backlog.waiting == 0
    assert view.counts == [1, 2, 3, 2, 1, 0]


def test_past_the_cap_a_request_is_told_at_once():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1, max_waiting=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        waiter = asyncio.create_task(backlog.turn(View()))
        await asyncio.sleep(0.01)
        full = await backlog.turn(View())
        waiter.cancel()
        return full

    assert run(scenario()) is Turn.FULL


def test_cancelling_the_waiting_requests_answers_each_of_them_once():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        waiters = [asyncio.create_task(backlog.turn(View())) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert backlog.cancel_waiting() == 3
        assert backlog.cancel_waiting() == 0
        return await asyncio.gather(*waiters), backlog.open

    turns, still_open = run(scenario())
    assert turns == [Turn.CANCELLED] * 3 and still_open == 1


def test_a_withdrawn_waiting_request_leaves_the_line_and_its_place_passes_on():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        first = asyncio.create_task(backlog.turn(View()))
        second = asyncio.create_task(backlog.turn(View()))
        await asyncio.sleep(0.01)
        first.cancel()  # the server withdrew it
        await asyncio.sleep(0.01)
        backlog.done()
        return await second, backlog.waiting, first.cancelled()

    assert run(scenario()) == (Turn.SHOWN, 0, True)


def test_a_waiting_request_nobody_can_see_ends_after_the_bounded_wait():
    async def scenario():
        backlog = Backlog("demo", open_at_once=1)
        assert await backlog.turn(View()) is Turn.SHOWN
        turn = await backlog.turn(View(), timeout=0.05)
        return turn, backlog.waiting

    assert run(scenario()) == (Turn.TIMED_OUT, 0)


def test_a_backlog_needs_room_for_one():
    with pytest.raises(ValueError):
        Backlog("demo", open_at_once=0)


# -- one form built per turn of the loop ----------------------------------------------------------

async def counting_turns(turns: list[int]) -> None:
    """Count the turns of the running loop in ``turns[0]`` (a callback run once in each)."""
    loop = asyncio.get_running_loop()

    def tick():
        turns[0] += 1
        loop.call_soon(tick)

    loop.call_soon(tick)


def test_steps_asked_at_once_run_one_per_turn_of_the_loop_in_the_order_they_asked():
    async def scenario():
        steps, turns, ran = ShowTurns(), [0], []
        await counting_turns(turns)

        async def step(i):
            async with steps.turn():
                ran.append((i, turns[0]))

        await asyncio.gather(*(step(i) for i in range(5)))
        return steps.waited, ran

    waited, ran = run(scenario())
    assert [i for i, _ in ran] == [0, 1, 2, 3, 4]
    assert len({turn for _, turn in ran}) == 5  # no turn of the loop ran two
    assert waited == 4


def test_a_step_cancelled_while_it_waits_passes_its_place_on():
    async def scenario():
        steps, ran = ShowTurns(), []

        async def step(i):
            async with steps.turn():
                ran.append(i)

        first = asyncio.create_task(step(0))
        second, third = asyncio.create_task(step(1)), asyncio.create_task(step(2))
        await asyncio.sleep(0)  # all three asked; the first ran
        second.cancel()
        await asyncio.gather(first, third)
        return ran, second.cancelled()

    assert run(scenario()) == ([0, 2], True)


def test_a_step_with_none_before_it_runs_at_once():
    async def scenario():
        steps, turns = ShowTurns(), [0]
        await counting_turns(turns)
        async with steps.turn():
            first = turns[0]
        await asyncio.sleep(SHOW_PAUSE * 3)  # (the one before has long ended)
        before = turns[0]
        async with steps.turn():
            second = turns[0]
        return first, before, second, steps.waited

    first, before, second, waited = run(scenario())
    assert first == 0 and second == before and waited == 0


class HashCountingView(View):
    """A view that counts how often it is looked up (hashed), by any backlog."""

    looked_up = 0

    def __hash__(self):
        HashCountingView.looked_up += 1
        return id(self) >> 4


def test_a_flood_arriving_at_once_is_counted_without_a_pass_over_the_waiting_ones():
    """Each arrival looks up the views that show a count a few times, however many wait: a
    pass over the waiting requests per arrival would make a flood's arrivals quadratic."""
    async def scenario():
        backlog, view = Backlog("demo", open_at_once=1, max_waiting=500), HashCountingView()
        assert await backlog.turn(view) is Turn.SHOWN
        HashCountingView.looked_up = 0
        waiters = [asyncio.create_task(backlog.turn(view)) for _ in range(300)]
        await asyncio.sleep(0.01)
        looked_up, told = HashCountingView.looked_up, len(view.counts)
        assert backlog.cancel_waiting() == 300
        await asyncio.gather(*waiters)
        return looked_up, told, view.counts[-1], backlog.waiting

    looked_up, *rest = run(scenario())
    assert rest == [300, 0, 0]
    assert looked_up <= 10 * 300  # (a pass over the waiting ones: about 45,000)
