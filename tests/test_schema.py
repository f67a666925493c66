import json
import subprocess
import sys

import pytest
from helpers.schemas import REJECTED, SPEC_EXAMPLES, load_example

from nb_elicit import (
    BooleanField,
    ChoiceField,
    MultiChoiceField,
    NumberField,
    Option,
    SchemaError,
    TextField,
    parse_schema,
)


def schema_of(**properties) -> dict:
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.stem)
def test_every_spec_example_parses(path):
    example = load_example(path)
    spec = parse_schema(example["requestedSchema"])
    assert [f.name for f in spec] == list(example["requestedSchema"]["properties"])


def test_the_examples_cover_every_spec_version_and_the_seed():
    for source in ("seed-", "2025-06-18-", "2025-11-25-", "2026-07-28-"):
        assert sum(p.stem.startswith(source) for p in SPEC_EXAMPLES) >= 5, source


@pytest.mark.parametrize("case", REJECTED, ids=[c["id"] for c in REJECTED])
def test_rejected_schema_names_the_offending_path(case):
    with pytest.raises(SchemaError) as caught:
        parse_schema(case["schema"])
    paths = [path for path, _ in caught.value.problems]
    assert case["path"] in paths
    assert case["path"] in str(caught.value)
    assert "\n" not in str(caught.value)


def test_rejection_table_is_large_enough():
    assert len(REJECTED) >= 30


def test_one_error_names_every_offending_property():
    schema = schema_of(
        address={"type": "object", "properties": {}},
        tags={"type": "array", "items": {"type": "object"}},
        ref={"$ref": "#/defs/x"},
        age={"type": "integer", "minimum": 5, "maximum": 1},
        ok={"type": "string"},
    )
    with pytest.raises(SchemaError) as caught:
        parse_schema(schema)
    message = str(caught.value)
    for path in ("properties.address", "properties.tags.items", "properties.ref.$ref",
                 "properties.age.minimum"):
        assert path in message
    assert "properties.ok" not in message
    assert "nested objects" in message and "arrays of objects" in message


def test_fields_keep_the_servers_order():
    names = ["zeta", "alpha", "mid", "beta"]
    spec = parse_schema(schema_of(**{n: {"type": "string"} for n in names}))
    assert [f.name for f in spec] == names


def test_string_field_keeps_all_constraints():
    spec = parse_schema({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"user": {"type": "string", "title": "User", "description": "who",
                                "minLength": 3, "maxLength": 20, "pattern": "^[a-z]+$",
                                "default": "ada"}},
        "required": ["user"],
    })
    assert spec.fields[0] == TextField(name="user", title="User", description="who",
                                       required=True, default="ada", min_length=3,
                                       max_length=20, format=None, pattern="^[a-z]+$")


@pytest.mark.parametrize("fmt", ["email", "uri", "date", "date-time"])
def test_each_string_format_is_accepted(fmt):
    assert parse_schema(schema_of(x={"type": "string", "format": fmt})).fields[0].format == fmt


def test_number_and_integer_fields():
    spec = parse_schema(schema_of(n={"type": "number", "minimum": 0.5, "maximum": 9.5,
                                     "default": 1.5},
                                  i={"type": "integer", "minimum": 1, "default": 3.0}))
    n, i = spec.fields
    assert isinstance(n, NumberField) and not n.integer
    assert (n.minimum, n.maximum, n.default) == (0.5, 9.5, 1.5)
    assert i.integer and i.default == 3 and isinstance(i.default, int)


def test_boolean_field_default():
    field = parse_schema(schema_of(ok={"type": "boolean", "default": True})).fields[0]
    assert isinstance(field, BooleanField) and field.default is True


def test_untitled_enum_uses_values_as_labels():
    field = parse_schema(schema_of(c={"type": "string", "enum": ["a", "b"]})).fields[0]
    assert isinstance(field, ChoiceField)
    assert field.options == (Option("a", "a"), Option("b", "b"))


def test_legacy_enum_names_label_the_values():
    field = parse_schema(schema_of(c={"type": "string", "enum": ["a", "b"],
                                      "enumNames": ["选项A", "Option B"],
                                      "default": "b"})).fields[0]
    assert field.options == (Option("a", "选项A"), Option("b", "Option B"))
    assert field.default == "b"


def test_titled_one_of_single_select():
    field = parse_schema(schema_of(c={"type": "string", "oneOf": [
        {"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]})).fields[0]
    assert isinstance(field, ChoiceField)
    assert field.options == (Option("#f00", "Red"), Option("#0f0", "Green"))


def test_untitled_multi_select():
    field = parse_schema(schema_of(m={"type": "array", "minItems": 1, "maxItems": 2,
                                      "items": {"type": "string", "enum": ["a", "b", "c"]},
                                      "default": ["a"]})).fields[0]
    assert isinstance(field, MultiChoiceField)
    assert (field.min_items, field.max_items, field.default) == (1, 2, ("a",))
    assert [o.value for o in field.options] == ["a", "b", "c"]


def test_titled_multi_select():
    field = parse_schema(schema_of(m={"type": "array", "items": {"anyOf": [
        {"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]}})).fields[0]
    assert field.options == (Option("x", "Ex"), Option("y", "Why"))


def test_required_marks_fields_and_everything_else_is_optional():
    spec = parse_schema({"type": "object", "properties": {"a": {"type": "string"},
                                                           "b": {"type": "string"}},
                         "required": ["b"]})
    assert [f.required for f in spec] == [False, True]


def test_an_empty_form_is_a_confirmation():
    assert len(parse_schema({"type": "object", "properties": {}})) == 0


def test_annotation_keywords_and_top_level_title_are_ignored():
    spec = parse_schema({"type": "object", "title": "Model", "description": "d",
                         "properties": {"a": {"type": "string", "$comment": "c",
                                              "examples": ["x"], "deprecated": False}}})
    assert spec.fields[0].name == "a"


def test_label_falls_back_to_the_property_name():
    spec = parse_schema(schema_of(a={"type": "string"}, b={"type": "string", "title": "Bee"}))
    assert [f.label for f in spec] == ["a", "Bee"]


def test_an_invalid_default_date_is_rejected():
    with pytest.raises(SchemaError, match="properties.d.default"):
        parse_schema(schema_of(d={"type": "string", "format": "date", "default": "31/01/2024"}))


def test_the_schema_engine_imports_neither_ipywidgets_nor_mcp():
    code = ("import sys, nb_elicit._core.schema, nb_elicit._core.validate, nb_elicit._core.answer; "
            "print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('ipywidgets', 'mcp'))))")
    out = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out) == []


@pytest.mark.parametrize("prop", [
    {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "default": None,
     "title": "Age"},
    {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 0}], "title": "Age"},
    {"type": ["integer", "null"], "minimum": 0, "title": "Age"},
    {"type": ["null", "integer"], "minimum": 0, "default": None, "title": "Age"},
])
def test_nullable_wrappers_become_optional_fields_of_their_type(prop):
    spec = parse_schema({"type": "object", "properties": {"age": prop}})
    (field,) = spec.fields
    assert isinstance(field, NumberField) and field.integer
    assert (field.title, field.minimum, field.default, field.required) == ("Age", 0, None, False)


def test_a_nullable_multi_select_keeps_its_choices():
    spec = parse_schema(schema_of(tags={"anyOf": [
        {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, {"type": "null"}],
        "default": None}))
    assert [o.value for o in spec.fields[0].options] == ["a", "b"]


@pytest.mark.parametrize("prop", [
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"anyOf": [{"type": "integer"}, {"type": "null"}, {"type": "string"}]},
    {"type": ["integer", "string"]},
    {"anyOf": [{"type": "object", "properties": {}}, {"type": "null"}]},
])
def test_other_unions_are_still_refused(prop):
    with pytest.raises(SchemaError, match="properties.x"):
        parse_schema(schema_of(x=prop))
