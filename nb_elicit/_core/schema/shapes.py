"""The roundabout ways frameworks write a flat property, rewritten in the flat form.

Each rewrite has exactly one meaning, so the parser (:mod:`.schema`) then judges an ordinary
flat property: a nullable wrapper (pydantic's ``Optional[...]``), a local ``$ref`` to a flat
schema in ``$defs`` (pydantic's ``Enum`` fields), and draft 4's boolean
``exclusiveMinimum``/``exclusiveMaximum``. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["UNRESOLVED", "Problems", "flatten", "unwrap_nullable"]


class Problems(Protocol):
    """Where a schema's reader reports what it refuses: ``(path, reason)``, one spot each (the
    schema's reader collects them into one :class:`~.errors.SchemaError`)."""

    def add(self, path: str, reason: str) -> None: ...


#: A property whose ``$ref`` could not be resolved (the reason is already reported).
UNRESOLVED: Any = object()
_LOCAL_REF = "#/$defs/"


def flatten(prop: Any, defs: dict[str, Any], path: str, problems: Problems) -> Any:
    """The flat form of a property that a framework wrote in a roundabout way.

    Each step has exactly one meaning: a nullable wrapper (:func:`unwrap_nullable`), a local
    ``$ref`` to a flat schema in ``$defs`` (pydantic writes an ``Enum`` field that way), and
    the draft-4 boolean ``exclusiveMinimum``/``exclusiveMaximum`` next to a bound.
    """
    prop = unwrap_nullable(prop)
    if isinstance(prop, dict) and "$ref" in prop:
        prop = _resolve_ref(prop, defs, path, problems, drop=("title",))
        if prop is UNRESOLVED:
            return prop
    if isinstance(prop, dict) and isinstance(prop.get("items"), dict) and "$ref" in prop["items"]:
        items = _resolve_ref(prop["items"], defs, f"{path}.items", problems,
                             drop=("title", "description"))
        if items is UNRESOLVED:
            return items
        prop = {**prop, "items": items}
    if isinstance(prop, dict) and prop.get("type") in ("number", "integer"):
        prop = _draft4_bounds(prop)
    return prop


def _resolve_ref(prop: dict[str, Any], defs: dict[str, Any], path: str, problems: Problems,
                 drop: tuple[str, ...]) -> Any:
    """``{"$ref": "#/$defs/NAME", ...}`` with NAME's schema in its place (one level only).

    The target's ``title`` names the type (``Color``), not the field, so it is dropped; the
    keywords beside the ``$ref`` (``default``, ``description``, ...) win over the target's.
    Anything that is not flat is left for the parser to refuse.
    """
    ref = prop["$ref"]
    if not isinstance(ref, str) or not ref.startswith(_LOCAL_REF) or "/" in ref[len(_LOCAL_REF):]:
        problems.add(f"{path}.$ref", "only a local #/$defs/NAME reference is supported")
        return UNRESOLVED
    name = ref[len(_LOCAL_REF):].replace("~1", "/").replace("~0", "~")
    target = defs.get(name)
    if not isinstance(target, dict):
        problems.add(f"{path}.$ref", f"names {name[:40]!r}, which is not a schema in $defs")
        return UNRESOLVED
    if "$ref" in target:
        problems.add(f"{path}.$ref", f"names {name[:40]!r}, which is itself a $ref")
        return UNRESOLVED
    inline = {k: v for k, v in target.items() if k not in drop}
    return {**inline, **{k: v for k, v in prop.items() if k != "$ref"}}


def _draft4_bounds(prop: dict[str, Any]) -> dict[str, Any]:
    """Draft 4's ``"minimum": 0, "exclusiveMinimum": true`` as today's ``"exclusiveMinimum": 0``.

    ``false`` only restates the inclusive bound. A ``true`` with no bound beside it has no
    meaning and is left for the parser to refuse.
    """
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        flag = prop.get(exclusive)
        if flag is False:
            prop = {k: v for k, v in prop.items() if k != exclusive}
        elif flag is True and bound in prop:
            value = prop[bound]
            prop = {k: v for k, v in prop.items() if k != bound}
            prop[exclusive] = value
    return prop


def unwrap_nullable(prop: Any) -> Any:
    """A property that is "T or null" as plain T: the form never sends null anyway.

    SDK 1.x servers (pydantic) write ``Optional[int]`` as ``anyOf: [{"type": "integer"},
    {"type": "null"}]`` with ``default: null``; others write ``type: ["integer", "null"]``.
    Anything else is returned unchanged (and judged by the parser).
    """
    if not isinstance(prop, dict):
        return prop
    if "anyOf" in prop and "type" not in prop and isinstance(prop["anyOf"], list):
        branches = prop["anyOf"]
        others = [b for b in branches if b != {"type": "null"}]
        if len(branches) == 2 and len(others) == 1 and isinstance(others[0], dict):
            outer = {k: v for k, v in prop.items() if k != "anyOf"}
            prop = {**others[0], **outer}
    elif isinstance(prop.get("type"), list):
        types = prop["type"]
        others = [t for t in types if t != "null"]
        if len(types) == 2 and len(others) == 1 and isinstance(others[0], str):
            prop = {**prop, "type": others[0]}
    if "default" in prop and prop["default"] is None:
        prop = {k: v for k, v in prop.items() if k != "default"}
    return prop
