"""Rate limits, mute, and forms that ask for secrets (pure parts and widgets, no server)."""

import ipywidgets as widgets
import pytest

from nb_elicit import ElicitationForm
from nb_elicit._core.limits import RateLimit, RateLimiter, parse_rate_limit
from nb_elicit._core.outcome import AnsweredBy
from nb_elicit._core.protection import Protection
from nb_elicit._core.records.history import History
from nb_elicit._core.secrets.masking import MASK
from nb_elicit._runtime.guard import Guard


@pytest.mark.parametrize(("text", "limit"), [
    ("10/min", RateLimit(10, 5)),
    ("10 / minute", RateLimit(10, 5)),
    ("2/s burst 4", RateLimit(120, 4)),
    ("2/s, burst 4", RateLimit(120, 4)),
    ("100/hour", RateLimit(100 / 60, 5)),
    ("1/min", RateLimit(1, 1)),
    ("off", None),
])
def test_rate_limits_are_written_like_people_say_them(text, limit):
    assert parse_rate_limit(text) == limit


@pytest.mark.parametrize("text", ["ten a minute", "10", "0/min", "5/fortnight", "3/min burst 0"])
def test_unreadable_rate_limits_say_how_to_write_them(text):
    with pytest.raises(ValueError) as error:
        parse_rate_limit(text)
    assert "\n" not in str(error.value)


def test_the_token_bucket_allows_a_burst_then_refills_at_the_rate():
    now = [0.0]
    limiter = RateLimiter(RateLimit(per_minute=6, burst=3), clock=lambda: now[0])
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]
    assert limiter.seconds_to_next() == pytest.approx(10)
    now[0] = 9.9
    assert not limiter.allow()
    now[0] = 10.0
    assert limiter.allow() and not limiter.allow()
    now[0] = 1000
    assert [limiter.allow() for _ in range(4)] == [True, True, True, False]  # never above burst


class FakeView:
    def __init__(self):
        self.lines = []

    def notice(self, text, kind="warning"):
        self.lines.append(text)
        return len(self.lines) - 1

    def update_notice(self, line, text):
        self.lines[line] = text


def test_the_guard_keeps_one_counted_notice_per_view_and_a_fresh_one_after_a_pause():
    guard = Guard(RateLimit(60, 1))
    view = FakeView()
    assert guard.allow()
    for _ in range(3):
        assert not guard.allow()
        guard.count_notice(AnsweredBy.RATE_LIMIT, view, lambda n: f"declined {n}")
    assert view.lines == ["declined 3"]
    guard.rules._limiter._tokens = 1  # the limit recovered: the next burst gets its own notice
    assert guard.allow() and not guard.allow()
    guard.count_notice(AnsweredBy.RATE_LIMIT, view, lambda n: f"declined {n}")
    assert view.lines == ["declined 3", "declined 1"]
    other = FakeView()
    guard.count_notice(AnsweredBy.RATE_LIMIT, other, lambda n: f"declined {n}")
    assert other.lines == ["declined 1"]


def test_without_a_rate_limit_everything_is_allowed():
    guard = Guard(None)
    assert all(guard.allow() for _ in range(1000))
    with pytest.raises(ValueError):
        Guard(secret_forms="maybe")


def test_the_rules_are_a_plain_value_the_guard_reads_and_writes():
    rules = Protection(RateLimit(60, 2), "refuse")
    assert (rules.muted, rules.rate_limit, rules.secret_forms) == (False, RateLimit(60, 2),
                                                                    "refuse")
    assert rules.allow() and rules.allow() and not rules.allow()
    with pytest.raises(ValueError):
        rules.secret_forms = "maybe"
    assert rules.secret_forms == "refuse"
    guard = Guard(None, "refuse")
    guard.muted = True
    guard.set_rate_limit(RateLimit(10, 5))
    guard.secret_forms = "warn"
    assert (guard.rules.muted, guard.rules.rate_limit, guard.rules.secret_forms) == (
        True, RateLimit(10, 5), "warn")
    assert Protection(None).seconds_to_next() == 0.0


SECRET_FORM = {"type": "object", "properties": {
    "user": {"type": "string", "default": "ada"},
    "password": {"type": "string", "default": "hunter2"},
    "plan": {"type": "string", "enum": ["a", "b"], "default": "b"},
}}


def test_a_form_that_asks_for_a_secret_warns_and_masks_only_that_field():
    form = ElicitationForm("Log in", SECRET_FORM, server="demo")
    assert form.secret_fields == ["password"]
    warning = [c for c in form.children if "nb-elicit-secret-warning" in c._dom_classes]
    assert len(warning) == 1 and "password" in warning[0].value
    assert isinstance(form.controls["password"].widget, widgets.Password)
    assert form.controls["user"].widget.value == "ada"
    assert form.controls["password"].widget.value == ""
    assert form.content == {"user": "ada", "plan": "b"}  # the secret's default is never sent


def test_an_ordinary_form_has_no_warning_and_keeps_its_defaults():
    form = ElicitationForm("Who?", {"type": "object", "properties": {
        "user": {"type": "string", "default": "ada"}}}, server="demo")
    assert form.secret_fields == []
    assert not [c for c in form.children if "nb-elicit-secret-warning" in c._dom_classes]
    assert form.content == {"user": "ada"}


def test_history_masks_secret_values():
    history = History()
    entry = history.add("demo", "Log in", "accept", {"user": "ada", "password": "hunter2"},
                        "person", SECRET_FORM)
    assert entry.content == {"user": "ada", "password": MASK}
    assert "hunter2" not in history.as_text() and "hunter2" not in history.as_html()
