"""One rule for what a form sends: a person's Submit and a headless accept agree; optional
fields can go back to "not given"; a huge number is a field error; the keyboard goes to the
first problem; date-time defaults of any precision show."""

import datetime as dt

import pytest
from helpers.fill import fill

from nb_elicit import Answer, ElicitationForm
from nb_elicit._core.schema.fields import parse_schema
from nb_elicit._core.schema.formats import parse_date_time
from nb_elicit._core.schema.prefill import as_submitted


def form_of(properties: dict, required=()) -> ElicitationForm:
    return ElicitationForm("?", {"type": "object", "properties": properties,
                                 "required": list(required)}, server="demo")


def submitted(form) -> Answer | None:
    form.submit_button.click()
    return form.answer.result(timeout=0) if form.answer.done() else None


TAGS = {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
#: (properties, required, what is entered) -> the same content from Submit and as_submitted.
TABLE = [
    ({"nick": {"type": "string", "default": ""}}, (), {}),
    ({"nick": {"type": "string", "default": ""}}, (), {"nick": "ada"}),
    ({"nick": {"type": "string", "default": "bob"}}, (), {"nick": ""}),
    ({"nick": {"type": "string", "default": "bob"}}, (), {}),
    ({"nick": {"type": "string"}}, (), {"nick": ""}),
    ({"n": {"type": "integer", "default": 0}}, (), {}),
    ({"ok": {"type": "boolean", "default": False}}, (), {}),
    ({"ok": {"type": "boolean"}}, (), {}),
    ({"ok": {"type": "boolean"}}, (), {"ok": False}),
    ({"tags": {**TAGS, "default": []}}, (), {}),
    ({"tags": {**TAGS, "default": ["a"]}}, (), {"tags": []}),
    ({"tags": {**TAGS, "minItems": 1}}, (), {"tags": []}),
    ({"tags": {**TAGS, "default": []}}, ("tags",), {}),
    ({"tags": TAGS}, ("tags",), {"tags": []}),
    ({"c": {"type": "string", "enum": ["x", "y"], "default": "y"}}, (), {}),
    ({"d": {"type": "string", "format": "date", "default": "2026-01-02"}}, (), {}),
]


@pytest.mark.parametrize(("properties", "required", "entered"), TABLE)
def test_a_persons_submit_and_a_headless_accept_send_the_same(properties, required, entered):
    form = form_of(properties, required)
    fill(form, entered)
    headless = as_submitted(form.spec, entered)
    assert form.content == headless
    assert form.content.get("nick", "x") != ""  # "" is never sent: it shows nothing


def test_an_empty_string_default_is_left_out_by_both():
    spec = parse_schema({"type": "object", "properties": {"nick": {"type": "string",
                                                                   "default": ""}}})
    assert as_submitted(spec, {}) == {}
    assert submitted(form_of(spec.schema["properties"])) == Answer("accept", {})


def test_an_optional_multi_select_ticked_then_unticked_is_not_given_again():
    form = form_of({"tags": {**TAGS, "minItems": 1}})
    box = form.controls["tags"].boxes[0]
    box.value = True
    box.value = False
    assert submitted(form) == Answer("accept", {})
    assert form.controls["tags"].error_text is None


def test_an_optional_multi_select_with_a_default_sends_it_and_unticked_leaves_it_out():
    form = form_of({"tags": {**TAGS, "default": ["a"]}})
    assert form.content == {"tags": ["a"]}
    form.controls["tags"].boxes[0].value = False
    assert submitted(form) == Answer("accept", {})


def test_a_required_multi_select_with_min_items_still_asks_for_them():
    form = form_of({"tags": {**TAGS, "minItems": 1}}, required=["tags"])
    box = form.controls["tags"].boxes[0]
    box.value = True
    box.value = False
    assert submitted(form) is None
    assert form.controls["tags"].error_text in ("Choose at least 1.", "This field is required.")


def test_an_optional_checkbox_can_be_cleared_back_to_not_given():
    form = form_of({"ok": {"type": "boolean", "title": "Subscribe"}})
    control = form.controls["ok"]
    clear = control.clear_button
    assert clear.layout.display == "none"  # nothing to clear yet
    control.widget.value = True
    control.widget.value = False
    assert clear.layout.display is None and form.content == {"ok": False}
    assert "Subscribe" in clear.tooltip and clear.description == "Clear"
    clear.click()
    assert form.content == {} and clear.layout.display == "none"
    assert control.widget.value is False
    control.widget.value = True  # and it can be given again
    assert submitted(form) == Answer("accept", {"ok": True})
    assert clear.disabled  # a locked form clears nothing


def test_only_optional_checkboxes_without_a_default_have_clear():
    form = form_of({"a": {"type": "boolean", "default": True},
                    "b": {"type": "boolean", "default": False}, "c": {"type": "boolean"}},
                   required=["b"])
    assert form.controls["a"].clear_button is None and form.controls["b"].clear_button is None
    assert form.controls["c"].clear_button is not None


def test_an_optional_choice_goes_back_to_not_given_with_choose():
    form = form_of({"c": {"type": "string", "enum": ["x", "y"], "default": "y"}})
    assert form.content == {"c": "y"}
    form.controls["c"].widget.index = 0  # "Choose…"
    assert submitted(form) == Answer("accept", {})


@pytest.mark.parametrize("typed", ["9" * 400, "-" + "9" * 400, "9" * 5000])
def test_a_huge_number_is_a_field_error_and_everything_typed_stays(typed):
    form = form_of({"n": {"type": "integer", "minimum": 1, "maximum": 100},
                    "note": {"type": "string"}})
    fill(form, {"n": typed, "note": "kept"})
    assert submitted(form) is None
    limit = "at least 1" if typed.startswith("-") else "at most 100"
    assert form.controls["n"].error_text == f"Enter a number of {limit}."
    assert form.controls["n"].widget.value == typed and form.controls["note"].widget.value == (
        "kept")
    assert "nb_elicit failed" not in form.status.value
    fill(form, {"n": "42"})
    assert submitted(form) == Answer("accept", {"n": 42, "note": "kept"})


def test_a_huge_number_without_bounds_is_sent_as_typed():
    form = form_of({"n": {"type": "integer"}})
    fill(form, {"n": "9" * 400})
    assert submitted(form) == Answer("accept", {"n": int("9" * 400)})


@pytest.fixture
def focused(monkeypatch) -> list:
    """The widgets the kernel asks the frontend to focus, in order."""
    import ipywidgets as widgets

    asked = []
    monkeypatch.setattr(widgets.DOMWidget, "focus", lambda self: asked.append(self))
    return asked


def test_a_failed_submit_moves_the_focus_to_the_first_invalid_field(focused):
    form = form_of({"a": {"type": "string"}, "b": {"type": "integer", "maximum": 3},
                    "c": {"type": "string", "minLength": 2}, "t": TAGS}, required=["t"])
    fill(form, {"b": "7", "c": "x"})
    assert submitted(form) is None
    assert focused == [form.controls["b"].widget]
    fill(form, {"b": "2"})
    assert submitted(form) is None
    assert focused[-1] is form.controls["c"].widget
    fill(form, {"c": "xy"})
    assert submitted(form) is None
    assert focused[-1] is form.controls["t"].boxes[0]  # a group: its first box
    fill(form, {"t": ["a"]})
    assert submitted(form) is not None and len(focused) == 3  # a good Submit moves nothing


FRACTIONS = ["2026-01-02T03:04:05.1Z", "2026-01-02T03:04:05.12Z", "2026-01-02T03:04:05.1234Z",
             "2026-01-02T03:04:05.12345+02:00", "2026-01-02T03:04:05.123456789-05:30",
             "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.123+00:00"]


@pytest.mark.parametrize("default", FRACTIONS)
def test_a_date_time_default_of_any_precision_shows_and_goes_back_verbatim(default):
    form = form_of({"t": {"type": "string", "format": "date-time", "default": default}})
    shown = form.controls["t"].widget.value
    assert shown.tzinfo is not None and (shown.year, shown.second) == (2026, 5)
    assert submitted(form) == Answer("accept", {"t": default})


def test_date_times_are_read_the_same_on_every_python():
    # (this file runs on Python 3.10 too: scripts/test-python-range.sh)
    utc = dt.timezone.utc
    assert parse_date_time("2026-01-02T03:04:05.1Z") == dt.datetime(2026, 1, 2, 3, 4, 5, 100000,
                                                                   tzinfo=utc)
    assert parse_date_time("2026-01-02T03:04:05.12345+02:00") == dt.datetime(
        2026, 1, 2, 3, 4, 5, 123450, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert parse_date_time("2026-01-02T03:04:05.1234567-05:30").microsecond == 123456
    for bad in ("2026-02-30T00:00:00Z", "2026-01-02T03:04:05", "2026-01-02", "", "x"):
        assert parse_date_time(bad) is None, bad
