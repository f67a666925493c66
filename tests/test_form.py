import asyncio
import datetime as dt
import enum
import html
import re
import threading
from typing import Literal

import ipywidgets as widgets
import pytest
from helpers.fill import fill
from helpers.schemas import EVERYTHING, SPEC_EXAMPLES, load_example
from pydantic import BaseModel, ConfigDict, Field

from nb_elicit import Answer, ElicitationForm, SchemaError, set_language, validate_content
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
from nb_elicit._ui.html import field_class, inline_text, property_of_class

XSS = '<img src=x onerror="alert(1)">'

ALL_KINDS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 18, "maximum": 130},
        "score": {"type": "number"},
        "agree": {"type": "boolean"},
        "news": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"},
                                             {"const": "l", "title": "Large"}]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]},
                 "maxItems": 2},
        "pets": {"type": "array", "items": {"anyOf": [{"const": "cat", "title": "Cat"},
                                                      {"const": "dog", "title": "Dog"}]}},
    },
    "required": ["name", "agree"],
}


def make(schema=ALL_KINDS, message="Tell us", server="demo") -> ElicitationForm:
    return ElicitationForm(message, schema, server=server)


def answer(form) -> Answer:
    assert form.answer.done(), "the form has not answered"
    return form.answer.result(timeout=0)


def all_text(widget) -> str:
    """Every string a widget tree would show, as the frontend receives it."""
    parts = []
    for w in [widget, *getattr(widget, "children", ())]:
        if w is not widget:
            parts.append(all_text(w))
            continue
        for trait in ("value", "description", "tooltip", "placeholder"):
            value = getattr(w, trait, None)
            if isinstance(value, str):
                parts.append(value)
        parts.extend(str(label) for label in getattr(w, "_options_labels", ()))
    return "\n".join(parts)


def test_each_field_kind_gets_its_control():
    form = make()
    kinds = {name: type(c) for name, c in form.controls.items()}
    assert kinds == {
        "name": TextControl, "email": TextControl, "site": TextControl, "born": DateControl,
        "meet": DateTimeControl, "age": NumberControl, "score": NumberControl,
        "agree": YesNoControl, "news": CheckboxControl, "color": ChoiceControl,
        "size": ChoiceControl, "tags": MultiChoiceControl, "pets": MultiChoiceControl,
    }
    assert isinstance(form.controls["born"].widget, widgets.DatePicker)
    assert isinstance(form.controls["meet"].widget, widgets.DatetimePicker)
    assert isinstance(form.controls["color"].widget, widgets.Dropdown)


def test_submit_sends_exactly_what_was_entered_for_every_kind():
    form = make()
    content = {
        "name": "Ada Lovelace", "email": "ada@example.com", "site": "https://ada.example",
        "born": "1815-12-10", "meet": "2026-01-02T03:04:00+00:00", "age": 36, "score": 9.5,
        "agree": True, "news": False, "color": "g", "size": "l", "tags": ["a", "c"],
        "pets": ["dog"],
    }
    fill(form, content)
    form.submit_button.click()
    got = answer(form)
    assert got == Answer("accept", content)
    assert type(got.content["age"]) is int and type(got.content["score"]) is float


def test_untouched_optional_fields_are_left_out_and_defaults_are_sent():
    form = make()
    fill(form, {"name": "Ada", "agree": False})
    form.submit_button.click()
    assert answer(form).content == {"name": "Ada", "agree": False, "news": True}


def test_defaults_are_prefilled_and_sent_verbatim():
    schema = {"type": "object", "properties": {
        "s": {"type": "string", "default": "hello"},
        "n": {"type": "number", "default": 2.5},
        "i": {"type": "integer", "default": 7},
        "b": {"type": "boolean", "default": False},
        "d": {"type": "string", "format": "date", "default": "2024-03-15"},
        "t": {"type": "string", "format": "date-time", "default": "2024-03-15T10:00:00Z"},
        "e": {"type": "string", "enum": ["x", "y"], "default": "y"},
        "m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]},
              "default": ["x"]},
    }}
    form = make(schema)
    assert form.controls["s"].widget.value == "hello"
    assert form.controls["d"].widget.value == dt.date(2024, 3, 15)
    assert form.controls["e"].widget.value == "y"
    form.submit_button.click()
    assert answer(form).content == {"s": "hello", "n": 2.5, "i": 7, "b": False,
                                    "d": "2024-03-15", "t": "2024-03-15T10:00:00Z",
                                    "e": "y", "m": ["x"]}


SETTINGS = {"type": "object", "properties": {
    "max_tokens": {"type": "integer", "title": "Max tokens", "minimum": 1, "default": 1024},
    "temperature": {"type": "number", "minimum": 0, "maximum": 2, "default": 0.7},
    "api_key": {"type": "string", "title": "API key", "default": "sk-from-the-server"},
}, "required": ["api_key"]}


def test_only_the_secret_field_is_masked_and_empty_and_the_rest_keep_their_defaults():
    form = make(SETTINGS)
    assert form.secret_fields == ["api_key"]
    assert form.controls["max_tokens"].widget.value == "1024"
    assert form.controls["temperature"].widget.value == "0.7"
    assert type(form.controls["max_tokens"].widget) is widgets.Text
    key = form.controls["api_key"].widget
    assert isinstance(key, widgets.Password) and key.value == ""
    warning = [c for c in form.children if "nb-elicit-secret-warning" in c._dom_classes]
    assert len(warning) == 1 and "API key" in warning[0].value
    assert "Max tokens" not in warning[0].value


def test_submit_after_typing_the_secret_sends_it_with_the_prefilled_defaults():
    form = make(SETTINGS)
    form.submit_button.click()
    assert not form.answer.done()  # the required key is empty: nothing was invented for it
    fill(form, {"api_key": "sk-typed"})
    form.submit_button.click()
    assert answer(form) == Answer("accept", {"max_tokens": 1024, "temperature": 0.7,
                                             "api_key": "sk-typed"})


def test_a_secret_number_field_is_masked_too():
    form = make({"type": "object", "properties": {"pin": {"type": "integer", "default": 1234},
                                                  "count": {"type": "integer", "default": 3}}})
    assert isinstance(form.controls["pin"].widget, widgets.Password)
    assert form.controls["pin"].widget.value == "" and form.controls["count"].widget.value == "3"
    fill(form, {"pin": 4321})
    form.submit_button.click()
    assert answer(form).content == {"pin": 4321, "count": 3}


def test_the_everything_servers_form_shows_all_eight_defaults_and_masks_nothing():
    schema = EVERYTHING["requestedSchema"]
    form = ElicitationForm(EVERYTHING["message"], schema, server="everything")
    assert form.secret_fields == []
    assert not [c for c in form.children if "nb-elicit-secret-warning" in c._dom_classes]
    assert not [c for c in form.controls.values() if isinstance(c.widget, widgets.Password)]
    assert form.controls["integer"].widget.value == "42"
    defaults = {name: prop["default"] for name, prop in schema["properties"].items()
                if "default" in prop}
    assert len(defaults) == 8
    fill(form, {"name": "Ada Lovelace"})
    form.submit_button.click()
    assert answer(form) == Answer("accept", {"name": "Ada Lovelace", **defaults})


def test_a_required_boolean_without_default_must_be_chosen():
    form = make({"type": "object", "properties": {"ok": {"type": "boolean"}},
                 "required": ["ok"]})
    form.submit_button.click()
    assert not form.answer.done()
    assert "This field is required." in (form.controls["ok"].error_text or "")
    form.controls["ok"].widget.value = False
    form.submit_button.click()
    assert answer(form).content == {"ok": False}


def test_an_optional_checkbox_is_sent_once_clicked():
    form = make({"type": "object", "properties": {"ok": {"type": "boolean"}}})
    box = form.controls["ok"].widget
    box.value = True
    box.value = False
    form.submit_button.click()
    assert answer(form).content == {"ok": False}


def test_decline_answers_decline_and_locks():
    form = make()
    form.decline_button.click()
    assert answer(form) == Answer("decline")
    assert answer(form).to_result() == {"action": "decline"}
    assert form.submit_button.disabled and form.decline_button.disabled
    assert all(w.disabled for c in form.controls.values() for w in c.inputs())
    assert "Declined." in form.status.value


def test_dismiss_answers_cancel():
    form = make()
    assert form.dismiss_button.description == "✕"
    assert form.dismiss_button.tooltip == "Dismiss"
    form.dismiss_button.click()
    assert answer(form) == Answer("cancel")
    assert "Dismissed." in form.status.value


def test_invalid_submit_shows_messages_keeps_values_and_sends_nothing():
    form = make()
    fill(form, {"name": "A", "email": "nope", "age": "17", "agree": True, "score": "abc"})
    form.submit_button.click()
    assert not form.answer.done()
    errors = {n: (c.error_text or "") for n, c in form.controls.items() if (c.error_text or "")}
    assert set(errors) == {"name", "email", "age", "score"}
    assert "Enter at least 2 characters." in errors["name"]
    assert "Enter an email address" in errors["email"]
    assert "Enter a number of at least 18." in errors["age"]
    assert "Enter a number." in errors["score"]
    assert form.controls["email"].widget.value == "nope"
    assert "nothing was sent" in form.status.value
    fill(form, {"name": "Al", "email": "al@example.com", "age": 18, "score": 1})
    assert (form.controls["email"].error_text or "") == ""
    form.submit_button.click()
    assert answer(form).content == {"name": "Al", "email": "al@example.com", "age": 18,
                                    "score": 1, "agree": True, "news": True}


def test_a_double_click_gives_one_result():
    form = make({"type": "object", "properties": {}})
    seen = []
    form.answer.add_done_callback(lambda f: seen.append(f.result()))
    form.submit_button.click()
    form.submit_button.click()
    form.decline_button.click()
    assert seen == [Answer("accept", {})]
    assert form.submit() is False and form.decline() is False and form.dismiss() is False


def test_a_click_from_another_thread_resolves_the_awaited_answer():
    form = make({"type": "object", "properties": {"x": {"type": "string"}}})
    form.controls["x"].widget.value = "hi"

    async def scenario():
        waiter = asyncio.ensure_future(form.wait())
        await asyncio.sleep(0)
        threading.Thread(target=form.submit_button.click).start()
        return await asyncio.wait_for(waiter, timeout=5)

    assert asyncio.run(scenario()) == Answer("accept", {"x": "hi"})


def test_abandon_locks_with_the_reason_and_cancels_the_answer():
    form = make()
    assert form.abandon("The server withdrew its request.")
    assert form.answer.cancelled()
    assert "The server withdrew its request." in form.status.value
    assert form.submit_button.disabled
    form.submit_button.click()
    assert form.answer.cancelled()


def test_a_bug_in_a_handler_keeps_the_form_open_with_what_was_typed(monkeypatch):
    """A failure while taking an answer (a number too big to convert, say) neither raises into
    the comm nor locks the form: it says the try did not go, and everything typed stays."""
    form = make({"type": "object", "properties": {"name": {"type": "string"}}})
    form.controls["name"].widget.value = "Ada"

    def overflow():
        raise OverflowError("int too large to convert to float: Ada")

    monkeypatch.setattr(form, "_collect", overflow)
    form.submit_button.click()
    assert not form.answer.done() and not form.submit_button.disabled
    assert "nb_elicit failed" not in form.status.value
    assert "OverflowError" in form.status.value and "nothing was sent" in form.status.value
    assert "Ada" not in form.status.value  # (a failure's text may quote what was typed)
    assert form.controls["name"].widget.value == "Ada"
    monkeypatch.undo()
    form.submit_button.click()
    assert form.answer.result(timeout=0) == Answer("accept", {"name": "Ada"})


def test_enter_in_a_text_field_submits():
    form = make({"type": "object", "properties": {"x": {"type": "string"}}})
    text = form.controls["x"].widget
    text.value = "typed"
    text._handle_custom_msg({"event": "submit"}, [])
    assert answer(form).content == {"x": "typed"}


def test_multi_select_disables_the_rest_at_max_items():
    form = make()
    boxes = form.controls["tags"].boxes
    boxes[0].value = True
    assert not boxes[2].disabled
    boxes[2].value = True
    assert boxes[1].disabled and not boxes[0].disabled
    boxes[0].value = False
    assert not boxes[1].disabled


def test_multi_select_min_items_is_checked_on_submit():
    form = make({"type": "object", "properties": {"m": {
        "type": "array", "minItems": 2, "items": {"type": "string", "enum": ["a", "b"]}}}})
    form.controls["m"].boxes[0].value = True
    form.submit_button.click()
    assert "Choose at least 2." in (form.controls["m"].error_text or "")


def test_header_names_the_server_and_the_message_on_one_line_with_the_dismiss_button():
    form = make(message="Tell us", server="github")
    title, dismiss, waited = form.children[:3]  # (the stylesheet puts ✕ on the title's line)
    assert dismiss is form.dismiss_button and title is form.message_line
    assert "github asks:" in title.value and "Tell us" in title.value  # one line of text
    assert title.value.index("github asks:") < title.value.index("Tell us")
    assert waited is form.waited  # under it
    assert form.message_line not in form.children[1:]  # not again on a line of its own


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict]]:
    """Every widget message the kernel side sends: (kind, data)."""
    from comm.base_comm import BaseComm

    messages = []

    class Recording(BaseComm):
        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            messages.append((msg_type, data or {}))

    monkeypatch.setattr(widgets.widget.comm, "create_comm", lambda **kw: Recording(**kw))
    return messages


@pytest.mark.parametrize("schema", [ALL_KINDS, EVERYTHING["requestedSchema"]],
                         ids=["all kinds", "everything"])
def test_a_form_reaches_the_frontend_in_one_message_per_model(sent, schema):
    form = make(schema)
    opened = [data["state"] for kind, data in sent if kind == "comm_open"]
    assert [kind for kind, _ in sent] == ["comm_open"] * len(opened)  # no update after
    assert opened[-1]["_model_name"] == "VBoxModel"  # the form itself, last and whole
    assert set(opened[-1]["_dom_classes"]) >= {"nb-elicit-prompt", "nb-elicit-form"}
    assert opened[-1]["children"] == [f"IPY_MODEL_{w.model_id}" for w in form.children]
    # most fields are one model, their input; a field's first widget starts it
    for control in form.controls.values():
        assert "nb-elicit-field" in control.top._dom_classes
        assert control.parts[0] is control.top
    parts = [p for c in form.controls.values() for p in c.parts]
    assert list(form.children) == [*form.head_children(), *form.children[3:-3 - len(parts)],
                                   *parts, form.submit_button, form.decline_button, form.status]


def label_text(control) -> str:
    """A field's label as a person reads it: the text of its description (or its group's
    legend), tags taken out."""
    source = control.legend.value if hasattr(control, "legend") else control.widget.description
    return html.unescape(re.sub(r"<[^>]+>", "", source))


def test_required_fields_have_a_mark_and_an_accessible_name_that_says_required():
    form = make()
    for name, control in form.controls.items():
        required = name in ("name", "agree")
        assert ("nb-elicit-required" in control.top._dom_classes) is required, name
        if isinstance(control, CheckboxControl):  # its own label, beside the box, as text
            assert control.widget.description.endswith(" (required)") is required
            assert not control.widget.description_allow_html
            continue
        if isinstance(control, MultiChoiceControl):  # a group's legend line
            label = control.legend.value
        else:
            label = control.widget.description
            assert control.widget.description_allow_html, name
        assert ('class="nb-elicit-mark" aria-hidden="true"> *' in label) is required, name
        # the star is not read; "(required)" is, hidden from sight
        assert ('class="nb-elicit-sr"> (required)</span>' in label) is required, name
        assert label_text(control) == control.field.label + (
            " * (required)" if required else ""), name
    assert "Required." not in all_text(form)  # no hint that reads as the next field's caption


def test_a_required_mark_and_names_in_chinese():
    set_language("zh")
    try:
        form = make()
        assert label_text(form.controls["name"]) == "Name *（必填）"
        assert "（必填）" in form.controls["agree"].widget.description
    finally:
        set_language(None)


def test_label_then_hint_then_input_then_error():
    schema = {"type": "object", "required": ["a", "m"], "properties": {
        "a": {"type": "string", "title": "A", "description": "Hint for A"},
        "b": {"type": "string", "title": "B", "description": "Hint for B"},
        "m": {"type": "array", "title": "M", "description": "Hint for M",
              "items": {"type": "string", "enum": ["x", "y"]}},
        "c": {"type": "boolean", "title": "C", "description": "Hint for C"}}}
    form = make(schema)
    for name in ("a", "b"):  # one model: the input, labelled (title, then hint) above it
        control = form.controls[name]
        assert control.parts == [control.widget]
        label = control.widget.description
        assert label.index(f">{name.upper()}<") < label.index(f"Hint for {name.upper()}")
    group = form.controls["m"]  # the group's box: its legend (title, hint), then its boxes
    assert group.parts == [group.widget]
    assert list(group.widget.children) == [group.legend, *group.boxes]
    assert "Hint for M" in group.legend.value
    assert group.widget._dom_classes.count("nb-elicit-group") == 1  # one group box
    check = form.controls["c"]  # a checkbox's label is beside the box: then its hint
    # (an optional one: the box and its Clear button share the first line)
    row, hint = check.parts
    assert list(row.children) == [check.widget, check.clear_button]
    assert "Hint for C" in hint.value and "nb-elicit-field" in row._dom_classes
    children = list(form.children)
    form.submit_button.click()  # a and m are missing: their problems show in their labels
    assert list(form.children) == children  # no widget added: nothing is drawn anew
    a, m = form.controls["a"], form.controls["m"]
    assert a.error_text == m.error_text == "This field is required."
    label = a.widget.description  # title, hint, then the problem, right above the input
    assert label.index("Hint for A") < label.index(
        '<span class="nb-elicit-error-text mathjax_ignore tex2jax_ignore">'
        "This field is required.</span>")
    assert 'tex2jax_ignore">This field is required.' in m.legend.value
    assert "nb-elicit-invalid" in a.top._dom_classes and "nb-elicit-invalid" in m.top._dom_classes
    a.widget.value = "x"  # fixed: the problem goes, and the label is as it was
    assert a.error_text is None and "nb-elicit-error-text" not in a.widget.description
    assert "nb-elicit-invalid" not in a.top._dom_classes
    assert form.controls["b"].parts == [form.controls["b"].widget]


def test_the_status_line_follows_the_fields_and_clears_once_they_are_fixed():
    form = make(CONTACT)
    form.submit_button.click()
    assert "Please fix 2 fields; nothing was sent." in form.status.value
    form.controls["name"].widget.value = "Ada"
    assert form.controls["name"].error_text is None
    assert "Please fix 1 field; nothing was sent." in form.status.value
    form.controls["email"].widget.value = "ada@"  # still wrong: says what is wrong now
    assert form.controls["email"].error_text == "Enter an email address, like name@example.com."
    assert "Please fix 1 field;" in form.status.value
    form.controls["email"].widget.value = "ada@example.com"
    assert form.controls["email"].error_text is None
    assert form.status_text == "" and "fix" not in form.status.value
    assert not form.answer.done()  # fixing fields sends nothing by itself
    form.controls["age"].widget.value = "3"  # a field that showed no error shows none yet
    assert form.controls["age"].error_text is None and form.status_text == ""
    form.submit_button.click()
    assert "Please fix 1 field;" in form.status.value
    form.controls["age"].widget.value = "36"
    assert form.status_text == ""
    form.submit_button.click()
    assert answer(form).content == {"name": "Ada", "email": "ada@example.com", "age": 36}


CONTACT = {"type": "object", "required": ["name", "email"], "properties": {
    "name": {"type": "string"}, "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 18}}}


def test_a_pattern_error_uses_the_description_then_the_title_then_the_pattern():
    form = make({"type": "object", "properties": {
        "slug": {"type": "string", "pattern": "^[a-z0-9-]+$", "title": "Slug",
                 "description": "Lower-case letters, digits and dashes."},
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "title": "Airport code"},
        "raw": {"type": "string", "pattern": "^x+$"}}})
    fill(form, {"slug": "Not A Slug", "code": "lhr", "raw": "y"})
    form.submit_button.click()
    slug = form.controls["slug"].error_text
    assert slug == "Enter a value as described: Lower-case letters, digits and dashes."
    assert "^[a-z0-9-]+$" not in (form.controls["slug"].error_text or "")
    assert form.controls["code"].error_text == "Enter a valid Airport code."
    assert form.controls["raw"].error_text == "Enter a value that matches the pattern ^x+$."


def test_a_drop_down_starts_on_choose_which_is_never_sent():
    schema = {"type": "object", "properties": {
        "color": {"type": "string", "title": "Colour", "enum": ["red", "green"]},
        "size": {"type": "string", "enum": ["s", "m"], "default": "m"}}}
    form = make(schema)
    color = form.controls["color"].widget
    assert color.index == 0 and color.options[0][0] == "Choose…"
    assert [label for label, _ in color.options[1:]] == ["red", "green"]
    assert form.controls["size"].widget.value == "m"  # a default is chosen, not "Choose…"
    assert form.content == {"size": "m"}
    color.value = "green"
    color.index = 0  # the person goes back to "Choose…": nothing chosen
    form.controls["size"].widget.index = 0
    form.submit_button.click()
    assert answer(form).content == {}
    required = make({"type": "object", "required": ["c"], "properties": {
        "c": {"type": "string", "enum": ["a", "b"]}}})
    required.submit_button.click()  # "Choose…" is no answer to a required question
    assert required.controls["c"].error_text == "This field is required."
    assert not required.answer.done()


def test_descriptions_are_the_titles_or_property_names():
    form = make()
    assert label_text(form.controls["name"]) == "Name * (required)"
    assert label_text(form.controls["site"]) == "site"


def test_untrusted_text_is_shown_literally():
    schema = {"type": "object", "properties": {"x": {
        "type": "string", "title": XSS, "description": XSS,
        "enum": ["v"], "enumNames": [XSS]}}}
    form = ElicitationForm(XSS, schema, server=XSS)
    shown = all_text(form)
    assert "<img" not in shown.replace(XSS, "")  # only as a plain description, never as HTML
    for html_widget in _html_widgets(form):
        assert "<img" not in html_widget.value
        if "onerror" in html_widget.value:
            assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html_widget.value
    control = form.controls["x"].widget
    assert "<img" not in control.description and inline_text(XSS) in control.description
    assert label_text(form.controls["x"]) == XSS + XSS  # title, then hint: as text
    assert control._options_labels == ("Choose…", XSS)


def _html_widgets(widget):
    if isinstance(widget, widgets.HTML):
        yield widget
    for child in getattr(widget, "children", ()):
        yield from _html_widgets(child)


def test_stable_class_hooks():
    form = make()
    assert "nb-elicit-form" in form._dom_classes
    assert "nb-elicit-submit" in form.submit_button._dom_classes
    assert "nb-elicit-decline" in form.decline_button._dom_classes
    assert "nb-elicit-dismiss" in form.dismiss_button._dom_classes
    assert "nb-elicit-status" in form.status._dom_classes
    for name, control in form.controls.items():
        assert f"nb-elicit-field-{name}" in control.widget._dom_classes


@pytest.mark.parametrize("name", ["first name", "a.b", "名前", "1st", "x" * 300, "50%", "a_b-c"])
def test_field_class_is_reversible_and_has_no_spaces_or_dots(name):
    hook = field_class(name)
    assert " " not in hook and "." not in hook
    assert property_of_class(hook) == name


def test_an_unsupported_schema_raises_before_any_widget_exists():
    with pytest.raises(SchemaError):
        ElicitationForm("x", {"type": "object", "properties": {"a": {"type": "object"}}})


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.stem)
def test_every_spec_example_renders_and_round_trips(path):
    example = load_example(path)
    schema = example["requestedSchema"]
    form = ElicitationForm(example["message"], schema, server="spec")
    expected = dict(example["answer"])
    for field in form.spec:  # prefilled defaults are sent too, because the person saw them
        if field.name in expected or field.default is None:
            continue
        default = list(field.default) if isinstance(field.default, tuple) else field.default
        if validate_content(schema, {field.name: default}):
            # 2025-11-25's string example has a default that fails its own pattern: a person
            # clears it (the form refuses to send it as it stands).
            form.submit_button.click()
            assert field.name in form.content and not form.answer.done()
            form.controls[field.name].widget.value = ""
        else:
            expected[field.name] = default
    fill(form, example["answer"])
    form.submit_button.click()
    assert answer(form) == Answer("accept", expected)


class Colour(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Order(BaseModel):
    """What a pydantic-based server asks for: bounds, steps, no extra keys, an Enum, a set."""

    model_config = ConfigDict(extra="forbid")

    quantity: int = Field(gt=0, lt=100, multiple_of=5)
    weight: float = Field(gt=0, le=2.5, multiple_of=0.1)
    size: Literal["S", "M", "L"]
    colour: Colour = Colour.RED
    extras: set[Literal["gift", "rush"]] = set()


def test_a_pydantic_form_shows_hints_refuses_then_accepts():
    form = make(Order.model_json_schema())
    assert form.controls["quantity"].widget.placeholder == (
        "whole number, more than 0 and less than 100, a multiple of 5")
    assert form.controls["weight"].widget.placeholder == (
        "number, more than 0 and at most 2.5, a multiple of 0.1")
    assert [o.value for o in form.controls["colour"].field.options] == ["red", "green"]
    assert form.controls["colour"].widget.value == "red"
    assert isinstance(form.controls["extras"], MultiChoiceControl)

    fill(form, {"quantity": 7, "weight": 0, "size": "M", "extras": ["rush"]})
    form.submit_button.click()
    assert not form.answer.done()
    assert "Enter a multiple of 5." in (form.controls["quantity"].error_text or "")
    assert "Enter a number greater than 0." in (form.controls["weight"].error_text or "")
    assert "Please fix 2 fields; nothing was sent." in form.status.value

    fill(form, {"quantity": 95, "weight": 0.3})
    form.submit_button.click()
    content = answer(form).content
    assert content == {"quantity": 95, "weight": 0.3, "size": "M", "colour": "red",
                       "extras": ["rush"]}
    assert Order.model_validate(content).colour is Colour.RED  # what the server will read


def test_fastmcp_shaped_multi_select_and_titled_choice_render_and_submit():
    form = make({"type": "object", "properties": {
        "tags": {"type": "array", "uniqueItems": True, "items": {"enum": ["a", "b", "c"]}},
        "level": {"oneOf": [{"const": "lo", "title": "Low"}, {"const": "hi", "title": "High"}]},
    }, "required": ["level"]})
    assert [b.description for b in form.controls["tags"].boxes] == ["a", "b", "c"]
    assert form.controls["level"].widget.options[1:] == (("Low", "lo"), ("High", "hi"))
    fill(form, {"tags": ["c", "a"], "level": "hi"})
    form.submit_button.click()
    assert answer(form).content == {"tags": ["a", "c"], "level": "hi"}


@pytest.mark.parametrize(("prop", "hint"), [
    ({"type": "number", "exclusiveMinimum": 0}, "number, more than 0"),
    ({"type": "integer", "exclusiveMaximum": 10}, "whole number, less than 10"),
    ({"type": "integer", "multipleOf": 5}, "whole number, a multiple of 5"),
    ({"type": "number", "minimum": 1, "exclusiveMaximum": 2}, "number, at least 1 and less than 2"),
    ({"type": "integer", "minimum": 18, "maximum": 130}, "whole number, 18 to 130"),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, "number, more than 0"),
])
def test_number_hints(prop, hint):
    form = make({"type": "object", "properties": {"n": prop}})
    assert form.controls["n"].widget.placeholder == hint


def test_number_hints_in_chinese():
    set_language("zh")
    try:
        form = make({"type": "object", "properties": {"n": {
            "type": "integer", "exclusiveMinimum": 0, "maximum": 10, "multipleOf": 5}}})
        hint = form.controls["n"].widget.placeholder
        fill(form, {"n": 3})
        form.submit_button.click()
        error = (form.controls["n"].error_text or "")
    finally:
        set_language(None)
    assert hint == "整数，大于 0 且至多 10，5 的倍数"
    assert "请输入 5 的倍数。" in error


def test_one_timer_while_a_form_is_open():
    """The call's waiting line hides while its form is open (the form's header has the one
    timer, with "timeout paused"), and comes back once the form is answered."""
    from nb_elicit._ui.call_view import CallView

    class Clock:
        paused = True

        def time_left(self):
            return 30.0

    async def scenario():
        view = CallView("demo", "contact_info")
        view.follow(Clock())
        view.waiting_line.redraw()
        before = view.status.layout.display
        form = make(CONTACT)
        view.add_form(form)
        await asyncio.sleep(1.2)  # one tick
        during = (view.status.layout.display, form.waited.value)
        form.decline_button.click()
        await asyncio.sleep(0.05)
        after = view.status.layout.display
        view.waiting_line.ticker.stop()
        return before, during, after, view.status.value, form

    before, (hidden, waited), after, line, form = asyncio.run(scenario())
    assert before is None and hidden == "none" and after is None
    assert "waiting 1 s" in waited and "timeout paused while you answer" in waited
    assert form.children.index(form.waited) == 2  # right under the header (title, then ✕)
    assert "Waiting for demo · contact_info" in line


def test_in_a_running_loop_the_answer_leaves_before_the_form_locks_and_says_so():
    async def scenario():
        form = make({"type": "object", "properties": {"x": {"type": "string"}}})
        form.controls["x"].widget.value = "hi"
        form.submit_button.click()
        at_once = (form.answer.done(), form.submit_button.disabled, form.status_text,
                   "Submitted" in form.status.value)
        answered = await asyncio.wait_for(form.wait(), 5)
        await asyncio.sleep(0.1)  # (generous: the look follows a few milliseconds later)
        later = (form.submit_button.disabled, form.controls["x"].widget.disabled,
                 "Submitted" in form.status.value)
        return at_once, answered, later

    at_once, answered, later = asyncio.run(scenario())
    assert at_once == (True, False, "Submitted.", False)
    assert answered == Answer("accept", {"x": "hi"})
    assert later == (True, True, True)


@pytest.mark.parametrize("schema", [ALL_KINDS, EVERYTHING["requestedSchema"]],
                         ids=["all kinds", "everything"])
def test_every_model_of_a_form_syncs_the_traits_ipywidgets_would_find_for_it(schema):
    # (the keys are given at construction, found once per class: they must be the same)
    form = make(schema)
    seen, stack = set(), [form]
    while stack:
        widget = stack.pop()
        if widget.model_id in seen:
            continue
        seen.add(widget.model_id)
        assert sorted(widget.keys) == sorted(widget.traits(sync=True)), type(widget)
        for name in widget.keys:
            value = getattr(widget, name)
            for child in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(child, widgets.Widget):
                    stack.append(child)
    assert len(seen) > 10
