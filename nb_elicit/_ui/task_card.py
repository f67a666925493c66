"""The card of a call that the server runs as a task, shown inside the call's view.

It shows who runs what (``SERVER · TOOL``) with the task's two buttons on the same line, the
task's id, its status as a badge in words a person uses ("Running", "Needs your answer",
"Done"; the protocol's word is in the details line) with the server's status message,
progress, how long ago the task started (ticking with the kernel's clock,
:mod:`nb_elicit._ui.clock`, on the running event loop, never on a thread), and the forms the
server asks inside the task. The buttons belong to the task, not to a form, so they stand in
the header, away from a form's Submit and Decline:

* **Cancel task** asks the server to cancel the task (the caller's callback sends it); the
  card says so, then what the server answered (:meth:`TaskCard.cancel_confirmed`,
  :meth:`TaskCard.cancel_failed`).
* **Detach** stops following the task here; it keeps running on the server
  (:meth:`TaskCard.detached`).

A question is said once: while a form in the card shows the server's message, the status line
does not repeat it; and the card's clock is the one clock (a form inside it shows none).

A status out of order (after a final one, or unknown) is shown as a warning and ignored.
Everything the server wrote is shown as escaped text. Once the task ends, the card leaves its
timeline as plain lines and static HTML for the call's transcript, in the order things
happened, each once: every line is marked with how many of the call's forms and notices were
shown before it (:meth:`TaskCard.transcript_marked`), so that the transcript puts a question
asked inside the task where it came.

The card has one clock: the task's age, counted from when the server created it (its
``createdAt``, :meth:`~nb_elicit._core.tasks.model.TaskState.age`), not from when this kernel began
to follow it (a task attached to again keeps its age); without a time stamp that can be
believed, from when the card was made.
"""

from __future__ import annotations

import collections
import html
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol

import ipywidgets as widgets

from .._core.i18n import duration, t
from .._core.notices import Notice, NoticeKind
from .._core.records.transcript import notice_html
from .._core.tasks.model import (
    MAX_AGE,
    STATUSES,
    TERMINAL,
    TEXT_LIMIT,
    TaskStart,
    TaskState,
    TaskTimeline,
    parse_instant,
    status_word,
)
from .._core.text import shorten, visible
from .html import text_html
from .kit import Kit
from .plain_text import PlainText
from .progress import ProgressLine
from .task_buttons import TaskButtons
from .ticker import Ticker

__all__ = ["AskedIn", "TaskCard", "badge_html"]

#: Characters of the task id shown (a UUID fits).
ID_LIMIT = 40
#: Characters of a task's id its card shows in its header line (the whole id is in its details).
SHORT_ID = 8
#: Characters of a task's id its details line shows (a longer id, no server's own, is cut).
WHOLE_ID_LIMIT = 200
#: Characters of the caller's texts kept (a result summary, the detach hint).
RESULT_LIMIT = 2000
HINT_LIMIT = 600
#: Notices (ignored statuses, notes) the transcript lists; the rest are counted.
MAX_NOTICES = 10
#: Lines the card said about the task as a whole that the transcript lists (the latest).
MAX_SAID = 10

#: The JupyterLab colour of each status's badge.
STATUS_COLORS = {"working": "var(--jp-brand-color1)", "input_required": "var(--jp-warn-color1)",
                 "completed": "var(--jp-success-color1)", "failed": "var(--jp-error-color1)",
                 "cancelled": "var(--jp-content-font-color2)"}
_MUTED = "color: var(--jp-content-font-color2); font-size: var(--jp-ui-font-size0)"


def badge_html(status: str) -> str:
    """A status as a badge, in words (:func:`~nb_elicit._core.tasks.model.status_word`; one no
    protocol knows, as it came, escaped), with the protocol's word as its tooltip; its classes
    are keyed by the protocol's word: ``nb-elicit-task-status nb-elicit-task-<status>``."""
    color = STATUS_COLORS.get(status, "var(--jp-content-font-color2)")
    key = status if status in STATUSES else "other"
    title = t("task_protocol_status", status=shorten(str(status), ID_LIMIT, one_line=True))
    return (f'<span class="nb-elicit-task-status nb-elicit-task-{key}" title="{_e(title)}" '
            f'style="display: inline-block; padding: 0 6px; border: 1px solid {color}; '
            f'border-radius: 8px; color: {color}; font-weight: 600; white-space: nowrap; '
            f'font-size: var(--jp-ui-font-size0)">{_e(status_word(status))}</span>')


def short_id(task_id: str) -> str:
    """A task's id as its card shows it: its first :data:`SHORT_ID` characters (one line)."""
    return shorten(task_id, SHORT_ID + 1, one_line=True)


class _Told(NamedTuple):
    """A line the card said, when it came (monotonic seconds), and how many of the call's forms
    and notices were shown before it."""

    what: str
    at: float
    mark: int


class _Noticed(NamedTuple):
    """A notice of the card, when it came and its mark (as :class:`_Told`)."""

    what: Notice
    at: float
    mark: int


class AskedIn(Protocol):
    """What shows the questions asked inside a task (the call's log,
    :class:`~nb_elicit._ui.call_log.CallLog`), as the card reads it."""

    @property
    def asked_box(self) -> widgets.VBox:
        """The box of the questions, which the card shows in its :attr:`TaskCard.forms`."""

    def told_count(self) -> int:
        """How many things it has shown."""

    def open_messages(self) -> list[str]:
        """The messages of the questions that wait for an answer."""


class TaskCard(PlainText, widgets.VBox):
    """The task ``task_id`` of ``server`` (the connection name) running ``tool``;
    ``shape_label`` names the protocol's shape of tasks."""

    children: tuple[widgets.Widget, ...]  # (the box's rows: ipywidgets has no types)

    def __init__(self, server: str, tool: str, task_id: str, shape_label: str):
        self.server, self.tool, self.task_id, self.shape_label = server, tool, task_id, shape_label
        #: When the task began, kept once: the card's clock, its record's times and the
        #: runtime's run (``%mcp tasks``, the file) read it.
        self.start = TaskStart()
        self.timeline = TaskTimeline(self.start)
        #: What shows the questions asked inside the task (the call's log, see
        #: :meth:`show_asked`): it tells how many things it showed, and which questions wait.
        self._asked_in: AskedIn | None = None
        self.kit = kit = Kit()
        self._cancel_confirmed = False
        self._finished = self._detached = False
        self.ticker = Ticker(self._tick)
        #: Status reports ignored (out of order), as counted.
        self.ignored = 0
        #: The card's notices (ignored statuses, notes), each when it came: the first
        #: MAX_NOTICES (:attr:`notices`), and how many.
        self._noticed: list[_Noticed] = []
        #: What follows this card's task (the runtime's run, set when it begins): it lives as
        #: long as the card, and no longer.
        self.run: object = None
        self.notice_count = 0
        #: What the card says last about the task as a whole (cancel, detach, its end), and
        #: the lines it said before (the latest MAX_SAID).
        self.status_text = ""
        self._said: collections.deque[_Told] = collections.deque(maxlen=MAX_SAID)
        #: The last line said stands only until the next one (Cancel sent…).
        self._passing = False
        self.result_text: str | None = None
        self.header = self._html(
            f'<div class="nb-elicit-title"><span class="nb-elicit-server" '
            f'style="font-weight: 600">{_e(server)} · {_e(tool)}</span></div>',
            "nb-elicit-task-header")
        self.id_line = self._html(id_html(task_id, shape_label, None), "nb-elicit-task-id")
        self.badge = self._html("", "nb-elicit-task-badge")
        self.message = self._html("", "nb-elicit-task-message")
        self.elapsed = widgets.HTML(elapsed_html(self.timeline.elapsed()), layout=widgets.Layout(),
                                    _dom_classes=("nb-elicit-task-elapsed",))
        # (one line, centred: the badge, the server's message, then the clock, muted)
        state_row = widgets.HBox([self.badge, self.message, self.elapsed],
                                 layout=widgets.Layout(align_items="center", margin="4px 0"),
                                 _dom_classes=("nb-elicit-task-state",))
        #: The progress line, once the server reports progress.
        self.progress: ProgressLine | None = None
        self.notice_line = widgets.HTML(layout=widgets.Layout(display="none"),
                                         _dom_classes=("nb-elicit-task-notice",))
        self.forms = widgets.VBox(layout=kit.plain, _dom_classes=("nb-elicit-task-forms",))
        self.buttons = TaskButtons(kit, lambda: self.ended, self._say)
        self.cancel_button = self.buttons.cancel_button
        self.detach_button = self.buttons.detach_button
        self.actions = self.buttons.actions
        head = widgets.HBox([self.header, self.actions],
                            layout=widgets.Layout(align_items="center", flex_flow="row wrap"),
                            _dom_classes=("nb-elicit-task-head",))
        self.status_line = self._html(status_html(self.status_text), "nb-elicit-task-outcome")
        super().__init__(
            [head, self.id_line, state_row, self.notice_line, self.forms, self.status_line],
            layout=widgets.Layout(border_left="3px solid var(--jp-brand-color1)",
                                  padding="2px 0 2px 10px", margin="4px 0"),
            _dom_classes=("nb-elicit-task-card",))
        self.ticker.start()

    def _html(self, value: str, css_class: str) -> widgets.HTML:
        return widgets.HTML(value, layout=self.kit.plain, style=self.kit.style(widgets.HTML),
                            _dom_classes=(css_class,))

    def plain_text(self) -> str:
        status = self.timeline.status
        word = status_word(status) if status is not None else "…"
        return f"[{self.server} · {self.tool}: {id_text(self.task_id, self.shape_label)}, {word}]"

    @property
    def started(self) -> float:
        """When the task began, on the monotonic clock (see :attr:`start`)."""
        return self.start.mono

    @property
    def dated(self) -> bool:
        """Whether the card's clock counts from the server's ``createdAt``."""
        return self.start.dated

    def show_asked(self, asked_in: AskedIn) -> None:
        """The questions asked inside the task show in ``asked_in`` (the call's log): its box
        goes in :attr:`forms`; it tells how many things it has shown (``told_count()``) and
        the messages of the questions that wait for an answer (``open_messages()``); the call's
        view says when those change (:meth:`asked_changed`)."""
        self._asked_in = asked_in
        self.forms.children = (asked_in.asked_box,)

    def asked_changed(self) -> None:
        """A question opened or was answered: the status line repeats no open question."""
        self._show_message()

    @property
    def following(self) -> bool:
        """Whether the card follows its task now (its clock is the call's one clock)."""
        return not self.ended

    @property
    def ended(self) -> bool:
        """Whether the card follows the task no more (it ended, or was detached)."""
        return self._finished or self._detached

    # -- what the server says ---------------------------------------------------------------

    def update(self, state: TaskState) -> str | None:
        """Show ``state`` and record it in the timeline. Returns None, or the problem of a
        status out of order, which the card shows as a warning (the status is ignored)."""
        if state.status in STATUSES:
            self.start.date(state)  # (or its run did: the start is one, see TaskRun)
        if self.ticker.ticking and self.timeline.says_nothing_new(state):
            return None  # a poll that says nothing new: the card stays, the clock ticks on
        self._tick()  # (at once: no clock shows the card's own age first)
        now, wall = ended_at(state, self.timeline, self.start)
        mark, latest = self._mark(), self.timeline.latest
        if state.status == "input_required" and latest is not None:
            # (the status that says the task waits for the questions goes before them, even
            # when a question came before the poll that saw it: 2025-11-25 asks on its own)
            mark = min(mark, latest.mark)
        problem = self.timeline.record(state, now=now, wall=wall, mark=mark)
        if problem is not None:
            self.ignored += 1
            more = " " + t("task_problems_more", n=self.ignored) if self.ignored > 1 else ""
            self._notice(problem, NoticeKind.WARNING, shown=problem + more)
            return problem
        latest = self.timeline.latest
        if latest is not None:
            self.badge.value = badge_html(latest.status)
            self.id_line.value = id_html(self.task_id, self.shape_label, latest.status)
            self._show_message()
        if not self.ended:
            self.ticker.start()
        return None

    def _show_message(self) -> None:
        """The server's message and error next to the badge; not the message while a form in
        the card shows it (the question is said once, by the form)."""
        latest = self.timeline.latest
        if latest is None:
            return
        message = latest.message
        if message and not self.ended and self._asked_in is not None and any(
                shorten(str(asked), TEXT_LIMIT, one_line=True) == message
                for asked in self._asked_in.open_messages()):
            message = None
        if message and message.casefold() == status_word(latest.status).casefold():
            message = None  # (a "Done" next to the badge "Done": said once)
        detail = " · ".join(part for part in (message, latest.error) if part)
        self.message.value = text_html(visible(detail)) if detail else ""

    @property
    def notices(self) -> list[Notice]:
        """The card's notices kept (the first MAX_NOTICES)."""
        return [told.what for told in self._noticed]

    @property
    def said(self) -> list[str]:
        """The lines the card said about the task as a whole (the latest MAX_SAID)."""
        return [told.what for told in self._said]

    def _told(self, what: str) -> _Told:
        return _Told(what, time.monotonic(), self._mark())

    def _mark(self) -> int:
        """How many of the call's forms and notices were shown before now (what the call's
        view tells, see :meth:`show_asked`; none before it shows the card)."""
        return self._asked_in.told_count() if self._asked_in is not None else 0

    def show_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress notification: a bar where the total is known, else the count."""
        if self.ended:
            return
        if self.progress is None:  # (under the state line)
            self.progress = ProgressLine("nb-elicit-task-progress", self.kit)
            parts = self.children
            self.children = (*parts[:3], self.progress, *parts[3:])
        self.progress.show(progress, total, message)

    def note(self, text: str, kind: NoticeKind | str = NoticeKind.INFO) -> None:
        """A line of nb_elicit's own about the task (how often it is polled), of ``kind``
        info, warning or error."""
        self._notice(text, kind)

    def _notice(self, text: str, kind: NoticeKind | str, shown: str | None = None) -> None:
        """Show ``text`` (or ``shown``) in the notice line; keep it for the transcript."""
        self.notice_count += 1
        if len(self._noticed) < MAX_NOTICES:
            self._noticed.append(_Noticed(Notice(text, NoticeKind.of(kind)), time.monotonic(),
                                          self._mark()))
        self.notice_line.value = notice_html(shown or text, kind)
        self.notice_line.layout.display = None

    # -- the buttons (see :mod:`.task_buttons`) ---------------------------------------------

    def on_cancel(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` when the person clicks **Cancel task** (once per click, on the thread
        that handles the click: not always the event loop's)."""
        self.buttons.on_cancel(callback)

    def on_detach(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` when the person clicks **Detach** (once per click)."""
        self.buttons.on_detach(callback)

    def cancel_confirmed(self, state: TaskState) -> None:
        """The server accepted the cancel; a final ``state`` ends the card."""
        self._cancel_confirmed = True
        if state.terminal:
            self.end(state)  # ("Cancelled (the server confirmed) after 5 s.")
            return
        self.update(state)
        if not self.ended:
            self._say(t("task_cancel_confirmed"), passing=True)

    def cancel_failed(self, reason: str) -> None:
        """The cancel did not go through: say why, and offer **Cancel task** again."""
        self.buttons.cancel_failed(reason)

    def detached(self, hint: str) -> None:
        """The card follows the task no more; it keeps running on the server. ``hint`` says how to
        follow it again."""
        if self.ended:
            return
        self._detached = True
        self._stop()
        self._say(t("task_detached", hint=shorten(str(hint), HINT_LIMIT, one_line=True)))

    # -- the end ----------------------------------------------------------------------------

    def end(self, state: TaskState, result_text: str | None = None) -> None:
        """The task ended with ``state`` (or the card stops following it): stop the clock,
        hide the buttons, say how it ended. ``result_text`` is kept (:attr:`result_text`), not
        shown: the call's view shows the result, once."""
        if not self._finished:
            self._finished = True
            self.update(state)
            self._stop()
            if self.progress is not None and (self.timeline.status or state.status) == "completed":
                self.progress.done()
            self._say(end_text(self.timeline, state, self._cancel_confirmed))
        if result_text:  # (kept, not shown: the call's view shows the result, once)
            self.result_text = shorten(str(result_text), RESULT_LIMIT, at_word=True)

    def _stop(self) -> None:
        self.ticker.stop()
        self.actions.layout.display = "none"
        self.elapsed.layout.display = "none"

    def _say(self, text: str, passing: bool = False) -> None:
        """Say ``text`` about the task as a whole; a ``passing`` line (Cancel sent…) stands
        only until the next, which takes its place."""
        self.status_text = text
        if self._passing and self._said:
            self._said.pop()
        if not self._said or self._said[-1].what != text:
            self._said.append(self._told(text))
        self._passing = passing
        self.status_line.value = status_html(self.status_text)

    def close(self) -> None:
        self.ticker.stop()
        super().close()

    # -- the clock --------------------------------------------------------------------------

    def _tick(self) -> None:
        self.elapsed.value = elapsed_html(self.timeline.elapsed())

    @property
    def ticking(self) -> bool:
        """Whether the card's clock ticks (see :attr:`ticker`)."""
        return self.ticker.ticking

    # -- the transcript it leaves -----------------------------------------------------------

    def transcript_lines(self) -> list[str]:
        """The task as plain text, in the order things happened (see
        :meth:`transcript_marked`)."""
        return [line for _, line in self.transcript_marked()]

    def transcript_marked(self) -> list[tuple[int, str]]:
        """The task as plain text, each line with how many of the call's forms and notices
        were shown before it, in the order things happened: its id, every status with its
        clock time and the task's age then, the notices, and what the card said (cancel,
        detach, how it ended). A final status and the line that says how the task ended are
        one line ("14:02:07 Completed after 10 s."). The result is the call's to tell."""
        lines = [(0, id_text(self.task_id, self.shape_label)),
                 *_events(self.timeline, self._said, self._noticed, self._finished)]
        if self.notice_count > len(self._noticed):
            more = t("task_notices_more", n=self.notice_count - len(self._noticed))
            lines.append((lines[-1][0], "  " + more))
        return lines



def _events(timeline: TaskTimeline, said: Iterable[_Told],
            noticed: list[_Noticed], finished: bool) -> list[tuple[int, str]]:
    """The lines of a card's transcript after its id (see :meth:`TaskCard.transcript_marked`),
    each with its mark, in order: the statuses of ``timeline``, the ``noticed`` notices and the
    lines ``said``; the last said joins a final status when the task ``finished``."""
    said = list(said)
    ending = said[-1] if finished and said else None
    events: list[tuple[float, int, str]] = []
    entries = timeline.entries
    for index, entry in enumerate(entries):
        last = index == len(entries) - 1
        if last and ending is not None and entry.status in TERMINAL:
            text, at, mark = ending
            before = entries[index - 1].message if index else None
            # (the server's message, if it said something new with the final status)
            detail = (entry.message if entry.message and entry.message != before
                      and entry.message not in text else "")
            clock = timeline.clock_time(entry)
            events.append((entry.at, entry.mark,
                           f"  {clock} {text}" + (f" — {detail}" if detail else "")))
            said.pop()
            ending = None
            continue
        events.append((entry.at, entry.mark, "  " + timeline.entry_line(entry, True)))
        if index == 0 and timeline.omitted:
            events.append((entry.at, entry.mark,
                           "  " + t("task_omitted", n=timeline.omitted)))
    for notice, at, mark in noticed:
        events.append((at, mark, f"  {t('notice_' + notice.kind)} {notice.text}"))
    events += [(at, mark, text) for text, at, mark in said]
    events.sort(key=lambda event: (event[1], event[0]))
    return [(mark, text) for _, mark, text in events]


def _e(value: object) -> str:
    """``value`` as escaped text, its invisible characters as escapes (a server's id, status,
    tool or message: see :func:`~nb_elicit._core.text.visible`)."""
    return html.escape(visible(str(value)))


def id_html(task_id: object, shape_label: object, status: str | None) -> str:
    """A card's id line: the task's short id (its first :data:`SHORT_ID` characters), then a
    details line with the whole id (selected whole by a click, to copy), the protocol's shape
    of tasks and ``status`` as the protocol names it (protocol words, kept out of the header
    and the badge)."""
    whole = shorten(str(task_id), WHOLE_ID_LIMIT, one_line=True)
    short = short_id(str(task_id))
    shape = shorten(str(shape_label), ID_LIMIT, one_line=True)
    copy = "user-select: all; font-family: var(--jp-code-font-family)"
    word = shorten(str(status), ID_LIMIT, one_line=True)
    said = ("" if status is None else
            f'<div>{_e(t("task_protocol_status", status=word))}</div>')
    return (f'<div style="{_MUTED}">{_e(t("task_short_id", id=short))}</div>'
            f'<details style="{_MUTED}"><summary style="cursor: pointer">'
            f'{_e(t("task_details"))}</summary>'
            f'<div>{_e(t("task_whole_id"))} <span style="{copy}">{_e(whole)}</span></div>'
            f'<div>{_e(t("task_protocol", shape=shape))}</div>{said}</details>')


def id_text(task_id: object, shape_label: object) -> str:
    """The task's id and shape as the transcript's first line and the plain text tell them."""
    return t("task_id_line", id=shorten(str(task_id), ID_LIMIT, one_line=True),
             shape=shorten(str(shape_label), ID_LIMIT, one_line=True))


def status_html(text: str) -> str:
    """The card's status line: announced politely when it changes (cancel sent, ended, ...)."""
    inner = text_html(visible(text, lines=True)) if text else ""
    return f'<div role="status" aria-live="polite">{inner}</div>'


def elapsed_html(seconds: float) -> str:
    """The card's clock: how long ago the task started, muted."""
    text = t("task_running", time=duration(seconds))
    return f'<span style="{_MUTED}">{_e(text)}</span>'


def ended_at(state: TaskState, timeline: TaskTimeline,
             start: TaskStart) -> tuple[float | None, float | None]:
    """When a final ``state`` came, on the card's clocks: when the server says it ended
    (its ``lastUpdatedAt``, from its ``createdAt``), not when it was seen, which may be a
    poll, or an attach, later; never before the status shown last, nor after now. (None,
    None): now."""
    if not state.terminal or not start.dated:
        return None, None
    created, updated = parse_instant(state.created_at), parse_instant(state.last_updated_at)
    if created is None or updated is None or not 0 <= updated - created <= MAX_AGE:
        return None, None
    latest, mono, wall = timeline.latest, time.monotonic(), time.time()
    floor = latest.at if latest is not None else start.mono
    at = min(mono, max(floor, start.mono + (updated - created)))
    return at, wall - (mono - at)


def end_text(timeline: TaskTimeline, state: TaskState, cancel_confirmed: bool) -> str:
    """The card's line that says how its task ended (``state``, or the status shown last)."""
    status = timeline.status or shorten(str(state.status), 40, one_line=True)
    took = duration(timeline.took())
    latest = timeline.latest
    error = latest.error if latest is not None else state.error
    if status == "completed":
        return t("task_ended_completed", time=took)
    if status == "failed":
        return (t("task_ended_failed_error", time=took, error=error) if error else
                t("task_ended_failed", time=took))
    if status == "cancelled":
        return t("task_ended_cancel_confirmed" if cancel_confirmed else
                 "task_ended_cancelled", time=took)
    return t("task_ended_other", time=took, status=status_word(status))
