"""Set a form's widgets the way a person would, from the content they mean to send."""

import datetime as dt

from nb_elicit._ui.controls import (
    CheckboxControl,
    ChoiceControl,
    DateControl,
    DateTimeControl,
    MultiChoiceControl,
    NumberControl,
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
