"""The backlog on its own: order, the cap, cancelling, withdrawals and the bounded wait."""

import asyncio

import pytest

from nb_elicit._runtime.backlog import Backlog, Turn


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
