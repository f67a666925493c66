"""Small things a person reads: the waiting line says elapsed and left, grey text is readable in
light and dark, a problem count under the buttons is in the error colour, a field without a
title is labelled by its key as written, and a completed call's progress bar is full."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from nb_elicit import ElicitationForm
from nb_elicit._core.i18n import set_language
from nb_elicit._core.types import ToolResult
from nb_elicit._ui.call_view import CallView
from nb_elicit._ui.style import stylesheet
from nb_elicit._ui.task_card import TaskCard

UI = Path(__file__).resolve().parent.parent / "nb_elicit"
THEMES = Path(sys.prefix, "share", "jupyter", "lab", "themes", "@jupyterlab")


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language(None)


def text_of(value: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", value)).split())


def test_the_waiting_line_says_how_long_so_far_and_how_long_is_left(monkeypatch):
    view = CallView("demo", "sign_in", show_waiting=False)
    line = text_of(view.waiting_line.text())
    assert re.fullmatch(r"Waiting for demo · sign_in \(\d+ s so far\)…", line)
    monkeypatch.setattr(view.waiting_line, "timeout", lambda: (42.0, False))  # (a call with a timeout)
    line = text_of(view.waiting_line.text())
    assert re.fullmatch(r"Waiting for demo · sign_in \(\d+ s so far, \d+ s left\)…", line), line


def _variables(css: str) -> dict[str, str]:
    return dict(re.findall(r"(--[\w-]+):\s*([^;]+);", css))


def _resolve(value: str, variables: dict[str, str]) -> str:
    found = re.fullmatch(r"var\((--[\w-]+)(?:,\s*(.+))?\)", value.strip())
    if found is None:
        return value.strip()
    name, fallback = found.groups()
    return _resolve(variables.get(name, fallback or ""), variables)


def _rgb(colour: str, under: tuple[float, float, float] = (1.0, 1.0, 1.0)):
    colour = colour.strip().lower()
    named = {"white": "#ffffff", "black": "#000000"}
    colour = named.get(colour, colour)
    if colour.startswith("#"):
        digits = colour[1:]
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        return tuple(int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4))
    parts = [float(p) for p in re.findall(r"[\d.]+", colour)]
    r, g, b = (p / 255 for p in parts[:3])
    alpha = parts[3] if len(parts) > 3 else 1.0
    return tuple(alpha * c + (1 - alpha) * u for c, u in zip((r, g, b), under, strict=True))


def _luminance(rgb) -> float:
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(one, two) -> float:
    a, b = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def _our_greys() -> set[str]:
    """The grey colours nb_elicit's widgets and records write text in."""
    found = set()
    for path in (UI / "_ui").glob("*.py"):
        found |= set(re.findall(r"var\((--jp-[\w-]*font-color\d)\)", path.read_text()))
    found |= set(re.findall(r"var\((--jp-[\w-]*font-color\d)\)",
                            (UI / "_core" / "records" / "transcript.py").read_text()))
    return found


def test_grey_text_is_never_the_faintest_grey():
    greys = _our_greys() | set(re.findall(r"var\((--jp-[\w-]*font-color\d)\)",
                                          stylesheet("nb-elicit-prompt-x")))
    assert "--jp-content-font-color2" in greys
    assert not {g for g in greys if g.endswith("3")}


@pytest.mark.parametrize("theme", ["theme-light-extension", "theme-dark-extension"])
def test_grey_and_error_text_have_a_contrast_of_at_least_4_5_in_light_and_dark(theme):
    css = THEMES / theme / "index.css"
    if not css.is_file():
        pytest.skip("JupyterLab's themes are not installed here")
    variables = _variables(css.read_text(encoding="utf-8"))
    background = _rgb(_resolve("var(--jp-layout-color0)", variables))
    for name in [*sorted(_our_greys()), "--jp-error-color1"]:
        colour = _rgb(_resolve(f"var({name})", variables), under=background)
        assert _contrast(colour, background) >= 4.5, (theme, name)


def test_the_problem_count_under_the_buttons_is_in_the_error_colour():
    form = ElicitationForm("Tell us", {"type": "object", "required": ["name"],
                                       "properties": {"name": {"type": "string"}}},
                           server="demo")
    form.submit_button.click()
    assert "nb-elicit-status-error" in form.status._dom_classes
    assert ".nb-elicit-status-error { color: var(--jp-error-color1); }" in stylesheet("P")
    form.controls["name"].widget.value = "Ada"
    form.submit_button.click()
    assert "nb-elicit-status-error" not in form.status._dom_classes  # ("Sent.": no error)


def test_a_field_without_a_title_is_labelled_by_its_key_as_written_with_its_hint():
    form = ElicitationForm("Tell us", {"type": "object", "properties": {
        "name": {"type": "string", "description": "Your full name"},
        "e_mail": {"type": "string"}, "Age": {"type": "number"}}}, server="demo")
    for key in ("name", "e_mail", "Age"):
        label = html.unescape(re.sub(r"<[^>]+>", "", form.controls[key].widget.description))
        assert label.startswith(key)
    assert "Your full name" in form.controls["name"].widget.description


def test_a_completed_calls_progress_bar_is_full_and_says_done_not_its_last_report():
    view = CallView("demo", "countdown", show_waiting=False)
    view.show_progress(1, 2, "1 s left")
    assert view.progress.bar.value == 0.5 and "1 s left (50%)" in view.progress.text.value
    view.show_result(ToolResult(content=[{"type": "text", "text": "done"}]))
    assert view.progress.bar.value == 1.0 and "Done (100%)" in view.progress.text.value


def test_a_failed_calls_progress_stays_where_it_stopped():
    view = CallView("demo", "countdown", show_waiting=False)
    view.show_progress(1, 2, "1 s left")
    view.show_result(ToolResult(content=[{"type": "text", "text": "no"}], is_error=True))
    assert view.progress.bar.value == 0.5 and "1 s left (50%)" in view.progress.text.value


def test_a_completed_tasks_progress_bar_is_full_too():
    from nb_elicit._core.tasks.model import TaskState

    card = TaskCard("demo", "countdown", "t1", "MCP 2025-11-25 tasks")
    card.show_progress(1, 2, "1 s left")
    card.end(TaskState("t1", "completed"))
    assert card.progress.bar.value == 1.0 and "Done (100%)" in card.progress.text.value
    card.close()


def test_no_text_repeats_a_word_and_an_apps_card_names_its_tool_plainly():
    """("the task goes on on the server", "Its app, shown with clock, sent this link.")"""
    from helpers.texts import texts

    from nb_elicit._core.i18n import t

    doubled = {key: match.group(0) for key, english in texts("en").items()
               for match in re.finditer(r"\b(\w+) \1\b", english, re.IGNORECASE)}
    assert doubled == {}
    assert t("app_asks_link", tool="clock") == "The app of clock sent this link."
    assert t("app_asks_download", tool="pdf") == "The app of pdf sent this file."
