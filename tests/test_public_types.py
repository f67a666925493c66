"""The public names carry their own types to a user's type checker: what ``nb_elicit`` loads on
first use is imported for the checker under ``if TYPE_CHECKING:`` (so ``nb_elicit.connect`` is
not ``Any`` to it), and what the names the package takes from ``_core`` give back (a function's
return, a dataclass's fields, a class's public methods and properties) is never bare ``Any``.
Each check is a function that is itself tested on a sample, so it can fail."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import typing
from pathlib import Path
from typing import Any

from helpers.source import parse as parse_source

import nb_elicit

INIT = Path(nb_elicit.__file__)


def checker_imports(source: str) -> dict[str, str]:
    """The names imported under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) at the top
    of a module, each with the module it comes from (``.x`` for a relative import)."""
    found = {}
    for node in parse_source(source).body:
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if not ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")):
            continue
        for inner in node.body:
            if isinstance(inner, ast.ImportFrom):
                module = "." * inner.level + (inner.module or "")
                found.update({alias.asname or alias.name: module for alias in inner.names})
    return found


def unseen_lazy_names(lazy: dict[str, str], source: str) -> list[str]:
    """The names of ``lazy`` (name: module) that no ``if TYPE_CHECKING:`` import of ``source``
    brings from that module."""
    seen = checker_imports(source)
    return sorted(name for name, module in lazy.items() if seen.get(name) != module)


def bare_any(obj: object) -> list[str]:
    """What ``obj`` (a function or a class) gives back typed bare ``Any``: a function's return;
    a dataclass's fields; a class's public methods' returns and properties."""
    if inspect.isfunction(obj):
        return ["return"] if typing.get_type_hints(obj).get("return") is Any else []
    found = []
    if dataclasses.is_dataclass(obj):
        hints = typing.get_type_hints(obj)
        found += [f.name for f in dataclasses.fields(obj) if hints.get(f.name) is Any]
    for name, member in vars(obj).items() if isinstance(obj, type) else ():
        if name.startswith("_"):
            continue
        getter = member.fget if isinstance(member, property) else member
        if inspect.isfunction(getter) and typing.get_type_hints(getter).get("return") is Any:
            found.append(name)
    return found


def _core_names() -> list[str]:
    return [name for name in nb_elicit.__all__
            if getattr(getattr(nb_elicit, name), "__module__", "").startswith("nb_elicit._core")]


def test_every_name_loaded_on_first_use_is_imported_for_the_type_checker():
    assert unseen_lazy_names(nb_elicit._LAZY, INIT.read_text(encoding="utf-8")) == []


def test_the_lazy_name_check_finds_a_name_left_out_or_taken_from_elsewhere():
    source = ("from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n"
              "    from ._a import one\nif typing.TYPE_CHECKING:\n    from ._b import two\n"
              "from ._c import three\n")
    assert unseen_lazy_names({"one": "._a", "two": "._b"}, source) == []
    assert unseen_lazy_names({"one": "._b", "two": "._b", "three": "._c"}, source) == [
        "one", "three"]


def test_no_public_name_of_the_core_gives_back_bare_any():
    names = _core_names()
    assert {"Answer", "FormSpec", "TextField", "parse_schema", "validate_content",
            "ToolResult"} <= set(names)
    found = {name: bare_any(getattr(nb_elicit, name)) for name in names}
    assert {name: what for name, what in found.items() if what} == {}


def test_the_any_check_finds_a_return_a_field_and_a_property():
    @dataclasses.dataclass
    class Sample:
        plain: int
        loose: Any
        nested: dict[str, Any]

        @property
        def shown(self) -> Any:
            return None

        def told(self) -> str:
            return ""

        def _private(self) -> Any:
            return None

    def loose() -> Any:
        return None

    def typed() -> dict[str, Any]:
        return {}

    assert bare_any(Sample) == ["loose", "shown"]
    assert bare_any(loose) == ["return"]
    assert bare_any(typed) == []
