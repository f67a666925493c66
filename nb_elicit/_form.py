"""The elicitation form: a container widget built from a requestedSchema.

    form = ElicitationForm("Your GitHub username?", schema, server="github")
    display(form)
    answer = await form.wait()      # Answer(action="accept", content={"name": "octocat"})

The form answers exactly once. Submit validates first and sends nothing while any field has a
problem; Decline and Dismiss (✕) answer ``decline`` and ``cancel``. After any of them the form
locks and says what happened. Clicks may be handled on any thread (ipykernel can dispatch widget
messages on a subshell thread), so the answer is a :class:`concurrent.futures.Future`, which is
safe to resolve from anywhere, and :meth:`wait` wraps it for the caller's event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import traceback

import ipywidgets as widgets

from ._answer import Answer
from ._controls import MISSING, FieldControl, make_control, text_html
from ._schema import FormSpec, parse_schema
from ._validate import validate_spec

__all__ = ["ElicitationForm"]

_OUTCOMES = {
    "accept": "Submitted.",
    "decline": "Declined.",
    "cancel": "Dismissed.",
}


class ElicitationForm(widgets.VBox):
    """An inline form for one elicitation, answered with Submit, Decline or Dismiss (✕).

    ``message``, ``server`` and everything in ``requested_schema`` come from an MCP server and
    are shown as plain text. Raises :class:`SchemaError` for a schema outside the subset.
    """

    def __init__(self, message: str, requested_schema: dict, *, server: str = "MCP server",
                 **kwargs):
        self.spec: FormSpec = parse_schema(requested_schema)
        self.message = message
        self.server = server
        self.answer: concurrent.futures.Future[Answer] = concurrent.futures.Future()
        #: Who answered: "person", or what answered for them ("policy", "interrupt", ...).
        self.answered_by = "person"
        self._lock = threading.Lock()
        self.controls: dict[str, FieldControl] = {}
        for field in self.spec:
            control = make_control(field)
            control.on_change(lambda c: c.show_error(None))
            self.controls[field.name] = control
        for control in self.controls.values():
            if isinstance(control.widget, widgets.Text):
                control.widget.on_msg(self._on_text_event)

        self.submit_button = _button("Submit", "nb-elicit-submit", "Send these answers",
                                     style="primary")
        self.decline_button = _button("Decline", "nb-elicit-decline", "Say no to this request")
        self.dismiss_button = _button("✕", "nb-elicit-dismiss", "Dismiss")
        self.dismiss_button.layout = widgets.Layout(width="2.5em")
        self.submit_button.on_click(lambda _: self._guarded(self.submit))
        self.decline_button.on_click(lambda _: self._guarded(self.decline))
        self.dismiss_button.on_click(lambda _: self._guarded(self.dismiss))
        self.status = widgets.HTML()
        self.status.add_class("nb-elicit-status")

        asker = widgets.HTML(text_html(f"{server} asks:", "nb-elicit-server"))
        asker.add_class("nb-elicit-header")
        header = widgets.HBox([asker, self.dismiss_button],
                              layout=widgets.Layout(justify_content="space-between"))
        message_line = widgets.HTML(text_html(message, "nb-elicit-message-text"))
        message_line.add_class("nb-elicit-message")
        buttons = widgets.HBox([self.submit_button, self.decline_button])
        children = [header, message_line, *(c.view for c in self.controls.values()),
                    buttons, self.status]
        super().__init__(children, **kwargs)
        self.add_class("nb-elicit-form")

    def _repr_mimebundle_(self, **kwargs):
        # What a reader without widgets sees for this output (saved notebooks, nbconvert).
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = f"[form from {self.server}: {self.message}]"
        return bundle

    # -- the three answers ------------------------------------------------------------------

    def submit(self) -> bool:
        """Validate, then accept with the content; return False (and show why) if invalid."""
        with self._lock:
            if self.answer.done():
                return False
            content, problems = self._collect()
            for name, control in self.controls.items():
                control.show_error(problems.get(name))
            if problems:
                count = len(problems)
                self._set_status(f"Please fix {count} field{'s' if count > 1 else ''}; "
                                 "nothing was sent.")
                return False
            self._finish(Answer("accept", content))
            return True

    def decline(self) -> bool:
        """Answer ``decline``: the person explicitly said no."""
        return self._answer_without_content("decline")

    def dismiss(self) -> bool:
        """Answer ``cancel``: the person closed the form without choosing."""
        return self._answer_without_content("cancel")

    def abandon(self, reason: str) -> bool:
        """Close the form without an answer (the request is gone), showing ``reason``."""
        with self._lock:
            if self.answer.done():
                return False
            self._lock_controls()
            self._set_status(reason)
            self.answer.cancel()
            return True

    async def wait(self) -> Answer:
        """Wait, on the running event loop, for the person's answer.

        Cancelling the wait leaves the form as it is (unlike ``asyncio.wrap_future``, which
        would cancel the answer too): whoever cancels decides what the form shows.
        """
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()

        def transfer(answer: concurrent.futures.Future) -> None:
            if waiter.done():
                return
            if answer.cancelled():
                waiter.cancel()
            elif answer.exception() is not None:
                waiter.set_exception(answer.exception())
            else:
                waiter.set_result(answer.result())

        def wake(answer: concurrent.futures.Future) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(transfer, answer)

        self.answer.add_done_callback(wake)
        return await waiter

    @property
    def content(self) -> dict:
        """What Submit would send now (unvalidated), for previews and tests."""
        return self._collect()[0]

    # -- internals --------------------------------------------------------------------------

    def _answer_without_content(self, action: str) -> bool:
        with self._lock:
            if self.answer.done():
                return False
            self._finish(Answer(action))
            return True

    def _collect(self) -> tuple[dict, dict[str, str]]:
        content, problems = {}, {}
        for name, control in self.controls.items():
            try:
                value = control.read()
            except ValueError as exc:
                problems[name] = str(exc)
                continue
            if value is not MISSING:
                content[name] = value
        for name, problem in validate_spec(self.spec, content).items():
            problems.setdefault(name, problem)
        return content, problems

    def _finish(self, answer: Answer) -> None:
        self._lock_controls()
        self._set_status(_OUTCOMES[answer.action])
        self.answer.set_result(answer)

    def _lock_controls(self) -> None:
        for control in self.controls.values():
            control.lock()
        for button in (self.submit_button, self.decline_button, self.dismiss_button):
            button.disabled = True
        self.add_class("nb-elicit-locked")

    def _set_status(self, text: str) -> None:
        self.status.value = text_html(text)

    def _on_text_event(self, _widget, content, _buffers) -> None:
        # Enter in a single-line text box submits the form.
        if isinstance(content, dict) and content.get("event") == "submit":
            self._guarded(self.submit)

    def _guarded(self, action) -> None:
        """Run a click handler; a bug in it fails this form's answer instead of the comm."""
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - reported on the form and to the caller
            with self._lock:
                if not self.answer.done():
                    self._lock_controls()
                    self._set_status(f"nb_elicit failed: {exc!r}")
                    self.answer.set_exception(exc)
            traceback.print_exc()


def _button(label: str, css_class: str, tooltip: str, style: str = "") -> widgets.Button:
    button = widgets.Button(description=label, tooltip=tooltip, button_style=style)
    button.add_class(css_class)
    return button
