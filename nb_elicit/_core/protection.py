"""The rules that protect the person from one connection's server, as a plain value: whether
it is muted, its optional rate limit, and what happens to a form that asks for a secret
(``warn`` or ``refuse``).

The runtime's :class:`~nb_elicit._runtime.guard.Guard` holds one, with what shows it (the
notices that count refused requests, the URL cards awaiting completion). Pure: no widgets.
"""

from __future__ import annotations

from .limits import DEFAULT_RATE_LIMIT, RateLimit, RateLimiter

__all__ = ["SECRET_FORM_RULES", "Protection"]

SECRET_FORM_RULES = ("warn", "refuse")


class Protection:
    """Mute, rate limit and the secret-form rule of one connection."""

    def __init__(self, rate_limit: RateLimit | None = DEFAULT_RATE_LIMIT,
                 secret_forms: str = "warn"):
        #: Muted: every request is answered ``cancel`` unseen.
        self.muted = False
        self.set_rate_limit(rate_limit)
        self.secret_forms = secret_forms

    @property
    def rate_limit(self) -> RateLimit | None:
        return self._limiter.limit if self._limiter is not None else None

    def set_rate_limit(self, limit: RateLimit | None) -> None:
        self._limiter = RateLimiter(limit) if limit is not None else None

    @property
    def secret_forms(self) -> str:
        return self._secret_forms

    @secret_forms.setter
    def secret_forms(self, rule: str) -> None:
        if rule not in SECRET_FORM_RULES:
            raise ValueError(f"secret_forms must be 'warn' or 'refuse', not {rule!r}")
        self._secret_forms = rule

    def allow(self) -> bool:
        """Whether one more request fits in the rate limit (and take it)."""
        return self._limiter is None or self._limiter.allow()

    def seconds_to_next(self) -> float:
        """Seconds until the rate limit lets the next request through (0: now)."""
        return self._limiter.seconds_to_next() if self._limiter is not None else 0.0
