"""nb_elicit's text catalogues as the tests read them: the ``.po`` files, through the script that
compiles them (``scripts/compile_texts.py``, with Babel), so that a test sees what a translator
wrote and what the ``.mo`` was made from."""

from __future__ import annotations

import functools
import importlib.util
import string
from pathlib import Path

from nb_elicit._core.i18n import DOMAIN, LOCALE_DIR

__all__ = ["compile_texts", "placeholders", "po_path", "texts"]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "compile_texts.py"


@functools.cache
def compile_texts():
    """The script ``scripts/compile_texts.py``, as a module."""
    spec = importlib.util.spec_from_file_location("compile_texts", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def po_path(lang: str) -> Path:
    """The catalogue (``.po``) of ``lang``."""
    return Path(LOCALE_DIR, lang, "LC_MESSAGES", f"{DOMAIN}.po")


@functools.cache
def texts(lang: str) -> dict[str, str]:
    """The texts of ``lang``'s catalogue that it translates (key to text), as compiled."""
    return compile_texts().messages(po_path(lang))


def placeholders(text: str) -> set[tuple[str, str | None, str]]:
    """The fields ``str.format`` fills in ``text``: name, conversion and format spec each."""
    return {(name, conversion, spec or "")
            for _, name, spec, conversion in string.Formatter().parse(text) if name is not None}
