"""The architecture holds: layers import one way, only the adapter imports the SDK, the pure
model loads neither ipywidgets nor mcp, the public names are sorted and complete, and test
modules share helpers through ``tests/helpers`` only.

Everything here is computed from the code (``ast`` and fresh interpreters), not from lists.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.source import parse as parse_source

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
    "_magics": {"_runtime", "_mcp"},  # _mcp to warm the SDK import up in the background, and
    # to give sessions made without a hook nb_elicit's (every_session: no SDK import)
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
    tree = parse_source(path.read_text(encoding="utf-8"))
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


@pytest.fixture
def package_copy(tmp_path, monkeypatch) -> Path:
    """A copy of the package's sources that this module's checks read instead of the package,
    for the tests that add probe modules: written into the package itself, they were seen (and
    removed) by a run of the suite on another Python at the same time."""
    copy = tmp_path / PACKAGE.name
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", copy)
    return copy


def test_the_layer_check_sees_an_indented_import(package_copy):
    """The ``ast`` walk finds imports inside functions and classes (so the checks above can fail)."""
    sample = package_copy / "_core" / "probe_for_test.py"
    sample.write_text("def f():\n    if True:\n        import mcp\n        from .._ui import form\n")
    assert ("mcp", False) in imports(sample)
    assert ("nb_elicit._ui", False) in imports(sample)


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
    assert {"nb_elicit._core.schema.fields", "nb_elicit._core.schema.validate", "nb_elicit._core.types"} <= set(PURE)


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


#: Private names of other objects that a module reads on purpose: each has no public way.
FOREIGN_PRIVATE = {
    # The SDK's ClientSession hooks that teach it tasks (mcp 2.3 has no public ones);
    # tests/test_tasks_adapter.py fails if they change.
    ("_mcp/sdk_patches.py", "_build_capabilities"): "the SDK session's capability advert",
    ("_mcp/sdk_patches.py", "_on_request"): "the SDK session's handler of the server's requests",
    ("_mcp/sdk_patches.py", "_stamp"): "the SDK session's request stamping (version, meta)",
    ("_mcp/sdk_patches.py", "_dispatcher"): "the SDK session's raw request sender",
    ("_mcp/sdk_patches.py", "_elicitation_callback"): "the SDK session's elicitation callback",
    # The ipykernel workaround (docs/kernels.md), version-gated.
    ("_runtime/kernel_compat.py", "_handle_msg"): "ipywidgets' comm handler, wrapped",
    ("_runtime/kernel_compat.py", "_publish_status"): "ipykernel's one way to publish a status, "
                                                      "wrapped so that the kernel reads busy "
                                                      "while a cell runs",
    ("_runtime/kernel_compat.py", "_getframe"): "sys: the message's path, from the stack",
    ("_runtime/kernel_compat.py", "_current_frames"): "sys: what the kernel's thread runs",
    # ipywidgets' own way to learn that a frontend displayed a widget ("set this to 0 to
    # start tracking"): every widget manager built on @jupyter-widgets/base counts views.
    ("_runtime/kernel_compat.py", "_view_count"): "ipywidgets' count of displayed views",
    # Whether a field's change came from the page (ipywidgets locks the properties it applies
    # from a message while their observers run): then more of the person's typing may follow.
    ("_ui/form.py", "_property_lock"): "ipywidgets: a change the page sent",
    # The side shell (forms while the main thread is held: docs/kernels.md), probed once.
    ("_runtime/side_shell.py", "_create_subshell"): "ipykernel: a subshell for nb_elicit",
    ("_runtime/side_shell.py", "_cache"): "ipykernel: that subshell's thread",
    ("_runtime/side_shell.py", "_lock_cache"): "ipykernel: the lock of its subshells",
    ("_runtime/side_shell.py", "_shell_parent"): "ipykernel: the parent a comm sends under",
    ("_runtime/side_shell.py", "_shell_context"): "ipykernel: plain threads' output parent",
    ("_runtime/side_shell.py", "_reply_subshell_for"): "ipykernel: a comm's subshell, pinned",
}


def _own_private_names(tree: ast.Module) -> set[str]:
    """The private names that classes of this module define: their methods, their class-level
    fields, and what their methods assign to ``self`` or ``cls``."""
    names = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        names |= {node.attr for node in ast.walk(cls)
                  if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")}
    return {name for name in names if _private(name)}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def foreign_private_reads(source: str) -> list[tuple[int, str]]:
    """Each ``obj._x`` in ``source`` that reads another module's private name, as (line,
    text).

    A private name is private to the module that defines it (Python's own convention for one
    underscore), so ``obj._x`` is fine where ``obj`` is ``self``, ``cls`` or ``super()``, and
    where ``_x`` is a name that a class of this same module defines (say a classmethod that
    fills in the instance it made, or a factory that hands a mixin of this module its
    storage). IPython's display hooks (``_repr_html_``, ...) are a public protocol. The type
    of ``obj`` is not known to ``ast``: a read of another object's private name that happens
    to be spelled like one of this module's own passes, which a review still sees."""
    tree = parse_source(source)
    own = _own_private_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in ("self", "cls"):
            continue
        if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id == "super"):
            continue
        if node.attr.startswith("_repr_") and node.attr.endswith("_") or node.attr in own:
            continue
        found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_the_private_names_check_catches_a_read_of_another_objects_private_name():
    source = """
class Mine:
    def __init__(self, other):
        self._x = 1
        self._peek = other._x  # (passes: _x is a name of this module's Mine)

    def _helper(self):
        return super()._helper(), self._x

    @classmethod
    def make(cls):
        made = cls(None)
        made._helper()
        return cls._y

def outside(connection):
    return connection._session, connection._x, table._repr_html_()
"""
    assert foreign_private_reads(source) == [(17, "connection._session")]


@pytest.mark.parametrize("path", package_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_reads_another_modules_private_names(path):
    """A module reads others' objects through their public names (``Connection`` is a facade
    over its sessions and its call runner, neither of which hands out its insides); the few
    exceptions, each with its reason, are in :data:`FOREIGN_PRIVATE`."""
    where = path.relative_to(PACKAGE).as_posix()
    found = [(line, text) for line, text in foreign_private_reads(path.read_text(encoding="utf-8"))
             if (where, text.rsplit(".", 1)[1]) not in FOREIGN_PRIVATE]
    assert found == [], f"{where} reads private names of other objects: {found}"


def test_every_allowed_private_read_is_still_made():
    """An entry of :data:`FOREIGN_PRIVATE` that no code needs any more goes."""
    made = {(where, text.rsplit(".", 1)[1])
            for where in {where for where, _ in FOREIGN_PRIVATE}
            for _, text in foreign_private_reads((PACKAGE / where).read_text(encoding="utf-8"))}
    assert set(FOREIGN_PRIVATE) - made == set()


TEST_MODULES = sorted(TESTS.rglob("test_*.py"))
LOCAL = {p.stem for p in TESTS.rglob("*.py") if "helpers" not in p.parts} | {"conftest"}


@pytest.mark.parametrize("path", TEST_MODULES, ids=lambda p: str(p.relative_to(TESTS)))
def test_a_test_module_imports_no_other_test_module_nor_conftest(path):
    tree = parse_source(path.read_text(encoding="utf-8"))
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


def _type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


MODULES = {dotted(path) for path in PACKAGE.rglob("*.py")}


def _absolute(node: ast.Import | ast.ImportFrom, package: list[str]) -> list[str]:
    """The modules an import statement loads, absolute: ``from .x import a`` loads ``pkg.x``,
    or ``pkg.x.a`` when that is a module of the package."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module
                                                                     else []))
    else:
        base = node.module or ""
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names]


def _package_of(path: Path) -> list[str]:
    here = dotted(path).split(".")
    return here if path.name == "__init__.py" else here[:-1]


def top_imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it is loaded: its module-level statements, also inside
    ``if``, ``try`` and class bodies, but not under ``if TYPE_CHECKING:`` nor in functions."""
    package = _package_of(path)
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(_absolute(node, package))
            elif isinstance(node, ast.If):
                if not _type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody,
                              *(handler.body for handler in node.handlers)):
                    visit(block)
            elif isinstance(node, (ast.With, ast.ClassDef)):
                visit(node.body)

    visit(parse_source(path.read_text(encoding="utf-8")).body)
    return found


def function_imports(path: Path) -> list[tuple[int, str]]:
    """Each import inside a function of ``path``: its line and the module it names."""
    package = _package_of(path)
    found = set()
    for function in ast.walk(parse_source(path.read_text(encoding="utf-8"))):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.update((node.lineno, module) for module in _absolute(node, package))
    return sorted(found)


def twice_imported(path: Path) -> list[str]:
    top = top_imports(path)
    return [f"line {line}: {module}" for line, module in function_imports(path) if module in top]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_imports_a_module_its_module_imports_at_the_top(path):
    """A lazy import is there to defer loading a module; of one loaded already it only hides
    the dependency (and a second name for the same thing)."""
    assert twice_imported(path) == [], f"{path.relative_to(PACKAGE)} imports again"


def test_the_twice_imported_check_sees_a_repeated_import(package_copy):
    sample = package_copy / "_core" / "probe_twice_for_test.py"
    sample.write_text("from typing import TYPE_CHECKING\nfrom .text import shorten\n"
                      "if TYPE_CHECKING:\n    from . import schema\n"
                      "def f():\n    from .text import visible\n    from . import schema\n")
    assert twice_imported(sample) == ["line 6: nb_elicit._core.text"]


def test_masking_imports_nothing_of_the_package_but_the_kernel_s_slot():
    """The secrets this kernel was given are kept by a leaf, so that every module (the errors
    first) can mask them without an import circle: masking imports only the slot of the
    kernel's owner (which keeps them), and that imports nothing of the package."""
    def ours(path: Path) -> list[str]:
        return [module for module, _ in imports(path) if module.split(".")[0] == "nb_elicit"]

    assert ours(PACKAGE / "_core" / "secrets" / "masking.py") == ["nb_elicit._core.kernel"]
    assert ours(PACKAGE / "_core" / "kernel.py") == []


def import_graph(paths: list[Path], lazy: bool = False) -> dict[str, set[str]]:
    """The package modules each module loads when it is loaded (:func:`top_imports`); with
    ``lazy``, also those its functions import (:func:`function_imports`). The package's root
    is left out: it loads its public names lazily, by design, from every layer."""
    def needs(path: Path) -> set[str]:
        found = top_imports(path)
        if lazy:
            found |= {module for _, module in function_imports(path)}
        return {module for module in found
                if module in MODULES and module not in (dotted(path), "nb_elicit")}

    return {dotted(path): needs(path) for path in paths if dotted(path) != "nb_elicit"}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected parts of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                other = stack.pop()
                part.append(other)
                if other == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_circles():
    """No module needs, to load, a module that needs it back (``if TYPE_CHECKING:`` and
    function-level imports aside): the package can be read from its leaves up."""
    assert circles(import_graph(sorted(PACKAGE.rglob("*.py")))) == []


def test_no_import_circles_through_functions_either():
    """Nor through a function-level import: a circle made lazy is still two modules that
    cannot be read one without the other (it was commands and handlers of the magics, and
    the errors, text and texts of the core)."""
    assert circles(import_graph(sorted(PACKAGE.rglob("*.py")), lazy=True)) == []


def test_the_circle_check_sees_a_circle_through_a_function(package_copy, monkeypatch):
    first = package_copy / "_core" / "probe_c_for_test.py"
    second = package_copy / "_core" / "probe_d_for_test.py"
    first.write_text("from . import probe_d_for_test\n")
    second.write_text("def f():\n    from .probe_c_for_test import x\n")
    monkeypatch.setattr(sys.modules[__name__], "MODULES",
                        MODULES | {dotted(first), dotted(second)})
    graph = sorted(package_copy.rglob("*.py"))
    assert circles(import_graph(graph)) == []
    assert ["nb_elicit._core.probe_c_for_test", "nb_elicit._core.probe_d_for_test"] in \
        circles(import_graph(graph, lazy=True))


def test_the_circle_check_sees_a_circle(package_copy, monkeypatch):
    first = package_copy / "_core" / "probe_a_for_test.py"
    second = package_copy / "_core" / "probe_b_for_test.py"
    first.write_text("from . import probe_b_for_test\n")
    second.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import os\n"
                      "else:\n    from .probe_a_for_test import x\n")
    monkeypatch.setattr(sys.modules[__name__], "MODULES",
                        MODULES | {dotted(first), dotted(second)})
    assert circles(import_graph(sorted(package_copy.rglob("*.py")))) == [
        ["nb_elicit._core.probe_a_for_test", "nb_elicit._core.probe_b_for_test"]]
