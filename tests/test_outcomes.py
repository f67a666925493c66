"""One outcome path: every way an elicitation is answered is a value (the answer, who answered,
the notice), and one place writes the notice, the history entry and the recording."""

import threading

import pytest
from helpers.fill import fill
from helpers.source import parse as parse_source

from nb_elicit import ElicitationForm
from nb_elicit._runtime.pending import PendingForms

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def test_a_click_that_wins_the_race_with_an_interrupt_is_the_persons_answer():
    """The person's Submit lands (on another thread) between the interrupt's decision and its
    dismiss: the answer is the person's, and it is labelled so."""
    form = ElicitationForm("Who?", SCHEMA, server="demo")
    fill(form, {"name": "Ada"})
    pending = PendingForms()
    original = form.dismiss

    def dismiss_after_a_click(*args, **kwargs):
        click = threading.Thread(target=form.submit_button.click)
        click.start()
        click.join()
        return original(*args, **kwargs)

    form.dismiss = dismiss_after_a_click
    with pending.track(form, "demo", None):
        assert pending.dismiss("demo") == 0
    assert form.answer.result().action == "accept"
    assert form.answered_by == "person"
    assert form.outcome().answered_by == "person"


def test_an_interrupt_that_answers_is_labelled_as_the_interrupt():
    form = ElicitationForm("Who?", SCHEMA, server="demo")
    pending = PendingForms()
    with pending.track(form, "demo", None):
        assert pending.dismiss("demo", answered_by="interrupt") == 1
    assert form.answer.result().action == "cancel"
    assert form.answered_by == "interrupt"


def test_who_answered_is_not_set_from_outside_the_prompt():
    form = ElicitationForm("Who?", SCHEMA, server="demo")
    with pytest.raises(AttributeError):
        form.answered_by = "someone else"


# -- the one place that writes an outcome ---------------------------------------------------------

from nb_elicit import Answer  # noqa: E402
from nb_elicit._core.outcome import Counted, Outcome  # noqa: E402
from nb_elicit._core.records.recording import Recorder  # noqa: E402
from nb_elicit._core.schema.fields import parse_schema  # noqa: E402
from nb_elicit._runtime import asking  # noqa: E402
from nb_elicit._runtime.guard import Guard  # noqa: E402
from nb_elicit._runtime.state import kernel_state  # noqa: E402


class FakeView:
    """Collects what a call's view would show (the widgets are tested elsewhere)."""

    what = "tool"

    def __init__(self):
        self.lines, self.asked = [], []

    def notice(self, text, kind="warning", asked=None):
        self.lines.append(text)
        if asked is not None:
            self.asked.append(asked)
        return len(self.lines) - 1

    def update_notice(self, line, text):
        self.lines[line] = text


@pytest.fixture
def history():
    return kernel_state().history  # (each test's own)


def test_an_outcome_with_a_status_is_told_as_the_request_with_the_fields_it_sent(history):
    view, spec = FakeView(), parse_schema(SCHEMA)
    outcome = Outcome(Answer("accept", {"name": "Ada"}), "policy", status="Answered accept.")
    asking.write_outcome("demo", "Who?", view, Guard(), outcome, spec=spec, schema=SCHEMA)
    assert view.lines == ["demo asked: Who? Answered accept."]
    (asked,) = view.asked
    assert (asked.action, asked.answered_by, asked.fields) == ("accept", "policy",
                                                              (("name", "Ada", '"Ada"'),))
    (entry,) = history.entries
    assert (entry.action, entry.answered_by, entry.content) == ("accept", "policy", {"name": "Ada"})


def test_counted_outcomes_share_one_line_per_call(history):
    view, guard = FakeView(), Guard()
    for _ in range(3):
        asking.write_outcome("demo", "Who?", view, guard, Outcome(
            Answer("cancel"), "muted", counted=Counted(lambda n: f"{n} muted")))
    assert view.lines == ["3 muted"]
    assert [e.answered_by for e in history.entries] == ["muted"] * 3


def test_notes_come_before_the_outcomes_own_line(history):
    view = FakeView()
    outcome = Outcome(Answer("decline"), "policy", notice="Declined.").noting("Why not replayed.")
    asking.write_outcome("demo", "Who?", view, Guard(), outcome)
    assert view.lines == ["Why not replayed.", "Declined."]


def test_only_a_persons_form_answer_goes_into_the_recording(history, tmp_path, monkeypatch):
    recorder = Recorder(tmp_path / "answers.json")
    monkeypatch.setattr(kernel_state().tape, "recorder", recorder)
    view = FakeView()
    for by in ("person", "policy", "replay", "interrupt"):
        asking.write_outcome("demo", "Who?", view, Guard(),
                             Outcome(Answer("accept", {"name": by}), by), schema=SCHEMA)
    asking.write_outcome("demo", "Open?", view, Guard(), Outcome(Answer("accept"), "person"))
    assert [a.content for a in recorder.answers] == [{"name": "person"}]
    assert len(history.entries) == 5


def test_an_error_outcome_is_history_with_the_action_error(history):
    outcome = Outcome(None, "refused", error=ValueError("bad"), notice="refused")
    asking.write_outcome("demo", 42, FakeView(), Guard(), outcome)
    (entry,) = history.entries
    assert (entry.action, entry.answered_by, entry.message) == ("error", "refused", "42")


def test_each_way_of_answering_returns_an_outcome_and_none_writes_history_itself():
    """The answerers only decide; ``write_outcome`` alone talks to the history."""
    import ast
    import inspect

    tree = parse_source(inspect.getsource(asking))
    writers = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
               and any(isinstance(n, ast.Attribute) and n.attr == "add"
                       and isinstance(n.value, ast.Attribute) and n.value.attr == "history"
                       for n in ast.walk(node))}
    assert writers == {"write_outcome"}


# -- an answer without a person is Submit on the form as shown ------------------------------------

import json  # noqa: E402
import sys  # noqa: E402

from helpers.servers import drive  # noqa: E402

import nb_elicit  # noqa: E402
from nb_elicit._core.schema.prefill import as_submitted, prefilled  # noqa: E402

#: Five defaults and nothing required, like the conformance suite's SEP-1034 scenario.
DEFAULTS = {"type": "object", "properties": {
    "name": {"type": "string", "default": "John Doe"},
    "age": {"type": "integer", "default": 30},
    "score": {"type": "number", "default": 95.5},
    "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
    "verified": {"type": "boolean", "default": True},
    "note": {"type": "string"},
}}
#: The same with a multi-select default (kept as a tuple in the spec, sent as a list).
WITH_CHOICES = {"type": "object", "properties": {
    **DEFAULTS["properties"],
    "days": {"type": "array", "items": {"type": "string", "enum": ["mon", "tue", "wed"]},
             "default": ["mon", "wed"]},
}}
ALL_DEFAULTS = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                "verified": True}


def test_prefilled_is_what_submit_sends_from_an_untouched_form():
    for schema in (DEFAULTS, WITH_CHOICES, SCHEMA, {"type": "object", "properties": {
            "user": {"type": "string", "default": "ada"},
            "password": {"type": "string", "default": "hunter2"}}}):
        form = ElicitationForm("?", schema, server="demo")
        assert prefilled(form.spec) == form.content


def test_given_values_are_laid_over_the_defaults_and_unknown_names_left_out():
    spec = parse_schema(DEFAULTS)
    assert as_submitted(spec, {}) == ALL_DEFAULTS
    assert as_submitted(spec, {"age": 41, "note": "hi", "bogus": 1}) == {
        **ALL_DEFAULTS, "age": 41, "note": "hi"}


def custom_form(schema):
    async def scenario(person):
        conn = await nb_elicit.connect("demo", [sys.executable, "-m", "nb_elicit.demo"])
        result = await conn.call_tool("custom_form", {"message": "Settings?",
                                                      "requested_schema": schema})
        return json.loads(result.text)
    return drive(scenario)


@pytest.mark.parametrize("given, sent", [
    ({}, ALL_DEFAULTS),
    ({"age": 41, "note": "hi"}, {**ALL_DEFAULTS, "age": 41, "note": "hi"}),
])
def test_an_accept_policy_sends_the_form_as_shown_with_its_values_over_it(
        views, given, sent):
    nb_elicit.respond("accept", given, connection="demo")
    assert custom_form(DEFAULTS) == {"action": "accept", "content": sent}


def test_an_accept_policy_sends_a_multi_select_default_as_a_list(views):
    nb_elicit.respond("accept", {}, connection="demo")
    assert custom_form(WITH_CHOICES) == {"action": "accept", "content": {
        **ALL_DEFAULTS, "days": ["mon", "wed"]}}


def test_an_accept_policy_that_breaks_the_form_still_answers_cancel(views):
    nb_elicit.respond("accept", {"age": "old"}, connection="demo")
    assert custom_form(DEFAULTS) == {"action": "cancel", "content": None}


def test_a_replayed_answer_that_leaves_out_a_defaulted_field_sends_its_default(
        views, tmp_path):
    path = tmp_path / "answers.json"
    Recorder(path).add("demo", "custom_form", DEFAULTS, "Settings?", "accept", {"age": 41})
    nb_elicit.replay(path)
    nb_elicit.respond("decline", connection="demo")  # not used: the recording answers
    assert custom_form(DEFAULTS) == {"action": "accept", "content": {**ALL_DEFAULTS, "age": 41}}


def test_the_history_names_the_tool_that_asked(views):
    nb_elicit.respond("decline", connection="demo")
    custom_form(DEFAULTS)
    (entry,) = kernel_state().history.entries
    assert (entry.server, entry.tool, entry.action) == ("demo", "custom_form", "decline")
    assert "demo · custom_form" in kernel_state().history.as_text()
    assert ">custom_form</td>" in kernel_state().history.as_html()
