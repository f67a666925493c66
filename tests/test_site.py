"""The documentation site (mkdocs.yml) builds with ``mkdocs build --strict``: every link and
anchor of its pages resolves and no docstring breaks the build, the README is its home page,
and its API reference documents every name of ``nb_elicit.__all__``."""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# `once`: the site is made from the Markdown files and the package's docstrings; nothing here
# depends on the Python version that builds it (its tools are the `docs` extra).
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference.md"
_BLOCK = re.compile(r"^::: nb_elicit\.(\w+)\s*$", re.MULTILINE)
_HEADING_ID = re.compile(r'<h\d id="nb_elicit\.(\w+)"')


def public_names() -> list[str]:
    import nb_elicit

    return list(nb_elicit.__all__)


def missing_blocks(text: str, names: list[str]) -> list[str]:
    """The names of ``names`` that have no ``::: nb_elicit.NAME`` block in a reference page."""
    blocks = set(_BLOCK.findall(text))
    return [name for name in names if name not in blocks]


def undocumented(page_html: str, names: list[str]) -> list[str]:
    """The names of ``names`` that the built reference page gives no heading of their own
    (mkdocstrings gives each object's heading the id ``nb_elicit.NAME``)."""
    documented = set(_HEADING_ID.findall(page_html))
    return [name for name in names if name not in documented]


@pytest.fixture(scope="module")
def built_site(tmp_path_factory) -> Path:
    """The site, built once for this module with ``mkdocs build --strict``."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec(
            "mkdocstrings_handlers") is None:
        pytest.fail("mkdocs and mkdocstrings are not installed: the site's tools are the `docs` "
                    "extra, which scripts/test.sh installs (or: pip install -e '.[docs]')",
                    pytrace=False)
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stderr[-6000:]}"
    return out


def test_the_site_builds_strictly_with_the_readme_as_its_home_page(built_site):
    home = (built_site / "index.html").read_text(encoding="utf-8")
    first = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
                 if line.startswith("## "))
    assert html.escape(first[3:], quote=False) in home
    assert (built_site / "reference" / "index.html").exists()


def test_the_built_reference_documents_every_public_name(built_site):
    page = (built_site / "reference" / "index.html").read_text(encoding="utf-8")
    assert undocumented(page, public_names()) == []


def test_the_reference_page_has_a_block_for_every_public_name():
    names = public_names()
    text = REFERENCE.read_text(encoding="utf-8")
    assert missing_blocks(text, names) == []
    assert len(_BLOCK.findall(text)) == len(set(_BLOCK.findall(text))), "a name twice"


# The checks themselves catch what they are for.


def test_missing_blocks_finds_a_name_without_its_block():
    text = "# Reference\n\n::: nb_elicit.connect\n\n::: nb_elicit.Connection\n"
    assert missing_blocks(text, ["connect", "Connection", "ToolCall"]) == ["ToolCall"]
    assert missing_blocks("see `::: nb_elicit.connect`\n", ["connect"]) == ["connect"]


def test_undocumented_finds_a_name_the_built_page_lacks():
    page = ('<h3 id="nb_elicit.connect" class="doc doc-heading">connect</h3>'
            '<a href="#nb_elicit.ToolCall">ToolCall</a>')
    assert undocumented(page, ["connect", "ToolCall"]) == ["ToolCall"]
