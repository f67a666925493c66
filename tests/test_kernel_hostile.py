"""The hostile server against a real kernel, driven by the scripted JupyterLab-like frontend.

After each case the kernel answers ``1+1`` at once, nothing is left pending, and a normal form
still works through widget messages (typed, then submitted).
"""

import json

import pytest
from helpers.frontend import Frontend
from helpers.servers import hostile_command

pytestmark = [pytest.mark.timeout(300), pytest.mark.blocking_kernel]

HOSTILE = hostile_command()
CELL = 60
EVIL = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@pytest.fixture(scope="module")
def fe():
    with Frontend.start(subshells=True) as frontend:
        reply, outputs = frontend.run(
            "import json, nb_elicit\n"
            f"conn = await nb_elicit.connect('hostile', {HOSTILE!r}, rate_limit=None)",
            timeout=CELL)
        assert reply["status"] == "ok", outputs
        yield frontend


def kernel_is_fine(fe):
    reply, outputs = fe.run("1+1", timeout=10)
    assert reply["status"] == "ok" and outputs[-1]["data"]["text/plain"] == "2"
    reply, outputs = fe.run("len(nb_elicit._runtime.state.kernel_state().pending)",
                            timeout=10)
    assert outputs[-1]["data"]["text/plain"] == "0"


def normal_form_works(fe, name="Ada"):
    count = len(fe.find("nb-elicit-submit"))
    cell = fe.execute(f"r = await conn.call_tool('ask', {{'schema_json': {json.dumps(NAME_FORM)!r}}})"
                      "\nprint(r.text)")
    fe.wait_for(lambda: len(fe.find("nb-elicit-submit")) > count, CELL, "the form")
    fe.type_text(fe.find("nb-elicit-field-name")[-1], name)
    assert fe.flush(20), fe.stalled()
    fe.click(fe.find("nb-elicit-submit")[-1])
    assert fe.wait_reply(cell, CELL)["status"] == "ok"
    assert json.loads(fe.stdout(cell)) == {
        "result": {"action": "accept", "content": {"name": name}}}


def call(fe, tool, arguments) -> dict:
    cell = fe.execute(f"r = await conn.call_tool({tool!r}, {arguments!r})\nprint(r.text)")
    reply = fe.wait_reply(cell, CELL)
    assert reply["status"] == "ok", fe.outputs(cell)
    return json.loads(fe.stdout(cell))


@pytest.mark.parametrize("params", [
    pytest.param({"requestedSchema": {"type": "object", "properties": {}}}, id="no-message"),
    pytest.param({"message": "x", "requestedSchema": "nope"}, id="schema-not-object"),
    pytest.param({"mode": "video", "message": "x"}, id="unknown-mode"),
    pytest.param({"message": "x", "requestedSchema": {"type": "object", "properties": {
        "a": {"type": "object"}}}}, id="nested-object"),
    pytest.param({"message": "x", "requestedSchema": {"type": "object", "properties": {
        "a": {"$ref": "#/x"}}}}, id="ref"),
    pytest.param({"message": "x", "requestedSchema": {"type": "object", "properties": {
        "a": {"type": "string", "pattern": "(("}}}}, id="invalid-regex"),
    pytest.param({"mode": "url", "message": "x", "url": "javascript:alert(1)",
                  "elicitationId": "j"}, id="javascript-url"),
])
def test_malformed_and_unsupported_requests(fe, params):
    outcome = call(fe, "raw", {"params_json": json.dumps(params)})
    assert outcome["error"]["code"] == -32602
    kernel_is_fine(fe)
    normal_form_works(fe)


@pytest.mark.parametrize("what", ["message", "properties", "enum", "title"])
def test_oversized_requests(fe, what):
    outcome = call(fe, "big", {"what": what})
    assert outcome["error"]["code"] == -32602 and "limit" in outcome["error"]["message"]
    kernel_is_fine(fe)
    normal_form_works(fe)


def test_catastrophic_pattern_and_html_everywhere(fe):
    schema = {"type": "object", "title": EVIL, "properties": {
        "w": {"type": "string", "pattern": "^(a|aa)+$", "title": EVIL, "description": EVIL}}}
    count = len(fe.find("nb-elicit-submit"))
    cell = fe.execute("r = await conn.call_tool('ask', "
                      f"{{'schema_json': {json.dumps(schema)!r}, 'message': {EVIL!r}}})\n"
                      "print(r.text)")
    fe.wait_for(lambda: len(fe.find("nb-elicit-submit")) > count, 30, "the form")
    shown = "".join(str(m.state.get("value", "")) for m in fe.models.values()
                    if m.model_name == "HTMLModel" and not m.closed)
    assert "<img" not in shown and "<script" not in shown and "&lt;img" in shown
    field = fe.find("nb-elicit-field-w")[-1]
    fe.type_text(field, "a" * 40 + "!")
    assert fe.flush(20)
    fe.click(fe.find("nb-elicit-submit")[-1])
    fe.wait_for(lambda: "nothing was sent" in "".join(
        str(fe.state(m).get("value")) for m in fe.find("nb-elicit-status")), 20, "the refusal")

    fe.set_value(field, "aaaa")
    assert fe.flush(20)
    fe.click(fe.find("nb-elicit-submit")[-1])
    assert fe.wait_reply(cell, CELL)["status"] == "ok"
    assert json.loads(fe.stdout(cell)) == {"result": {"action": "accept",
                                                      "content": {"w": "aaaa"}}}
    kernel_is_fine(fe)


def test_a_flood_is_held_by_backpressure_and_the_person_can_cancel_the_waiting_ones(fe):
    """200 at once: 3 forms shown, 100 waiting (one line says so), 97 cancelled with one
    notice; the person dismisses the shown ones and cancels the waiting ones with one click.
    The kernel answers throughout."""
    count = len(fe.find("nb-elicit-dismiss"))
    cell = fe.execute("r = await conn.call_tool('flood', {'count': 200})\nprint(r.text)")
    fe.wait_for(lambda: len(fe.find("nb-elicit-dismiss")) >= count + 3, 30, "three forms")
    fe.wait_for(lambda: fe.find("nb-elicit-cancel-waiting"), 30, "the waiting line")
    # (all 200 have come once the overflow's notice counts 97: a request still on its way when
    # the waiting ones are cancelled would wait anew, and be shown after the dismissals)
    fe.wait_for(lambda: any("cancel to 97 requests" in str(fe.value(m))
                            for m in fe.find("nb-elicit-notice")), CELL, "the overflow")
    fe.pump_for(0.5)
    assert len(fe.find("nb-elicit-dismiss")) == count + 3  # never more than three at once
    fe.click(fe.find("nb-elicit-cancel-waiting")[-1])
    # (the shown forms are dismissed once the waiting ones are gone: a dismissal before that
    # would free a place for the next waiting request, which a busy kernel may show first)
    fe.wait_for(lambda: any("You cancelled 100 requests" in str(fe.value(m))
                            for m in fe.find("nb-elicit-notice")), CELL, "the waiting cancelled")
    for button in fe.find("nb-elicit-dismiss")[count:]:
        fe.click(button)
    assert fe.wait_reply(cell, CELL)["status"] == "ok"
    assert json.loads(fe.stdout(cell)) == {"cancel": 200}
    (transcript,) = fe.wait_for(lambda: [r for r in fe.transcripts() if "Flood #" in r], 10,
                                "the transcript of the flood")
    assert "answered cancel to 97 requests" in transcript
    assert "You cancelled 100 requests from hostile that waited." in transcript
    assert "decline" not in transcript.lower()
    kernel_is_fine(fe)
    normal_form_works(fe)


def test_withdrawn_and_never_answering_requests(fe):
    reply, _ = fe.run("r = await conn.call_tool('withdraw', {'after': 0.5})", timeout=CELL)
    assert reply["status"] == "ok"
    fe.wait_for(lambda: any("Going away" in r and "hostile withdrew this request." in r
                            for r in fe.transcripts()), 10, "the reason")
    kernel_is_fine(fe)
    count = len(fe.find("nb-elicit-submit"))
    cell = fe.execute("r = await conn.call_tool('never_answer')")
    fe.wait_for(lambda: len(fe.find("nb-elicit-submit")) > count, 30, "the form")
    fe.type_text(fe.find("nb-elicit-field-name")[-1], "Ada")
    assert fe.flush(20)
    fe.click(fe.find("nb-elicit-submit")[-1])
    fe.pump_for(1.0)
    fe.interrupt()
    assert fe.wait_reply(cell, 20)["status"] == "error"  # interrupted, not hung
    kernel_is_fine(fe)
    normal_form_works(fe)


def test_a_server_that_crashes_mid_form(fe):
    cell = fe.execute("r = await conn.call_tool('crash', {'after': 0.5})")
    reply = fe.wait_reply(cell, CELL)
    assert reply["status"] == "error" and reply["ename"] == "ServerDisconnected"
    fe.wait_for(lambda: any("I will crash" in r and "hostile disconnected." in r
                            for r in fe.transcripts()), 10, "the transcript")
    kernel_is_fine(fe)
    reply, _ = fe.run(f"conn = await nb_elicit.connect('hostile', {HOSTILE!r})", timeout=CELL)
    assert reply["status"] == "ok"
    normal_form_works(fe)
