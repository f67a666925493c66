"""The elicitation form: a container widget built from a requestedSchema.

    form = ElicitationForm("Your GitHub username?", schema, server="github")
    display(form)
    answer = await form.wait()      # Answer(action="accept", content={"name": "octocat"})

The form answers exactly once. Submit validates first and sends nothing while any field has a
problem. What Submit (or Enter) sends is what the fields show when it is pressed, however fast
they were typed: see :data:`SETTLE`. Decline and Dismiss (✕) answer ``decline`` and
``cancel``. After any of them the form locks and says what happened. What it shares with the
URL consent card (the answer future, safe to resolve from any thread, and ``wait``) is in
:mod:`nb_elicit._ui.prompt`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.i18n import t
from .._core.records.transcript import shown_fields
from .._core.schema.fields import FormSpec, parse_schema
from .._core.schema.prefill import is_given, prefilled
from .._core.schema.validate import validate_spec
from .._core.secrets.fields import secret_fields
from .controls import MISSING, FieldControl, make_control
from .html import text_html
from .loop import running_loop
from .prompt import PromptWidget, make_button

__all__ = ["SETTLE", "SETTLE_MOST", "ElicitationForm"]

#: Seconds Submit and Enter wait, after a field's last change, for changes still on their way.
#: A widget manager sends a field's next change only once the kernel took the one before (one
#: message in flight per widget), while Enter and a click go at once: typed at a few ms a key,
#: "octocat" then Enter reached the kernel as "oct", submit, "octocat". A Submit or Enter that
#: comes within this time of a field's change is taken once no field changed for this long
#: (a round trip to the page and back), so what is sent is what the page showed. Changes made
#: from Python (tests, a respond policy's preview) are no such message: they do not wait.
SETTLE = 0.3
#: The longest Submit or Enter waits so (a field that keeps changing).
SETTLE_MOST = 2.0


class ElicitationForm(PromptWidget):
    """An inline form for one elicitation, answered with Submit, Decline or Dismiss (✕).

    ``message``, ``server`` and everything in ``requested_schema`` come from an MCP server and
    are shown as plain text. Raises :class:`SchemaError` for a schema outside the subset.

    A field that asks for a secret (password, API key, card number, ...; see
    :mod:`nb_elicit._core.secrets.names`) gets masked input and no prefilled value, and the form
    warns at the top, naming it. Every other field keeps its default.
    """

    def __init__(self, message: str, requested_schema: dict[str, Any], *,
                 server: str = "MCP server", **kwargs: object):
        self.spec: FormSpec = parse_schema(requested_schema)
        super().__init__(message, server, t("asks", server=server), **kwargs)
        #: Names of the fields that ask for a secret: masked, and never prefilled.
        self.secret_fields = secret_fields(self.spec)
        self.controls: dict[str, FieldControl] = {}
        kit = self.kit
        shown = prefilled(self.spec)
        for field in self.spec:
            if field.default is not None and field.name not in shown:
                field = dataclasses.replace(field, default=None)
            control = make_control(field, kit)
            control.on_change(self._field_changed)
            self.controls[field.name] = control
        for control in self.controls.values():
            if isinstance(control.widget, widgets.Text):
                control.widget.on_msg(self._on_text_event)

        self.submit_button = make_button(t("submit"), ("nb-elicit-submit", "nb-elicit-action"),
                                         t("submit.tip"), style="primary", kit=kit)
        self.submit_button.on_click(lambda _: self._submit_settled())
        #: When a field last changed (see :data:`SETTLE`).
        self._changed_at = float("-inf")
        # Submit and Decline are the form's own children, side by side: the stylesheet lays
        # the form's children in a wrapping row, each a line of its own but these two (no box
        # around them: one widget model fewer).
        self._warning = self._secret_warning() if self.secret_fields else None
        self.add_class("nb-elicit-form")
        self.body(self._fields_and_actions())
        for control in self.controls.values():
            control.on_parts_change(self._parts_changed)

    def plain_text(self) -> str:
        return f"[form from {self.server}: {self.message}]"

    # -- the answer ---------------------------------------------------------------------------

    def submit(self) -> bool:
        """Validate, then accept with the content; return False (and show why) if invalid."""
        with self._lock:
            if self.answer.done():
                return False
            content, problems = self._collect()
            for name, control in self.controls.items():
                control.show_error(problems.get(name))
            if problems:
                self._count_problems()
                # the keyboard goes where the first problem is, not stays on Submit
                first = next((c for n, c in self.controls.items() if n in problems), None)
                if first is not None:
                    first.focus()
                return False
            self._finish(Answer("accept", content))
            return True

    @property
    def content(self) -> dict[str, Any]:
        """What Submit would send now (unvalidated), for previews and tests."""
        return self._collect()[0]

    # -- internals ------------------------------------------------------------------------------

    def _submit_settled(self, asked_at: float | None = None) -> None:
        """Submit (a click, or Enter) once no field changed for :data:`SETTLE`: at once when
        none did lately, else a moment later, with what the fields then hold."""
        now = time.monotonic()
        asked_at = now if asked_at is None else asked_at
        quiet = now - self._changed_at
        loop = running_loop()
        if quiet >= SETTLE or now - asked_at >= SETTLE_MOST or loop is None:
            self._guarded(self.submit)
            return
        # Background work: UI only: this submit, a moment later, on this loop.
        loop.call_later(SETTLE - quiet, self._submit_settled, asked_at)

    def _field_changed(self, control: FieldControl) -> None:
        """A field that shows a problem is checked again as it changes: its error goes once it
        is fixed (or says what is still wrong), and the status line counts what is left."""
        if control.widget._property_lock:  # (a change the page sent: more may follow it)
            self._changed_at = time.monotonic()
        with self._lock:
            if self.answer.done() or control.error_text is None:
                return
            problems = self._collect()[1]
            control.show_error(problems.get(control.field.name))
            self._count_problems()

    def _count_problems(self) -> None:
        """The status line: how many fields still show a problem (empty when none does)."""
        count = sum(1 for c in self.controls.values() if c.error_text is not None)
        self._set_status(t("fix_fields", n=count, s="s" if count > 1 else "") if count else "",
                         error=bool(count))

    def _fields_and_actions(self) -> list[widgets.Widget]:
        """What the form shows under its header: the fields' widgets, then its buttons."""
        fields = [part for control in self.controls.values() for part in control.parts]
        return [*([self._warning] if self._warning else []), *fields, self.submit_button,
                self.decline_button, self.status]

    def _parts_changed(self) -> None:
        # A field's error line was made: it goes under the field (one children update).
        self.children = self.head_children() + self._fields_and_actions()

    def _secret_warning(self) -> widgets.HTML:
        labels = ", ".join(self.spec.field(n).label for n in self.secret_fields)
        text = t("secret_warning", labels=labels)
        return self.html(f'<div style="color: var(--jp-warn-color0)">{text_html(text)}</div>',
                         "nb-elicit-secret-warning")

    def _buttons(self) -> list[widgets.Button]:
        return [self.submit_button, *super()._buttons()]

    def _shown_fields(self, answer: Answer | None) -> tuple[tuple[str, ...], ...]:
        return shown_fields(self.spec, answer.content if answer else None)

    def _lock_body(self) -> None:
        for control in self.controls.values():
            control.lock()

    def _collect(self) -> tuple[dict[str, Any], dict[str, str]]:
        content: dict[str, Any] = {}
        problems: dict[str, str] = {}
        for name, control in self.controls.items():
            try:
                value = control.read()
            except ValueError as exc:  # text that is no value of the field: it says why
                problems[name] = str(exc)
                continue
            except ArithmeticError:  # (a number no check foresaw: a problem of the field)
                problems[name] = t("v_not_allowed")
                continue
            if value is not MISSING and is_given(control.field, value):
                content[name] = value
        for name, problem in validate_spec(self.spec, content).items():
            problems.setdefault(name, problem)
        return content, problems

    def _on_text_event(self, _widget: object, content: object, _buffers: object) -> None:
        # Enter in a single-line text box submits the form.
        if isinstance(content, dict) and content.get("event") == "submit":
            self._submit_settled()
