"""The size of the house's rooms, measured on the code: no class over 300 lines, no Python file
over 40 kB, at most 20 modules directly in ``_core/`` (the rest in subpackages of one subject),
and at most 10 parameters typed ``Any`` in ``_runtime/`` and ``_mcp/`` (their seams are typed).
Each limit is checked by a function that is itself tested on a sample, so it can fail."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.source import parse as parse_source

PACKAGE = Path(__file__).resolve().parents[1] / "nb_elicit"
MAX_CLASS_LINES = 300
MAX_FILE_BYTES = 40_000
MAX_CORE_MODULES = 20
MAX_ANY_PARAMETERS = 10


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def long_classes(path: Path, most: int = MAX_CLASS_LINES) -> list[str]:
    """``path:Class (N lines)`` for each class of ``path`` longer than ``most`` lines."""
    tree = parse_source(path.read_text(encoding="utf-8"))
    return [f"{path.name}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and node.end_lineno - node.lineno + 1 > most]


def any_parameters(path: Path) -> list[str]:
    """``path:line function(parameter)`` for each parameter annotated exactly ``Any``."""
    tree = parse_source(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs,
                 *(a for a in (args.vararg, args.kwarg) if a is not None)]
        found += [f"{path.name}:{node.lineno} {node.name}({arg.arg})" for arg in every
                  if arg.annotation is not None
                  and ast.unparse(arg.annotation) in ("Any", "typing.Any")]
    return found


def test_the_measures_find_what_they_measure(tmp_path):
    sample = tmp_path / "sample.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(301))
    sample.write_text("from typing import Any\n\n"
                      f"class Big:\n{body}\n\n"
                      "class Small:\n    x = 1\n\n"
                      "def f(a: Any, b: int, *rest: Any, c: 'Any | None' = None) -> Any:\n"
                      "    return a\n", encoding="utf-8")
    assert long_classes(sample) == ["sample.py:Big (302 lines)"]
    assert any_parameters(sample) == ["sample.py:309 f(a)", "sample.py:309 f(rest)"]


def test_no_class_is_over_300_lines():
    assert [c for path in modules() for c in long_classes(path)] == []


def test_no_python_file_is_over_40_kb():
    assert [(str(p.relative_to(PACKAGE)), p.stat().st_size) for p in modules()
            if p.stat().st_size > MAX_FILE_BYTES] == []


def test_the_core_keeps_at_most_20_modules_at_its_top():
    top = [p.name for p in (PACKAGE / "_core").glob("*.py") if p.name != "__init__.py"]
    assert len(top) <= MAX_CORE_MODULES, sorted(top)
    # every subpackage says what it holds
    for package in (PACKAGE / "_core").iterdir():
        if package.is_dir() and package.name != "__pycache__" and any(package.glob("*.py")):
            init = package / "__init__.py"
            assert init.exists() and ast.get_docstring(parse_source(init.read_text())), package


def test_the_runtime_and_the_adapter_type_their_seams():
    found = [a for layer in ("_runtime", "_mcp") for path in sorted((PACKAGE / layer).rglob("*.py"))
             for a in any_parameters(path)]
    assert len(found) <= MAX_ANY_PARAMETERS, found
