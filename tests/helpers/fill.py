"""Set a form's widgets the way a person would, from the content they mean to send, and read
what a form shows before anyone touches it."""

import datetime as dt
from typing import Any

from nb_elicit._ui.controls import (
    CheckboxControl,
    ChoiceControl,
    DateControl,
    DateTimeControl,
    MultiChoiceControl,
    NumberControl,
    SecretTextControl,
    TextControl,
    YesNoControl,
)


def fill(form, content: dict) -> None:
    for name, value in content.items():
        control = form.controls[name]
        if isinstance(control, (TextControl, NumberControl)):
            control.widget.value = str(value)
        elif isinstance(control, DateControl):
            control.widget.value = dt.date.fromisoformat(value)
        elif isinstance(control, DateTimeControl):
            control.widget.value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif isinstance(control, (CheckboxControl, YesNoControl)):
            if isinstance(control, CheckboxControl) and control.widget.value == value:
                control.widget.value = not value  # a person clicks twice to land on it
            control.widget.value = value
        elif isinstance(control, ChoiceControl):
            control.widget.value = value
        elif isinstance(control, MultiChoiceControl):
            for option, box in zip(control.field.options, control.boxes, strict=True):
                box.value = option.value in value
            control.touched = True
        else:  # pragma: no cover - a new control kind needs a line here
            raise TypeError(type(control))


def shown(form) -> dict[str, Any]:
    """What each control of ``form`` shows, as a person reads it: text as typed (numbers too),
    a date as ISO text, a choice's value (``None`` when nothing is picked), the ticked options
    of a multi-select. A masked text box shows ``{"masked": text}``."""
    out = {}
    for name, control in form.controls.items():
        if isinstance(control, MultiChoiceControl):
            out[name] = [o.value for o, box in zip(control.field.options, control.boxes,
                                                   strict=True) if box.value]
        elif isinstance(control, (DateControl, DateTimeControl)):
            value = control.widget.value
            out[name] = None if value is None else value.isoformat()
        elif isinstance(control, ChoiceControl):  # the first entry, "Choose…", is no choice
            out[name] = None if not control.widget.index else control.widget.value
        elif isinstance(control, YesNoControl):
            out[name] = None if control.widget.index is None else control.widget.value
        elif isinstance(control, SecretTextControl):
            out[name] = {"masked": control.widget.value}
        else:
            out[name] = control.widget.value
    return out
