"""What a person does to nb_elicit's forms and cards in a JupyterLab page (Playwright): type
into a field one key at a time, pick, tick, press Submit once the kernel has every keystroke."""

from __future__ import annotations

WAIT = 60_000


def field(form, name: str, tag: str = "input"):
    """The ``tag`` of the form's field ``name``."""
    return form.locator(f".nb-elicit-field-{name} {tag}")


def type_text(form, name: str, text: str) -> None:
    """Type like a person: one key at a time."""
    field(form, name).click()
    field(form, name).press_sequentially(text, delay=15)


def tick(form, name: str, *options: str) -> None:
    """Tick the boxes of ``options`` (their labels) in the multiple choice ``name``."""
    boxes = form.locator(f".nb-elicit-field-{name} .nb-elicit-option")
    for option in options:
        boxes.filter(has_text=option).locator("input").check()


def submit(lab, form) -> None:
    """Press Submit once the kernel has every change the page sent (see ``Wire.settle``)."""
    lab.settle()
    form.locator(".nb-elicit-submit").click()
