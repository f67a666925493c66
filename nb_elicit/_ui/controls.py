"""One ipywidgets control per field kind, each with one way to read what the person entered.

``make_control(field)`` picks the control by a dispatch cascade (first match wins). Every control
reads back either a typed value or :data:`MISSING`, which means "the person gave nothing here":
an empty text box, an untouched optional checkbox, a select with nothing chosen. Missing optional
fields are left out of the answer; nothing invents ``0``, ``false`` or ``null``.

Everything a server wrote (titles, descriptions, option labels) is shown as text: a field's
label and hint are escaped into its control's ``description`` (:func:`label_html`, kept away
from the math typesetter), option labels render as text in ipywidgets 8, and help and error
lines go through :func:`text_html`, which escapes them. Most fields are one widget model:
their input, labelled by its own description.
"""

from __future__ import annotations

import enum
import html
from collections.abc import Callable
from typing import Any, ClassVar

import ipywidgets as widgets

from .._core.i18n import t
from .._core.schema.fields import (
    BooleanField,
    ChoiceField,
    Field,
    MultiChoiceField,
    NumberField,
    TextField,
)
from .._core.schema.formats import parse_date, parse_date_time
from .._core.schema.validate import read_number
from .._core.secrets.fields import is_secret
from .._core.text import visible
from .html import NO_MATH, field_class, inline_text, text_html
from .kit import Kit, synced_keys

__all__ = ["MISSING", "FieldControl", "Missing", "field_classes", "input_widget", "label_html",
           "labelled_input", "legend_html", "make_control", "named"]



class Missing(enum.Enum):
    """The type of :data:`MISSING`: one value, falsy, that no field can hold."""

    MISSING = "MISSING"

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MISSING"


#: "The person gave nothing here": what a control reads back when it has no value.
MISSING = Missing.MISSING

def _mark(required: bool) -> str:
    """The required mark after a label: a star to see and "(required)" for screen readers
    (hidden from sight by the prompt's stylesheet)."""
    if not required:
        return ""
    return ('<span class="nb-elicit-mark" aria-hidden="true"> *</span>'
            f'<span class="nb-elicit-sr">{html.escape(t("required_sr"))}</span>')


def label_html(field: Field, error: str | None = None) -> str:
    """A field's label as one ``description``: its title with the required mark, then its
    hint and its problem (``error``), each on a line of its own, right above the input. It is
    the ``<label>`` of text boxes, pickers and lists, so their accessible name is "Title
    (required) hint problem": a failed Submit moves the focus to the first field with a
    problem, which reads it out, and the status line (a polite live region) counts them.
    (The frontend's sanitizer keeps no ``role`` in a description.)"""
    text = (f'<span class="nb-elicit-label-text {NO_MATH}">{inline_text(field.label)}</span>'
            f"{_mark(field.required)}")
    if field.description:
        text += (f'<span class="nb-elicit-help-text {NO_MATH}">'
                 f"{inline_text(field.description)}</span>")
    if error:
        text += (f'<span class="nb-elicit-error-text {NO_MATH}">'
                 f"{inline_text(error)}</span>")
    return text


def named(field: Field) -> str:
    """A field's accessible name as plain text: its label, plus "(required)" when it is
    required (a checkbox's own label)."""
    return field.label + (t("required_sr") if field.required else "")


class FieldControl:
    """A field's input widget, which is all the form shows of most fields: one widget model.

    Text boxes, pickers, lists and Yes/No buttons show the field's label (title, required
    mark, hint and, once there is one, its problem) as their own ``description``, above the
    input (the prompt's stylesheet puts it there); a group of checkboxes has it as the legend
    line inside its box. Showing a problem changes that one description: no widget is added,
    so nothing the person typed elsewhere in the form is drawn anew. A checkbox has its label
    beside the box and its hint, if any, on a line under it. ``parts`` are the widgets the
    form shows for the field, in order; a field without a label of HTML (a checkbox) gets an
    error line on its first problem, and the form is told (``on_parts_change``) so that it
    shows it under the field.
    """

    def __init__(self, field: Field, widget: widgets.Widget, kit: Kit, *,
                 parts: list[widgets.Widget] | None = None):
        self.field = field
        self.widget = widget
        self.touched = False
        self._kit = kit
        self._error: widgets.HTML | None = None  # made when there is a first problem to show
        #: The widgets the form shows for this field, in order (the first carries the field's
        #: classes: see :func:`field_classes`).
        self.parts: list[widgets.Widget] = list(parts or [widget])
        self.top = self.parts[0]
        for w in self.inputs():
            w.observe(self._changed, names="value")
        self._listeners: list[Callable[[FieldControl], None]] = []
        self._parts_listeners: list[Callable[[], None]] = []

    @property
    def error(self) -> widgets.HTML:
        """The line under the field that shows its problem (hidden while there is none)."""
        if self._error is None:
            self._error = widgets.HTML(layout=widgets.Layout(display="none"),
                                       style=self._kit.style(widgets.HTML),
                                       _dom_classes=("nb-elicit-error", "nb-elicit-part"))
            self.parts.append(self._error)
            for listener in self._parts_listeners:
                listener()
        return self._error

    @property
    def error_text(self) -> str | None:
        """The problem shown under the field, or None."""
        return getattr(self, "_shown_error", None)

    def inputs(self) -> list[widgets.Widget]:
        """The widgets whose ``value`` the person changes."""
        return [self.widget]

    def read(self) -> object:
        """The typed value entered, or :data:`MISSING`; ``ValueError`` explains unreadable text."""
        raise NotImplementedError

    def on_change(self, listener: Callable[[FieldControl], None]) -> None:
        self._listeners.append(listener)

    def on_parts_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` when ``parts`` grows (the error line is made)."""
        self._parts_listeners.append(listener)

    def show_error(self, message: str | None) -> None:
        if message == self.error_text:
            return  # unchanged: nothing is sent (an alert is announced again on each change)
        self._shown_error = message
        if not self._show_in_label(message):
            # role="alert": screen readers announce the problem as soon as it shows
            self.error.value = (f'<div role="alert">{text_html(message, "nb-elicit-error-text")}'
                                "</div>" if message else "")
            self.error.layout.display = None if message else "none"
        if message:
            self.top.add_class("nb-elicit-invalid")
        else:
            self.top.remove_class("nb-elicit-invalid")

    def _show_in_label(self, message: str | None) -> bool:
        """Show ``message`` (None: no problem) in the field's label; False when the label is
        plain text (a checkbox's), which needs an error line instead."""
        if not getattr(self.widget, "description_allow_html", False):
            return False
        self.widget.description = label_html(self.field, message)
        return True

    def lock(self) -> None:
        for w in self.inputs():
            w.disabled = True

    def focus(self) -> None:
        """Move the keyboard focus to this field's (first) input."""
        self.inputs()[0].focus()

    def _changed(self, change: object) -> None:
        self.touched = True
        for listener in self._listeners:
            listener(self)


class TextControl(FieldControl):
    field: TextField
    _PLACEHOLDERS: ClassVar[dict[str | None, str]] = {"email": "name@example.com",
                                                      "uri": "https://"}
    _WIDGET: type[widgets.Text] = widgets.Text

    def __init__(self, field: TextField, kit: Kit):
        placeholder = self._PLACEHOLDERS.get(field.format, "")
        text = labelled_input(self._WIDGET, field, kit, value=field.default or "",
                              placeholder=placeholder)
        super().__init__(field, text, kit)

    def read(self) -> object:
        return self.widget.value if self.widget.value != "" else MISSING


class SecretTextControl(TextControl):
    """A text field that asks for a secret: typed characters are masked."""

    _WIDGET = widgets.Password


class DateControl(FieldControl):
    field: TextField

    def __init__(self, field: TextField, kit: Kit):
        value = parse_date(field.default) if field.default else None
        super().__init__(field, labelled_input(widgets.DatePicker, field, kit, value=value), kit)

    def read(self) -> object:
        if self.widget.value is None:
            return MISSING
        return self.field.default if not self.touched and self.field.default else (
            self.widget.value.isoformat())


class DateTimeControl(FieldControl):
    """A timezone-aware picker: RFC 3339 date-times always carry an offset."""

    field: TextField

    def __init__(self, field: TextField, kit: Kit):
        value = parse_date_time(field.default) if field.default else None
        super().__init__(field, labelled_input(widgets.DatetimePicker, field, kit, value=value),
                         kit)

    def read(self) -> object:
        if self.widget.value is None:
            return MISSING
        if not self.touched and self.field.default:
            return self.field.default
        return self.widget.value.isoformat()


class NumberControl(FieldControl):
    """A text box, so that empty means "not given" and out-of-range input gets a message.

    (ipywidgets' numeric inputs always hold a number and clamp to their bounds silently, which
    would invent a value the person never typed.)
    """

    field: NumberField
    _WIDGET: type[widgets.Text] = widgets.Text

    def __init__(self, field: NumberField, kit: Kit):
        default = "" if field.default is None else str(field.default)
        text = labelled_input(self._WIDGET, field, kit, value=default,
                              placeholder=_number_hint(field))
        super().__init__(field, text, kit)

    def read(self) -> object:
        if self.widget.value.strip() == "":
            return MISSING
        if not self.touched and self.field.default is not None:
            return self.field.default
        return read_number(self.field, self.widget.value)


class SecretNumberControl(NumberControl):
    """A number field that asks for a secret (a PIN, a CVV): typed digits are masked."""

    _WIDGET = widgets.Password


class CheckboxControl(FieldControl):
    """A checkbox for a boolean that has a default or may be left out. Its label is its own,
    beside the box, as text; a required one says "(required)" in words. Its hint, if any, is
    a line under it.

    An optional one without a default is "not given" until it is clicked; from then on a
    **Clear** button beside it (shown only while there is an answer) takes it back to "not
    given", so that clicking twice need not mean ``false``.
    """

    field: BooleanField

    def __init__(self, field: BooleanField, kit: Kit):
        clearable = not field.required and field.default is None
        # (one that can be cleared is as wide as its label, so Clear sits right beside it)
        box = input_widget(widgets.Checkbox, field, kit, value=bool(field.default),
                           description=named(field), indent=False, top=not clearable,
                           layout=widgets.Layout(width="auto") if clearable else kit.plain)
        self.clear_button: widgets.Button | None = None
        parts: list[widgets.Widget] = [box]
        if clearable:
            self.clear_button = widgets.Button(
                description=t("clear"), tooltip=t("clear.tip", label=field.label),
                style=kit.style(widgets.Button), _dom_classes=("nb-elicit-clear",),
                layout=widgets.Layout(display="none", width="auto", margin="0 0 0 8px"))
            self.clear_button.on_click(lambda _: self.clear())
            parts = [widgets.HBox([box, self.clear_button], layout=kit.plain,
                                  _dom_classes=(*field_classes(field),
                                                "nb-elicit-checkbox-row"))]
        if field.description:
            parts.append(widgets.HTML(text_html(visible(field.description, lines=True),
                                                "nb-elicit-help-text"),
                                      layout=kit.plain, style=kit.style(widgets.HTML),
                                      _dom_classes=("nb-elicit-help", "nb-elicit-part")))
        super().__init__(field, box, kit, parts=parts)

    def read(self) -> object:
        if not self.touched and self.field.default is None:
            return MISSING
        return self.widget.value

    def clear(self) -> None:
        """Back to "not given": unticked, untouched, and left out of the answer."""
        if self.widget.disabled:
            return
        self.widget.value = False
        self.touched = False
        self._show_clear(False)
        for listener in self._listeners:
            listener(self)
        self.widget.focus()

    def lock(self) -> None:
        super().lock()
        if self.clear_button is not None:
            self.clear_button.disabled = True

    def _changed(self, change: object) -> None:
        super()._changed(change)
        self._show_clear(True)

    def _show_clear(self, shown: bool) -> None:
        if self.clear_button is not None:
            self.clear_button.layout.display = None if shown else "none"


class YesNoControl(FieldControl):
    """A required boolean with no default: the person must pick Yes or No themselves.

    (ipywidgets' radio description is no ``<label for>``: screen readers read the question,
    with its "(required)", as the text before the buttons.)"""

    field: BooleanField

    def __init__(self, field: BooleanField, kit: Kit):
        radio = labelled_input(widgets.RadioButtons, field, kit,
                               options=[(t("yes"), True), (t("no"), False)], index=None)
        super().__init__(field, radio, kit)

    def read(self) -> object:
        return MISSING if self.widget.index is None else self.widget.value


class ChoiceControl(FieldControl):
    """A drop-down list whose first entry, "Choose…", means nothing chosen: it holds
    :data:`MISSING`, so it is never sent."""

    field: ChoiceField

    def __init__(self, field: ChoiceField, kit: Kit):
        options = [(t("choose"), MISSING), *((o.label, o.value) for o in field.options)]
        index = 0
        if field.default is not None:
            index = 1 + [o.value for o in field.options].index(field.default)
        dropdown = labelled_input(widgets.Dropdown, field, kit, options=options, index=index)
        super().__init__(field, dropdown, kit)

    def read(self) -> object:
        if self.widget.index is None or self.widget.index == 0:
            return MISSING
        return self.widget.value


class MultiChoiceControl(FieldControl):
    """One checkbox per choice, in a fieldset-like box whose first line is the legend (label,
    required mark, hint); boxes beyond ``maxItems`` are disabled while the limit is met."""

    field: MultiChoiceField

    def __init__(self, field: MultiChoiceField, kit: Kit):
        chosen = set(field.default or ())
        legend = widgets.HTML(legend_html(field), layout=kit.plain,
                              style=kit.style(widgets.HTML),
                              _dom_classes=("nb-elicit-label", "nb-elicit-group-label"))
        self.boxes = [widgets.Checkbox(value=o.value in chosen, description=o.label,
                                       indent=False, style=kit.style(widgets.Checkbox),
                                       layout=kit.plain, _dom_classes=("nb-elicit-option",))
                      for o in field.options]
        group = input_widget(widgets.VBox, field, kit, children=[legend, *self.boxes],
                             extra=("nb-elicit-group", "nb-elicit-options"))
        super().__init__(field, group, kit)
        self.legend = legend
        self._enforce_max()
        self.on_change(lambda _: self._enforce_max())

    def inputs(self) -> list[widgets.Widget]:
        return list(self.boxes)

    def _show_in_label(self, message: str | None) -> bool:
        self.legend.value = legend_html(self.field, message)
        return True

    def focus(self) -> None:
        next((box for box in self.boxes if not box.disabled), self.boxes[0]).focus()

    def read(self) -> object:
        if not self.touched and self.field.default is None:
            return MISSING
        return self._chosen()

    def lock(self) -> None:
        super().lock()
        self._locked = True

    def _chosen(self) -> list[str]:
        return [o.value for o, box in zip(self.field.options, self.boxes, strict=True) if box.value]

    def _enforce_max(self) -> None:
        if getattr(self, "_locked", False) or self.field.max_items is None:
            return
        full = len(self._chosen()) >= self.field.max_items
        for box in self.boxes:
            box.disabled = full and not box.value


def legend_html(field: Field, error: str | None = None) -> str:
    """The legend line of a group of checkboxes: as :func:`label_html`."""
    return f'<div class="nb-elicit-legend">{label_html(field, error)}</div>'


def field_classes(field: Field) -> tuple[str, ...]:
    """The classes of the first widget the form shows for a field: it starts a field, and
    says whether the field is required."""
    return ("nb-elicit-field", *(("nb-elicit-required",) if field.required else ()))


def input_widget(widget_class: type[widgets.Widget], field: Field, kit: Kit,
                 extra: tuple[str, ...] = (), top: bool = True,
                 **traits: object) -> widgets.Widget:
    """A field's input widget, made with the field's class hooks (and, when it is the first
    widget shown for the field, ``top``, the field's own classes) and the kit's layout and
    style (a box has no style)."""
    if "style" in widget_class.class_traits():
        traits["style"] = kit.style(widget_class)
    traits.setdefault("layout", kit.plain)
    traits.setdefault("keys", synced_keys(widget_class))
    own = field_classes(field) if top else ()
    return widget_class(_dom_classes=(field_class(field.name), "nb-elicit-input", *own, *extra),
                        **traits)


def labelled_input(widget_class: type[widgets.Widget], field: Field, kit: Kit,
                   **traits: Any) -> widgets.Widget:
    """An input whose ``description`` is the field's label (:func:`label_html`), shown above
    it."""
    return input_widget(widget_class, field, kit, extra=("nb-elicit-labelled",),
                        description=label_html(field), description_allow_html=True, **traits)


def make_control(field: Field, kit: Kit | None = None) -> FieldControl:
    """The control for ``field``: the first rule that matches wins. Controls of one form share
    one :class:`Kit`."""
    for matches, build in _CASCADE:
        if matches(field):
            return build(field, kit or Kit())
    raise TypeError(f"no control for field {field.name!r} of kind {field.kind!r}")


# (A rule's builder takes the kind of field its test checked for, hence Any.)
_CASCADE: list[tuple[Callable[[Field], bool], Callable[[Any, Kit], FieldControl]]] = [
    (lambda f: isinstance(f, TextField) and f.format == "date", DateControl),
    (lambda f: isinstance(f, TextField) and f.format == "date-time", DateTimeControl),
    (lambda f: isinstance(f, TextField) and is_secret(f), SecretTextControl),
    (lambda f: isinstance(f, TextField), TextControl),
    (lambda f: isinstance(f, NumberField) and is_secret(f), SecretNumberControl),
    (lambda f: isinstance(f, NumberField), NumberControl),
    (lambda f: isinstance(f, BooleanField) and f.required and f.default is None, YesNoControl),
    (lambda f: isinstance(f, BooleanField), CheckboxControl),
    (lambda f: isinstance(f, ChoiceField), ChoiceControl),
    (lambda f: isinstance(f, MultiChoiceField), MultiChoiceControl),
]


def _number_hint(field: NumberField) -> str:
    """What the box takes, e.g. "whole number, more than 0, a multiple of 5"."""
    hint = t("hint_whole") if field.integer else t("hint_number")
    lower = (t("hint_min", lo=field.minimum) if field.minimum is not None else
             t("hint_more", lo=field.exclusive_minimum)
             if field.exclusive_minimum is not None else None)
    upper = (t("hint_max", hi=field.maximum) if field.maximum is not None else
             t("hint_less", hi=field.exclusive_maximum)
             if field.exclusive_maximum is not None else None)
    if field.minimum is not None and field.maximum is not None:
        bounds: str | None = t("hint_range", lo=field.minimum, hi=field.maximum)
    elif lower and upper:
        bounds = t("hint_both", lower=lower, upper=upper)
    else:
        bounds = lower or upper
    if bounds:
        hint = t("hint_then", first=hint, then=bounds)
    if field.multiple_of is not None:
        hint = t("hint_then", first=hint, then=t("hint_multiple", step=field.multiple_of))
    return hint

