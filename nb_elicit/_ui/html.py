"""HTML made from untrusted text, and the class hooks of the widgets.

Everything a server wrote is shown as text: :func:`text_html` and :func:`inline_text` escape
it (:func:`inline_text`, a control's label, with its invisible characters written out as
escapes too: :func:`~nb_elicit._core.text.visible`; a label or hint passed to
:func:`text_html` goes through ``visible`` first, while a tool's result keeps its tabs).
:func:`field_class` is a property's stable class hook, which :func:`property_of_class`
reverses.
"""

from __future__ import annotations

import html
from urllib.parse import quote, unquote

from .._core.text import visible

__all__ = ["NO_MATH", "field_class", "inline_text", "property_of_class", "text_html"]

_FIELD_CLASS = "nb-elicit-field-"

#: Classes that keep the typesetter away: a label is text, never math.
NO_MATH = "mathjax_ignore tex2jax_ignore"


def inline_text(text: str) -> str:
    """Untrusted text as the inline HTML of a control's ``description``: escaped, and with
    ``$`` and ``\\`` as character references, so that the frontend's math pass before it
    sanitizes (which would reinsert what it took as math) finds nothing to take."""
    return html.escape(visible(text, lines=True)).replace("$", "&#36;").replace("\\", "&#92;")


def field_class(name: str) -> str:
    """The stable class hook of a property's control: ``nb-elicit-field-`` + escaped name.

    Letters, digits, ``-`` and ``_`` stay as they are; every other character is percent-encoded
    as UTF-8 (``.`` becomes ``%2E``, a space ``%20``), so :func:`property_of_class` reverses it.
    """
    return _FIELD_CLASS + quote(name, safe="").replace(".", "%2E").replace("~", "%7E")


def property_of_class(class_name: str) -> str:
    """The property name behind a :func:`field_class` hook."""
    return unquote(class_name.removeprefix(_FIELD_CLASS))


def text_html(text: str, css_class: str = "") -> str:
    """Untrusted text as HTML that shows every character and runs nothing."""
    klass = f' class="{css_class}"' if css_class else ""
    return (f'<div{klass} style="white-space: pre-wrap; line-height: normal">'
            f"{html.escape(text)}</div>")
