"""The tiers of the tests, cheapest first: each test gets one marker (``pure``, ``widgets``,
``server``, ``kernel``, ``browser``) from where it lives and what it imports or uses, so that
``pytest -m pure`` runs the cheapest alone (the conftest marks each test at collection)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from helpers.source import parse as parse_source

__all__ = ["TIERS", "tier", "tier_of"]

#: The tiers of the tests, cheapest first; each test gets one marker, from where it lives and
#: what it uses (see :func:`tier`), so that ``pytest -m pure`` runs the cheapest alone.
TIERS = {
    "pure": "the pure model only: no widgets, no server, no kernel, no browser",
    "widgets": "widgets, IPython or the runtime in this process, with no server nor kernel",
    "server": "a real MCP server or client (a process, or in-process over the SDK)",
    "kernel": "a real Jupyter kernel (a scripted frontend, or a notebook run headless)",
    "browser": "a real browser on a real Jupyter server (tests/browser)",
}
#: What a test module imports that puts its tests in a tier: the first tier (from the most
#: expensive down) one of whose modules it imports, or a fixture it uses.
_KERNEL = ("helpers.frontend", "helpers.notebooks", "helpers.tasks", "helpers.task_person",
           "helpers.signin_startup", "nbclient", "jupyter_client", "ipykernel")
_SERVER = ("helpers.servers", "helpers.interop", "helpers.node", "helpers.person",
           "helpers.signin", "helpers.project", "helpers.trust_world", "mcp", "mcp_types",
           "fastmcp", "anyio", "httpx")
_WIDGETS = ("ipywidgets", "IPython", "nb_elicit._ui", "nb_elicit._runtime", "nb_elicit._magics",
            "nb_elicit._mcp", "nb_elicit.demo", "helpers.fill", "helpers.apps")
_SERVER_FIXTURES = {"journal", "http_demo", "sse_demo", "demo_with_sign_in", "http_sdk2",
                    "http_hostile", "sdk1_python"}
# (built_site: the documentation site, whose build imports every public name: tests/test_site.py)
_WIDGET_FIXTURES = {"ip", "views", "built_site"}


#: The names ``import nb_elicit`` defines at once (the pure model's); the others it loads on
#: first use.
_EAGER = frozenset(vars(__import__("nb_elicit")))


@functools.cache
def _imports(path: Path) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """What a test module imports: everywhere but in its test functions, and in each test
    function (by name). A public name of nb_elicit that the package loads on first use (the
    widgets, the runtime) counts as its module (``nb_elicit.ElicitationForm``); one of the
    pure model, as the pure model (``nb_elicit.parse_schema``)."""
    def public(name: str) -> str:
        if name in _EAGER:
            return "nb_elicit._core"
        value = getattr(__import__("nb_elicit"), name, None)  # (loaded now, as a test would)
        return getattr(value, "__module__", None) or "nb_elicit.(on first use)"

    def found_in(tree: ast.AST) -> set[str]:
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names if alias.name != "nb_elicit")
            elif isinstance(node, ast.ImportFrom) and node.module == "nb_elicit" \
                    and not node.level:
                found.update(public(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id == "nb_elicit"):
                found.add(public(node.attr))
        return found

    tree = parse_source(path.read_text(encoding="utf-8"))
    tests = {node.name: node for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
             and node.name.startswith("test")}
    for node in tests.values():  # (the rest of the module: what its helpers import)
        node.body_kept, node.body = node.body, []
    rest = found_in(tree)
    for node in tests.values():
        node.body = node.body_kept
    return frozenset(rest), {name: frozenset(found_in(node)) for name, node in tests.items()}


def _names_any(imported: frozenset[str], modules: tuple[str, ...]) -> bool:
    return any(name == module or name.startswith(module + ".")
               for name in imported for module in modules)


def tier(item) -> str:
    """A test's tier (a pytest item): see :data:`TIERS`."""
    return tier_of(Path(str(item.fspath)), getattr(item, "originalname", item.name),
                   set(getattr(item, "fixturenames", ())), "blocking_kernel" in item.keywords)


def tier_of(path: Path, test: str, fixtures: set[str], blocking: bool = False) -> str:
    """The tier of the test function ``test`` of the module at ``path``, which uses
    ``fixtures`` (``blocking``: marked blocking_kernel)."""
    if path.parent.name == "browser":
        return "browser"
    rest, tests = _imports(path)
    imported = rest | tests.get(test, frozenset())
    if _names_any(imported, _KERNEL) or blocking:
        return "kernel"
    if _names_any(imported, _SERVER) or fixtures & _SERVER_FIXTURES:
        return "server"
    if (_names_any(imported, _WIDGETS) or fixtures & _WIDGET_FIXTURES
            or any(name.startswith("nb_elicit.") and not name.startswith("nb_elicit._core")
                   for name in imported)):
        return "widgets"
    return "pure"
