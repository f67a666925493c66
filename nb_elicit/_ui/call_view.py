"""The output slot of one call: its forms, a waiting line under them, then its result.

A call displays its view in the cell that made it, at once, while that cell is still the
kernel's current parent. Forms and results arrive later, often from another task; they are
added as children of this view, so they land in the right cell no matter which task adds them.

The view is made of parts of one concern each: the call's log of requests and notices
(:mod:`.call_log`), its waiting line (:mod:`.waiting_line`), its backlog line
(:mod:`.backlog_line`), its apps (:mod:`.call_apps`), and its outputs in the cell and their
freezing (:mod:`.cell_outputs`); the view lays them out, in order, and tells them together.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as widgets

from .._core.i18n import t
from .._core.notices import NoticeEntry, NoticeKind
from .._core.records.transcript import Asked, Transcript
from .._core.types import ToolResult
from .backlog_line import BacklogLine
from .call_apps import CallApps
from .call_log import CallLog
from .cell_outputs import CellOutputs
from .closing import close_soon
from .draw_soon import DrawSoon
from .kit import Kit
from .plain_text import PlainText
from .progress import ProgressLine
from .result_view import ResultSlot, result_box, result_text
from .waiting_line import CallClock, WaitingLine

if TYPE_CHECKING:
    from .prompt import PromptWidget
    from .task_card import TaskCard

__all__ = ["CallView"]

#: The layouts and styles every view shares with the prompts (nothing changes them).
_KIT = Kit()


def _outputs_attribute(name: str, doc: str) -> property:
    """The view's attribute ``name``, kept by its outputs (see :class:`CellOutputs`)."""
    return property(lambda view: getattr(view.outputs, name),
                    lambda view, value: setattr(view.outputs, name, value), doc=doc)


class CallView(PlainText, widgets.VBox):
    """Shows its forms, "Waiting for SERVER · TOOL (12 s)…" under them while the call waits,
    then the tool's result, labelled as the server's."""

    display_handle = _outputs_attribute(
        "display_handle", "Set by whoever displays the view: where its transcript goes.")
    frozen = _outputs_attribute("frozen", "Whether the transcript took the view's place.")
    in_place = _outputs_attribute(
        "in_place", "Whether the ended view stays in place, live (see CellOutputs.in_place).")
    script_handle = _outputs_attribute(
        "script_handle", "The handle of the view's second output (its script, then its apps).")

    def __init__(self, server: str, what: str, *, show_waiting: bool = True):
        self.server, self.what = server, what
        self.css_class = f"nb-elicit-view-{uuid.uuid4().hex[:12]}"
        self.outputs = CellOutputs(self, self.css_class)
        # (Classes are given when each widget is made: the frontend gets it whole, in one
        # message. The boxes share the kit's layout. A call that shows only its waiting line
        # makes three models: the view, the line and its layout; the other boxes are made
        # when something is first shown in them.)
        self.waiting_line = WaitingLine(
            server, what, _KIT, open_prompts=lambda: self.call_log.open_prompts(),
            task_following=self._task_following, show=show_waiting)
        self.status = self.waiting_line.widget
        self.draws = DrawSoon(lambda: not self.frozen)
        self.call_log = CallLog(_KIT, self.draws, self._lay_out, lambda: not self.frozen)
        #: The call's notices, in order, and its plain lines (see :attr:`lines`).
        self.notices = self.call_log.notices
        self.backlog = BacklogLine(self.draws, self._lay_out)
        self.call_apps = CallApps(self.outputs)
        #: The progress line, once the server reports progress.
        self.progress: ProgressLine | None = None
        self.result_slot = ResultSlot(_KIT, self._lay_out)
        #: The card of the task this call runs as (see :meth:`show_task`), if any.
        self.task_card: TaskCard | None = None
        # The waiting line comes after the forms: when it comes back under an answered form,
        # nothing above the form moves (the call's one clock, in one place).
        super().__init__([self.status], layout=_KIT.plain,
                         _dom_classes=("nb-elicit-call", self.css_class))

    def plain_text(self) -> str:
        waiting = self.status.value and self.waiting_line.ticker.ticking
        return f"[{self.server} · {self.what}]" if waiting else ""

    @property
    def asked(self) -> tuple[widgets.Widget, ...]:
        """The requests and notice lines shown here, in order. They sit in the view itself, so
        that a form shows with one message (the view's children); a task card shows them in
        its log's ``asked_box``."""
        return self.call_log.asked

    @property
    def result(self) -> widgets.VBox:
        """The box of the tool's result (made when first needed)."""
        return self.result_slot.widget

    @property
    def apps(self) -> widgets.VBox:
        """The apps shown with this call (made when first needed), in an output of their own
        under the view's, so that they live on when the view is frozen."""
        return self.call_apps.apps

    def show(self, keyboard: bool = True, *, in_place: bool = False) -> None:
        """Display the view in the current cell (see :meth:`CellOutputs.show`)."""
        self.outputs.show(keyboard, in_place)

    def show_when_needed(self, keyboard: bool = True, *, in_place: bool = False) -> None:
        """:meth:`show`, in the cell that runs now, but only once something shows in the view
        (see :meth:`CellOutputs.show_when_needed`)."""
        self.outputs.show_when_needed(keyboard, in_place)

    def add_form(self, form: PromptWidget) -> None:
        form.on_late_change(self._late_change)
        self.call_log.add_request(form)
        self.outputs.keyboard_now()
        self.waiting_line.show_waited(form)
        self._waiting_again()  # (hides the waiting line: the form has the one timer)
        self.waiting_line.when_answered(form, self._waiting_again)
        if not self.frozen:
            self.waiting_line.ticker.start()

    def show_task(self, card: TaskCard) -> None:
        """The call runs as a task: its card takes the forms' place, and the questions asked
        inside the task show inside the card."""
        self.task_card = card
        card.show_asked(self.call_log)
        self._lay_out()
        self._waiting_again()  # (hides the waiting line: the card has the one clock)

    def _task_following(self) -> bool:
        """Whether the call's task card follows its task: its clock is the call's one clock."""
        return self.task_card is not None and self.task_card.following

    def _lay_out(self) -> None:
        """The view's parts, in order: progress, the forms (inside the task's card, when the
        call runs as one), the waiting line, the backlog line (once there is one), the result,
        and the notices that came after it."""
        if self.task_card is not None:
            asked = (self.task_card,)
        else:
            asked = (self.call_log.box,) if self.call_log.box is not None else self.call_log.asked
        self.children = tuple(part for part in (
            self.progress, *asked, self.status, self.backlog.widget, self.result_slot.box,
            self.call_log.later_box) if part is not None)
        self.outputs.show_now()

    def show_app(self, box: widgets.Widget) -> NoticeEntry:
        """An app of the call's tool, shown under the view (see :mod:`.call_apps`). Returns the
        call's line that says it is shown, which says why it ended, later (:meth:`app_ended`)."""
        shown = self.notice(t("app_shown", server=self.server, what=self.what), NoticeKind.INFO,
                            tag=f"nb-elicit-app-line-{uuid.uuid4().hex[:12]}")
        self.call_apps.show(box)
        return shown

    def apps_ask(self) -> None:
        """An app of this call asks the person something (see :meth:`CallApps.ask`)."""
        self.call_apps.ask()

    def app_ended(self, box: widgets.Widget, reason: str = "",
                  shown: NoticeEntry | None = None) -> None:
        """The app in ``box`` ended: ``shown``, the call's line that said it is shown (see
        :meth:`show_app`), says ``reason`` instead, in its place in the call's log (see
        :meth:`CallApps.ended`)."""
        if shown is not None and reason:
            self.update_notice(shown, reason)
        self.call_apps.ended(box, reason, shown.tag if shown is not None else "")

    def drop_answered(self, keep: int) -> None:
        """Of the requests answered here, the newest ``keep`` stay and the others leave and
        close (for a view that outlives its requests: the one of an app's requests)."""
        self.call_log.drop_answered(keep)

    def drop(self, prompts: list[PromptWidget]) -> None:
        """The answered requests ``prompts`` leave the view (told elsewhere, or no longer
        needed) and close."""
        self.call_log.drop(prompts)

    def show_backlog(self, server: str, count: int,
                     cancel_all: Callable[[], object]) -> widgets.HBox | None:
        """How many more requests of ``server`` wait to be shown (0: none; the line hides),
        with a button that cancels them all (``cancel_all()``, safe from any thread). Returns
        the line, once it exists."""
        return None if self.frozen else self.backlog.show(server, count, cancel_all)

    def show_progress(self, progress: float, total: float | None, message: str | None) -> None:
        """A progress notification of the call: a bar (when there is a total) and its message."""
        if self.frozen:
            return
        if self.progress is None:
            self.progress = ProgressLine("nb-elicit-progress", _KIT)
            self._lay_out()
        self.progress.show(progress, total, message)

    def notice(self, text: str, kind: NoticeKind | str = NoticeKind.WARNING,
               asked: Asked | None = None, tag: str = "") -> NoticeEntry:
        """A notice under the call (a refused request, a decline, ...), of ``kind`` info,
        warning or error: a left border in the kind's JupyterLab colour and a word for it.
        ``asked`` is how the transcript tells it, when it answered a request. Returns the
        notice's entry in :attr:`notices`, to be given to :meth:`update_notice`; past
        :data:`MAX_NOTICES`, the line that counts the rest."""
        entry = self.call_log.notice(text, kind, asked, tag)
        self.outputs.retell(self.transcript)
        return entry

    def update_notice(self, entry: NoticeEntry, text: str) -> None:
        """Say something new in a notice already shown (a count that grew)."""
        self.call_log.update_notice(entry, text)
        self.outputs.retell(self.transcript)

    @property
    def lines(self) -> list[str]:
        """The notices and outcome lines as plain text, for runs that show no widgets (those
        not taken yet, see :meth:`take_lines`)."""
        return self.notices.lines

    def take_lines(self) -> list[str]:
        """The plain lines not taken yet; they are not given again."""
        return self.notices.take_lines()

    def show_result(self, result: ToolResult, *, render: bool = True) -> None:
        """The tool's result, under the forms. ``render=False`` keeps it for the transcript
        and the plain text alone, for a view about to be frozen (see :meth:`can_freeze`):
        widgets made for it would be closed in the same turn, unseen."""
        self.waiting_line.ticker.stop()
        self.result_slot.result = result
        self.call_log.mark_result()
        if self.progress is not None and not result.is_error:
            self.progress.done()
        self.notices.say(result_text(self.server, self.what, result))
        if render:
            self.waiting_line.clear()
            self.result.children = (result_box(self.server, self.what, result),)

    def show_failure(self, text: str) -> None:
        self.waiting_line.fail(text)
        self.call_log.mark_result()
        self.notices.say(text)
        self.outputs.show_now()

    def finish(self) -> None:
        """Stop the clock (a call without a displayed result, such as list_tools)."""
        self.waiting_line.ticker.stop()
        if self.waiting_line.waiting:
            self.waiting_line.clear()

    # -- the transcript -----------------------------------------------------------------

    def can_freeze(self) -> bool:
        """Whether :meth:`freeze` would now put the transcript in the view's place: the view
        is shown, and no request shown here is still open."""
        return (self.display_handle is not None and not self.in_place
                and not self.call_log.open_prompts())

    def freeze(self) -> bool:
        """Replace the live view by its transcript (see :mod:`.cell_outputs`) and close every
        widget model in it; the call's apps stay as they are. Waits (returns False) while a
        request shown here is still open: a handshake-era request may show under a call that
        has already ended. The models are closed a few at a time over the next turns of the
        event loop (:func:`close_soon`): closing a flood of forms' thousands in one turn would
        keep the kernel from everything else for a good part of a second."""
        if self.frozen:
            return True
        if self.call_log.open_prompts():
            return False
        self.draws.now()  # (the widgets end as they would have been shown)
        self.waiting_line.ticker.stop()
        shown = (self.call_log.asked or self.result_slot.result is not None
                 or self.waiting_line.failure is not None or self.task_card is not None)
        if self.outputs.freeze(lambda: self.transcript() if shown else None,
                               keep_second=self.call_apps.live):
            self.call_apps.view_frozen()
            close_soon(self)
        return True

    def _late_change(self) -> bool:
        """A request shown here changed after its answer (a URL page reported done): once the
        view is frozen, its transcript is drawn again. True if the transcript took it."""
        return self.outputs.retell(self.transcript)

    def freeze_when_answered(self) -> None:
        """:meth:`freeze` now, or as soon as the last request shown here is answered."""
        if not self.freeze():
            self.call_log.when_answered(self.freeze)

    def transcript(self) -> Transcript:
        items, result = self.call_log.items(), self.result_slot.told()
        marked = self.task_card.transcript_marked() if self.task_card is not None else []
        task = tuple(line for _, line in marked)
        marks = tuple(min(shown, len(items)) for shown, _ in marked)
        return Transcript(self.server, self.what, items, result, self.waiting_line.failure,
                          task, marks, self.call_log.result_at)

    def follow(self, clock: CallClock) -> None:
        """Show the time left of ``clock`` (a call: ``time_left()`` and ``paused``)."""
        self.waiting_line.follow(clock)

    def _waiting_again(self) -> None:
        """A request opened or was answered: the waiting line hides or comes back."""
        self.waiting_line.again()
        if self.task_card is not None:  # (a question opened or was answered)
            self.task_card.asked_changed()
