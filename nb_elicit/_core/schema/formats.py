"""Real checks for the four string formats, and bounded matching of server-supplied patterns.

Pure: no ipywidgets, no mcp. jsonschema's own checks are too lax for a form (its "email" only
looks for an "@"), and ``re`` cannot stop a catastrophic pattern, so these are used instead.
"""

from __future__ import annotations

import datetime as _dt

import regex
from rfc3339_validator import validate_rfc3339

__all__ = ["PATTERN_TIMEOUT", "PatternTimeout", "is_date", "is_date_time", "is_email", "is_uri",
           "parse_date", "parse_date_time", "search_pattern"]

#: Seconds one server-supplied pattern may spend on one value before we give up on it.
PATTERN_TIMEOUT = 0.2

_DATE = regex.compile(r"\d{4}-\d{2}-\d{2}", flags=regex.ASCII)
_DATE_TIME = regex.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))", flags=regex.ASCII)


def is_email(text: str) -> bool:
    """An addr-spec such as ``ada@example.com`` (syntax only; nothing is looked up)."""
    # (imported on first use, not with this module, which %load_ext imports through the schema:
    # email-validator alone takes about 15 ms, and only a Submit needs it)
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


def parse_date(text: str) -> _dt.date | None:
    """The calendar day of an ISO 8601 full-date, ``YYYY-MM-DD``; None if it is not one."""
    if not isinstance(text, str) or not _DATE.fullmatch(text):
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


def is_date(text: str) -> bool:
    """An ISO 8601 full-date, ``YYYY-MM-DD``, that exists on the calendar."""
    return parse_date(text) is not None


def parse_date_time(text: str) -> _dt.datetime | None:
    """The timezone-aware datetime of an RFC 3339 date-time; None if it is not one, or is one
    that Python cannot hold (a leap second ``:60``).

    The one reader of date-times in nb_elicit, the same on every Python: ``fromisoformat``
    before 3.11 takes neither ``Z`` nor fractions of 1, 2, 4, 5 or more than 6 digits (Go's
    RFC3339Nano writes them). Fractions beyond microseconds are cut off, as Python keeps no
    more.
    """
    if not isinstance(text, str) or not validate_rfc3339(text):
        return None
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    try:
        offset = _dt.timedelta(0)
        if not zulu:
            offset = _dt.timedelta(hours=int(off_h), minutes=int(off_m))
            offset = -offset if sign == "-" else offset
        return _dt.datetime(int(year), int(month), int(day), int(hour), int(minute),
                            int(second), int(((fraction or "") + "000000")[:6]),
                            tzinfo=_dt.timezone(offset))
    except ValueError:
        return None


def is_date_time(text: str) -> bool:
    """An RFC 3339 date-time, which always carries a timezone offset or ``Z``, that Python can
    hold (:func:`parse_date_time`)."""
    return parse_date_time(text) is not None


class PatternTimeout(Exception):
    """A server-supplied pattern took longer than :data:`PATTERN_TIMEOUT` on one value."""


def search_pattern(pattern: str, text: str, timeout: float = PATTERN_TIMEOUT) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (JSON Schema semantics: unanchored)."""
    try:
        return regex.search(pattern, text, timeout=timeout) is not None
    except TimeoutError as exc:
        raise PatternTimeout(pattern) from exc
