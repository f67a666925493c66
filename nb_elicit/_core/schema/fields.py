"""Turn an elicitation ``requestedSchema`` into an ordered list of typed field specs.

This module is pure: it imports neither ipywidgets nor mcp, and is tested with plain dicts.

    >>> spec = parse_schema({"type": "object", "properties": {"name": {"type": "string"}}})
    >>> spec.fields[0]
    TextField(name='name', title=None, description=None, required=False, default=None, ...)

Everything the 2025-06-18, 2025-11-25 and 2026-07-28 spec versions allow is accepted, and so
are the shapes frameworks write that have one flat meaning (:mod:`.shapes`, docs/schemas.md).
Anything else raises :class:`SchemaError`, naming every offending path at once. So each field
can check its own value (:meth:`Field.problem`): what it knows is all a value is judged by.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, TypedDict

import regex

from ..errors import SchemaError
from ..i18n import t
from ..limits import MAX_CHOICES, MAX_MESSAGE, MAX_PATTERN, MAX_PROPERTIES, MAX_TEXT
from ..text import visible
from .formats import PatternTimeout, is_date, is_date_time, is_email, is_uri, search_pattern
from .keyword_values import (
    brief,
    count,
    got,
    json_type,
    number,
    shown_number,
    too_long,
    too_many_choices,
)
from .shapes import UNRESOLVED, flatten

__all__ = [
    "ANNOTATION_KEYWORDS",
    "BooleanField",
    "ChoiceField",
    "Field",
    "FormSpec",
    "MultiChoiceField",
    "NumberField",
    "Option",
    "TextField",
    "is_multiple_of",
    "parse_schema",
]

#: Keywords that only annotate a schema and never change which answers are valid.
#: They are accepted and ignored wherever a property schema may stand.
ANNOTATION_KEYWORDS = frozenset({"$comment", "examples", "deprecated", "readOnly", "writeOnly"})

STRING_FORMATS = ("email", "uri", "date", "date-time")

#: A JSON object as the server sent it: a schema, or one property's schema.
_Schema = dict[str, Any]


class _Base(TypedDict):
    """What every field is built with, whatever its kind (see :class:`Field`)."""

    name: str
    title: str | None
    description: str | None
    required: bool
    checks: tuple[str, ...]


@dataclass(frozen=True)
class Option:
    """One choice of a select field: ``value`` is sent, ``label`` is shown (the server's
    text, its invisible characters as escapes: :func:`~nb_elicit._core.text.visible`)."""

    value: str
    label: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", visible(self.label))


@dataclass(frozen=True)
class Field:
    """What every field has. ``default`` is None when the schema gives none.

    A field checks its own value (:meth:`problem`): the keywords that ``parse_schema`` let
    through are all a value is judged by.
    """

    name: str
    title: str | None
    description: str | None
    required: bool
    #: Each kind of field narrows it to the values of its kind.
    default: object
    #: The keywords of the server's property that judge a value, in the server's order (an
    #: ``items`` schema's own as ``items.KEY``): of a value's problems, the first one's is
    #: told, as JSON Schema validators report them. Empty for a field made by hand: then the
    #: type comes first, and the rest in the order of :attr:`CHECKS`.
    checks: tuple[str, ...] = dataclasses.field(default=(), repr=False, compare=False)

    kind: ClassVar[str] = "field"
    #: The keywords this kind of field judges a value by, besides ``type``.
    CHECKS: ClassVar[tuple[str, ...]] = ()

    @property
    def label(self) -> str:
        """The text a person sees for this field: its title, else its property name (the
        server's text, its invisible characters as escapes)."""
        return visible(self.title if self.title is not None else self.name)

    def problem(self, value: object) -> str | None:
        """What is wrong with ``value`` as this field's answer, in plain language; None when
        nothing is. ``value`` may be anything (an answer given in code or in a file), not only
        what the form's control makes; ``null`` and a missing value are the form's to judge."""
        judged = self._judged(value)
        for keyword in self._in_order(("type", *self.CHECKS)):
            if keyword == "type":
                message = self._wrong_type(value)
            else:
                message = self._check(keyword, value) if judged else None
            if message is not None:
                return message
        return None

    def _in_order(self, keywords: Iterable[str]) -> list[str]:
        """``keywords`` in the server's order (the usual order for a field made by hand)."""
        if not self.checks:
            return list(keywords)
        return [k for k in self.checks if k in keywords]

    def _wrong_type(self, value: Any) -> str | None:  # (each kind says what its type is)
        return None

    def _judged(self, value: Any) -> bool:
        """Whether the keywords besides the type judge ``value``: each judges values of one
        JSON type (a length only text), and lets the others pass."""
        return self._wrong_type(value) is None

    def _check(self, keyword: str, value: Any) -> str | None:
        """The message of ``keyword`` for a value it judges (see :meth:`_judged`) and that
        breaks it; None when the value keeps it."""
        return None


@dataclass(frozen=True)
class TextField(Field):
    default: str | None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None
    pattern: str | None = None

    kind: ClassVar[str] = "text"
    CHECKS: ClassVar[tuple[str, ...]] = ("minLength", "maxLength", "pattern", "format")

    def _wrong_type(self, value: Any) -> str | None:
        return None if isinstance(value, str) else t("v_string")

    def _check(self, keyword: str, value: str) -> str | None:
        if keyword == "minLength" and self.min_length is not None:
            return _count(keyword, self.min_length) if len(value) < self.min_length else None
        if keyword == "maxLength" and self.max_length is not None:
            return _count(keyword, self.max_length) if len(value) > self.max_length else None
        if keyword == "pattern" and self.pattern is not None:
            try:
                matched = search_pattern(self.pattern, value)
            except PatternTimeout:
                return t("v_pattern_timeout", pattern=self.pattern)
            return None if matched else self._pattern_message()
        if keyword == "format" and self.format in _FORMATS:
            check, hint = _FORMATS[self.format]
            return None if check(value) else t(hint)
        return None

    def _pattern_message(self) -> str:
        """What a value that misses the pattern should be, in the server's own words where it
        gave any: the description, else the title; the raw pattern only as a last resort."""
        if self.description and self.description.strip():
            return t("v_pattern_described", description=self.description.strip())
        if self.title and self.title.strip():
            return t("v_pattern_titled", title=self.title.strip())
        return t("v_pattern", pattern=self.pattern)


@dataclass(frozen=True)
class NumberField(Field):
    """A number or integer. Of a lower bound, only the one that decides is kept: ``minimum``
    (inclusive) or ``exclusive_minimum``; likewise for the upper bound."""

    default: int | float | None
    integer: bool = False
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None

    kind: ClassVar[str] = "number"
    CHECKS: ClassVar[tuple[str, ...]] = ("minimum", "maximum", "exclusiveMinimum",
                                         "exclusiveMaximum", "multipleOf")

    def _wrong_type(self, value: Any) -> str | None:
        if self.integer:
            return None if _is_integer(value) else t("v_integer")
        return None if self._judged(value) else t("v_number")

    def _judged(self, value: Any) -> bool:
        # (any number, even where the field wants an integer: 2.5 is below a minimum of 3)
        # (an int of any size is finite: math.isfinite would turn it into a float, and overflow)
        return _is_integer(value) or isinstance(value, float) and math.isfinite(value)

    def _check(self, keyword: str, value: int | float) -> str | None:
        # (of two lower bounds only the deciding one is kept, and told; likewise upper ones)
        limit = getattr(self, _NUMBER_LIMITS[keyword])
        if limit is None:
            return None
        if keyword == "minimum":
            broken = value < limit
        elif keyword == "maximum":
            broken = value > limit
        elif keyword == "exclusiveMinimum":
            broken = value <= limit
        elif keyword == "exclusiveMaximum":
            broken = value >= limit
        else:
            broken = not is_multiple_of(value, limit)
        return _count(keyword, limit) if broken else None


@dataclass(frozen=True)
class BooleanField(Field):
    default: bool | None

    kind: ClassVar[str] = "boolean"

    def _wrong_type(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else t("v_boolean")


@dataclass(frozen=True)
class ChoiceField(Field):
    """Single select: untitled ``enum``, legacy ``enum`` + ``enumNames``, or titled ``oneOf``."""

    default: str | None
    options: tuple[Option, ...] = ()

    kind: ClassVar[str] = "choice"

    def problem(self, value: object) -> str | None:
        if isinstance(value, str) and any(value == option.value for option in self.options):
            return None
        # Not text: the type tells it, if the server wrote one before its choices.
        if not isinstance(value, str) and _typed_first(self.checks, "type", _CHOOSING):
            return t("v_string")
        return t("v_listed")


@dataclass(frozen=True)
class MultiChoiceField(Field):
    """Multi select: ``type: array`` with ``items.enum`` or titled ``items.anyOf``."""

    #: (a tuple, so that the frozen field holds no list that could change)
    default: tuple[str, ...] | None
    options: tuple[Option, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    kind: ClassVar[str] = "multichoice"
    #: (a multi-select never holds a choice twice, whether or not the server said
    #: ``uniqueItems``; where it did not, that check comes last)
    CHECKS: ClassVar[tuple[str, ...]] = ("items", "minItems", "maxItems", "uniqueItems")

    def _in_order(self, keywords: Iterable[str]) -> list[str]:
        if not self.checks:
            return list(keywords)
        named = [k.partition(".")[0] for k in self.checks]
        ordered = [k for i, k in enumerate(named) if k in keywords and k not in named[:i]]
        return ordered if "uniqueItems" in ordered else [*ordered, "uniqueItems"]

    def _wrong_type(self, value: Any) -> str | None:
        return None if isinstance(value, list) else t("v_array")

    def _check(self, keyword: str, value: list[object]) -> str | None:
        if keyword == "items":
            return self._item_problem(value)
        if keyword == "minItems" and self.min_items is not None:
            return _count(keyword, self.min_items) if len(value) < self.min_items else None
        if keyword == "maxItems" and self.max_items is not None:
            return _count(keyword, self.max_items) if len(value) > self.max_items else None
        if keyword == "uniqueItems":
            return t("v_unique") if _repeats(value) else None
        return None

    def _item_problem(self, values: list[object]) -> str | None:
        """The problem of the first item that has one."""
        allowed = {option.value for option in self.options}
        for value in values:
            if not isinstance(value, str):
                typed = _typed_first(self.checks, "items.type",
                                     {f"items.{k}" for k in _CHOOSING})
                return t("v_string") if typed else t("v_listed_items")
            if value not in allowed:
                return t("v_listed_items")
        return None


@dataclass(frozen=True)
class FormSpec:
    """The parsed form: fields in the server's order, plus the schema it came from."""

    fields: tuple[Field, ...]
    schema: dict[str, object]

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


# -- what the fields' checks share ----------------------------------------------------------------

_FORMATS: dict[str, tuple[Callable[[str], bool], str]] = {
    "email": (is_email, "v_email"), "uri": (is_uri, "v_uri"), "date": (is_date, "v_date"),
    "date-time": (is_date_time, "v_date_time")}
_COUNTS = {"minLength": "v_min_length", "maxLength": "v_max_length", "minimum": "v_minimum",
           "maximum": "v_maximum", "minItems": "v_min_items", "maxItems": "v_max_items",
           "exclusiveMinimum": "v_more_than", "exclusiveMaximum": "v_less_than",
           "multipleOf": "v_multiple_of"}
_NUMBER_LIMITS = {"minimum": "minimum", "maximum": "maximum",
                  "exclusiveMinimum": "exclusive_minimum", "exclusiveMaximum": "exclusive_maximum",
                  "multipleOf": "multiple_of"}
#: The keywords that list a choice field's values.
_CHOOSING = frozenset({"enum", "const", "oneOf", "anyOf"})


def _count(keyword: str, limit: int | float) -> str:
    return t(_COUNTS[keyword], n=shown_number(limit), s="" if limit == 1 else "s")


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_multiple_of(value: int | float, step: int | float) -> bool:
    """Whether ``value`` is a whole number of ``step``s, in decimal as written: 0.3 is a
    multiple of 0.1 (in binary floating point 0.3 / 0.1 is 2.9999999999999996)."""
    return (_decimal(value) / _decimal(step)).denominator == 1


def _decimal(number: int | float) -> Fraction:
    # repr is the shortest text that reads back as the same float: the number as typed
    return Fraction(number) if isinstance(number, int) else Fraction(repr(number))


def _typed_first(checks: tuple[str, ...], type_keyword: str, choosing: Iterable[str]) -> bool:
    """Whether the server wrote the type before the choices (a field made by hand: yes)."""
    if not checks:
        return True
    if type_keyword not in checks:
        return False
    first_choice = min((checks.index(k) for k in choosing if k in checks), default=len(checks))
    return checks.index(type_keyword) < first_choice


def _repeats(values: list[object]) -> bool:
    """Whether a value is listed twice, by JSON's equality (``1`` and ``1.0`` are one value,
    ``1`` and ``true`` two)."""
    if all(isinstance(value, str) for value in values):
        return len(set(values)) != len(values)
    keys = [_json_key(value) for value in values]
    return len(set(keys)) != len(keys)


def _json_key(value: object) -> Hashable:
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _json_key(item)) for key, item in value.items()))
    try:
        hash(value)
    except TypeError:
        return ("other", id(value))
    return ("value", value)


def _checks(prop: _Schema) -> tuple[str, ...]:
    """The keywords of ``prop`` that judge a value, in the server's order (see Field.checks).
    A keyword that is ``null`` is left out, as the parser reads it."""
    found: list[str] = []
    for key, value in prop.items():
        if key == "items" and isinstance(value, dict):
            found.extend(f"items.{k}" for k, v in value.items() if k in _JUDGING and v is not None)
        elif key in _JUDGING and value is not None:
            found.append(key)
    return tuple(found)


_JUDGING = frozenset({"type", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
                      "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems",
                      "maxItems", "uniqueItems"}) | _CHOOSING


_TOP_KEYWORDS = frozenset({"type", "properties", "required", "$schema", "title", "description",
                           "$defs", "additionalProperties"})
_COMMON = frozenset({"type", "title", "description", "default"}) | ANNOTATION_KEYWORDS


class _Problems:
    """Collects ``(path, reason)`` pairs so that one error can name all of them."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, reason: str) -> None:
        self.items.append((path, reason))


def parse_schema(requested_schema: object) -> FormSpec:
    """Parse a ``requestedSchema`` into a :class:`FormSpec`, or raise :class:`SchemaError`."""
    problems = _Problems()
    if not isinstance(requested_schema, dict):
        raise SchemaError([("requestedSchema",
                            f"must be an object, not {json_type(requested_schema)}")])

    if requested_schema.get("type") != "object":
        problems.add("type", 'must be "object"' + got(requested_schema, "type"))
    if "$schema" in requested_schema and not isinstance(requested_schema["$schema"], str):
        problems.add("$schema", "must be a string")
    for key in ("title", "description"):
        if key in requested_schema and not isinstance(requested_schema[key], str):
            problems.add(key, "must be a string")
        elif key in requested_schema:
            _optional_str(requested_schema, key, "", problems)
    for key in requested_schema:
        if key not in _TOP_KEYWORDS and key not in ANNOTATION_KEYWORDS:
            problems.add(key, "is not supported in an elicitation schema")

    additional = requested_schema.get("additionalProperties", False)
    if not isinstance(additional, bool):
        problems.add("additionalProperties", "only true or false is supported")
    defs = requested_schema.get("$defs", {})
    if not isinstance(defs, dict):
        problems.add("$defs", "must be an object mapping names to schemas")
        defs = {}

    properties = requested_schema.get("properties")
    if not isinstance(properties, dict):
        problems.add("properties", "must be an object mapping names to field schemas")
        properties = {}

    if len(properties) > MAX_PROPERTIES:
        raise SchemaError([("properties", f"has {len(properties):,} fields; the limit "
                                          f"is {MAX_PROPERTIES:,}")])
    if not all(isinstance(name, str) for name in properties):
        raise SchemaError([("properties", "property names must be strings")])
    for name in properties:
        if len(name) > MAX_TEXT:
            problems.add(f"properties.{name[:40]}…", too_long(name, MAX_TEXT, "a name"))
    properties = {name: flatten(prop, defs, f"properties.{name}", problems)
                  for name, prop in properties.items()}
    required = _parse_required(requested_schema, properties, problems)
    fields = []
    for name, prop in properties.items():
        if prop is UNRESOLVED:
            continue
        field = _parse_property(name, prop, name in required, problems)
        if field is not None:
            fields.append(field)
    if problems.items:
        raise SchemaError(problems.items)
    return FormSpec(fields=tuple(fields), schema={**requested_schema, "properties": properties})


def _parse_required(schema: _Schema, properties: _Schema, problems: _Problems) -> set[str]:
    required = schema.get("required", [])
    if not isinstance(required, list):
        problems.add("required", "must be a list of property names")
        return set()
    names = set()
    for i, name in enumerate(required):
        if not isinstance(name, str):
            problems.add(f"required[{i}]", "must be a string")
        elif name not in properties:
            problems.add(f"required[{i}]", f"names {brief(name)}, which is not a property")
        else:
            names.add(name)
    return names


def _parse_property(name: str, prop: Any, required: bool, problems: _Problems) -> Field | None:
    path = f"properties.{name}"
    if not isinstance(prop, dict):
        problems.add(path, f"must be an object, not {json_type(prop)}")
        return None
    kind_name = _kind_of(prop, path, problems)
    if kind_name is None:
        return None
    kind = _KINDS[kind_name]
    before = len(problems.items)
    for key in prop:
        if key not in kind.keywords:
            problems.add(f"{path}.{key}", f"is not supported on a {kind.words} field")
    base: _Base = {
        "name": name,
        "title": _optional_str(prop, "title", path, problems),
        "description": _optional_str(prop, "description", path, problems),
        "required": required,
        "checks": _checks(prop),
    }
    field = kind.build(prop, path, base, problems)
    return field if len(problems.items) == before else None


def _kind_of(prop: _Schema, path: str, problems: _Problems) -> str | None:
    if prop.get("type") == "object":
        problems.add(path, "nested objects are not supported")
        return None
    for key in ("$ref", "allOf", "anyOf", "not", "if", "properties"):
        if key in prop:
            problems.add(f"{path}.{key}", f"{key} is not supported in an elicitation schema")
            return None
    if "type" not in prop and "oneOf" in prop:
        return "oneOf"  # titled choices say their type themselves (older FastMCP writes this)
    if "type" not in prop:
        problems.add(f"{path}.type", "is missing")
        return None
    t = prop["type"]
    if t == "string":
        if "enum" in prop or "const" in prop:
            return "enum"
        return "oneOf" if "oneOf" in prop else "text"
    if t in ("number", "integer"):
        return "number"
    if t == "boolean":
        return "boolean"
    if t == "array":
        return "array"
    if isinstance(t, list):
        problems.add(f"{path}.type", "must be a single type name, not a list")
    else:
        problems.add(f"{path}.type", f"unknown type {brief(t)}")
    return None


def _build_text(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    min_length = count(prop, "minLength", path, problems)
    max_length = count(prop, "maxLength", path, problems)
    if min_length is not None and max_length is not None and min_length > max_length:
        problems.add(f"{path}.minLength", f"{min_length} is greater than maxLength {max_length}")
    fmt = prop.get("format")
    if fmt is not None and fmt not in STRING_FORMATS:
        expected = ", ".join(STRING_FORMATS)
        problems.add(f"{path}.format", f"unknown format {brief(fmt)}; expected one of {expected}")
    pattern = prop.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            problems.add(f"{path}.pattern", "must be a string")
        elif len(pattern) > MAX_PATTERN:
            problems.add(f"{path}.pattern", too_long(pattern, MAX_PATTERN))
        else:
            try:
                regex.compile(pattern)
            except (regex.error, RecursionError, OverflowError, ValueError) as exc:
                problems.add(f"{path}.pattern", f"is not a valid regular expression ({exc})")
    default = prop.get("default")
    if default is not None:
        if not isinstance(default, str):
            problems.add(f"{path}.default", "must be a string")
        elif len(default) > MAX_MESSAGE:
            problems.add(f"{path}.default", too_long(default, MAX_MESSAGE))
        elif fmt == "date" and not is_date(default):
            problems.add(f"{path}.default", f"{brief(default)} is not a date (YYYY-MM-DD)")
        elif fmt == "date-time" and not is_date_time(default):
            problems.add(f"{path}.default", f"{brief(default)} is not an RFC 3339 date-time")
    return TextField(**base, default=default, min_length=min_length, max_length=max_length,
                     format=fmt, pattern=pattern)


def _build_number(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    integer = prop["type"] == "integer"
    minimum = number(prop, "minimum", path, problems)
    maximum = number(prop, "maximum", path, problems)
    if minimum is not None and maximum is not None and minimum > maximum:
        problems.add(f"{path}.minimum", f"{minimum} is greater than maximum {maximum}")
    above = _exclusive(prop, "exclusiveMinimum", "minimum", path, problems)
    below = _exclusive(prop, "exclusiveMaximum", "maximum", path, problems)
    # Of two lower bounds only the stricter one matters (likewise for upper bounds).
    if above is not None and minimum is not None:
        minimum, above = (None, above) if above >= minimum else (minimum, None)
    if below is not None and maximum is not None:
        maximum, below = (None, below) if below <= maximum else (maximum, None)
    if above is not None or below is not None:
        lo_key, lo = ("exclusiveMinimum", above) if above is not None else ("minimum", minimum)
        hi_key, hi = ("exclusiveMaximum", below) if below is not None else ("maximum", maximum)
        if lo is not None and hi is not None and lo >= hi:
            problems.add(f"{path}.{lo_key}", f"{lo} leaves no number up to {hi_key} {hi}")
    multiple_of = number(prop, "multipleOf", path, problems)
    if multiple_of is not None and multiple_of <= 0:
        problems.add(f"{path}.multipleOf", f"must be greater than 0, not {multiple_of}")
    default = number(prop, "default", path, problems)
    if integer and default is not None:
        if float(default).is_integer():
            default = int(default)
        else:
            problems.add(f"{path}.default", f"{default} is not a whole number")
    return NumberField(**base, default=default, integer=integer, minimum=minimum, maximum=maximum,
                       exclusive_minimum=above, exclusive_maximum=below, multiple_of=multiple_of)


def _exclusive(prop: _Schema, key: str, bound: str, path: str,
               problems: _Problems) -> int | float | None:
    if prop.get(key) is True:  # draft 4's form with no bound beside it (see _draft4_bounds)
        problems.add(f"{path}.{key}", f"true needs a {bound} beside it")
        return None
    return number(prop, key, path, problems)


def _build_boolean(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    default = prop.get("default")
    if default is not None and not isinstance(default, bool):
        problems.add(f"{path}.default", "must be true or false")
    return BooleanField(**base, default=default)


def _build_enum(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    if "const" in prop:  # pydantic's Literal["only"]: a choice of one
        if "enum" in prop or "enumNames" in prop:
            problems.add(f"{path}.const", "cannot stand beside enum")
            return ChoiceField(**base, default=None)
        const = prop["const"]
        if not isinstance(const, str):
            problems.add(f"{path}.const", f"must be a string, not {json_type(const)}")
        elif len(const) > MAX_TEXT:
            problems.add(f"{path}.const", too_long(const, MAX_TEXT))
        options: tuple[Option, ...] = (Option(const, const),) if isinstance(const, str) else ()
        return ChoiceField(**base, options=options,
                           default=_choice_default(prop, path, options, problems))
    values = _string_list(prop.get("enum"), f"{path}.enum", problems, what="enum values")
    labels = values
    if "enumNames" in prop:
        names = _string_list(prop["enumNames"], f"{path}.enumNames", problems,
                             what="enumNames", unique=False)
        if values and names and len(names) != len(values):
            problems.add(f"{path}.enumNames",
                         f"has {len(names)} names for {len(values)} enum values")
        elif values and names:
            labels = names
    options = tuple(Option(v, lbl) for v, lbl in zip(values, labels, strict=True))
    default = _choice_default(prop, path, options, problems)
    return ChoiceField(**base, options=options, default=default)


def _build_one_of(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    options = _titled_options(prop.get("oneOf"), f"{path}.oneOf", problems)
    default = _choice_default(prop, path, options, problems)
    return ChoiceField(**base, options=options, default=default)


def _build_array(prop: _Schema, path: str, base: _Base, problems: _Problems) -> Field:
    items = prop.get("items")
    options: tuple[Option, ...] = ()
    ipath = f"{path}.items"
    if not isinstance(items, dict):
        problems.add(ipath, "is missing" if items is None else "must be an object")
    elif items.get("type") == "object" or "properties" in items:
        problems.add(ipath, "arrays of objects are not supported")
    elif "enum" in items:
        _check_items(items, ipath, problems, {"type", "enum"})
        values = _string_list(items["enum"], f"{ipath}.enum", problems, what="enum values")
        options = tuple(Option(v, v) for v in values)
    elif "anyOf" in items:
        _check_items(items, ipath, problems, {"type", "anyOf"})
        options = _titled_options(items["anyOf"], f"{ipath}.anyOf", problems)
    else:
        problems.add(ipath, "must list its choices with enum or anyOf")
    if prop.get("uniqueItems", True) is not True:
        problems.add(f"{path}.uniqueItems", "only true is supported")
    min_items = count(prop, "minItems", path, problems)
    max_items = count(prop, "maxItems", path, problems)
    if min_items is not None and max_items is not None and min_items > max_items:
        problems.add(f"{path}.minItems", f"{min_items} is greater than maxItems {max_items}")
    elif min_items is not None and options and min_items > len(options):
        problems.add(f"{path}.minItems", f"{min_items} is more than the {len(options)} choices")
    # (a default with a problem is not kept: its field is dropped, and the problem told)
    default: tuple[str, ...] | None = None
    given = prop.get("default")
    if given is not None:
        allowed = {o.value for o in options}
        if not isinstance(given, list) or not all(isinstance(v, str) for v in given):
            problems.add(f"{path}.default", "must be a list of strings")
        elif options and (bad := [i for i, v in enumerate(given) if v not in allowed]):
            problems.add(f"{path}.default[{bad[0]}]",
                         f"{brief(given[bad[0]])} is not one of the choices")
        elif len(set(given)) != len(given):
            problems.add(f"{path}.default", "lists a choice twice")
        else:
            default = tuple(given)
    return MultiChoiceField(**base, options=options, min_items=min_items, max_items=max_items,
                            default=default)


def _check_items(items: _Schema, path: str, problems: _Problems, allowed: set[str]) -> None:
    # No "type" is fine: the choices are strings either way (FastMCP leaves it out).
    if items.get("type", "string") != "string":
        problems.add(f"{path}.type", 'must be "string"')
    for key in items:
        if key not in allowed and key not in ANNOTATION_KEYWORDS:
            problems.add(f"{path}.{key}", "is not supported in multi-select items")


@dataclass(frozen=True)
class _Kind:
    """One kind of property: what a problem calls it, the keywords it may carry, and how its
    field is built."""

    words: str
    keywords: frozenset[str]
    build: Callable[[_Schema, str, _Base, _Problems], Field]


_KINDS = {
    "text": _Kind("string", _COMMON | {"minLength", "maxLength", "format", "pattern"},
                  _build_text),
    "enum": _Kind("enum", _COMMON | {"enum", "enumNames", "const"}, _build_enum),
    "oneOf": _Kind("titled single-select", _COMMON | {"oneOf"}, _build_one_of),
    "number": _Kind("number", _COMMON | {"minimum", "maximum", "exclusiveMinimum",
                                         "exclusiveMaximum", "multipleOf"}, _build_number),
    "boolean": _Kind("boolean", _COMMON, _build_boolean),
    "array": _Kind("multi-select", _COMMON | {"items", "minItems", "maxItems", "uniqueItems"},
                   _build_array),
}


def _titled_options(entries: Any, path: str, problems: _Problems) -> tuple[Option, ...]:
    if not isinstance(entries, list) or not entries:
        problems.add(path, "must be a non-empty list of {const, title} choices")
        return ()
    if len(entries) > MAX_CHOICES:
        problems.add(path, too_many_choices(entries))
        return ()
    options, seen = [], set()
    for i, entry in enumerate(entries):
        epath = f"{path}[{i}]"
        if not isinstance(entry, dict):
            problems.add(epath, "must be an object with const and title")
            continue
        const, title = entry.get("const"), entry.get("title")
        if not isinstance(const, str):
            problems.add(epath, "needs a string const")
        elif not isinstance(title, str):
            problems.add(epath, "needs a string title")
        elif len(const) > MAX_TEXT or len(title) > MAX_TEXT:
            problems.add(epath, too_long(max(const, title, key=len), MAX_TEXT))
        elif const in seen:
            problems.add(epath, f"repeats the value {brief(const)}")
        elif extra := sorted(set(entry) - {"const", "title", "description"} - ANNOTATION_KEYWORDS):
            problems.add(epath, f"{extra[0]} is not supported in a choice")
        else:
            seen.add(const)
            options.append(Option(const, title))
    return tuple(options)


def _choice_default(prop: _Schema, path: str, options: tuple[Option, ...],
                    problems: _Problems) -> str | None:
    # (a default of another type is refused below, and its field with it)
    default: str | None = prop.get("default")
    if default is None:
        return None
    if not isinstance(default, str):
        problems.add(f"{path}.default", "must be a string")
    elif options and default not in {o.value for o in options}:
        problems.add(f"{path}.default", f"{brief(default)} is not one of the choices")
    return default


def _string_list(values: Any, path: str, problems: _Problems, what: str,
                 unique: bool = True) -> list[str]:
    if not isinstance(values, list) or not values:
        problems.add(path, f"{what} must be a non-empty list of strings")
        return []
    if len(values) > MAX_CHOICES:
        problems.add(path, too_many_choices(values))
        return []
    for i, v in enumerate(values):
        if not isinstance(v, str):
            problems.add(f"{path}[{i}]", f"{what} must be strings, not {json_type(v)}")
            return []
        if len(v) > MAX_TEXT:
            problems.add(f"{path}[{i}]", too_long(v, MAX_TEXT))
            return []
    if unique and len(set(values)) != len(values):
        dup = next(v for i, v in enumerate(values) if v in values[:i])
        problems.add(path, f"lists {brief(dup)} twice")
        return []
    return values


def _optional_str(prop: _Schema, key: str, path: str, problems: _Problems) -> str | None:
    value = prop.get(key)
    where = f"{path}.{key}" if path else key
    if value is not None and not isinstance(value, str):
        problems.add(where, "must be a string")
        return None
    if value is not None and len(value) > MAX_TEXT:
        problems.add(where, too_long(value, MAX_TEXT))
        return None
    return value
