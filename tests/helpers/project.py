"""nb_elicit's own pyproject.toml, read on every supported Python."""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ImportError:  # (Python 3.10: the one pip carries)
    from pip._vendor import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def project_table() -> dict:
    """The ``[project]`` table of pyproject.toml."""
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
