"""Real checks for the four string formats, and bounded matching of server-supplied patterns.

Pure: no ipywidgets, no mcp. jsonschema's own checks are too lax for a form (its "email" only
looks for an "@"), and ``re`` cannot stop a catastrophic pattern, so these are used instead.
"""

from __future__ import annotations

import datetime as _dt

import regex
from rfc3339_validator import validate_rfc3339

__all__ = ["PATTERN_TIMEOUT", "PatternTimeout", "import_format_checks", "is_date",
           "is_date_time", "is_email", "is_uri", "search_pattern"]

#: Seconds one server-supplied pattern may spend on one value before we give up on it.
PATTERN_TIMEOUT = 0.2

_DATE = regex.compile(r"\d{4}-\d{2}-\d{2}", flags=regex.ASCII)


def import_format_checks() -> None:
    """Import the libraries of :func:`is_email` and :func:`is_uri` now.

    They are imported on first use, not with this module, which ``%load_ext nb_elicit`` imports
    (through the schema): email-validator alone takes about 15 ms, and only Submit needs them.
    """
    import email_validator  # noqa: F401
    import rfc3986_validator  # noqa: F401


def is_email(text: str) -> bool:
    """An addr-spec such as ``ada@example.com`` (syntax only; nothing is looked up)."""
    from email_validator import EmailNotValidError, validate_email

    try:
        validate_email(text, check_deliverability=False)
    except EmailNotValidError:
        return False
    return True


def is_uri(text: str) -> bool:
    """An absolute RFC 3986 URI: it has a scheme."""
    from rfc3986_validator import validate_rfc3986

    return validate_rfc3986(text, rule="URI") is not None


def is_date(text: str) -> bool:
    """An ISO 8601 full-date, ``YYYY-MM-DD``, that exists on the calendar."""
    if not _DATE.fullmatch(text):
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_date_time(text: str) -> bool:
    """An RFC 3339 date-time, which always carries a timezone offset or ``Z``."""
    return bool(validate_rfc3339(text))


class PatternTimeout(Exception):
    """A server-supplied pattern took longer than :data:`PATTERN_TIMEOUT` on one value."""


def search_pattern(pattern: str, text: str, timeout: float = PATTERN_TIMEOUT) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema semantics: unanchored)."""
    try:
        return regex.search(pattern, text, timeout=timeout) is not None
    except TimeoutError as exc:
        raise PatternTimeout(pattern) from exc
