"""Odd JSON values in every keyword of every field kind: a schema is accepted or refused with
one SchemaError, content is judged in plain words, and a form is built, never a crash."""

import random
import sys

import pytest

from nb_elicit import ElicitationForm, SchemaError
from nb_elicit._core.schema.fields import ANNOTATION_KEYWORDS, parse_schema
from nb_elicit._core.schema.prefill import as_submitted
from nb_elicit._core.schema.validate import validate_spec

HUGE = 10**400
ODD = [
    None, True, False, 0, -1, 1, 2, 0.5, -0.0, 1e-300, 1e300, HUGE, -HUGE, 10**5000,
    float("inf"), float("-inf"), float("nan"), sys.float_info.max, "", "x", "9" * 400,
    "2026-01-02T03:04:05.1Z", "2026-01-02", "[", "(?P<", "a" * 5000, [], [None], ["a", "a"],
    ["a", "b"], [1, 2], [[]], [{}], {}, {"const": "a"}, {"const": "a", "title": "A"},
    [{"const": "a", "title": "A"}, {"const": "a", "title": "B"}], {"type": "null"},
    {"$ref": "#/$defs/x"}, {"enum": ["a"]}, {"anyOf": []}, {"type": "string"},
]
#: Odd content for a field that was accepted (fewer, for time: each is judged for each schema).
CONTENT = [None, True, 0, HUGE, -HUGE, 10**5000, float("inf"), float("nan"), "", "9" * 400,
           ["a", "a"], [1], [{}], {}]
#: A plain schema of each field kind, and the keywords each kind may carry (and a few others).
KINDS = {
    "text": {"type": "string"},
    "date": {"type": "string", "format": "date"},
    "date-time": {"type": "string", "format": "date-time"},
    "number": {"type": "number"},
    "integer": {"type": "integer", "minimum": 0, "maximum": 10},
    "boolean": {"type": "boolean"},
    "enum": {"type": "string", "enum": ["a", "b"]},
    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
    "const": {"type": "string", "const": "a"},
    "oneOf": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
    "array": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
    "anyOf": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
    "nullable": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    "ref": {"$ref": "#/$defs/Colour"},
}
KEYWORDS = sorted({
    "type", "title", "description", "default", "minLength", "maxLength", "format", "pattern",
    "enum", "enumNames", "const", "oneOf", "anyOf", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "items", "minItems", "maxItems", "uniqueItems", "$ref",
    "properties", "allOf", "not", *ANNOTATION_KEYWORDS})
TOP_KEYWORDS = ["type", "properties", "required", "$schema", "title", "description", "$defs",
                "additionalProperties"]
DEFS = {"Colour": {"type": "string", "enum": ["red", "blue"]}}


def schema_of(prop, **top) -> dict:
    return {"type": "object", "properties": {"f": prop}, "$defs": DEFS, **top}


def judged(schema):
    """The spec of ``schema``, or None when it is refused with one clear SchemaError."""
    try:
        spec = parse_schema(schema)
    except SchemaError as exc:
        line = str(exc)
        assert line.startswith("unsupported requestedSchema") and "Traceback" not in line
        return None
    # accepted: any content is judged in words, and a form can be built and read
    for value in CONTENT:
        problems = validate_spec(spec, {"f": value})
        assert all(isinstance(p, str) and p for p in problems.values())
    assert isinstance(validate_spec(spec, as_submitted(spec, {})), dict)
    return spec


def test_every_keyword_of_every_kind_takes_any_odd_value():
    accepted = refused = 0
    for base in KINDS.values():
        for keyword in KEYWORDS:
            for value in ODD:
                spec = judged(schema_of({**base, keyword: value}))
                accepted, refused = accepted + (spec is not None), refused + (spec is None)
                nested = base.get("items")
                if isinstance(nested, dict):
                    judged(schema_of({**base, "items": {**nested, keyword: value}}))
    assert accepted and refused  # (both outcomes were met, so the loop judged something)


def test_every_top_level_keyword_takes_any_odd_value():
    for keyword in TOP_KEYWORDS:
        for value in ODD:
            judged({**schema_of({"type": "string"}), keyword: value})
    for value in ODD:
        judged(value)  # the schema itself
        judged({"type": "object", "properties": {"f": value}})
        judged({"type": "object", "properties": {"f": {"type": "string"}}, "required": [value]})


def test_random_mixtures_of_odd_values():
    rng = random.Random(22)
    for _ in range(3000):
        prop = dict(rng.choice(list(KINDS.values())))
        for keyword in rng.sample(KEYWORDS, rng.randint(1, 4)):
            prop[keyword] = rng.choice(ODD)
        judged(schema_of(prop))


@pytest.mark.parametrize(("keyword", "value"), [
    ("minimum", HUGE), ("maximum", -HUGE), ("multipleOf", HUGE), ("default", HUGE),
    ("exclusiveMinimum", 10**5000), ("minimum", float("inf")), ("maximum", float("nan")),
    ("default", float("-inf"))], ids=lambda v: v if isinstance(v, str) else "odd")
def test_numbers_no_form_can_work_with_are_refused_in_one_line(keyword, value):
    with pytest.raises(SchemaError) as caught:
        parse_schema(schema_of({"type": "integer", keyword: value}))
    assert f"properties.f.{keyword}" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_enum_names_next_to_a_bad_enum_is_a_schema_error():
    for enum in ("x", [], [1], ["a", "a"], None):
        with pytest.raises(SchemaError, match=r"properties\.f\.enum"):
            parse_schema(schema_of({"type": "string", "enum": enum, "enumNames": ["A"]}))


def test_huge_numbers_in_content_get_the_bounds_message():
    spec = parse_schema(schema_of({"type": "integer", "minimum": 1, "maximum": 100,
                                   "multipleOf": 3}))
    assert validate_spec(spec, {"f": int("9" * 400)}) == {"f": "Enter a number of at most 100."}
    assert validate_spec(spec, {"f": -HUGE}) == {"f": "Enter a number of at least 1."}
    spec = parse_schema(schema_of({"type": "number", "multipleOf": 0.1}))
    assert validate_spec(spec, {"f": HUGE}) == {}
    assert validate_spec(spec, {"f": float("inf")}) == {"f": "Enter a number."}


def accepted_forms():
    for base in KINDS.values():
        for keyword in ("default", "minimum", "maximum", "minLength", "minItems", "multipleOf"):
            for value in ODD:
                schema = schema_of({**base, keyword: value})
                try:
                    parse_schema(schema)
                except SchemaError:
                    continue
                yield schema


def test_every_accepted_schema_makes_a_form_whose_submit_answers_or_shows_problems():
    built = 0
    for schema in accepted_forms():
        form = ElicitationForm("?", schema, server="demo")
        form.submit()  # answers, or shows field problems: never a failed form
        assert form.answer.done() or form.status_text, schema
        if form.answer.done():
            assert form.answer.exception(timeout=0) is None, schema
        built += 1
    assert built > 50
