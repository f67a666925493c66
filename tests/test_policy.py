import pytest

from nb_elicit._core.policy import ENV_RESPOND, Policies, Policy, parse_policy
from nb_elicit._core.records.history import History
from nb_elicit._core.secrets.masking import MASK
from nb_elicit._core.secrets.names import masked


@pytest.mark.parametrize(("text", "action", "content"), [
    ("ask", "ask", None), ("decline", "decline", None), (" CANCEL ", "cancel", None),
    ('accept {"name": "Ada"}', "accept", {"name": "Ada"}),
    ('accept:{"n": 1}', "accept", {"n": 1}),
])
def test_parse_policy(text, action, content):
    assert parse_policy(text) == Policy(action, content)


@pytest.mark.parametrize(("text", "message"), [
    ("maybe", "unknown policy 'maybe'"),
    ("decline now", "decline takes no content"),
    ("accept {bad", "accept needs a JSON object"),
    ("accept [1, 2]", "accept needs a JSON object"),
    ("accept", "accept needs a JSON object"),
])
def test_bad_policies_say_what_to_write(text, message):
    with pytest.raises(ValueError, match=message):
        parse_policy(text)


def test_a_connections_policy_wins_over_the_global_one_which_wins_over_the_environment(
        monkeypatch):
    policies = Policies()
    assert policies.for_connection("demo").action == "ask"
    monkeypatch.setenv(ENV_RESPOND, "decline")
    assert policies.for_connection("demo").action == "decline"
    policies.set(parse_policy("cancel"))
    assert policies.for_connection("demo").action == "cancel"
    policies.set(parse_policy('accept {"a": 1}'), "demo")
    assert policies.for_connection("demo") == Policy("accept", {"a": 1})
    assert policies.for_connection("other").action == "cancel"


def test_an_unreadable_environment_policy_falls_back_to_ask(monkeypatch):
    monkeypatch.setenv(ENV_RESPOND, "accept {oops")
    assert Policies().for_connection("demo").action == "ask"


def test_history_masks_secret_looking_values():
    schema = {"type": "object", "properties": {
        "user": {"type": "string"}, "pw": {"type": "string", "title": "Password"},
        "k": {"type": "string", "title": "API key"},
        "n": {"type": "integer", "description": "Not your PIN"}}}  # a description never counts
    assert masked({"user": "ada", "pw": "hunter2", "k": "sk-1", "n": 7}, schema) == {
        "user": "ada", "pw": MASK, "k": MASK, "n": 7}
    history = History()
    history.add("demo", "Log in", "accept", {"user": "ada", "pw": "hunter2"}, "person", schema)
    assert "hunter2" not in history.as_text() and "hunter2" not in history.as_html()
    assert "ada" in history.as_text()


def test_history_html_escapes_server_text():
    history = History()
    history.add("<b>srv</b>", "<img src=x onerror=alert(1)>", "decline", None, "person")
    assert "<img" not in history.as_html() and "&lt;img" in history.as_html()


def test_history_keeps_a_bounded_number_of_entries():
    history = History(limit=3)
    for i in range(5):
        history.add("s", f"m{i}", "cancel", None, "person")
    assert [e.message for e in history.entries] == ["m2", "m3", "m4"]
