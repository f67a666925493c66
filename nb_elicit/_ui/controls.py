"""One ipywidgets control per field kind, each with one way to read what the person entered.

``make_control(field)`` picks the control by a dispatch cascade (first match wins). Every control
reads back either a typed value or :data:`MISSING`, which means "the person gave nothing here":
an empty text box, an untouched optional checkbox, a select with nothing chosen. Missing optional
fields are left out of the answer; nothing invents ``0``, ``false`` or ``null``.

Everything a server wrote (titles, descriptions, option labels) is shown as text: control
``description`` and option labels render as text in ipywidgets 8, and help and error lines go
through :func:`text_html`, which escapes them.
"""

from __future__ import annotations

import datetime as dt
import enum
import html
from collections.abc import Callable
from urllib.parse import quote, unquote

import ipywidgets as widgets

from .._core.i18n import t
from .._core.schema import (
    BooleanField,
    ChoiceField,
    Field,
    MultiChoiceField,
    NumberField,
    TextField,
)
from .._core.secrets import is_secret
from .._core.validate import read_number

__all__ = ["MISSING", "FieldControl", "Kit", "Missing", "field_class", "make_control",
           "property_of_class", "text_html"]



class Missing(enum.Enum):
    """The type of :data:`MISSING`: one value, falsy, that no field can hold."""

    MISSING = "MISSING"

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "MISSING"


#: "The person gave nothing here": what a control reads back when it has no value.
MISSING = Missing.MISSING

_FIELD_CLASS = "nb-elicit-field-"
_STYLE = {"description_width": "initial"}


def _wide() -> widgets.Layout:
    """Controls take the room they are given (up to a readable width), so that a long label
    does not squeeze the input beside it: ipywidgets' default is a fixed 300 px for both.
    ("auto" stretches to the column, margins included; "100%" would overflow it by them.)"""
    return widgets.Layout(width="auto", max_width="48em")


def field_class(name: str) -> str:
    """The stable class hook of a property's control: ``nb-elicit-field-`` + escaped name.

    Letters, digits, ``-`` and ``_`` stay as they are; every other character is percent-encoded
    as UTF-8 (``.`` becomes ``%2E``, a space ``%20``), so :func:`property_of_class` reverses it.
    """
    return _FIELD_CLASS + quote(name, safe="").replace(".", "%2E").replace("~", "%7E")


def property_of_class(class_name: str) -> str:
    """The property name behind a :func:`field_class` hook."""
    return unquote(class_name.removeprefix(_FIELD_CLASS))


def text_html(text: str, css_class: str = "") -> str:
    """Untrusted text as HTML that shows every character and runs nothing."""
    klass = f' class="{css_class}"' if css_class else ""
    return (f'<div{klass} style="white-space: pre-wrap; line-height: normal">'
            f"{html.escape(text)}</div>")


class Kit:
    """Layouts and styles that the controls of one form share: a widget model is costly
    (creating one is most of the time a form takes to build), and these never differ."""

    def __init__(self) -> None:
        self._wide: widgets.Layout | None = None
        self._plain: widgets.Layout | None = None
        self._styles: dict[type, widgets.Widget] = {}

    # Made on first use: a model that no widget holds would never be closed with the form.
    @property
    def wide(self) -> widgets.Layout:
        if self._wide is None:
            self._wide = _wide()
        return self._wide

    @property
    def plain(self) -> widgets.Layout:
        if self._plain is None:
            self._plain = widgets.Layout()
        return self._plain

    def style(self, widget_class: type[widgets.Widget], **values) -> widgets.Widget:
        """One style model per widget kind (Text, Dropdown, HTML, ...) for the whole form."""
        klass = widget_class.class_traits()["style"].klass
        if klass not in self._styles:
            self._styles[klass] = klass(**values)
        return self._styles[klass]

    def described(self, widget_class: type[widgets.Widget]) -> widgets.Widget:
        return self.style(widget_class, **_STYLE)


class FieldControl:
    """A field's input widget plus its help and error lines, stacked in ``view``."""

    def __init__(self, field: Field, widget: widgets.Widget, kit: Kit):
        self.field = field
        self.widget = widget
        self.touched = False
        self._kit = kit
        self._error: widgets.HTML | None = None  # made when there is a first problem to show
        widget.add_class(field_class(field.name))
        parts = [widget]
        note = t("required") if field.required else ""
        if field.description:
            note = f"{note} {field.description}".strip()
        if note:
            help_line = widgets.HTML(text_html(note), layout=kit.plain,
                                     style=kit.style(widgets.HTML))
            help_line.add_class("nb-elicit-help")
            parts.append(help_line)
        self.view = widgets.VBox(parts, layout=kit.plain)
        self.view.add_class("nb-elicit-row")
        if field.required:
            self.view.add_class("nb-elicit-required")
        for w in self.inputs():
            w.observe(self._changed, names="value")
        self._listeners: list[Callable[[FieldControl], None]] = []

    @property
    def error(self) -> widgets.HTML:
        """The line under the field that shows its problem (hidden while there is none)."""
        if self._error is None:
            self._error = widgets.HTML(layout=widgets.Layout(display="none"),
                                       style=self._kit.style(widgets.HTML))
            self._error.add_class("nb-elicit-error")
            self.view.children = (*self.view.children, self._error)
        return self._error

    def inputs(self) -> list[widgets.Widget]:
        """The widgets whose ``value`` the person changes."""
        return [self.widget]

    def read(self):
        """The typed value entered, or :data:`MISSING`; ``ValueError`` explains unreadable text."""
        raise NotImplementedError

    def on_change(self, listener: Callable[[FieldControl], None]) -> None:
        self._listeners.append(listener)

    def show_error(self, message: str | None) -> None:
        if message is None and self._error is None:
            return
        # role="alert": screen readers announce the problem as soon as it shows
        self.error.value = (f'<div role="alert" style="color: var(--jp-error-color1)">'
                            f'{text_html(message, "nb-elicit-error-text")}</div>'
                            if message else "")
        self.error.layout.display = None if message else "none"

    def lock(self) -> None:
        for w in self.inputs():
            w.disabled = True

    def _changed(self, change) -> None:
        self.touched = True
        for listener in self._listeners:
            listener(self)


class TextControl(FieldControl):
    _PLACEHOLDERS = {"email": "name@example.com", "uri": "https://"}
    _WIDGET: type[widgets.Text] = widgets.Text

    def __init__(self, field: TextField, kit: Kit):
        placeholder = self._PLACEHOLDERS.get(field.format, "")
        text = self._WIDGET(value=field.default or "", description=field.label,
                            placeholder=placeholder, style=kit.described(self._WIDGET),
                            layout=kit.wide)
        super().__init__(field, text, kit)

    def read(self):
        return self.widget.value if self.widget.value != "" else MISSING


class SecretTextControl(TextControl):
    """A text field that asks for a secret: typed characters are masked."""

    _WIDGET = widgets.Password


class DateControl(FieldControl):
    def __init__(self, field: TextField, kit: Kit):
        value = dt.date.fromisoformat(field.default) if field.default else None
        super().__init__(field, widgets.DatePicker(
            value=value, description=field.label, style=kit.described(widgets.DatePicker),
            layout=kit.wide), kit)

    def read(self):
        if self.widget.value is None:
            return MISSING
        return self.field.default if not self.touched and self.field.default else (
            self.widget.value.isoformat())


class DateTimeControl(FieldControl):
    """A timezone-aware picker: RFC 3339 date-times always carry an offset."""

    def __init__(self, field: TextField, kit: Kit):
        value = _parse_date_time(field.default) if field.default else None
        super().__init__(field, widgets.DatetimePicker(
            value=value, description=field.label, style=kit.described(widgets.DatetimePicker),
            layout=kit.wide), kit)

    def read(self):
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

    _WIDGET: type[widgets.Text] = widgets.Text

    def __init__(self, field: NumberField, kit: Kit):
        default = "" if field.default is None else str(field.default)
        text = self._WIDGET(value=default, description=field.label,
                            placeholder=_number_hint(field), style=kit.described(self._WIDGET),
                            layout=kit.wide)
        super().__init__(field, text, kit)

    def read(self):
        if self.widget.value.strip() == "":
            return MISSING
        if not self.touched and self.field.default is not None:
            return self.field.default
        return read_number(self.field, self.widget.value)


class SecretNumberControl(NumberControl):
    """A number field that asks for a secret (a PIN, a CVV): typed digits are masked."""

    _WIDGET = widgets.Password


class CheckboxControl(FieldControl):
    """A checkbox for a boolean that has a default or may be left out."""

    def __init__(self, field: BooleanField, kit: Kit):
        box = widgets.Checkbox(value=bool(field.default), description=field.label, indent=False,
                               style=kit.style(widgets.Checkbox), layout=kit.plain)
        super().__init__(field, box, kit)

    def read(self):
        if not self.touched and self.field.default is None:
            return MISSING
        return self.widget.value


class YesNoControl(FieldControl):
    """A required boolean with no default: the person must pick Yes or No themselves."""

    def __init__(self, field: BooleanField, kit: Kit):
        radio = widgets.RadioButtons(options=[(t("yes"), True), (t("no"), False)], index=None,
                                     description=field.label,
                                     style=kit.described(widgets.RadioButtons), layout=kit.wide)
        super().__init__(field, radio, kit)

    def read(self):
        return MISSING if self.widget.index is None else self.widget.value


class ChoiceControl(FieldControl):
    def __init__(self, field: ChoiceField, kit: Kit):
        options = [(o.label, o.value) for o in field.options]
        index = None
        if field.default is not None:
            index = [o.value for o in field.options].index(field.default)
        dropdown = widgets.Dropdown(options=options, index=index, description=field.label,
                                    style=kit.described(widgets.Dropdown), layout=kit.wide)
        super().__init__(field, dropdown, kit)

    def read(self):
        return MISSING if self.widget.index is None else self.widget.value


class MultiChoiceControl(FieldControl):
    """One checkbox per choice; boxes beyond ``maxItems`` are disabled while the limit is met."""

    def __init__(self, field: MultiChoiceField, kit: Kit):
        chosen = set(field.default or ())
        self.boxes = [widgets.Checkbox(value=o.value in chosen, description=o.label,
                                       indent=False, style=kit.style(widgets.Checkbox),
                                       layout=kit.plain) for o in field.options]
        for box in self.boxes:
            box.add_class("nb-elicit-option")
        heading = widgets.Label(field.label, style=kit.style(widgets.Label), layout=kit.plain)
        heading.add_class("nb-elicit-group-label")
        group = widgets.VBox([heading, *self.boxes], layout=kit.plain)
        super().__init__(field, group, kit)
        self._enforce_max()
        self.on_change(lambda _: self._enforce_max())

    def inputs(self) -> list[widgets.Widget]:
        return list(self.boxes)

    def read(self):
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


def make_control(field: Field, kit: Kit | None = None) -> FieldControl:
    """The control for ``field``: the first rule that matches wins. Controls of one form share
    one :class:`Kit`."""
    for matches, build in _CASCADE:
        if matches(field):
            return build(field, kit or Kit())
    raise TypeError(f"no control for field {field.name!r} of kind {field.kind!r}")


_CASCADE: list[tuple[Callable[[Field], bool], Callable[[Field, Kit], FieldControl]]] = [
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
        bounds = t("hint_range", lo=field.minimum, hi=field.maximum)
    elif lower and upper:
        bounds = t("hint_both", lower=lower, upper=upper)
    else:
        bounds = lower or upper
    if bounds:
        hint = t("hint_then", first=hint, then=bounds)
    if field.multiple_of is not None:
        hint = t("hint_then", first=hint, then=t("hint_multiple", step=field.multiple_of))
    return hint


def _parse_date_time(text: str) -> dt.datetime:
    # Python 3.10's fromisoformat knows neither "Z" nor a lower-case "t".
    text = text.replace("t", "T").replace("z", "+00:00").replace("Z", "+00:00")
    return dt.datetime.fromisoformat(text)
