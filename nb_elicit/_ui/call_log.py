"""The log of one call: the requests shown in its view and its notices, in the order they came.

The live view and the transcript both tell it. Requests and notices that came before the
call's result (or its failure) show in order above it (:attr:`CallLog.asked`); notices that
came after it show under it (:attr:`CallLog.later`), where they came, and the transcript tells
them there too. A notice whose text changes (a count that grew) is drawn again a moment later
(:mod:`.draw_soon`); the notices themselves, and their plain lines, are a
:class:`~nb_elicit._core.notices.Notices`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as widgets

from .._core.notices import Notice, NoticeEntry, NoticeKind, Notices
from .._core.records.transcript import Asked, item_html, notice_html
from .closing import close_soon
from .draw_soon import DrawSoon
from .kit import Kit

if TYPE_CHECKING:
    from .prompt import PromptWidget

__all__ = ["CallLog"]


class CallLog:
    """The call's requests and notices; ``laid_out()`` is called when the view's parts change
    (a box made, a line added where no box holds them), ``live()`` says whether the view is
    still shown (not frozen)."""

    def __init__(self, kit: Kit, draws: DrawSoon, laid_out: Callable[[], None],
                 live: Callable[[], bool]):
        self._kit, self._draws, self._laid_out, self._live = kit, draws, laid_out, live
        #: The call's notices, in order, and its plain lines.
        self.notices = Notices()
        #: Everything told, in order: the requests shown and the notices (their entries).
        self.told: list[PromptWidget | NoticeEntry] = []
        #: How many of :attr:`told` came before the result (or the failure), once there is
        #: one: what comes later is told after it.
        self.result_at: int | None = None
        #: The requests and notice lines shown before the result, in order.
        self.asked: tuple[widgets.Widget, ...] = ()
        #: The box of :attr:`asked`, once a task card shows them (see :attr:`asked_box`).
        self.box: widgets.VBox | None = None
        #: The box of the notices that came after the result (see :attr:`later`).
        self.later_box: widgets.VBox | None = None
        self._lines: dict[NoticeEntry, widgets.HTML] = {}

    @property
    def asked_box(self) -> widgets.VBox:
        """A box of :attr:`asked`, for a task card to show them in (made when first asked
        for; from then on they are shown there, not in the view itself)."""
        if self.box is None:
            self.box = widgets.VBox(self.asked, layout=self._kit.plain,
                                    _dom_classes=("nb-elicit-asked",))
            self._laid_out()
        return self.box

    @property
    def later(self) -> widgets.VBox:
        """The box of the notices that came after the result (made when first needed)."""
        if self.later_box is None:
            self.later_box = widgets.VBox(layout=self._kit.plain,
                                          _dom_classes=("nb-elicit-later",))
            self._laid_out()
        return self.later_box

    def set_asked(self, asked: tuple[widgets.Widget, ...]) -> None:
        self.asked = asked
        if self.box is not None:
            self.box.children = asked
        else:
            self._laid_out()

    def add_request(self, prompt: PromptWidget) -> None:
        """A request shown in the call's view, after what is there."""
        self.told.append(prompt)
        self.set_asked((*self.asked, prompt))

    def notice(self, text: str, kind: NoticeKind | str, asked: Asked | None,
               tag: str) -> NoticeEntry:
        """A notice (see :meth:`~nb_elicit._ui.call_view.CallView.notice`): a new line, or
        the count past the limit drawn again."""
        entry, new = self.notices.add(text, kind, asked, tag)
        if not new:
            self._draws.soon(entry, self._draw_notice(entry))
            return entry
        line = widgets.HTML(_notice_html(entry), _dom_classes=(
            f"nb-elicit-notice-{entry.kind}", "nb-elicit-notice"))
        line.notice = entry  # (what the transcript tells of it)
        self._lines[entry] = line
        self.told.append(entry)
        if self.result_at is None:
            self.set_asked((*self.asked, line))
        elif self._live():  # (told after the result, where it came)
            self.later.children = (*self.later.children, line)
        return entry

    def update_notice(self, entry: NoticeEntry, text: str) -> None:
        """Say something new in a notice already shown (a count that grew)."""
        self.notices.update(entry, text)
        self._draws.soon(entry, self._draw_notice(entry))

    def _draw_notice(self, entry: NoticeEntry) -> Callable[[], None]:
        def draw() -> None:
            self._lines[entry].value = _notice_html(entry)
        return draw

    def mark_result(self) -> None:
        """The result (or the failure) came: what is told from now on comes after it."""
        if self.result_at is None:
            self.result_at = len(self.told)

    def told_count(self) -> int:
        """How many requests and notices were told before now, and before the result."""
        return len(self.told) if self.result_at is None else self.result_at

    def prompts(self) -> list[PromptWidget]:
        """The requests shown (the lines that can be answered)."""
        return [c for c in self.asked if hasattr(c, "answer")]

    def open_prompts(self) -> list[PromptWidget]:
        """The requests shown that wait for an answer."""
        return [prompt for prompt in self.prompts() if not prompt.answer.done()]

    def when_answered(self, then: Callable[[], object]) -> None:
        """Call ``then()`` on the running event loop as each request shown is answered (an
        answer may come on any thread)."""
        loop = asyncio.get_running_loop()

        def later(_answer: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(then)

        for prompt in self.prompts():
            prompt.answer.add_done_callback(later)

    def open_messages(self) -> list[str]:
        """The messages of the requests shown that wait for an answer (a task card repeats
        none of them)."""
        return [prompt.message for prompt in self.open_prompts()]

    def drop_answered(self, keep: int) -> None:
        """Of the requests answered, the newest ``keep`` stay and the others leave and close."""
        answered = [c for c in self.prompts() if c.answer.done()]
        self.drop(answered[:max(0, len(answered) - keep)])

    def drop(self, prompts: list[PromptWidget]) -> None:
        """The answered requests ``prompts`` leave the view and the log, and close."""
        gone = {id(c) for c in prompts if c.answer.done()}
        if not gone:
            return
        self.set_asked(tuple(c for c in self.asked if id(c) not in gone))
        if self.result_at is not None:
            self.result_at -= sum(1 for c in self.told[:self.result_at] if id(c) in gone)
        self.told = [c for c in self.told if id(c) not in gone]
        for prompt in prompts:
            if id(prompt) in gone:
                close_soon(prompt)

    def items(self) -> list[Asked | Notice | str]:
        """What the transcript tells, in order: each notice's item, each request's outcome."""
        return [told.item if isinstance(told, NoticeEntry) else told.outcome()
                for told in self.told]


def _notice_html(entry: NoticeEntry) -> str:
    """A notice's line; one that tells a page the person agreed to open (a card answered
    elsewhere, which has left) is the request as the transcript tells it, with its link."""
    asked = entry.asked
    if isinstance(asked, Asked) and asked.consented_host:
        return item_html(asked)
    return notice_html(entry.text, entry.kind)
