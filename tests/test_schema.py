import datetime as dt
import enum
import json
import subprocess
import sys
from typing import Literal

import pytest
from helpers.schemas import REJECTED, SPEC_EXAMPLES, load_example
from pydantic import AnyUrl, BaseModel, ConfigDict, EmailStr, Field, conlist

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
    code = ("import sys, nb_elicit._core.schema.fields, nb_elicit._core.schema.validate, nb_elicit._core.answer; "
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


# Shapes that frameworks write beyond the spec's subset, generated by the frameworks themselves
# where they are installed (pydantic, the SDK), else copied as FastMCP writes them.

class Colour(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Order(BaseModel):
    model_config = ConfigDict(extra="forbid")

    quantity: int = Field(gt=0, lt=100, multiple_of=5)
    weight: float = Field(ge=0, le=2.5, multiple_of=0.1)
    size: Literal["S", "M", "L"]
    colour: Colour = Colour.RED
    trim: Colour | None = None
    extras: set[Literal["gift", "rush"]] = set()
    palette: list[Colour] = []
    fixed: Literal["v1"] = "v1"
    gift: bool = False
    note: str = Field(default="", min_length=0, max_length=140)
    due: dt.date
    meet: dt.datetime | None = None
    email: EmailStr
    site: AnyUrl | None = None
    picks: conlist(Literal["a", "b", "c"], min_length=1, max_length=2)


def test_a_pydantic_model_with_constraints_enums_and_sets_parses():
    schema = Order.model_json_schema()
    assert schema["additionalProperties"] is False and "$defs" in schema  # what pydantic wrote
    spec = parse_schema(schema)
    assert [f.name for f in spec] == list(Order.model_fields)
    quantity, weight = spec.field("quantity"), spec.field("weight")
    assert (quantity.integer, quantity.exclusive_minimum, quantity.exclusive_maximum,
            quantity.multiple_of, quantity.minimum, quantity.maximum) == (True, 0, 100, 5, None, None)
    assert (weight.minimum, weight.maximum, weight.multiple_of) == (0, 2.5, 0.1)
    colours = (Option("red", "red"), Option("green", "green"))
    colour = spec.field("colour")
    assert isinstance(colour, ChoiceField) and colour.options == colours
    assert colour.default == "red" and colour.title is None  # "Colour" names the type, not the field
    assert spec.field("trim").options == colours and not spec.field("trim").required
    assert spec.field("palette").options == colours
    assert isinstance(spec.field("extras"), MultiChoiceField)
    assert [o.value for o in spec.field("extras").options] == ["gift", "rush"]
    assert spec.field("fixed").options == (Option("v1", "v1"),)
    assert spec.field("fixed").default == "v1"
    assert (spec.field("picks").min_items, spec.field("picks").max_items) == (1, 2)
    assert [spec.field(n).format for n in ("due", "meet", "email", "site")] == [
        "date", "date-time", "email", "uri"]
    assert isinstance(spec.field("gift"), BooleanField)
    assert spec.field("note").max_length == 140
    # the parsed schema has the references resolved in place, for the checks on Submit
    assert spec.schema["properties"]["colour"]["enum"] == ["red", "green"]
    assert spec.schema["properties"]["palette"]["items"]["enum"] == ["red", "green"]


def test_what_the_sdks_ctx_elicit_renders_parses():
    from mcp.server.elicitation import render_elicitation_schema

    class Booking(BaseModel):
        model_config = ConfigDict(extra="forbid")
        nights: int = Field(gt=0, multiple_of=1)
        budget: float | None = Field(default=None, gt=0, lt=10_000)
        rooms: set[Literal["single", "double"]] = set()
        kind: Literal["hotel", "hostel"]

    schema = render_elicitation_schema(Booking)
    spec = parse_schema(schema)
    assert spec.field("nights").exclusive_minimum == 0
    assert (spec.field("budget").exclusive_minimum, spec.field("budget").exclusive_maximum) == (
        0, 10_000)
    assert spec.field("rooms").default == ()


def test_an_int_enum_field_stays_refused():
    class Form(BaseModel):
        level: Level

    with pytest.raises(SchemaError, match=r"properties\.level\.enum: is not supported"):
        parse_schema(Form.model_json_schema())


def test_a_nested_model_stays_refused():
    class Address(BaseModel):
        city: str

    class Form(BaseModel):
        address: Address

    with pytest.raises(SchemaError) as caught:
        parse_schema(Form.model_json_schema())
    assert str(caught.value) == ("unsupported requestedSchema: properties.address: nested "
                                 "objects are not supported")


@pytest.mark.parametrize(("schema", "kind", "values"), [
    # response_type=[["low", "high"]]: a multi-select whose items carry no type
    ({"type": "object", "properties": {"value": {"type": "array", "items": {
        "enum": ["low", "high"]}}}, "required": ["value"]}, MultiChoiceField, ["low", "high"]),
    # titled multi-select: items are anyOf of {const, title}, no type
    ({"type": "object", "properties": {"value": {"type": "array", "items": {"anyOf": [
        {"const": "low", "title": "Low"}, {"const": "high", "title": "High"}]}}},
      "required": ["value"]}, MultiChoiceField, ["low", "high"]),
    # older releases' titled single-select (dict shorthand): oneOf with no type
    ({"type": "object", "properties": {"value": {"oneOf": [
        {"const": "low", "title": "Low"}, {"const": "high", "title": "High"}]}},
      "required": ["value"]}, ChoiceField, ["low", "high"]),
    # response_type=bool / Literal wrapped in {"value": ...}
    ({"type": "object", "properties": {"value": {"type": "boolean"}}, "required": ["value"]},
     BooleanField, None),
    ({"type": "object", "properties": {"value": {"type": "string", "enum": ["a", "b"]}},
      "required": ["value"]}, ChoiceField, ["a", "b"]),
])
def test_fastmcp_shapes_parse(schema, kind, values):
    (field,) = parse_schema(schema).fields
    assert isinstance(field, kind) and field.required
    if values is not None:
        assert [o.value for o in field.options] == values


def test_draft4_boolean_exclusive_bounds_mean_the_bound_beside_them():
    field = parse_schema(schema_of(n={"type": "number", "minimum": 0, "exclusiveMinimum": True,
                                      "maximum": 5, "exclusiveMaximum": False})).fields[0]
    assert (field.exclusive_minimum, field.minimum) == (0, None)
    assert (field.maximum, field.exclusive_maximum) == (5, None)


def test_of_two_lower_bounds_the_stricter_decides():
    field = parse_schema(schema_of(n={"type": "number", "minimum": 3, "exclusiveMinimum": 1,
                                      "maximum": 9, "exclusiveMaximum": 7})).fields[0]
    assert (field.minimum, field.exclusive_minimum) == (3, None)
    assert (field.maximum, field.exclusive_maximum) == (None, 7)


@pytest.mark.parametrize("additional", [True, False])
def test_additional_properties_true_or_false_is_accepted(additional):
    spec = parse_schema({**schema_of(a={"type": "string"}), "additionalProperties": additional})
    assert [f.name for f in spec] == ["a"]


def test_a_ref_keeps_the_keywords_beside_it():
    spec = parse_schema({"type": "object", "$defs": {"C": {"type": "string", "title": "C",
                                                           "description": "A colour",
                                                           "enum": ["r", "g"]}},
                         "properties": {"c": {"$ref": "#/$defs/C", "title": "Pick one",
                                              "default": "g"}}})
    field = spec.fields[0]
    assert (field.title, field.description, field.default) == ("Pick one", "A colour", "g")
