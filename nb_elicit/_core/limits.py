"""How much of anything a server may send: sizes, and how often it may ask.

Servers are untrusted. A request past one of these sizes is refused with a JSON-RPC error
that names the limit. How many requests of one connection are shown at once and how many may
wait is here too; an optional time-based rate limit (off unless set) answers ``cancel`` to a
server that asks too often. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .errors import InvalidArgument

__all__ = [
    "DEFAULT_RATE_LIMIT",
    "MAX_CHOICES",
    "MAX_MESSAGE",
    "MAX_PATTERN",
    "MAX_PROPERTIES",
    "MAX_TEXT",
    "MAX_URL",
    "MAX_WAITING",
    "OPEN_AT_ONCE",
    "RateLimit",
    "RateLimiter",
    "parse_rate_limit",
]

#: Characters in a request's message.
MAX_MESSAGE = 10_000
#: Fields in one form.
MAX_PROPERTIES = 100
#: Choices in one select or multi-select field.
MAX_CHOICES = 1_000
#: Characters in a title, description, choice label, choice value, property name or default.
MAX_TEXT = 2_000
#: Characters in a regular expression (``pattern``).
MAX_PATTERN = 1_000
#: Characters in a URL-mode request's URL.
MAX_URL = 8_192


@dataclass(frozen=True)
class RateLimit:
    """At most ``per_minute`` requests a minute on average, and ``burst`` at once."""

    per_minute: float = 10
    burst: int = 5

    def __str__(self) -> str:
        per_second, per_hour = self.per_minute / 60, self.per_minute * 60
        if per_second >= 1 and float(per_second).is_integer():
            rate = f"{per_second:g}/s"
        elif float(self.per_minute).is_integer() or not _whole(per_hour):
            rate = f"{self.per_minute:.4g}/min"
        else:
            rate = f"{round(per_hour)}/hour"
        return f"{rate}, burst {self.burst}"


#: No time-based limit unless one is asked for: a flood is held by backpressure instead.
DEFAULT_RATE_LIMIT: RateLimit | None = None
#: How many of one connection's forms and cards are open at once; the rest wait in order.
OPEN_AT_ONCE = 3
#: How many requests of one connection may wait; past that nb_elicit answers cancel.
MAX_WAITING = 100


def _whole(value: float) -> bool:
    return abs(value - round(value)) < 1e-6

_RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*"
                   r"(?:,?\s*burst\s+(\d+))?\s*$", re.IGNORECASE)
_SECONDS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600,
            "hour": 3600}


def parse_rate_limit(text: str) -> RateLimit | None:
    """``"10/min"``, ``"2/s burst 4"``, ``"100/hour"``, or ``"off"`` (None: no limit)."""
    if text.strip().lower() in ("off", "none", "unlimited"):
        return None
    match = _RATE.match(text)
    if not match:
        raise InvalidArgument(f"unreadable rate limit {text!r}: write it like 10/min, 2/s burst "
                              "4, or off")
    count, unit, burst = float(match[1]), match[2].lower(), match[3]
    if count <= 0:
        raise InvalidArgument("a rate limit needs a count above 0 (or write off)")
    per_minute = count * 60 / _SECONDS[unit]
    default_burst = max(1, min(int(count), RateLimit().burst))
    burst_count = int(burst) if burst is not None else default_burst
    if burst_count < 1:
        raise InvalidArgument("burst must be at least 1")
    return RateLimit(per_minute, burst_count)


class RateLimiter:
    """A token bucket: ``burst`` requests at once, refilled at ``per_minute``."""

    def __init__(self, limit: RateLimit,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._tokens = float(limit.burst)
        self._last = clock()
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """Take a token if there is one; False means this request is over the limit."""
        with self._lock:
            now = self._clock()
            rate = self.limit.per_minute / 60
            self._tokens = min(self.limit.burst, self._tokens + (now - self._last) * rate)
            self._last = now
            if self._tokens >= 1:
                self._tokens -= 1
                return True
            return False

    def seconds_to_next(self) -> float:
        """How long until the next request would be allowed."""
        with self._lock:
            missing = max(0.0, 1 - self._tokens)
            return missing * 60 / self.limit.per_minute
