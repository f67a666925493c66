import enum
import os
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
    from nb_elicit._core.validate import plainly_valid

    assert plainly_valid(schema, value) is plain
    if plain:  # (a yes here is a yes of jsonschema's)
        import jsonschema

        jsonschema.validate(value, schema)


# -- the direct checks say what jsonschema says ------------------------------------------------

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
}}

VALUES = ["", "a", "ab", "Ab1", "abcde", "12", "1234", "ada@example.com", "a@b", "not an email",
          "https://example.com", "example.com", "2024-03-01", "2024-02-30", "2024-03-01T10:00:00Z",
          "2024-03-01T10:00:00", "free", "FREE", "a", "yes", "s", "x", "red",
          0, 1, 2, 3, 5, 10, 17, 18, 120, 121, -1, 0.3, 0.35, 1.0, 2.5, 1e300, 10**20,
          float("inf"), float("nan"), True, False,
          [], ["red"], ["red", "green"], ["red", "red"], ["red", "green", "red"], ["blue"],
          ["mon"], ["mon", "mon"], ["mon", "wed"], ["a", "b"], ["c"],
          [1], [True], ["red", 1], [None], [["red"]], [{"a": 1}], {"a": 1}, ("red",)]


def _plain(value) -> bool:
    """A value the direct checks decide (what a form control, or plain JSON, gives)."""
    if isinstance(value, list):
        return all(isinstance(v, str) for v in value)
    return isinstance(value, (str, int, float))


def _outcome(check, *args):
    try:
        return check(*args)
    except Exception as error:  # noqa: BLE001 - the same failure either way is agreement too
        return type(error)


def test_the_direct_checks_say_what_jsonschema_says_for_every_kind_and_value(monkeypatch):
    from nb_elicit._core import validate
    from nb_elicit._core.schema import parse_schema

    spec = parse_schema(EVERY_KIND)
    decided = 0
    for name in EVERY_KIND["properties"]:
        for value in VALUES:
            content = {name: value}
            direct = _outcome(validate.validate_spec, spec, content)
            try:
                validate._direct_errors(validate._checkable(spec), content)
                decided += 1
            except validate._Undecided:
                # Only values no form control makes, and a format of a value that is not text.
                prop = EVERY_KIND["properties"][name]
                assert not _plain(value) or ("format" in prop and not isinstance(value, str)), (
                    name, value)
            with monkeypatch.context() as m:
                def undecided(*_args):
                    raise validate._Undecided("the test asks jsonschema")
                m.setattr(validate, "_direct_errors", undecided)
                reference = _outcome(validate.validate_spec, spec, content)
            assert direct == reference, (name, value)
    assert decided >= 0.8 * len(EVERY_KIND["properties"]) * len(VALUES)


def test_the_first_problem_of_a_field_follows_the_order_of_its_keywords():
    assert validate_content(one({"type": "string", "minLength": 5, "pattern": "^[0-9]+$"}),
                            {"x": "ab"}) == {"x": "Enter at least 5 characters."}
    assert validate_content(one({"type": "string", "pattern": "^[0-9]+$", "minLength": 5}),
                            {"x": "ab"}) == {"x": "Enter a value that matches the pattern "
                                                   "^[0-9]+$."}
