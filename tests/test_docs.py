"""The README and docs/ stay whole: links resolve, every page is reachable, the %mcp table is
complete, and the README stays a short front door."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace

import pytest

# `once`: these read the Markdown files and the package's source as text; nothing here depends
# on the Python version that reads them.
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
README_MAX_LINES = 200

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...
_TABLE_COMMAND = re.compile(r"%mcp ([a-z][a-z_-]*)")


def _prose(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def links(text: str) -> list[str]:
    """Every link target in a Markdown text (inline and reference style), code blocks aside."""
    found = []
    for line in _prose(text):
        found += _LINK.findall(line)
        reference = _REFERENCE.match(line)
        if reference:
            found.append(reference.group(1))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"[`*]", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    result = set()
    for line in _prose(text):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            result.add(base if count == 0 else f"{base}-{count}")
    return result


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Relative links of ``page`` whose file (or heading, for a Markdown file) does not exist."""
    broken = []
    for target in links(page.read_text(encoding="utf-8")):
        if _EXTERNAL.match(target):
            continue
        path_part, _, fragment = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page.resolve()
        exists = resolved.is_relative_to(root.resolve()) and resolved.exists()
        if not exists or (fragment and resolved.suffix == ".md"
                          and fragment not in anchors(resolved.read_text(encoding="utf-8"))):
            broken.append(target)
    return broken


def linked_files(page: Path) -> set[Path]:
    """The files the relative links of ``page`` point at."""
    return {(page.parent / target.partition("#")[0]).resolve()
            for target in links(page.read_text(encoding="utf-8"))
            if not _EXTERNAL.match(target) and target.partition("#")[0]}


def subcommand_names(magics) -> list[str]:
    """The %mcp subcommands a version of ``nb_elicit._magics`` declares: a ``SUBCOMMANDS`` tuple
    of names, or a ``COMMANDS`` table (sequence or mapping) whose entries have a ``.name``."""
    if hasattr(magics, "SUBCOMMANDS"):
        return list(magics.SUBCOMMANDS)
    table = magics.COMMANDS
    entries = table.values() if isinstance(table, Mapping) else table
    return [entry.name for entry in entries]


def table_subcommands(text: str, heading: str = "subcommands") -> set[str]:
    """The subcommands in the first column of the table under the heading naming ``heading``."""
    names, inside = set(), False
    for line in _prose(text):
        if line.startswith("#"):
            inside = heading in line.lower()
            continue
        if inside and line.startswith("|"):
            first_cell = line.strip("|").split("|")[0]
            names.update(_TABLE_COMMAND.findall(first_cell))
    return names


# The checks above, on the project's own files.


def test_there_are_docs_pages():
    assert len(PAGES) > 1, "docs/ holds no .md pages"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_something_that_exists(page):
    assert broken_links(page) == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = linked_files(README)
    missing = [str(p.relative_to(ROOT)) for p in PAGES[1:] if p.resolve() not in linked]
    assert missing == []


def test_the_readme_table_names_every_subcommand_and_no_other():
    import nb_elicit._magics as magics

    declared = set(subcommand_names(magics))
    in_table = table_subcommands(README.read_text(encoding="utf-8"))
    assert declared, "no subcommands found in nb_elicit/_magics.py"
    assert sorted(declared - in_table) == [], "missing from the README's %mcp table"
    assert sorted(in_table - declared) == [], "in the README's %mcp table, but not a subcommand"


def test_the_docs_name_only_real_subcommands():
    import nb_elicit._magics as magics

    declared = set(subcommand_names(magics))
    unknown = {f"{page.name}: %mcp {name}" for page in PAGES
               for name in _TABLE_COMMAND.findall(page.read_text(encoding="utf-8"))
               if name not in declared}
    assert sorted(unknown) == []


def test_the_readme_stays_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES


# The checks themselves catch what they are for.


def test_broken_links_finds_missing_files_and_headings(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A `code` heading: here\n\n## Twice\n## Twice\n")
    (tmp_path / "code.py").write_text("")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/there.md) [ok](docs/there.md#a-code-heading-here) [ok](code.py)\n"
        "[ok](docs/there.md#twice-1) [ok](#top) [web](https://example.com/nowhere.md)\n"
        "[gone](docs/gone.md) [bad anchor](docs/there.md#nowhere) ![img](missing.png)\n"
        "[outside](../elsewhere.md)\n"
        "[ref]: docs/also-gone.md\n"
        "# Top\n"
        "```\n[in code](not-checked.md)\n```\n")
    assert broken_links(page, root=tmp_path) == [
        "docs/gone.md", "docs/there.md#nowhere", "missing.png", "../elsewhere.md",
        "docs/also-gone.md"]


def test_linked_files_lists_what_the_readme_links(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("[a](docs/a.md#x) [b](https://example.com/docs/b.md) [self](#top)\n")
    assert linked_files(page) == {(tmp_path / "docs" / "a.md").resolve()}


def test_subcommand_names_reads_a_tuple_or_a_table():
    assert subcommand_names(SimpleNamespace(SUBCOMMANDS=("connect", "list"))) == [
        "connect", "list"]
    table = [SimpleNamespace(name="connect"), SimpleNamespace(name="list")]
    assert subcommand_names(SimpleNamespace(COMMANDS=table)) == ["connect", "list"]
    by_name = {"call": SimpleNamespace(name="call")}
    assert subcommand_names(SimpleNamespace(COMMANDS=by_name)) == ["call"]


def test_table_subcommands_reads_only_the_first_column_of_that_table():
    text = ("## Other\n| `%mcp elsewhere` | x |\n"
            "## The `%mcp` subcommands\n| subcommand | what |\n|---|---|\n"
            "| `%mcp connect NAME` | see `%mcp log` |\n| `%mcp list` | x |\n"
            "## Next\n| `%mcp after` | x |\n")
    assert table_subcommands(text) == {"connect", "list"}



def test_the_architecture_page_names_every_module_of_the_package():
    package = ROOT / "nb_elicit"
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = [p for p in sorted(package.rglob("*.py"))
               if p.name != "__init__.py" and "demo" not in p.parts]
    assert modules
    assert [str(p.relative_to(package)) for p in modules if f"`{p.name}`" not in page] == []
