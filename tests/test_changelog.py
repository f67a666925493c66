"""The version is written in one place, ``nb_elicit.__version__``, and CHANGELOG.md (Keep a
Changelog) names it as its newest release: a release that bumps one and not the other fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # (Python 3.10: the one pip carries)
    from pip._vendor import tomli as tomllib

import nb_elicit

# `once`: these read CHANGELOG.md, pyproject.toml and the package's version as text; nothing
# here depends on the Python version that reads them.
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"
#: A release's heading: ``## [1.2.3] - 2026-11-30``; the one unreleased section's is
#: ``## [Unreleased]``.
_RELEASE = re.compile(r"^## \[(?P<version>\d+\.\d+\.\d+[^\]]*)\] - (?P<date>\d{4}-\d{2}-\d{2})$")
_SECTION = re.compile(r"^## \[(?P<name>[^\]]+)\]")
_KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def sections(text: str) -> list[str]:
    """The headings of the changelog's sections (``## [...]``), in order."""
    return [line for line in text.splitlines() if _SECTION.match(line)]


def newest_release(text: str) -> str:
    """The version of the newest release: the first ``## [X.Y.Z] - DATE`` heading."""
    for line in sections(text):
        if found := _RELEASE.match(line):
            return found["version"]
    raise AssertionError("the changelog names no release")


def test_the_newest_release_in_the_changelog_is_the_packages_version():
    assert newest_release(CHANGELOG.read_text(encoding="utf-8")) == nb_elicit.__version__


def test_the_changelog_keeps_the_format():
    text = CHANGELOG.read_text(encoding="utf-8")
    headings = sections(text)
    assert headings[0] == "## [Unreleased]"
    assert all(_RELEASE.match(line) for line in headings[1:]), headings
    dates = [_RELEASE.match(line)["date"] for line in headings[1:]]
    assert dates == sorted(dates, reverse=True)  # newest first
    kinds = set(re.findall(r"^### (.+)$", text, flags=re.MULTILINE))
    assert kinds <= _KINDS, kinds - _KINDS
    # Each section names its version (Unreleased, or a release and its date).
    for line in headings:
        assert _SECTION.match(line)["name"], line


def test_the_check_reads_the_first_release_after_unreleased():
    text = ("# Changelog\n\n## [Unreleased]\n\n### Added\n\n- x\n\n"
            "## [0.2.0] - 2026-12-01\n\n## [0.1.0] - 2026-11-30\n")
    assert newest_release(text) == "0.2.0"
    assert newest_release(text.replace("## [0.2.0] - 2026-12-01\n\n", "")) == "0.1.0"
    with pytest.raises(AssertionError):
        newest_release("# Changelog\n\n## [Unreleased]\n")


def test_pyproject_reads_the_version_from_the_package():
    """pyproject.toml writes no version of its own: hatchling reads ``__version__``."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "nb_elicit/__init__.py"
    source = (ROOT / "nb_elicit" / "__init__.py").read_text(encoding="utf-8")
    assert re.findall(r'^__version__ = "([^"]+)"$', source, flags=re.MULTILINE) == [
        nb_elicit.__version__]
