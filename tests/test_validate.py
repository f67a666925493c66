import enum
import math
import os
import time
from typing import Literal

import pytest
from helpers.schemas import SPEC_EXAMPLES, load_example
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nb_elicit import NumberField, SchemaError, set_language, validate_content
from nb_elicit._core.schema.validate import read_number


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


def test_a_catastrophic_pattern_returns_without_hanging():
    schema = one({"type": "string", "pattern": "^(a|aa)+$"})
    started = time.monotonic()
    problems = validate_content(schema, {"x": "a" * 40 + "!"})
    assert time.monotonic() - started < 10  # (a hang guard: it gives up after PATTERN_TIMEOUT)
    assert problems == {"x": "This value could not be checked against the pattern "
                              "^(a|aa)+$ in time."}


def test_the_classic_nested_quantifier_pattern_is_answered():
    schema = one({"type": "string", "pattern": "^(a+)+$"})
    started = time.monotonic()
    problems = validate_content(schema, {"x": "a" * 40 + "!"})
    assert time.monotonic() - started < 10  # (a hang guard: this one is answered at once)
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


@pytest.mark.parametrize(("field", "text", "message"), [
    (NUMBER, "12,5", "Enter a number with a decimal point (not a comma): 12.5"),
    (NUMBER, "-0,75", "Enter a number with a decimal point (not a comma): -0.75"),
    (NUMBER, "1,000", "Enter the number without commas: 1000"),
    (INTEGER, "12,345,678", "Enter the number without commas: 12345678"),
    (INTEGER, "12,5", "Enter a whole number."),
    (NUMBER, "1,2,3", "Enter a number."),
])
def test_a_number_written_with_commas_gets_a_hint_of_how_to_write_it(field, text, message):
    with pytest.raises(ValueError) as refused:
        read_number(field, text)
    assert str(refused.value) == message


def test_a_hint_never_repeats_what_was_typed_into_a_secret_number():
    pin = NumberField(name="pin", title=None, description=None, required=False, default=None)
    for typed in ("48,31", "4,831"):
        with pytest.raises(ValueError) as refused:
            read_number(pin, typed)
        assert "48" not in str(refused.value) and "31" not in str(refused.value)
        assert "comma" in str(refused.value)


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
    # Its import can take over a second (rfc3987-syntax builds a grammar).
    import subprocess
    import sys

    code = ("import sys, nb_elicit._runtime.connection, nb_elicit._ui.form, nb_elicit._magics; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "[]"


def test_submitting_forms_of_every_kind_imports_no_jsonschema():
    # A Submit checks every keyword of the subset itself: the kernel never waits for the import.
    import json
    import math
    import subprocess
    import sys

    code = """
import json, sys
from nb_elicit import ElicitationForm, validate_content
schema, values = json.load(sys.stdin)
form = ElicitationForm("Everything?", schema, server="demo")
print(form.submit(), len(form.controls))
problems = 0
for value in values:
    for name, prop in schema["properties"].items():
        if isinstance(value, str) or "format" not in prop:
            problems += len(validate_content(schema, {name: value}))
print(problems)
print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))
"""
    values = [v for v in VALUES if _plain(v) and not (isinstance(v, float) and math.isinf(v)
                                                      or v != v)]
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps([EVERY_KIND, values]),
                         capture_output=True, text=True, timeout=120, check=True).stdout
    submitted, problems, imported = out.splitlines()
    # (required fields are empty: Submit checked them, and found problems)
    assert submitted == f"False {len(EVERY_KIND['properties'])}"
    assert int(problems) > len(values)
    assert imported == "[]"


def test_a_tool_result_of_a_plain_return_type_is_checked_without_jsonschema(tmp_path):
    """The demo's github_username returns a str: FastMCP gives it the output schema
    ``{"result": {"type": "string"}}``, and its result is structured. Checking that took the
    kernel's first such call 1.1-1.6 s from the answer to the cell's end, all of it importing
    jsonschema (rfc3987-syntax builds its grammar on import); it needs no jsonschema."""
    import subprocess
    import sys

    code = """
import asyncio, sys
import nb_elicit

async def main():
    conn = await nb_elicit.connect("demo", [sys.executable, "-m", "nb_elicit.demo"])
    try:
        result = await conn.call_tool("github_username")
    finally:
        await conn.close()
    print(result.structured)
    print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))

asyncio.run(main())
"""
    env = {**os.environ, "NB_ELICIT_RESPOND": 'accept {"name": "octocat"}'}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True, env=env, cwd=tmp_path).stdout
    *_, structured, imported = out.splitlines()
    assert structured == "{'result': 'Hello, @octocat!'}"
    assert imported == "[]"


WRAPPED = {"type": "object", "properties": {"result": {"type": "string", "title": "Result"}},
           "required": ["result"], "title": "github_usernameOutput",
           "x-fastmcp-wrap-result": True}


@pytest.mark.parametrize(("schema", "value", "plain"), [
    (WRAPPED, {"result": "hi"}, True),
    (WRAPPED, {"result": 3}, False),  # (off the schema: jsonschema says how, in its words)
    (WRAPPED, {}, False),
    (WRAPPED, {"result": "hi", "more": 1}, True),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 2}, True),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": 2.0}, False),
    ({"type": "object", "properties": {"n": {"type": "integer"}}}, {"n": True}, False),
    ({"type": "object", "properties": {"n": {"type": ["number", "null"]}}}, {"n": None}, True),
    ({"type": "object", "properties": {"n": {"type": "number"}}}, {"n": float("nan")}, False),
    ({"type": "object", "properties": {"s": {"type": "string", "minLength": 1}}}, {"s": "x"},
     False),  # (a keyword it does not check: not decided here)
    ({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}}, {}, False),
    ({"type": "object", "additionalProperties": False}, {}, False),
    ({"type": "thing"}, {}, False),
    ("not a schema", {}, False),
])
def test_plainly_valid_says_yes_only_where_jsonschema_would(schema, value, plain):
    from nb_elicit._core.schema.result_check import plainly_valid

    assert plainly_valid(schema, value) is plain
    if plain:  # (a yes here is a yes of jsonschema's)
        import jsonschema

        jsonschema.validate(value, schema)


# -- each field checks its own value, as jsonschema would ------------------------------------------

EVERY_KIND = {"type": "object", "required": ["name", "email", "plan"], "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
    "code": {"pattern": "[0-9]", "maxLength": 3, "type": "string"},  # (keywords in another order)
    "email": {"type": "string", "format": "email"},
    "site": {"type": "string", "format": "uri"},
    "day": {"type": "string", "format": "date"},
    "at": {"type": "string", "format": "date-time", "minLength": 30},
    "age": {"type": "integer", "minimum": 18, "maximum": 120},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
              "multipleOf": 0.1},
    "draft4": {"type": "number", "minimum": 5, "exclusiveMinimum": True},
    "both": {"type": "number", "minimum": 1, "exclusiveMinimum": 2, "maximum": 9},
    "step": {"multipleOf": 5, "type": "integer"},
    "agree": {"type": "boolean"},
    "plan": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
    "first": {"enum": ["a", "b"], "type": "string"},
    "only": {"type": "string", "const": "yes"},
    "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"},
                                         {"const": "l", "title": "Large"}]},
    "untyped": {"oneOf": [{"const": "x", "title": "X", "description": "the x"}]},
    "colours": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]},
                "minItems": 1, "maxItems": 2},
    "days": {"type": "array", "uniqueItems": True, "items": {"anyOf": [
        {"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"}]}},
    "loose": {"type": "array", "items": {"enum": ["a", "b"]}, "title": "Loose",
              "description": "no type on the items", "default": ["a"], "examples": [["b"]]},
    "late_type": {"type": "array", "items": {"enum": ["a", "b"], "type": "string"}},
    "unique_first": {"type": "array", "uniqueItems": True, "maxItems": 1,
                     "items": {"type": "string", "enum": ["a", "b"]}},
    "count_first": {"maxItems": 1, "type": "array", "items": {"type": "string", "enum": ["a"]}},
    "step_first": {"type": "integer", "multipleOf": 5, "maximum": 3, "minimum": -100},
    "bound_first": {"type": "integer", "maximum": 3, "multipleOf": 5},
    "format_first": {"type": "string", "format": "date", "maxLength": 3},
    "nullable": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "null"}], "default": None},
    "not_said": {"type": "string", "maxLength": None, "minLength": 1},
}}

VALUES = ["", "a", "ab", "Ab1", "abcde", "12", "1234", "ada@example.com", "a@b", "not an email",
          "https://example.com", "example.com", "2024-03-01", "2024-02-30", "2024-03-01T10:00:00Z",
          "2024-03-01T10:00:00", "free", "FREE", "a", "yes", "s", "x", "red",
          0, 1, 2, 3, 5, 10, 17, 18, 120, 121, -1, 0.3, 0.35, 1.0, 2.5, 1e300, 10**20,
          float("inf"), float("nan"), True, False,
          [], ["red"], ["red", "green"], ["red", "red"], ["red", "green", "red"], ["blue"],
          ["mon"], ["mon", "mon"], ["mon", "wed"], ["a", "b"], ["c"],
          [1], [True], ["red", 1], [None], [["red"]], [{"a": 1}], {"a": 1}, ("red",),
          [1, 1], [1, 1.0], [1, True], [{"a": 1}, {"a": 1}], [{"a": 1}, {"a": 2}], [[1], [1]],
          ["a", "a"], ["a", "b", "a"], ["b"], [5], 4, 3.0, -5, -105, -100, "abcd", "2024-0"]



def _plain(value) -> bool:
    """A value that plain JSON gives (what a form control, or an answers file, gives)."""
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return isinstance(value, (str, int, float))


def _reference():
    """jsonschema's validator with the four changes a form makes (see _core/schema/validate.py): real
    formats, strict types, ``multipleOf`` on decimals, and every multi-select unique."""
    import jsonschema
    from jsonschema import Draft202012Validator, FormatChecker

    from nb_elicit._core.schema.fields import is_multiple_of
    from nb_elicit._core.schema.formats import is_date, is_date_time, is_email, is_uri

    formats = FormatChecker(formats=())
    for name, check in {"email": is_email, "uri": is_uri, "date": is_date,
                        "date-time": is_date_time}.items():
        formats.checks(name)(lambda value, check=check: not isinstance(value, str) or check(value))
    integer = lambda _, v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    types = Draft202012Validator.TYPE_CHECKER.redefine_many({
        "integer": integer,
        "number": lambda c, v: integer(c, v) or isinstance(v, float) and math.isfinite(v)})

    def exact_multiple_of(validator, step, instance, schema):
        if validator.is_type(instance, "number") and not is_multiple_of(instance, step):
            yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {step!r}")

    validator = jsonschema.validators.extend(Draft202012Validator, type_checker=types,
                                             validators={"multipleOf": exact_multiple_of})
    return validator, formats


#: The message each keyword's problem gets (the item's type: "Enter text.").
KEYWORD_MESSAGES = {
    "type": {"string": "Enter text.", "integer": "Enter a whole number.",
             "number": "Enter a number.", "boolean": "Choose yes or no.",
             "array": "Choose from the list."},
    "format": {"email": "Enter an email address, like name@example.com.",
               "uri": "Enter a full address with a scheme, like https://example.com.",
               "date": "Enter a date as YYYY-MM-DD.",
               "date-time": "Enter a date and time with a timezone, like 2025-01-31T14:30:00Z."},
}


def _reference_message(field, error) -> str:
    from nb_elicit._core.schema.keyword_values import shown_number

    keyword, limit = error.validator, error.validator_value
    counts = {"minLength": "Enter at least {n} character{s}.",
              "maxLength": "Enter at most {n} character{s}.",
              "minimum": "Enter a number of at least {n}.", "maximum": "Enter a number of at most {n}.",
              "exclusiveMinimum": "Enter a number greater than {n}.",
              "exclusiveMaximum": "Enter a number less than {n}.",
              "multipleOf": "Enter a multiple of {n}.", "minItems": "Choose at least {n}.",
              "maxItems": "Choose at most {n}."}
    if keyword in KEYWORD_MESSAGES:
        return KEYWORD_MESSAGES[keyword][limit]
    if keyword == "pattern":
        return (f"Enter a value as described: {field.description}" if field.description
                else f"Enter a valid {field.title}." if field.title
                else f"Enter a value that matches the pattern {limit}.")
    if keyword in counts:
        return counts[keyword].format(n=shown_number(limit), s="" if limit == 1 else "s")
    if keyword == "uniqueItems":
        return "Choose each option only once."
    if error.path:  # (an item's)
        return "Choose only listed options."
    assert keyword in ("enum", "oneOf", "anyOf", "const"), keyword
    return "Choose one of the listed options."


#: Where the field's message knowingly differs from the first keyword jsonschema reports: of
#: two lower bounds (``minimum: 1`` and ``exclusiveMinimum: 2``) the field keeps and tells the
#: one that decides, wherever the server wrote the other.
TELLS_THE_DECIDING_BOUND = {("both", repr(value)) for value in (0, -1, 0.3, 0.35, -5, -105, -100)}


def test_each_field_judges_every_value_as_jsonschema_does():
    from nb_elicit._core.schema.fields import parse_schema

    validator_class, formats = _reference()
    spec = parse_schema(EVERY_KIND)
    for field in spec:
        prop = {k: v for k, v in spec.schema["properties"][field.name].items() if v is not None}
        if prop.get("type") == "array":
            prop = {**prop, "uniqueItems": True}
        validator = validator_class(prop, format_checker=formats)
        for value in VALUES:
            problem = field.problem(value)
            first = next(iter(validator.iter_errors(value)), None)
            assert (problem is None) == (first is None), (field.name, value, problem)
            if first is not None and (field.name, repr(value)) not in TELLS_THE_DECIDING_BOUND:
                assert problem == _reference_message(field, first), (field.name, value)


def test_the_deciding_bound_is_told_whatever_bound_the_server_wrote_first():
    both = one({"type": "number", "minimum": 1, "exclusiveMinimum": 2})
    assert validate_content(both, {"x": 0}) == {"x": "Enter a number greater than 2."}
    assert validate_content(both, {"x": 2}) == {"x": "Enter a number greater than 2."}
    assert validate_content(both, {"x": 2.5}) == {}


@pytest.mark.parametrize(("prop", "value", "message"), [
    # a text's length, pattern and format
    ({"type": "string", "minLength": 5, "pattern": "^[0-9]+$"}, "ab", "Enter at least 5 characters."),
    ({"type": "string", "pattern": "^[0-9]+$", "minLength": 5}, "ab",
     "Enter a value that matches the pattern ^[0-9]+$."),
    ({"type": "string", "format": "date", "maxLength": 3}, "2024-0", "Enter a date as YYYY-MM-DD."),
    ({"type": "string", "maxLength": 3, "format": "date"}, "2024-0", "Enter at most 3 characters."),
    # a number's bounds and step
    ({"type": "integer", "multipleOf": 5, "maximum": 3}, 4, "Enter a multiple of 5."),
    ({"type": "integer", "maximum": 3, "multipleOf": 5}, 4, "Enter a number of at most 3."),
    ({"maximum": 3, "type": "integer"}, "4", "Enter a whole number."),  # (a bound judges no text)
    ({"maximum": 3, "type": "integer"}, 4.5, "Enter a number of at most 3."),
    ({"type": "integer", "maximum": 3}, 4.5, "Enter a whole number."),
    ({"multipleOf": 5, "type": "integer"}, 2.5, "Enter a multiple of 5."),
    # a choice's type and its choices
    ({"type": "string", "enum": ["a"]}, 5, "Enter text."),
    ({"enum": ["a"], "type": "string"}, 5, "Choose one of the listed options."),
    ({"oneOf": [{"const": "a", "title": "A"}]}, 5, "Choose one of the listed options."),
    # a multi-select's items, count and repeats
    ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, [5], "Enter text."),
    ({"type": "array", "items": {"enum": ["a"], "type": "string"}}, [5],
     "Choose only listed options."),
    ({"type": "array", "items": {"enum": ["a"]}}, [5], "Choose only listed options."),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1}, ["a", "c"],
     "Choose only listed options."),
    ({"type": "array", "maxItems": 1, "items": {"enum": ["a", "b"]}}, ["a", "c"], "Choose at most 1."),
    ({"type": "array", "maxItems": 1, "items": {"enum": ["a", "b"]}}, ["a", "a"], "Choose at most 1."),
    ({"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 1}, ["a", "a"], "Choose at most 1."),
    ({"type": "array", "uniqueItems": True, "maxItems": 1, "items": {"enum": ["a"]}}, ["a", "a"],
     "Choose each option only once."),
    ({"type": "array", "uniqueItems": True, "items": {"enum": ["a"]}}, [1, 1.0],
     "Choose each option only once."),
    ({"type": "array", "uniqueItems": True, "items": {"enum": ["a"]}}, [1, True],
     "Choose only listed options."),
])
def test_the_first_problem_of_a_field_follows_the_order_of_its_keywords(prop, value, message):
    assert validate_content(one(prop), {"x": value}) == {"x": message}


def test_a_field_made_by_hand_checks_its_type_first_and_the_rest_in_the_usual_order():
    from nb_elicit import ChoiceField, MultiChoiceField, Option, TextField

    base = {"title": None, "description": None, "required": False, "default": None}
    text = TextField(name="t", **base, min_length=5, pattern="^[0-9]+$")
    assert text.problem("ab") == "Enter at least 5 characters."
    assert text.problem(5) == "Enter text."
    assert text.problem("12345") is None
    choice = ChoiceField(name="c", **base, options=(Option("a", "A"),))
    assert choice.problem(5) == "Enter text."
    assert choice.problem("b") == "Choose one of the listed options."
    multi = MultiChoiceField(name="m", **base, options=(Option("a", "A"),), max_items=1)
    assert multi.problem(["a", "a"]) == "Choose at most 1."
    assert multi.problem([5]) == "Enter text."
    assert multi.problem(["a"]) is None


def test_a_list_nested_deeper_than_python_reads_is_not_allowed():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    schema = one({"type": "array", "uniqueItems": True, "items": {"enum": ["a"]}})
    assert validate_content(schema, {"x": [deep, deep]}) == {"x": "This value is not allowed."}
