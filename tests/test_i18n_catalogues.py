"""nb_elicit's texts as gettext catalogues: every language has every key, with the English
placeholders; the committed .mo files are what the .po files compile to today; the wheel ships
them; a missing text falls back to English and a missing key fails; and a catalogue is read on
the first text of its language, not on import."""

from __future__ import annotations

import gettext
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.texts import compile_texts, placeholders, po_path, texts

from nb_elicit._core import i18n
from nb_elicit._core.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, catalogue_path, set_language, t
from nb_elicit._core.kernel import process_part

try:
    import tomllib
except ImportError:  # Python 3.10: pytest's own TOML reader
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
ENGLISH = texts("en")
OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def test_each_language_has_its_catalogue_and_each_catalogue_is_a_language():
    folders = {path.name for path in Path(LOCALE_DIR).iterdir() if path.is_dir()}
    assert folders == set(LANGUAGES)
    for lang in LANGUAGES:
        assert po_path(lang).is_file() and Path(catalogue_path(lang)).is_file(), lang
    assert LANGUAGES[0] == "en"  # (the language every other falls back to)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_key_is_in_every_languages_catalogue(lang):
    assert len(ENGLISH) > 300  # (every key, not a stray few)
    assert sorted(set(ENGLISH) - set(texts(lang))) == []  # untranslated, or fuzzy
    assert sorted(set(texts(lang)) - set(ENGLISH)) == []  # a key English lacks fails in t()


@pytest.mark.parametrize("lang", OTHERS)
def test_each_translation_has_the_english_placeholders(lang):
    """The names, conversions (``!r``) and formats of a translation's fields are the English
    text's; a translation may leave one out (Chinese needs no plural ``{s}``), never add one,
    which ``str.format`` would not be given."""
    wrong = {key: sorted(placeholders(text) - placeholders(ENGLISH[key]))
             for key, text in texts(lang).items()
             if not placeholders(text) <= placeholders(ENGLISH.get(key, ""))}
    assert wrong == {}


def test_every_text_says_something():
    empty = [(lang, key) for lang in LANGUAGES for key, text in texts(lang).items()
             if not text.strip()]
    assert empty == []


def test_the_committed_mo_files_are_what_the_po_files_compile_to():
    """``python scripts/compile_texts.py`` after each edit of a ``.po`` file."""
    assert [str(path.relative_to(REPO)) for path in compile_texts().stale()] == []


def test_the_compiler_leaves_out_untranslated_and_fuzzy_texts(tmp_path):
    po = tmp_path / "zh" / "LC_MESSAGES" / f"{DOMAIN}.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  '# a comment for translators\nmsgid "submit"\nmsgstr "提交"\n\n'
                  'msgid "decline"\nmsgstr ""\n\n'
                  '#, fuzzy\nmsgid "dismiss"\nmsgstr "关闭"\n', encoding="utf-8")
    assert compile_texts().messages(po) == {"submit": "提交"}
    assert compile_texts().stale(tmp_path) == [po.with_suffix(".mo")]
    po.with_suffix(".mo").write_bytes(compile_texts().compiled(po))
    assert compile_texts().stale(tmp_path) == []
    with po.with_suffix(".mo").open("rb") as file:
        catalogue = gettext.GNUTranslations(file)
    assert catalogue.gettext("submit") == "提交" and catalogue.gettext("decline") == "decline"
    assert catalogue.info()["language"] == "zh" and catalogue.charset() == "UTF-8"


@pytest.fixture
def partly_translated(tmp_path, monkeypatch):
    """A Chinese catalogue with one text translated and one fuzzy, beside the real English."""
    shutil.copytree(Path(LOCALE_DIR, "en"), tmp_path / "en")
    po = tmp_path / "zh" / "LC_MESSAGES" / f"{DOMAIN}.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "submit"\nmsgstr "提交"\n\n'
                  '#, fuzzy\nmsgid "decline"\nmsgstr "拒绝"\n', encoding="utf-8")
    po.with_suffix(".mo").write_bytes(compile_texts().compiled(po))
    monkeypatch.setattr(i18n, "LOCALE_DIR", str(tmp_path))
    read = process_part(i18n.Catalogues)  # (the catalogues this process read: read anew)
    kept = dict(read)
    read.clear()
    set_language("zh")
    yield
    set_language(None)
    read.clear()
    read.update(kept)


def test_a_text_a_catalogue_lacks_is_shown_in_english(partly_translated):
    assert t("submit") == "提交"
    assert t("decline") == ENGLISH["decline"]  # fuzzy
    assert t("fix_fields", n=2, s="s") == "Please fix 2 fields; nothing was sent."  # absent


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_key_no_catalogue_has_fails_as_before(lang):
    set_language(lang)
    try:
        with pytest.raises(KeyError, match="no_such_text"):
            t("no_such_text")
    finally:
        set_language(None)


def test_a_catalogue_is_read_on_the_first_text_of_its_language_not_on_import():
    code = (
        "import json, sys\n"
        "opened = []\n"
        "sys.addaudithook(lambda event, args: opened.append(str(args[0]))\n"
        "                 if event == 'open' and str(args[0]).endswith('.mo') else None)\n"
        "import nb_elicit\n"
        "from nb_elicit._core.i18n import set_language, t\n"
        "steps = [list(opened)]\n"
        "set_language('en'); t('submit'); t('decline'); steps.append(list(opened))\n"
        "set_language('zh'); t('submit'); t('decline'); steps.append(list(opened))\n"
        "print(json.dumps(steps))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(i18n.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, cwd=REPO)
    on_import, english, chinese = json.loads(out.stdout)
    assert on_import == []
    assert english == [catalogue_path("en")]
    assert chinese == [catalogue_path("en"), catalogue_path("zh")]


def test_the_wheel_ships_the_compiled_catalogues():
    """hatchling puts the package's files in the wheel, but not those a .gitignore names, as
    many name ``*.mo``: the ``artifacts`` setting keeps the compiled catalogues in whatever a
    .gitignore says (a wheel built with ``*.mo`` ignored had both; hatchling is no test
    dependency, so this reads its configuration)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    hatch = config["tool"]["hatch"]["build"]
    wheel = hatch["targets"]["wheel"]
    assert "nb_elicit" in wheel["packages"]
    compiled = sorted(Path(LOCALE_DIR).rglob("*.mo"))
    assert [path.relative_to(LOCALE_DIR).parts[0] for path in compiled] == list(LANGUAGES)
    for path in compiled:
        relative = path.relative_to(REPO)
        assert any(relative.match(pattern) for pattern in hatch.get("artifacts", [])), relative
        for excluded in hatch.get("exclude", []) + wheel.get("exclude", []):
            assert not relative.match(excluded), (relative, excluded)
        only = wheel.get("only-include")
        assert only is None or any(str(relative).startswith(part) for part in only)
