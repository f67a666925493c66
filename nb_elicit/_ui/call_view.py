"""The output slot of one call: its forms, a waiting line under them, then its result.

A call displays its view in the cell that made it, at once, while that cell is still the
kernel's current parent. Forms and results arrive later, often from another task; they are
added as children of this view, so they land in the right cell no matter which task adds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import time
import uuid
from collections.abc import Callable

import ipywidgets as widgets
from IPython.display import Javascript, display

from .._core.i18n import duration, t
from .._core.notices import NoticeEntry, NoticeKind, Notices
from .._core.transcript import Asked, Transcript, item_html, notice_html, transcript_bundle
from .._core.types import ToolResult
from .clock import Subscription, subscribe
from .closing import close_soon
from .html import text_html
from .keyboard import keyboard_script
from .kit import Kit
from .loop import running_loop
from .progress import ProgressLine
from .prompt import after_answer
from .result_view import result_box, result_text

__all__ = ["CallView"]

#: Seconds a changing count waits before it is drawn: a burst of changes (a hundred requests
#: arriving at once) sends one message instead of a hundred.
DRAW_EVERY = 0.05
#: The layouts and styles every view shares with the prompts (nothing changes them).
_KIT = Kit()


class CallView(widgets.VBox):
    """Shows its forms, "Waiting for SERVER · TOOL (12 s)…" under them while the call waits,
    then the tool's result, labelled as the server's."""

    def __init__(self, server: str, what: str, *, show_waiting: bool = True):
        self.server, self.what = server, what
        self.started = time.monotonic()
        #: The call's timeout clock (``time_left()``, ``paused``), once a call follows it.
        self._clock = None
        # (Classes are given when each widget is made: the frontend gets it whole, in one
        # message. The boxes share the kit's layout. A call that shows only its waiting line
        # makes three models: the view, the line and its layout; the other boxes are made
        # when something is first shown in them.)
        #: The progress line, once the server reports progress.
        self.progress: ProgressLine | None = None
        #: The requests and notice lines shown here, in order (see :attr:`asked`).
        self._asked: tuple[widgets.Widget, ...] = ()
        #: The box that holds them once a task card shows them (see :attr:`asked_box`).
        self._asked_box: widgets.VBox | None = None
        self.status = widgets.HTML(self._waiting_text() if show_waiting else "",
                                   style=_KIT.style(widgets.HTML),
                                   _dom_classes=("nb-elicit-call-status",))
        self._result_box: widgets.VBox | None = None
        #: The view's place on the kernel's clock, while it ticks.
        self._ticker: Subscription | None = None
        #: The call's notices, in order, and its plain lines (see :attr:`lines`).
        self.notices = Notices()
        #: The call's one log, in the order things happened: the requests shown here and the
        #: notices (entries of :attr:`notices`). The live view and the transcript both tell it.
        self._told: list = []
        #: How many of ``_told`` came before the result (or the failure), once there is one:
        #: what comes later is told after it.
        self._result_at: int | None = None
        #: The box of the notices that came after the result, in the live view.
        self._later: widgets.VBox | None = None
        #: The line that shows each notice.
        self._notice_lines: dict[NoticeEntry, widgets.HTML] = {}
        #: Set by whoever displays the view: where the transcript goes when it is frozen.
        self.display_handle = None
        self.frozen = False
        #: Set by whoever displays the view: True where the frontend applies no display update
        #: to an output already shown (Voilà), so that the ended view stays in place, live,
        #: result included, instead of a transcript the page would never draw.
        self.in_place = False
        self._result: ToolResult | None = None
        self._failure: str | None = None
        #: "N more requests from SERVER are waiting", made when the first request waits.
        self._backlog: widgets.HBox | None = None
        self._backlog_text = ""
        self._cancel_backlog = None
        #: Widget updates waiting to be drawn (see _draw_soon), by what they draw.
        self._pending_draws: dict[object, Callable[[], None]] = {}
        #: The card of the task this call runs as (see :meth:`show_task`), if any.
        self.task_card = None
        self._apps: widgets.VBox | None = None  # (see :attr:`apps`)
        self._apps_shown = False
        #: The apps' own keyboard script, while they show (see :meth:`show_app`).
        self._apps_keys = None
        #: Where to display the apps' keyboard script once an app asks something.
        self._apps_keys_later: contextvars.Context | None = None
        self._apps_class = f"nb-elicit-apps-{uuid.uuid4().hex[:12]}"
        #: The line in the apps' place once the last of them ended (see :meth:`app_ended`).
        self.apps_line: str | None = None
        self.css_class = f"nb-elicit-view-{uuid.uuid4().hex[:12]}"
        # The waiting line comes after the forms: when it comes back under an answered form,
        # nothing above the form moves (the call's one clock, in one place).
        super().__init__([self.status], layout=_KIT.plain,
                         _dom_classes=("nb-elicit-call", self.css_class))
        #: The view's second output: its keyboard script, then its apps (see :meth:`show_app`).
        self._script_handle = None
        #: Where and how to display the view once something shows in it (see
        #: :meth:`show_when_needed`).
        self._show_later: tuple[contextvars.Context, bool] | None = None
        #: Where to display the keyboard script with the first form (see :meth:`show`), and
        #: its output when the apps took the second one first.
        self._keyboard_later: contextvars.Context | None = None
        self._keys_handle = None
        #: Whether :meth:`show` asked for the keyboard script (the apps get theirs then too).
        self._keyboard = False
        if show_waiting:
            self._ticker = subscribe(self._tick)

    @property
    def script_handle(self):
        """The display handle of the view's second output (its keyboard script, then its
        apps); None until it shows."""
        return self._script_handle

    def _repr_mimebundle_(self, **kwargs):
        # What a reader without widgets sees for this output (saved notebooks, nbconvert).
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            waiting = self.status.value and self._ticker is not None
            bundle["text/plain"] = f"[{self.server} · {self.what}]" if waiting else ""
        return bundle

    @property
    def asked(self) -> tuple[widgets.Widget, ...]:
        """The requests and notice lines shown here, in order. They sit in the view itself, so
        that a form shows with one message (the view's children); a task card shows them in
        :attr:`asked_box`."""
        return self._asked

    @property
    def asked_box(self) -> widgets.VBox:
        """A box of :attr:`asked`, for a task card to show them in (made when first asked
        for; from then on they are shown there, not in the view itself)."""
        if self._asked_box is None:
            self._asked_box = widgets.VBox(self._asked, layout=_KIT.plain,
                                           _dom_classes=("nb-elicit-asked",))
            self._lay_out()
        return self._asked_box

    def _set_asked(self, asked: tuple[widgets.Widget, ...]) -> None:
        self._asked = asked
        if self._asked_box is not None:
            self._asked_box.children = asked
        else:
            self._lay_out()

    @property
    def result(self) -> widgets.VBox:
        """The box of the tool's result (made when first needed)."""
        if self._result_box is None:
            self._result_box = widgets.VBox(layout=_KIT.plain, _dom_classes=("nb-elicit-result",))
            self._lay_out()
        return self._result_box

    @property
    def apps(self) -> widgets.VBox:
        """The apps shown with this call (made when first needed), in an output of their own
        under the view's, so that they live on when the view is frozen (a layout of their own
        too: the view's is closed with it)."""
        if self._apps is None:
            self._apps = widgets.VBox(_dom_classes=("nb-elicit-apps", self._apps_class))
        return self._apps

    def show(self, keyboard: bool = True, *, in_place: bool = False) -> None:
        """Display the view in the current cell; its keyboard script (see :mod:`.keyboard`)
        follows in the same cell with the first form or card shown in it: a call that shows none
        leaves no script output, which freezing would only empty. ``in_place``: see
        :attr:`in_place`; the script then follows at once, since such a page (Voilà) draws only
        what a cell displayed while it ran, and a form of ``start_tool`` comes after."""
        self._show_later = None
        self.in_place = in_place
        self.display_handle = display(self, display_id=True)
        self._keyboard = keyboard
        if keyboard:
            self._keyboard_later = contextvars.copy_context()
            if in_place:  # (and no transcript will take the view's place: nothing to empty)
                self._keyboard_now()

    def _keyboard_now(self) -> None:
        """Display the keyboard script, once, if :meth:`show` asked for it: in the view's
        second output, or, when the call's apps hold that one already, in one of its own."""
        context, self._keyboard_later = self._keyboard_later, None
        if context is None or self.frozen:
            return
        handle = context.run(display, Javascript(keyboard_script(self.css_class)),
                             display_id=True)
        if self._script_handle is None:
            self._script_handle = handle
        else:
            self._keys_handle = handle

    def show_when_needed(self, keyboard: bool = True, *, in_place: bool = False) -> None:
        """:meth:`show`, in the cell that runs now, but only once something shows in the view (a
        form, a notice, a failure line). A request that shows nothing (a listing, a request
        answered without a person) then leaves nothing in its cell: no output that would be
        replaced by an empty one a moment later (saved as such), and no view the page is still
        drawing when it is taken away (JupyterLab then logs "Could not add child view to box").
        """
        if self.display_handle is None:
            self._show_later = (contextvars.copy_context(), keyboard, in_place)

    def _show_now(self) -> None:
        """Display the view now if it waits for something to show (see
        :meth:`show_when_needed`), in the cell it was made in."""
        later, self._show_later = self._show_later, None
        if later is not None and self.display_handle is None and not self.frozen:
            context, keyboard, in_place = later
            context.run(functools.partial(self.show, keyboard, in_place=in_place))

    def add_form(self, form: widgets.Widget) -> None:
        form.on_late_change(self._late_change)
        self._told.append(form)
        self._set_asked((*self._asked, form))
        self._keyboard_now()
        form.show_waited(*self._timeout(), clock=not self._task_following())
        self._waiting_again()  # (hides the waiting line: the form has the one timer)
        with contextlib.suppress(RuntimeError):  # (no running loop: the next tick will do)
            loop = asyncio.get_running_loop()

            def answered(_answer) -> None:  # (from any thread) the line comes back, once
                with contextlib.suppress(RuntimeError):  # the answer has left; loop closed?
                    loop.call_soon_threadsafe(after_answer, self._waiting_again)

            form.answer.add_done_callback(answered)
        if self._ticker is None and not self.frozen:
            self._ticker = subscribe(self._tick)

    def show_task(self, card: widgets.Widget) -> None:
        """The call runs as a task: its card takes the forms' place, and the questions asked
        inside the task show inside the card."""
        self.task_card = card
        card.show_asked(self)
        self._lay_out()
        self._waiting_again()  # (hides the waiting line: the card has the one clock)

    def told_count(self) -> int:
        """How many of the call's requests and notices were told before now, and before its
        result: where a line that comes now goes among them (a task card's, see
        :meth:`transcript`)."""
        return len(self._told) if self._result_at is None else self._result_at

    def open_messages(self) -> list[str]:
        """The messages of the requests shown here that wait for an answer."""
        return [prompt.message for prompt in self._prompts() if not prompt.answer.done()]

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
            asked = (self._asked_box,) if self._asked_box is not None else self._asked
        self.children = tuple(part for part in (
            self.progress, *asked, self.status, self._backlog, self._result_box, self._later)
            if part is not None)
        self._show_now()

    @property
    def later(self) -> widgets.VBox:
        """The box of the notices that came after the result (made when first needed)."""
        if self._later is None:
            self._later = widgets.VBox(layout=_KIT.plain, _dom_classes=("nb-elicit-later",))
            self._lay_out()
        return self._later

    def show_app(self, box: widgets.Widget) -> NoticeEntry:
        """An app of the call's tool, shown under the view, in the view's second output (where
        the keyboard script was: it has run). It never moves: freezing the view replaces the
        view's own output alone, so the app is loaded once and lives on until
        :meth:`app_ended`. (A widget output updated to another widget would not do: JupyterLab
        draws the new one in the old one's place and hides both when the old one is closed.)
        Returns the call's line that says the app is shown, which says why it ended, later
        (its ``tag`` names it in the transcript: see :meth:`app_ended`)."""
        shown = self.notice(t("app_shown", server=self.server, what=self.what), NoticeKind.INFO,
                            tag=f"nb-elicit-app-line-{uuid.uuid4().hex[:12]}")
        self.apps.children = (*self.apps.children, box)
        if self._apps_shown or self.display_handle is None:
            return shown  # (a view never displayed has nowhere to show it)
        self._apps_shown = True
        if self._script_handle is not None:
            self._script_handle.update(_Apps(self.apps))
        else:
            self._script_handle = display(_Apps(self.apps), display_id=True)
        if self._keyboard:
            # The apps' own keyboard script, rooted at their box, in this cell once an app asks
            # something (see apps_ask): its forms and cards may come after the call ended, its
            # view frozen, and the view's script never shown (it comes with the view's first
            # form). An app that asks nothing leaves no script output, which would be emptied.
            self._apps_keys_later = contextvars.copy_context()
        return shown

    def apps_ask(self) -> None:
        """An app of this call asks the person something (a form, a consent card): display the
        apps' keyboard script, once, in the call's cell, so that its first field takes the
        focus and the keyboard goes back to the notebook once it is answered."""
        context, self._apps_keys_later = self._apps_keys_later, None
        if context is not None and self._apps_keys is None and self._apps_shown:
            self._apps_keys = context.run(
                display, Javascript(keyboard_script(self._apps_class)), display_id=True)

    def app_ended(self, box: widgets.Widget, reason: str = "",
                  shown: NoticeEntry | None = None) -> None:
        """The app in ``box`` ended (its connection closed, apps off, the cap, its own request,
        its frame gone): ``shown``, the call's line that said it is shown (see
        :meth:`show_app`), says ``reason`` instead, in its place in the call's log; the app's
        widgets close. The apps' output of this page is emptied once no app lives in it: the
        log says why. For the pages that do not hear the update (a reloaded one: it has no
        display ids), the output's widget keeps one line in the app's place, ``reason``
        (`apps_line`), and hides the transcript's line that said the app is shown (by its tag:
        the transcript there is the one the page had, and would say it still is); with no
        reason, the place is left empty."""
        self.apps_line = reason or None
        if shown is not None and reason:
            self.update_notice(shown, reason)
        line = ()
        if reason:
            tag = shown.tag if shown is not None else ""
            hide = f"<style>.{tag} {{ display: none; }}</style>" if tag else ""
            ended = widgets.HTML(hide + notice_html(reason, NoticeKind.INFO),
                                 _dom_classes=("nb-elicit-notice", "nb-elicit-notice-info",
                                               "nb-elicit-app-ended"))
            ended.ended = True
            line = (ended,)
        self.apps.children = tuple(c for child in self.apps.children
                                   for c in ((child,) if child is not box else line))
        close_soon(box)
        if any(not getattr(child, "ended", False) for child in self.apps.children):
            return  # (another app lives here)
        if self._apps_shown and self._script_handle is not None:
            self._script_handle.update(_Static(None))
        if self._apps_keys is not None:
            self._apps_keys.update(_Static(None))
            self._apps_keys = None
        self._apps_keys_later = None
        self._apps_shown = False
        if self.frozen and not self.apps.children:
            close_soon(self.apps)

    def drop_answered(self, keep: int) -> None:
        """Of the requests answered here, the newest ``keep`` stay and the others leave and
        close (for a view that outlives its requests: the one of an app's requests)."""
        answered = [c for c in self._prompts() if c.answer.done()]
        self.drop(answered[:max(0, len(answered) - keep)])

    def drop(self, prompts: list) -> None:
        """The answered requests ``prompts`` leave the view (told elsewhere, or no longer
        needed) and close."""
        gone = {id(c) for c in prompts if c.answer.done()}
        if not gone:
            return
        self._set_asked(tuple(c for c in self._asked if id(c) not in gone))
        kept = [c for c in self._told if id(c) not in gone]
        if self._result_at is not None:
            self._result_at -= sum(1 for c in self._told[:self._result_at] if id(c) in gone)
        self._told = kept
        for prompt in prompts:
            if id(prompt) in gone:
                close_soon(prompt)

    def show_backlog(self, server: str, count: int, cancel_all) -> widgets.HBox | None:
        """How many more requests of ``server`` wait to be shown (0: none; the line hides),
        with a button that cancels them all (``cancel_all()``, safe from any thread). Returns
        the line, once it exists."""
        if self.frozen:
            return None
        self._cancel_backlog = cancel_all
        if self._backlog is None:
            if not count:
                return None
            button = widgets.Button(description=t("cancel_waiting"),
                                    tooltip=t("cancel_waiting.tip"),
                                    _dom_classes=("nb-elicit-cancel-waiting",))
            button.on_click(lambda _: self._cancel_backlog and self._cancel_backlog())
            line = widgets.HTML(_dom_classes=("nb-elicit-backlog-text",))
            self._backlog = widgets.HBox([line, button], _dom_classes=("nb-elicit-backlog",))
            self._lay_out()
        self._backlog_text = (t("backlog_one", server=server) if count == 1 else
                              t("backlog_many", n=count, server=server)) if count else ""
        self._draw_soon("backlog", self._draw_backlog)
        return self._backlog

    def _draw_backlog(self) -> None:
        text = self._backlog_text
        self._backlog.children[0].value = text_html(text) if text else ""
        self._backlog.layout.display = None if text else "none"

    @property
    def backlog_text(self) -> str:
        """The waiting line's text ("" when nothing waits), for tests and plain-text runs."""
        return self._backlog_text

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
        entry, new = self.notices.add(text, kind, asked, tag)
        if new:
            line = widgets.HTML(self._notice_html(entry), _dom_classes=(
                f"nb-elicit-notice-{entry.kind}", "nb-elicit-notice"))
            line.notice = entry  # (what the transcript tells of it)
            self._notice_lines[entry] = line
            self._told.append(entry)
            if self._result_at is None:
                self._set_asked((*self._asked, line))
            elif not self.frozen:  # (told after the result, where it came)
                self.later.children = (*self.later.children, line)
        else:
            self._draw_soon(entry, self._draw_notice(entry))
        self._tell_again()
        return entry

    def update_notice(self, entry: NoticeEntry, text: str) -> None:
        """Say something new in a notice already shown (a count that grew)."""
        self.notices.update(entry, text)
        self._draw_soon(entry, self._draw_notice(entry))
        self._tell_again()

    def _tell_again(self) -> None:
        """A frozen view's transcript is drawn again (something was added to its log: an app's
        line, long after the call returned)."""
        if self.frozen and self.display_handle is not None:
            self.display_handle.update(_Static(self.transcript()))

    def _draw_notice(self, entry: NoticeEntry) -> Callable[[], None]:
        def draw() -> None:
            self._notice_lines[entry].value = self._notice_html(entry)
        return draw

    @staticmethod
    def _notice_html(entry: NoticeEntry) -> str:
        """A notice's line; one that tells a page the person agreed to open (a card answered
        elsewhere, which has left) is the request as the transcript tells it, with its link."""
        asked = entry.asked
        if isinstance(asked, Asked) and asked.consented_host:
            return item_html(asked)
        return notice_html(entry.text, entry.kind)

    @property
    def lines(self) -> list[str]:
        """The notices and outcome lines as plain text, for runs that show no widgets (those
        not taken yet, see :meth:`take_lines`)."""
        return self.notices.lines

    def take_lines(self) -> list[str]:
        """The plain lines not taken yet; they are not given again."""
        return self.notices.take_lines()

    def _draw_soon(self, key: object, draw: Callable[[], None]) -> None:
        """Run ``draw`` (a widget update) :data:`DRAW_EVERY` seconds from the first change not
        yet drawn, once for each ``key``, with what is true then; at once without a running
        event loop. What the transcript and the plain text say changes at once."""
        loop = running_loop()
        if loop is None:
            draw()
            return
        if not self._pending_draws:
            # Background work: UI only: the view's next draw; a frozen view draws nothing.
            loop.call_later(DRAW_EVERY, self._draw_pending)
        self._pending_draws[key] = draw

    def _draw_pending(self) -> None:
        pending, self._pending_draws = self._pending_draws, {}
        if not self.frozen:  # (a frozen view is no longer shown)
            for draw in pending.values():
                draw()

    def show_result(self, result: ToolResult, *, render: bool = True) -> None:
        """The tool's result, under the forms. ``render=False`` keeps it for the transcript
        and the plain text alone, for a view about to be frozen (see :meth:`can_freeze`):
        widgets made for it would be closed in the same turn, unseen."""
        self._stop_ticking()
        self._result = result
        self._mark_result()
        if self.progress is not None and not result.is_error:
            self.progress.done()
        self.notices.say(result_text(self.server, self.what, result))
        if not render:
            return
        self.status.value = ""
        self.status.layout.display = "none"
        self.result.children = (result_box(self.server, self.what, result),)

    def show_failure(self, text: str) -> None:
        self._stop_ticking()
        self._failure = text
        self._mark_result()
        self.notices.say(text)
        self.status.value = text_html(text, "nb-elicit-failure")
        self.status.layout.display = None  # (the waiting line may be hidden behind a form)
        self.status.add_class("nb-elicit-failed")
        self._show_now()

    def _mark_result(self) -> None:
        if self._result_at is None:
            self._result_at = len(self._told)

    def finish(self) -> None:
        """Stop the clock (a call without a displayed result, such as list_tools)."""
        self._stop_ticking()
        if self.status.value and self._failure is None:
            self.status.value = ""
            self.status.layout.display = "none"

    # -- the transcript -----------------------------------------------------------------

    def can_freeze(self) -> bool:
        """Whether :meth:`freeze` would now put the transcript in the view's place: the view
        is shown, and no request shown here is still open."""
        return (self.display_handle is not None and not self.in_place
                and not self._open_prompts())

    def freeze(self) -> bool:
        """Replace the live view by its transcript and close every widget model in it.

        Waits (returns False) while a request shown here is still open: a handshake-era request
        may show under a call that has already ended. The transcript takes the view's place at
        once; the models, no longer shown, are closed a few at a time over the next turns of
        the event loop (:func:`close_soon`): a view that held a flood of answered forms has
        thousands, and closing them all in one turn would keep the kernel from everything else
        for a good part of a second. The call's apps are not in the view (see
        :meth:`show_app`): they stay as they are.
        """
        if self.frozen:
            return True
        if self._open_prompts():
            return False
        self._draw_pending()  # (the widgets end as they would have been shown)
        self._stop_ticking()
        self._keyboard_later = None
        if self.in_place:  # (the page would not draw a transcript: the view stays, ended)
            return True
        self.frozen = True
        if self.display_handle is not None:
            shown = (self._asked
                     or self._result is not None or self._failure is not None
                     or self.task_card is not None)
            self.display_handle.update(_Static(self.transcript() if shown else None))
        if self._apps is None or not self._apps.children:  # (apps live on, in their own
            if self._script_handle is not None:            # output, until app_ended)
                self._script_handle.update(_Static(None))
            if self._apps is not None:
                close_soon(self._apps)
        if self._keys_handle is not None:
            self._keys_handle.update(_Static(None))
        close_soon(self)
        return True

    def _late_change(self) -> bool:
        """A request shown here changed after its answer (a URL page reported done): once the
        view is frozen, its transcript is drawn again. True if the transcript took it."""
        if not self.frozen:
            return False
        if self.display_handle is not None:
            self.display_handle.update(_Static(self.transcript()))
        return True

    def freeze_when_answered(self) -> None:
        """:meth:`freeze` now, or as soon as the last request shown here is answered."""
        if self.freeze():
            return
        loop = asyncio.get_running_loop()

        def later(_answer) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(self.freeze)

        for prompt in self._prompts():
            prompt.answer.add_done_callback(later)

    def transcript(self) -> Transcript:
        items = [told.item if isinstance(told, NoticeEntry) else told.outcome()
                 for told in self._told]
        result = None
        if self._result is not None:
            result = {"content": self._result.content, "structured": self._result.structured,
                      "is_error": self._result.is_error}
        marked = self.task_card.transcript_marked() if self.task_card is not None else []
        task = tuple(line for _, line in marked)
        marks = tuple(min(shown, len(items)) for shown, _ in marked)
        return Transcript(self.server, self.what, items, result, self._failure, task, marks,
                          self._result_at)

    def _prompts(self) -> list:
        return [c for c in self._asked if hasattr(c, "answer")]

    def _open_prompts(self) -> bool:
        return any(not prompt.answer.done() for prompt in self._prompts())

    def follow(self, clock) -> None:
        """Show the time left of ``clock`` (a call: ``time_left()`` and ``paused``)."""
        self._clock = clock

    def _timeout(self) -> tuple[float | None, bool]:
        """Seconds left before the call's timeout (None: none), and whether it is paused."""
        if self._clock is None:
            return None, False
        return self._clock.time_left(), self._clock.paused

    def _waiting_again(self) -> None:
        if self.status.value and self._failure is None and self._ticker is not None:
            self._show_waiting()
        if self.task_card is not None:  # (a question opened or was answered)
            self.task_card.asked_changed()

    def _show_waiting(self) -> None:
        """The waiting line, "Waiting for SERVER · TOOL (12 s)…". While a request of this call
        is open it hides: the open form shows the one timer (how long it has waited, and that
        the timeout is paused), so two clocks never disagree; so does it while the call's task
        card follows its task (the card has the clock). Hidden, it is not redrawn."""
        hidden = (any(not prompt.answer.done() for prompt in self._prompts())
                  or self._task_following())
        self.status.layout.display = "none" if hidden else None
        if not hidden or not self.status.value:
            self.status.value = self._waiting_text()

    def _waiting_text(self) -> str:
        left, paused = self._timeout()
        left = ("" if left is None else ", " + t("timeout_paused") if paused else
                t("left_suffix", time=duration(max(0.0, left))))
        return text_html(t("waiting_call", server=self.server, what=self.what,
                           elapsed=duration(time.monotonic() - self.started), left=left))

    def _tick(self) -> None:
        """Once a second, on the kernel's clock: the waiting line and the open forms' timers."""
        if self.status.value and self._failure is None:
            self._show_waiting()
        clock = not self._task_following()
        for prompt in self._prompts():
            if not prompt.answer.done():
                prompt.show_waited(*self._timeout(), clock=clock)

    def _stop_ticking(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None


class _Static:
    """A display bundle with no widgets in it (or nothing at all)."""

    def __init__(self, transcript: Transcript | None):
        self.bundle = ({"text/plain": ""} if transcript is None else
                       transcript_bundle(transcript))

    def _repr_mimebundle_(self, **kwargs):
        return self.bundle


class _Apps:
    """A call's live apps: the widget where one shows widgets, and nothing for every other
    reader of the output (the view's transcript says that an app was shown)."""

    def __init__(self, apps: widgets.VBox):
        self.bundle = {
            "application/vnd.jupyter.widget-view+json": {
                "version_major": 2, "version_minor": 0, "model_id": apps.model_id},
            "text/plain": ""}

    def _repr_mimebundle_(self, **kwargs):
        return self.bundle
