"""The architecture holds: layers import one way, only the adapter imports the SDK, the pure
model loads neither ipywidgets nor mcp, the public names are sorted and complete, and test
modules share helpers through ``tests/helpers`` only.

Everything here is computed from the code (``ast`` and fresh interpreters), not from lists.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import nb_elicit

PACKAGE = Path(nb_elicit.__file__).parent
TESTS = Path(__file__).parent

#: What each layer may import from the package, at the top of a module (eagerly).
ALLOWED = {
    "_core": {"_core"},
    "_ui": {"_core", "_ui"},
    "_mcp": {"_core", "_mcp"},
    "_runtime": {"_core", "_ui", "_mcp", "_runtime"},
    "_magics": {"_core", "_magics"},  # and _runtime, but only lazily (inside a function)
    "__init__": {"_core"},  # the rest lazily
}
LAZY_ALLOWED = {
    "_magics": {"_runtime", "_mcp"},  # _mcp only to warm the SDK import up in the background
    "__init__": {"_ui", "_runtime", "_magics"},
}
SDK = ("mcp", "mcp_types")


def package_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "demo" not in p.relative_to(PACKAGE).parts)


def dotted(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(path: Path) -> str:
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def imports(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports, absolute, each with whether it is at module level."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = dotted(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        eager = id(node) in top_level
        if isinstance(node, ast.Import):
            found += [(alias.name, eager) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # from . import x, y
                    found += [(f"{module}.{alias.name}", eager) for alias in node.names]
                    continue
            else:
                module = node.module or ""
            found.append((module, eager))
    return found


def package_layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "nb_elicit":
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1]


@pytest.mark.parametrize("path", package_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_module_imports_only_the_layers_below_it(path):
    mine = layer(path)
    wrong = []
    for module, eager in imports(path):
        other = package_layer(module)
        if other is None or other == "demo":
            continue
        allowed = ALLOWED[mine] | (set() if eager else LAZY_ALLOWED.get(mine, set()))
        if other not in allowed:
            wrong.append(f"{module} ({'module level' if eager else 'lazily'})")
    assert not wrong, f"{path.relative_to(PACKAGE)} imports {wrong}"


def test_only_the_adapter_imports_the_sdk_at_any_depth():
    importers = sorted(
        str(path.relative_to(PACKAGE)) for path in package_modules()
        if any(module.split(".")[0] in SDK for module, _ in imports(path)))
    assert importers and all(i.startswith("_mcp/") for i in importers), importers


def test_the_layer_check_sees_an_indented_import(tmp_path):
    """The ``ast`` walk finds imports inside functions and classes (so the checks above can fail)."""
    sample = PACKAGE / "_core" / "probe_for_test.py"
    sample.write_text("def f():\n    if True:\n        import mcp\n        from .._ui import form\n")
    try:
        assert ("mcp", False) in imports(sample)
        assert ("nb_elicit._ui", False) in imports(sample)
    finally:
        sample.unlink()


PURE = [dotted(p) for p in package_modules() if layer(p) == "_core"]


@pytest.mark.parametrize("module", PURE)
def test_a_pure_module_loads_neither_ipywidgets_nor_the_sdk(module):
    code = (f"import json, sys, {module}; "
            "print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('ipywidgets', 'mcp', 'mcp_types', 'IPython', 'anyio'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert json.loads(out.stdout) == []


def test_the_pure_layer_is_not_empty():
    assert {"nb_elicit._core.schema", "nb_elicit._core.validate", "nb_elicit._core.types"} <= set(PURE)


def test_public_names_are_sorted_unique_and_complete():
    exported = nb_elicit.__all__
    assert exported == sorted(exported, key=str)
    assert len(set(exported)) == len(exported)
    for name in exported:
        assert getattr(nb_elicit, name) is not None
    # Every public attribute the package defines (eagerly or lazily) is exported.
    lazy = set(getattr(nb_elicit, "_LAZY", {}))
    public = {name for name in set(vars(nb_elicit)) | lazy
              if not name.startswith("_") and not isinstance(getattr(nb_elicit, name), type(sys))
              and name not in ("load_ipython_extension", "unload_ipython_extension")}
    assert public == set(exported)


def test_no_module_is_longer_than_600_lines():
    """Every module of the package is small enough to read in one sitting."""
    long = {str(p.relative_to(PACKAGE)): n for p in package_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


TEST_MODULES = sorted(TESTS.rglob("test_*.py"))
LOCAL = {p.stem for p in TESTS.rglob("*.py") if "helpers" not in p.parts} | {"conftest"}


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: str(p.relative_to(TESTS)))
def test_a_test_module_imports_no_other_test_module_nor_conftest(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    assert not names & LOCAL, f"{path.name} imports {sorted(names & LOCAL)}; use tests/helpers"


def test_every_dotted_name_in_the_package_text_exists():
    """Docstrings and comments that name ``nb_elicit.x.y`` name something that exists (no
    module names left over from an earlier layout)."""
    import importlib
    import re

    stale = []
    for path in package_modules():
        text = path.read_text(encoding="utf-8")
        for dotted_name in sorted(set(re.findall(r"\bnb_elicit(?:\.[A-Za-z_]\w*)+", text))):
            parts = dotted_name.split(".")
            for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
                try:
                    found = importlib.import_module(".".join(parts[:cut]))
                except ImportError:
                    continue
                try:
                    for attribute in parts[cut:]:
                        found = getattr(found, attribute)
                except AttributeError:
                    stale.append(f"{path.relative_to(PACKAGE)}: {dotted_name}")
                break
    assert stale == []
