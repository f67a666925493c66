"""Record the answers a person gives, then replay them without a person."""

import json
import sys

import pytest
from helpers.servers import Journal, demo_command, drive

import nb_elicit
from nb_elicit._core.records.recording import FORMAT, Mismatch, Recorder, Replayer, schema_hash

pytestmark = pytest.mark.timeout(120)

FORM = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"}, "api_key": {"type": "string", "title": "API key"}}}


# -- the file ---------------------------------------------------------------------------------

def test_the_schema_hash_ignores_key_order_and_sees_any_change():
    same = {"properties": {"name": {"type": "string"}}, "type": "object"}
    assert schema_hash(FORM) == schema_hash(json.loads(json.dumps(FORM)))
    assert schema_hash({"type": "object", "properties": {"name": {"type": "string"}}}) == \
        schema_hash(same)
    assert schema_hash(FORM) != schema_hash({**FORM, "required": []})
    assert schema_hash(FORM).startswith("sha256:")


def test_the_recording_is_documented_json_and_never_holds_secret_values(tmp_path):
    path = tmp_path / "answers.json"
    recorder = Recorder(path)
    recorder.add("demo", "login", FORM, "Log in", "accept", {"name": "Ada", "api_key": "sk-1"})
    recorder.add("demo", "login", FORM, "Log in", "decline", None)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == FORMAT and document["version"] == 1
    first, second = document["answers"]
    assert first["content"] == {"name": "Ada"} and first["omitted"] == ["api_key"]
    assert (first["server"], first["tool"], first["schema"]) == ("demo", "login",
                                                                 schema_hash(FORM))
    assert second["action"] == "decline" and second["content"] is None
    assert "sk-1" not in path.read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8").startswith("{\n  ")  # readable, indented
    assert len(Recorder(path).answers) == 2  # recording again appends


def test_replay_goes_in_recorded_order_then_repeats_the_last(tmp_path):
    path = tmp_path / "answers.json"
    recorder = Recorder(path)
    for name in ("one", "two"):
        recorder.add("demo", "t", FORM, "m", "accept", {"name": name})
    replayer = Replayer(path)
    found = [replayer.find("demo", "t", FORM).content["name"] for _ in range(3)]
    assert found == ["one", "two", "two"]
    assert replayer.find("demo", "other", FORM) is None
    assert replayer.find("elsewhere", "t", FORM) is None
    changed = replayer.find("demo", "t", {**FORM, "required": []})
    assert isinstance(changed, Mismatch) and changed.recorded == schema_hash(FORM)


@pytest.mark.parametrize(("text", "why"), [
    ("not json", "bad.json: not JSON (Expecting value at line 1, column 1)"),
    ('{"answers": []}', "is not an nb_elicit recording"),
    ('{"format": "nb_elicit answers", "version": 9, "answers": []}',
     "bad.json: version: this answers file was written by a newer nb_elicit (version 9); this "
     "one reads version 1, so upgrade nb_elicit to replay it"),
    ('{"format": "nb_elicit answers", "version": "1", "answers": []}',
     "bad.json: version: expected 1"),
    ('{"format": "nb_elicit answers", "version": 1, "answers": [{"x": 1}]}',
     "bad.json: answers[0].server: missing (it is required) (and 4 more problems)"),
    ('{"format": "nb_elicit answers", "version": 1, "answers": [{"server": "s", "tool": "t", '
     '"schema": "h", "message": "m", "action": "maybe"}]}',
     "bad.json: answers[0].action: expected 'accept', 'decline' or 'cancel'"),
    ('{"format": "nb_elicit answers", "version": 1, "answers": [{"server": "s", "tool": "t", '
     '"schema": "h", "message": "m", "action": "accept", "content": ["a"]}]}',
     "bad.json: answers[0].content: expected an object"),
])
def test_a_broken_recording_is_refused_in_one_line(tmp_path, text, why):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as error:
        Replayer(path)
    assert why in str(error.value) and "\n" not in str(error.value)
    assert isinstance(error.value, nb_elicit.ConfigError)


def test_unknown_keys_of_a_recording_are_warnings(tmp_path):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"format": FORMAT, "version": 1, "extra": True, "answers": [
        {"server": "demo", "tool": "t", "schema": "sha256:x", "message": "m",
         "action": "decline", "note": "by hand"}]}), encoding="utf-8")
    with pytest.warns(UserWarning) as caught:
        replayer = Replayer(path)
    assert [a.action for a in replayer.answers] == ["decline"]
    assert sorted(str(w.message) for w in caught) == [
        f"{path}: answers[0].note: unknown key, ignored",
        f"{path}: extra: unknown key, ignored"]


def test_recording_onto_a_file_writes_back_what_it_could_not_read_as_it_was(tmp_path):
    """A later version's (or a hand edit's) keys, in an answer and in the file, are kept when
    a new answer is recorded to it: recording never loses what it does not understand."""
    path = tmp_path / "answers.json"
    before = {"format": FORMAT, "version": 1, "extra": {"kept": [1, 2]}, "answers": [
        {"server": "demo", "tool": "t", "schema": "sha256:x", "message": "m",
         "action": "decline", "note": "by hand", "at": "2026-01-01T00:00:00Z"}]}
    path.write_text(json.dumps(before), encoding="utf-8")
    with pytest.warns(UserWarning):
        recorder = Recorder(path)
    recorder.add("demo", "t2", FORM, "Who?", "accept", {"name": "Ada", "api_key": "k"})
    after = json.loads(path.read_text(encoding="utf-8"))
    assert after["extra"] == {"kept": [1, 2]}
    assert after["answers"][0] == before["answers"][0]
    assert [a["tool"] for a in after["answers"]] == ["t", "t2"]
    assert after["answers"][1]["content"] == {"name": "Ada"}  # (the secret left out)
    assert len(recorder.answers) == 2


# -- against the demo server ---------------------------------------------------------------------

CONTACT = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}


def test_record_then_replay_without_a_person(tmp_path, views):
    path = tmp_path / "answers.json"
    first, second = Journal(tmp_path / "r1.jsonl"), Journal(tmp_path / "r2.jsonl")

    async def by_person(person):
        nb_elicit.record(path)
        person.will("accept", CONTACT).will("decline")
        conn = await nb_elicit.connect("demo", demo_command(first))
        await conn.call_tool("contact_info")
        await conn.call_tool("github_username")

    async def by_recording(person):  # nobody answers: the person has no script
        nb_elicit.record(None)
        nb_elicit.replay(path)
        conn = await nb_elicit.connect("demo", demo_command(second))
        await conn.call_tool("contact_info")
        await conn.call_tool("github_username")
        return person.seen

    drive(by_person)
    seen = drive(by_recording)
    assert seen == []  # no form was shown
    assert [(e["action"], e["content"]) for e in second.entries()] == [
        ("accept", CONTACT), ("decline", None)]
    assert [(e["action"], e["content"]) for e in first.entries()] == [
        ("accept", CONTACT), ("decline", None)]
    notices = [w.value for v in views[2:] for w in v.asked]
    assert any("from the recording answers.json" in n for n in notices)


def test_a_changed_schema_falls_back_to_the_policy_and_says_so(tmp_path, views):
    path = tmp_path / "answers.json"
    old = {"type": "object", "properties": {"name": {"type": "string"}}}
    new = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}}
    Recorder(path).add("demo", "custom_form", old, "Name?", "accept", {"name": "Ada Lovelace"})

    async def scenario(person):
        nb_elicit.replay(path)
        nb_elicit.respond("decline", connection="demo")
        conn = await nb_elicit.connect("demo", [sys.executable, "-m", "nb_elicit.demo"])
        result = await conn.call_tool("custom_form", {"message": "Name?",
                                                      "requested_schema": new})
        return json.loads(result.text)

    assert drive(scenario) == {"action": "decline", "content": None}
    texts = [w.value for w in views[0].asked]
    assert any("changed since answers.json was recorded" in t for t in texts)
    assert any("Answered decline by the respond policy" in t for t in texts)


def test_an_answer_missing_its_secret_falls_back(tmp_path, views):
    path = tmp_path / "answers.json"
    schema = {"type": "object", "required": ["password"], "properties": {
        "password": {"type": "string"}}}
    Recorder(path).add("demo", "custom_form", schema, "Pw?", "accept", {"password": "x"})

    async def scenario(person):
        nb_elicit.replay(path)
        nb_elicit.respond("cancel", connection="demo")
        conn = await nb_elicit.connect("demo", [sys.executable, "-m", "nb_elicit.demo"])
        result = await conn.call_tool("custom_form", {"message": "Pw?",
                                                      "requested_schema": schema})
        return json.loads(result.text)

    assert drive(scenario) == {"action": "cancel", "content": None}
    assert any("does not fit the form" in w.value for w in views[0].asked)
