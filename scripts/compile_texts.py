"""Compile nb_elicit's texts, the gettext catalogues
``nb_elicit/_core/locale/<lang>/LC_MESSAGES/nb_elicit.po``, into the ``nb_elicit.mo`` beside
each, which ``nb_elicit._core.i18n`` reads with the standard library's ``gettext``.

The ``.mo`` files are committed and shipped in the wheel, so that nb_elicit needs no compiler
at run time; Babel (the test extras) reads the ``.po`` files here, as the translators' tools
write them. As GNU ``msgfmt`` does, an untranslated or fuzzy text is left out of the ``.mo``,
so that the person sees the English one instead. The same texts give the same bytes, whatever
Babel's version: the messages are sorted, and the header is the few lines ``gettext`` reads
(the language, from the folder, and the charset), not the ``.po``'s, which Babel rewrites with
its own version and fills where it lacks a line (with the time of day, for a creation date);
``tests/test_i18n_catalogues.py`` compiles them again and compares.

    python scripts/compile_texts.py           # write every .mo that differs from its .po
    python scripts/compile_texts.py --check   # write nothing; fail if a .mo is out of date
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCALE = REPO / "nb_elicit" / "_core" / "locale"
DOMAIN = "nb_elicit"
#: The GNU .mo magic number, written little-endian.
MAGIC = 0x950412DE


def catalogues(locale: Path = LOCALE) -> list[Path]:
    """Every language's ``.po`` file, by language."""
    return sorted(locale.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def messages(po: Path) -> dict[str, str]:
    """A ``.po`` file's translated texts (msgid to msgstr), as ``msgfmt`` keeps them: no empty,
    fuzzy or obsolete ones."""
    from babel.messages.pofile import read_po

    with po.open("rb") as file:
        catalog = read_po(file, abort_invalid=True)
    texts = {}
    for message in catalog:
        if not message.id:
            continue  # (the header)
        if not isinstance(message.id, str):
            raise ValueError(f"{po}: {message.id!r} has plural forms; nb_elicit's texts have none")
        if message.string and not message.fuzzy:
            texts[message.id] = message.string
    return texts


def header(lang: str) -> str:
    """The header of ``lang``'s ``.mo``: what ``gettext`` reads (the charset) and which
    language it is."""
    return (f"Language: {lang}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
            "Content-Transfer-Encoding: 8bit\n")


def mo_bytes(header: str, texts: dict[str, str]) -> bytes:
    """The GNU ``.mo`` file of these texts (no hash table, as the standard library's
    ``msgfmt.py`` writes it; ``gettext`` does not need one)."""
    pairs = sorted([("", header), *texts.items()], key=lambda pair: pair[0].encode())
    ids = strs = b""
    offsets = []
    for msgid, msgstr in pairs:
        key, value = msgid.encode(), msgstr.encode()
        offsets.append((len(ids), len(key), len(strs), len(value)))
        ids += key + b"\0"
        strs += value + b"\0"
    start = 7 * 4 + 16 * len(pairs)  # after the header and the two tables of (length, offset)
    table = []
    for id_at, id_length, _, _ in offsets:
        table += [id_length, start + id_at]
    for _, _, str_at, str_length in offsets:
        table += [str_length, start + len(ids) + str_at]
    head = struct.pack("<7I", MAGIC, 0, len(pairs), 7 * 4, 7 * 4 + 8 * len(pairs), 0, 0)
    return head + struct.pack(f"<{len(table)}I", *table) + ids + strs


def compiled(po: Path) -> bytes:
    """What ``po`` (``<lang>/LC_MESSAGES/nb_elicit.po``) compiles to."""
    return mo_bytes(header(po.parent.parent.name), messages(po))


def stale(locale: Path = LOCALE) -> list[Path]:
    """The ``.mo`` files that are not what their ``.po`` compiles to (or are missing)."""
    wrong = []
    for po in catalogues(locale):
        mo = po.with_suffix(".mo")
        if not mo.is_file() or mo.read_bytes() != compiled(po):
            wrong.append(mo)
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a .mo is not what its .po compiles to")
    args = parser.parse_args(argv)
    wrong = stale()
    if args.check:
        for mo in wrong:
            print(f"out of date: {mo.relative_to(REPO)} (run python scripts/compile_texts.py)")
        return 1 if wrong else 0
    for mo in wrong:
        mo.write_bytes(compiled(mo.with_suffix(".po")))
        print(f"wrote {mo.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
