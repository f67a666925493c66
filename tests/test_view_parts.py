"""The small parts a call's view and a task's card are made of, each on its own: the text a
reader without widgets sees, the clock's ticker, the draws put off, the backlog line, the
call's log and its waiting line; and no widget class that does everything at once."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path

import ipywidgets as widgets

import nb_elicit
from nb_elicit._ui import draw_soon
from nb_elicit._ui.backlog_line import BacklogLine
from nb_elicit._ui.call_log import CallLog
from nb_elicit._ui.draw_soon import DrawSoon
from nb_elicit._ui.kit import Kit
from nb_elicit._ui.plain_text import PlainText, Static
from nb_elicit._ui.ticker import Ticker
from nb_elicit._ui.waiting_line import WaitingLine

UI = Path(nb_elicit.__file__).parent / "_ui"


class Said(PlainText, widgets.HTML):
    def plain_text(self) -> str:
        return "[said plainly]"


class Prompt:
    """What the log and the waiting line read of a request: its message and its answer."""

    def __init__(self, message: str = "Name?"):
        self.message = message
        self.answer: concurrent.futures.Future = concurrent.futures.Future()
        self.waited: list[tuple] = []

    def show_waited(self, left, paused, clock=True) -> None:
        self.waited.append((left, paused, clock))


def test_a_widget_tells_readers_without_widgets_its_plain_text_and_no_repr():
    bundle = Said("<b>hi</b>")._repr_mimebundle_()
    assert bundle["text/plain"] == "[said plainly]"
    assert "application/vnd.jupyter.widget-view+json" in bundle
    box = widgets.VBox()
    only = Static.widget_only(box)._repr_mimebundle_()
    assert only["text/plain"] == "" and only[
        "application/vnd.jupyter.widget-view+json"]["model_id"] == box.model_id
    assert Static()._repr_mimebundle_() == {"text/plain": ""}


def test_a_ticker_ticks_on_a_running_loop_only_and_stops_once():
    ticks = []
    idle = Ticker(lambda: ticks.append(1))
    idle.start()
    assert not idle.ticking  # (no running loop: nothing ticks)

    async def scenario():
        ticker = Ticker(lambda: ticks.append(1))
        ticker.start()
        first = ticker.subscription
        ticker.start()  # (once)
        same = ticker.subscription is first
        await asyncio.sleep(1.1)
        ticker.stop()
        ticker.stop()
        return same, ticker.ticking, first.active

    same, ticking, active = asyncio.run(scenario())
    assert same and ticks and not ticking and not active


def test_draws_put_off_come_once_per_key_and_not_for_a_frozen_view(monkeypatch):
    monkeypatch.setattr(draw_soon, "DRAW_EVERY", 0.01)
    drawn, live = [], [True]
    draws = DrawSoon(lambda: live[0])
    draws.soon("a", lambda: drawn.append("now"))
    assert drawn == ["now"]  # (no running loop: at once)

    async def scenario():
        for n in range(3):
            draws.soon("a", lambda n=n: drawn.append(f"a{n}"))
        draws.soon("b", lambda: drawn.append("b"))
        before = list(drawn)
        await asyncio.sleep(0.05)
        live[0] = False
        draws.soon("a", lambda: drawn.append("frozen"))
        await asyncio.sleep(0.05)
        return before

    assert asyncio.run(scenario()) == ["now"]
    assert drawn == ["now", "a2", "b"]


def test_the_backlog_line_is_made_with_the_first_waiting_request_and_hides_at_none():
    made = []
    line = BacklogLine(DrawSoon(lambda: True), lambda: made.append(1))
    assert line.show("demo", 0, lambda: None) is None and not made
    box = line.show("demo", 3, lambda: None)
    assert made == [1] and line.widget is box and "3" in line.text
    assert box.layout.display is None and "3" in box.children[0].value
    assert line.show("demo", 0, lambda: None) is box and made == [1]
    assert line.text == "" and box.layout.display == "none"


def test_the_log_tells_what_came_after_the_result_after_it():
    laid_out = []
    log = CallLog(Kit(), DrawSoon(lambda: True), lambda: laid_out.append(1), lambda: True)
    asked = Prompt()
    log.add_request(asked)
    log.notice("before", "info", None, "")
    log.mark_result()
    log.notice("after", "info", None, "")
    assert log.told_count() == 2 and log.result_at == 2
    assert len(log.asked) == 2 and [line.notice.text for line in log.later.children] == ["after"]
    assert log.open_messages() == ["Name?"]
    log.drop([asked])  # (not answered: stays)
    assert log.told_count() == 2
    asked.answer.set_result(None)
    log.drop([asked])
    assert log.told_count() == 1 and len(log.asked) == 1 and not log.open_prompts()


def test_the_waiting_line_hides_behind_an_open_form_and_says_a_failure():
    prompts: list[Prompt] = []
    line = WaitingLine("demo", "tool", Kit(), open_prompts=lambda: prompts,
                       task_following=lambda: False, show=False)
    assert line.widget.value == "" and not line.waiting
    line.redraw()
    assert line.waiting and line.widget.layout.display is None
    prompts.append(Prompt())
    line.tick()
    assert line.widget.layout.display == "none" and prompts[0].waited == [(None, False, True)]
    line.fail("It broke.")
    assert not line.waiting and "It broke." in line.widget.value
    assert line.widget.layout.display is None and "nb-elicit-failed" in line.widget._dom_classes
