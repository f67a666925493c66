"""The one helper that shortens text with "…"."""

from __future__ import annotations

import pytest

from nb_elicit._core.text import shorten


@pytest.mark.parametrize(("text", "limit", "options", "expected"), [
    ("short", 10, {}, "short"),
    ("exactly10!", 10, {}, "exactly10!"),
    ("eleven char", 10, {}, "eleven ch…"),
    ("anything", None, {}, "anything"),
    ("one two three four", 12, {"at_word": True}, "one two…"),
    ("averyveryverylongword", 10, {"at_word": True}, "averyvery…"),  # no space: cut inside
    ("a b\n  c\td", 100, {"one_line": True}, "a b c d"),
    ("a\nb\nc\nd\ne\nf", 6, {"one_line": True}, "a b c…"),
])
def test_shorten(text, limit, options, expected):
    assert shorten(text, limit, **options) == expected
    assert limit is None or len(shorten(text, limit, **options)) <= limit


def test_every_shortened_place_uses_the_one_helper():
    """No module cuts text with "…" by itself (the pattern the helper replaced)."""
    import re
    from pathlib import Path

    import nb_elicit

    package = Path(nb_elicit.__file__).parent
    cut = re.compile(r'\[: *[^]]*\] *\+ *"…"')  # text[:limit - 1] + "…"
    own = [str(p.relative_to(package)) for p in package.rglob("*.py")
           if p.name != "text.py" and cut.search(p.read_text(encoding="utf-8"))]
    assert own == []
