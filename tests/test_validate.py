import enum
import time
from typing import Literal

import pytest
from helpers.schemas import SPEC_EXAMPLES, load_example
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nb_elicit import NumberField, SchemaError, set_language, validate_content
from nb_elicit._core.validate import read_number


def one(prop: dict, required: bool = False) -> dict:
    return {"type": "object", "properties": {"x": prop}, "required": ["x"] if required else []}


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.stem)
def test_every_spec_example_answer_is_valid(path):
    example = load_example(path)
    assert validate_content(example["requestedSchema"], example["answer"]) == {}


def test_valid_content_gives_no_problems(contact_schema):
    content = {"name": "Monalisa Octocat", "email": "octocat@github.com", "age": 30}
    assert validate_content(contact_schema, content) == {}


def test_missing_required_fields_are_named(contact_schema):
    assert validate_content(contact_schema, {}) == {
        "name": "This field is required.",
        "email": "This field is required.",
    }


def test_optional_fields_may_be_left_out(contact_schema):
    assert validate_content(contact_schema, {"name": "A", "email": "a@example.com"}) == {}


@pytest.mark.parametrize(("prop", "value", "message"), [
    ({"type": "string"}, 5, "Enter text."),
    ({"type": "string", "minLength": 3}, "ab", "Enter at least 3 characters."),
    ({"type": "string", "maxLength": 1}, "ab", "Enter at most 1 character."),
    ({"type": "string", "pattern": "^[a-z]+$"}, "Ab1", "Enter a value that matches the pattern ^[a-z]+$."),
    ({"type": "string", "format": "email"}, "not-an-email", "Enter an email address, like name@example.com."),
    ({"type": "string", "format": "email"}, "a@b", "Enter an email address, like name@example.com."),
    ({"type": "string", "format": "uri"}, "example.com", "Enter a full address with a scheme, like https://example.com."),
    ({"type": "string", "format": "uri"}, "https://exa mple.com", "Enter a full address with a scheme, like https://example.com."),
    ({"type": "string", "format": "date"}, "2024-02-30", "Enter a date as YYYY-MM-DD."),
    ({"type": "string", "format": "date"}, "20240301", "Enter a date as YYYY-MM-DD."),
    ({"type": "string", "format": "date-time"}, "2024-03-01T10:00:00", "Enter a date and time with a timezone, like 2025-01-31T14:30:00Z."),
    ({"type": "string", "format": "date-time"}, "2024-03-01", "Enter a date and time with a timezone, like 2025-01-31T14:30:00Z."),
    ({"type": "integer"}, 2.5, "Enter a whole number."),
    ({"type": "integer"}, 2.0, "Enter a whole number."),
    ({"type": "integer"}, True, "Enter a whole number."),
    ({"type": "integer"}, "3", "Enter a whole number."),
    ({"type": "number"}, False, "Enter a number."),
    ({"type": "number"}, float("inf"), "Enter a number."),
    ({"type": "number", "minimum": 18}, 17, "Enter a number of at least 18."),
    ({"type": "number", "maximum": 1.5}, 2, "Enter a number of at most 1.5."),
    ({"type": "boolean"}, "yes", "Choose yes or no."),
    ({"type": "boolean"}, 1, "Choose yes or no."),
    ({"type": "string", "enum": ["a", "b"]}, "c", "Choose one of the listed options."),
    ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, "b", "Choose one of the listed options."),
    ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, ["b"], "Choose only listed options."),
    ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, ["b"], "Choose only listed options."),
    ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, "a", "Choose from the list."),
    ({"type": "array", "minItems": 2, "items": {"type": "string", "enum": ["a", "b"]}}, ["a"], "Choose at least 2."),
    ({"type": "array", "maxItems": 1, "items": {"type": "string", "enum": ["a", "b"]}}, ["a", "b"], "Choose at most 1."),
    ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, ["a", "a"], "Choose each option only once."),
])
def test_invalid_values_get_a_plain_message(prop, value, message):
    assert validate_content(one(prop), {"x": value}) == {"x": message}


@pytest.mark.parametrize(("prop", "value"), [
    ({"type": "string", "minLength": 2, "maxLength": 4}, "abcd"),
    ({"type": "string", "pattern": "^[A-Za-z]+$"}, "Ada"),
    ({"type": "string", "format": "email"}, "ada.lovelace+x@example.co.uk"),
    ({"type": "string", "format": "uri"}, "https://example.com/a?b=c#d"),
    ({"type": "string", "format": "uri"}, "mailto:ada@example.com"),
    ({"type": "string", "format": "date"}, "2024-02-29"),
    ({"type": "string", "format": "date-time"}, "2024-03-01T10:00:00Z"),
    ({"type": "string", "format": "date-time"}, "2024-03-01T10:00:00.5+05:30"),
    ({"type": "integer", "minimum": 0, "maximum": 10}, 10),
    ({"type": "number", "minimum": 0}, 0.25),
    ({"type": "number"}, 30),
    ({"type": "boolean"}, False),
    ({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}, "b"),
    ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, []),
    ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, ["a"]),
])
def test_valid_values_pass(prop, value):
    assert validate_content(one(prop), {"x": value}) == {}


@pytest.mark.parametrize("prop", [{"type": "string"}, {"type": "number"}, {"type": "boolean"},
                                  {"type": "string", "enum": ["a"]}])
def test_null_is_never_valid_content(prop):
    assert validate_content(one(prop), {"x": None}) == {
        "x": "Leave the field out instead of sending null."}


def test_keys_outside_the_form_are_reported():
    assert validate_content(one({"type": "string"}), {"x": "a", "y": 1}) == {
        "y": "This is not a field of the form."}


def test_content_that_is_not_an_object_is_reported_under_the_empty_key():
    assert validate_content(one({"type": "string"}), ["x"]) == {
        "": "The answer must be an object of field values."}


def test_an_unsupported_schema_raises():
    with pytest.raises(SchemaError, match="nested objects"):
        validate_content(one({"type": "object"}), {})


def test_a_catastrophic_pattern_returns_within_a_second():
    schema = one({"type": "string", "pattern": "^(a|aa)+$"})
    started = time.monotonic()
    problems = validate_content(schema, {"x": "a" * 40 + "!"})
    assert time.monotonic() - started < 1.0
    assert problems == {"x": "This value could not be checked against the pattern "
                              "^(a|aa)+$ in time."}


def test_the_classic_nested_quantifier_pattern_is_answered():
    schema = one({"type": "string", "pattern": "^(a+)+$"})
    started = time.monotonic()
    problems = validate_content(schema, {"x": "a" * 40 + "!"})
    assert time.monotonic() - started < 1.0
    assert problems == {"x": "Enter a value that matches the pattern ^(a+)+$."}


INTEGER = NumberField(name="n", title=None, description=None, required=False, default=None,
                      integer=True)
NUMBER = NumberField(name="n", title=None, description=None, required=False, default=None)


@pytest.mark.parametrize(("field", "text", "value"), [
    (INTEGER, "42", 42), (INTEGER, " -7 ", -7), (INTEGER, "+3", 3), (INTEGER, "\u22124", -4),
    (NUMBER, "30", 30), (NUMBER, "2.5", 2.5), (NUMBER, ".5", 0.5), (NUMBER, "1e3", 1000.0),
])
def test_read_number_types_what_was_typed(field, text, value):
    got = read_number(field, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(("field", "text"), [
    (INTEGER, "2.5"), (INTEGER, "1_000"), (INTEGER, "abc"), (INTEGER, "1e3"),
    (NUMBER, "nan"), (NUMBER, "inf"), (NUMBER, "1_0"), (NUMBER, "1,5"), (NUMBER, "--1"),
])
def test_read_number_refuses_what_is_not_a_number(field, text):
    with pytest.raises(ValueError, match="Enter a"):
        read_number(field, text)


@pytest.mark.parametrize(("prop", "value", "message"), [
    ({"type": "number", "exclusiveMinimum": 0}, 0, "Enter a number greater than 0."),
    ({"type": "number", "exclusiveMinimum": 0}, -0.5, "Enter a number greater than 0."),
    ({"type": "integer", "exclusiveMaximum": 10}, 10, "Enter a number less than 10."),
    ({"type": "number", "exclusiveMaximum": 2.5}, 2.5, "Enter a number less than 2.5."),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": True}, 0, "Enter a number greater than 0."),
    ({"type": "number", "maximum": 1, "exclusiveMaximum": True}, 1, "Enter a number less than 1."),
    ({"type": "integer", "multipleOf": 5}, 7, "Enter a multiple of 5."),
    ({"type": "number", "multipleOf": 0.1}, 0.35, "Enter a multiple of 0.1."),
    ({"type": "number", "multipleOf": 0.25}, 0.3, "Enter a multiple of 0.25."),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, ["c"], "Choose only listed options."),
    ({"type": "array", "uniqueItems": True, "items": {"enum": ["a", "b"]}}, ["a", "a"],
     "Choose each option only once."),
    ({"oneOf": [{"const": "a", "title": "A"}]}, "b", "Choose one of the listed options."),
    ({"type": "string", "const": "v1"}, "v2", "Choose one of the listed options."),
])
def test_the_constraints_frameworks_write_get_a_plain_message(prop, value, message):
    assert validate_content(one(prop), {"x": value}) == {"x": message}


@pytest.mark.parametrize(("prop", "value"), [
    ({"type": "number", "exclusiveMinimum": 0}, 1e-9),
    ({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100}, 99),
    ({"type": "number", "minimum": 0, "exclusiveMinimum": False}, 0),
    ({"type": "number", "multipleOf": 0.1}, 0.3),
    ({"type": "number", "multipleOf": 0.1}, 0.7),
    ({"type": "number", "multipleOf": 0.1}, 12.3),
    ({"type": "number", "multipleOf": 0.01}, 19.99),
    ({"type": "number", "multipleOf": 0.1}, 3),
    ({"type": "integer", "multipleOf": 5}, -15),
    ({"type": "integer", "multipleOf": 5}, 10**30),
    ({"type": "integer", "multipleOf": 0.5}, 3),
    ({"type": "number", "multipleOf": 1e-300}, 1e300),
    ({"type": "array", "items": {"enum": ["a", "b"]}}, ["b", "a"]),
    ({"oneOf": [{"const": "a", "title": "A"}]}, "a"),
    ({"type": "string", "const": "v1"}, "v1"),
])
def test_values_the_framework_constraints_allow_pass(prop, value):
    assert validate_content(one(prop), {"x": value}) == {}


def test_unknown_keys_are_refused_whatever_additional_properties_says():
    for additional in (True, False):
        schema = {**one({"type": "string"}), "additionalProperties": additional}
        assert validate_content(schema, {"x": "a", "y": 1}) == {
            "y": "This is not a field of the form."}


@pytest.mark.parametrize("step", [0.1, 0.05, 0.25, 0.5, 5])
def test_multiple_of_agrees_with_pydantic_on_what_people_type(step):
    class Model(BaseModel):
        x: float = Field(multiple_of=step)

    schema = Model.model_json_schema()
    typed = [round(i * 0.01, 2) for i in range(-300, 3000, 7)]
    for value in typed:
        try:
            Model(x=value)
            server_takes_it = True
        except ValidationError:
            server_takes_it = False
        assert (validate_content(schema, {"x": value}) == {}) == server_takes_it, value


def test_a_pydantic_model_is_enforced_like_pydantic_would():
    class Colour(str, enum.Enum):
        RED = "red"
        GREEN = "green"

    class Order(BaseModel):
        model_config = ConfigDict(extra="forbid")
        quantity: int = Field(gt=0, multiple_of=5)
        colour: Colour
        extras: set[Literal["gift", "rush"]] = set()

    schema = Order.model_json_schema()
    bad = {"quantity": 0, "colour": "blue", "extras": ["gift", "gift"], "other": 1}
    assert validate_content(schema, bad) == {
        "quantity": "Enter a number greater than 0.",
        "colour": "Choose one of the listed options.",
        "extras": "Choose each option only once.",
        "other": "This is not a field of the form.",
    }
    with pytest.raises(ValidationError):
        Order.model_validate(bad)
    good = {"quantity": 15, "colour": "green", "extras": ["rush"]}
    assert validate_content(schema, good) == {}
    assert Order.model_validate(good).colour is Colour.GREEN


def test_the_new_messages_in_chinese():
    set_language("zh")
    try:
        problems = validate_content(
            {"type": "object", "properties": {
                "a": {"type": "number", "exclusiveMinimum": 0},
                "b": {"type": "number", "exclusiveMaximum": 1},
                "c": {"type": "integer", "multipleOf": 5}}},
            {"a": 0, "b": 1, "c": 7})
    finally:
        set_language(None)
    assert problems == {"a": "请输入大于 0 的数字。", "b": "请输入小于 1 的数字。", "c": "请输入 5 的倍数。"}


# -- jsonschema off the way to the first form ------------------------------------------------------

def test_showing_forms_and_connecting_import_no_jsonschema():
    # Its import can take over a second (rfc3987-syntax builds a grammar); only Submit needs it.
    import subprocess
    import sys

    code = ("import sys, nb_elicit._runtime.connection, nb_elicit._ui.form, nb_elicit._magics; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_warm_up_makes_the_validator_in_the_background(monkeypatch):
    import threading

    from nb_elicit._core import validate

    monkeypatch.setattr(validate, "_engine", None)
    started = threading.Event()
    real = validate._make_engine

    def slow():
        started.set()
        time.sleep(0.2)
        return real()

    monkeypatch.setattr(validate, "_make_engine", slow)
    validate.warm_up()
    assert started.wait(5)
    validate.warm_up()  # already under way: no second thread
    names = [t.name for t in threading.enumerate()]
    assert names.count("nb_elicit-validate-warm-up") == 1
    # Validating meanwhile waits for it, and is right.
    assert validate_content(one({"type": "integer"}), {"x": 2.5}) == {"x": "Enter a whole number."}
    assert validate._engine is not None
