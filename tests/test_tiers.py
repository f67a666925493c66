"""Each test's tier marker comes from what it imports and uses (tests/helpers/tiers.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.source import parse as parse_source
from helpers.tiers import TIERS, tier_of

MODULE = '''
import json

import nb_elicit
from nb_elicit import parse_schema
from nb_elicit._core.text import shorten


def helper():
    from helpers.servers import drive  # (a helper's import counts for every test)
    return drive


def test_pure():
    assert parse_schema and shorten and json


def test_form():
    assert nb_elicit.ElicitationForm


def test_shell(ip):
    pass


def test_kernel():
    from helpers.frontend import Frontend
    assert Frontend
'''


@pytest.fixture
def module(tmp_path) -> Path:
    path = tmp_path / "test_probe.py"
    path.write_text(MODULE.replace("    from helpers.servers import drive  # (a helper's import "
                                   "counts for every test)\n    return drive\n", "    pass\n"))
    return path


def test_a_tests_own_imports_and_fixtures_set_its_tier(module):
    assert tier_of(module, "test_pure", set()) == "pure"
    assert tier_of(module, "test_form", set()) == "widgets"  # (loaded on first use)
    assert tier_of(module, "test_shell", {"ip"}) == "widgets"
    assert tier_of(module, "test_pure", {"journal"}) == "server"
    assert tier_of(module, "test_kernel", set()) == "kernel"
    assert tier_of(module, "test_pure", set(), blocking=True) == "kernel"
    browser = module.parent / "browser"
    browser.mkdir()
    moved = browser / module.name
    moved.write_text(module.read_text())
    assert tier_of(moved, "test_pure", set()) == "browser"


def test_a_helper_functions_import_counts_for_every_test_of_its_module(tmp_path):
    path = tmp_path / "test_probe.py"
    path.write_text(MODULE)
    assert tier_of(path, "test_pure", set()) == "server"


def pure_modules() -> list[str]:
    """The test modules with a test in the pure tier (its arguments taken as its fixtures)."""
    found = []
    for path in sorted(Path(__file__).parent.rglob("test_*.py")):
        tree = parse_source(path.read_text(encoding="utf-8"))
        if any(tier_of(path, node.name, {a.arg for a in node.args.args}) == "pure"
               for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and node.name.startswith("test")):
            found.append(str(path.relative_to(Path(__file__).parent.parent)))
    return found


def test_the_pure_tier_loads_no_widgets_server_kernel_nor_browser():
    """Each module with pure tests, imported on its own in a fresh interpreter, loads neither
    ipywidgets, the SDK, a kernel's packages nor the browser's."""
    modules = pure_modules()
    assert len(modules) >= 5, modules
    assert set(TIERS) == {"pure", "widgets", "server", "kernel", "browser"}
    assert not [m for m in modules if "/browser/" in m or "kernel" in m], modules
    code = ("import importlib.util, json, sys\n"
            "sys.path.insert(0, 'tests')\n"
            "spec = importlib.util.spec_from_file_location('probe', sys.argv[1])\n"
            "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {"
            "'ipywidgets', 'mcp', 'ipykernel', 'jupyter_client', 'playwright'})))")
    loaded = {}
    for path in modules:
        ran = subprocess.run([sys.executable, "-c", code, path], capture_output=True,
                             text=True, timeout=120, cwd=Path(__file__).parent.parent)
        assert ran.returncode == 0, ran.stderr[-2000:]
        loaded[path] = ran.stdout.strip()
    assert set(loaded.values()) == {"[]"}, loaded


def test_a_parse_broken_by_another_thread_is_tried_again_and_other_errors_are_not(monkeypatch):
    """CPython before 3.12.4 fails a correct parse when another thread parses at the same
    moment; the tests' parse tries it again, and raises any other error at once."""
    calls = []
    real = ast.parse

    def flaky(source):
        calls.append(source)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")
        return real(source)

    monkeypatch.setattr(ast, "parse", flaky)
    assert isinstance(parse_source("x = 1").body[0], ast.Assign) and len(calls) == 2

    def broken(source):
        calls.append(source)
        raise SystemError("something else")

    monkeypatch.setattr(ast, "parse", broken)
    calls.clear()
    with pytest.raises(SystemError, match="something else"):
        parse_source("x = 1")
    assert len(calls) == 1
