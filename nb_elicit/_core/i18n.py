"""nb_elicit's own texts on forms, cards and records, in English and Chinese.

The texts are standard gettext catalogues, one per language, so that translators' tools (Poedit,
Weblate, Babel) read and write them: a ``.po`` file in ``locale/<lang>/LC_MESSAGES/`` beside
this module (the domain ``nb_elicit``), compiled by ``scripts/compile_texts.py`` into the ``.mo``
file beside it, which is read here with the standard library's ``gettext``; both are committed
and shipped. A msgid is the key the code asks for (``t("fix_fields")``), not the English text:
the keys stay what they were, two texts with the same English may differ in another language,
and English is a catalogue like the others (Weblate's "monolingual" gettext, with English as
its base), the last of each language's chain: a text a catalogue lacks (untranslated, or fuzzy)
is shown in English, and a key English lacks is a mistake in the code (``KeyError``). A
catalogue is read on the first text asked of its language, which keeps ``import nb_elicit``
quick.

The language is, in order: what :func:`set_language` chose (``%mcp language``), the
environment variable ``NB_ELICIT_LANG``, then the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``, ``LANGUAGE``): a locale starting with ``zh`` gives Chinese (one starting with any
code of :data:`LANGUAGES`, that language), anything else English.
Text from servers is never translated. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .kernel import part, process_part

if TYPE_CHECKING:
    from gettext import GNUTranslations

__all__ = ["LANGUAGES", "duration", "language", "set_language", "t"]

#: The languages with a catalogue; English first, the one every other falls back to.
LANGUAGES = ("en", "zh")
ENV_LANG = "NB_ELICIT_LANG"
#: The folder of the catalogues, and their gettext domain.
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")
DOMAIN = "nb_elicit"


class ChosenLanguage:
    """The language :func:`set_language` chose (None: automatic): a part of the kernel's
    owner (:mod:`.kernel`)."""

    def __init__(self) -> None:
        self.lang: str | None = None


class Catalogues(dict[str, "GNUTranslations"]):
    """Each language's catalogue once read (``gettext.GNUTranslations``), with its fallbacks:
    a part of the process (:func:`~.kernel.process_part`), as the files it read are."""


class _NoSuchText:
    """The end of every language's chain: a key that not even English has."""

    def gettext(self, key: str) -> str:
        raise KeyError(key)


def catalogue_path(lang: str) -> str:
    """The compiled catalogue (``.mo``) of ``lang``."""
    return os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", f"{DOMAIN}.mo")


def _catalogue(lang: str) -> GNUTranslations:
    """``lang``'s catalogue, read on first use, falling back to English, then to KeyError."""
    catalogues = process_part(Catalogues)
    found = catalogues.get(lang)
    if found is None:
        import gettext  # (here: the first text asked for, not import nb_elicit, pays for it)

        with open(catalogue_path(lang), "rb") as file:
            found = gettext.GNUTranslations(file)
        # (a fallback needs only gettext(); the stub asks for a whole NullTranslations)
        found.add_fallback(_catalogue(LANGUAGES[0]) if lang != LANGUAGES[0]
                           else _NoSuchText())  # type: ignore[arg-type]
        catalogues[lang] = found  # (two threads may both read it: the same texts either way)
    return found


def set_language(lang: str | None) -> str:
    """Choose ``"en"`` or ``"zh"`` for nb_elicit's own texts; None goes back to automatic."""
    if lang is not None:
        lang = lang.strip().lower()
        if lang in ("auto", ""):
            lang = None
        elif lang not in LANGUAGES:
            from .errors import InvalidArgument  # (lazily: the errors are told in these words)

            raise InvalidArgument(f"unknown language {lang!r}: use {', '.join(LANGUAGES)} or auto")
    part(ChosenLanguage).lang = lang
    return language()


def language() -> str:
    """The language in use now: ``"en"`` or ``"zh"``."""
    chosen = part(ChosenLanguage).lang
    if chosen is not None:
        return chosen
    wanted = os.environ.get(ENV_LANG, "").strip().lower()
    if wanted in LANGUAGES:
        return wanted
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(name, "")
        if value:
            return next((lang for lang in LANGUAGES if value.lower().startswith(lang)), "en")
    return "en"


def t(key: str, **values: object) -> str:
    """The text ``key`` in the current language, with ``values`` filled in (``str.format``):
    in English where that language's catalogue lacks it; ``KeyError`` for a key English lacks."""
    return _catalogue(language()).gettext(key).format(**values)


def duration(seconds: float) -> str:
    """``12 s`` or ``2 min 05 s``, in the current language."""
    seconds = int(seconds)
    return (t("seconds", n=seconds) if seconds < 60 else
            t("minutes", m=seconds // 60, s=seconds % 60))
