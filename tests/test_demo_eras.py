"""The demo server's tools that ask, in both protocol eras, with the same journal.

The SDK's ``mcp.Client`` with its default arguments negotiates 2026-07-28 with the demo: a
question comes back as an input-required result and is answered on a retry of the call. With
``mode="legacy"`` it negotiates 2025-11-25, where the server sends ``elicitation/create``.
Each tool is called in both, in-process (and as a process, over stdio and HTTP), with a
callback that answers; the expected journal is written once, so it reads the same in both
eras. Then the request state the 2026-07-28 rounds carry, which comes back from the client,
and nb_elicit's own connection in each era.
"""

import asyncio
import json
from types import SimpleNamespace

import mcp_types as types
import pytest
from helpers.servers import demo_command, drive, stdio_params
from mcp import Client, MCPError

import nb_elicit
from nb_elicit._mcp import Era
from nb_elicit.demo.asking import Questions
from nb_elicit.demo.server import server

pytestmark = pytest.mark.timeout(120)

#: The protocol version each era negotiates, and the Client's arguments for it.
ERAS = {"2026-07-28": {}, "2025-11-25": {"mode": "legacy"}}
CONTACT = {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}
SIGN_IN_URL = "https://example.com/nb-elicit/sign-in"
DAY = {"type": "object", "properties": {"day": {"type": "string", "title": "Day"}}}


@pytest.fixture(autouse=True)
def in_process_journal(journal, monkeypatch):
    """The in-process demo writes the test's journal (as ``--journal`` does for a process)."""
    monkeypatch.setenv("NB_ELICIT_DEMO_JOURNAL", str(journal.path))


class Answers:
    """An elicitation callback that gives scripted answers, in order (``wait`` seconds first),
    and keeps what it was asked."""

    def __init__(self, *script: tuple[str, dict | None], wait: float = 0):
        self.script, self.wait = list(script), wait
        self.asked: list[types.ElicitRequestFormParams | types.ElicitRequestURLParams] = []

    async def __call__(self, context, params):
        self.asked.append(params)
        await asyncio.sleep(self.wait)
        action, content = self.script.pop(0)
        return types.ElicitResult(action=action, content=content)


def call(era: str, tool: str, arguments: dict, answers: Answers,
         progress=None) -> types.CallToolResult:
    """Call ``tool`` once on a client of ``era`` (the SDK's defaults for 2026-07-28)."""
    async def main():
        async with Client(server, elicitation_callback=answers, **ERAS[era]) as client:
            assert client.protocol_version == era
            return await client.call_tool(tool, arguments, progress_callback=progress)

    return asyncio.run(asyncio.wait_for(main(), 60))


def asked(tool: str, message: str, action: str, content: dict | None = None) -> dict:
    """A journal entry of a form's answer."""
    return {"tool": tool, "message": message, "action": action, "content": content}


# -- each tool, in each era ---------------------------------------------------------------------

@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("tool", "arguments", "message", "schema", "answer", "result"), [
    ("github_username", {}, "Please provide your GitHub username", None,
     ("accept", {"name": "octocat"}), "Hello, @octocat!"),
    ("github_username", {}, "Please provide your GitHub username", None,
     ("decline", None), "No username: you chose decline."),
    ("contact_info", {}, "Please provide your contact information", None,
     ("accept", CONTACT), {"action": "accept", "content": CONTACT}),
    ("all_fields", {}, "Please fill in one field of every kind", None,
     ("accept", {"name": "Ada", "email": "ada@example.com", "toppings": ["ham"]}),
     {"action": "accept", "content": {"name": "Ada", "email": "ada@example.com",
                                      "toppings": ["ham"]}}),
    ("custom_form", {"message": "Which day?", "requested_schema": DAY}, "Which day?", DAY,
     ("cancel", None), {"action": "cancel", "content": None}),
], ids=["github_username", "github_username-decline", "contact_info", "all_fields",
        "custom_form"])
def test_a_form_tool_gets_its_answer_and_journals_it_alike_in_each_era(
        era, journal, tool, arguments, message, schema, answer, result):
    answers = Answers(answer)
    called = call(era, tool, arguments, answers)
    assert not called.is_error
    if isinstance(result, str):
        assert called.content[0].text == result
    else:
        assert json.loads(called.content[0].text) == result
    (question,) = answers.asked
    assert question.message == message
    if schema is not None:
        assert question.requested_schema == schema
    assert journal.entries() == [asked(tool, message, *answer)]


@pytest.mark.parametrize("era", ERAS)
def test_two_step_asks_twice_and_its_second_question_uses_the_first_answer(era, journal):
    answers = Answers(("accept", {"name": "Ada"}), ("accept", {"confirm": True}))
    result = call(era, "two_step", {}, answers)
    first, second = "Step 1 of 2: what should we call you?", "Step 2 of 2: create an account for Ada?"
    assert [q.message for q in answers.asked] == [first, second]
    assert json.loads(result.content[0].text) == {
        "step1": {"action": "accept", "content": {"name": "Ada"}},
        "step2": {"action": "accept", "content": {"confirm": True}}}
    # (each answer once: the first is not journalled again in the round of the second)
    assert journal.entries() == [asked("two_step", first, "accept", {"name": "Ada"}),
                                 asked("two_step", second, "accept", {"confirm": True})]


@pytest.mark.parametrize("era", ERAS)
def test_two_step_declined_at_the_first_step_asks_nothing_more(era, journal):
    answers = Answers(("decline", None))
    result = call(era, "two_step", {}, answers)
    assert json.loads(result.content[0].text) == {
        "step1": {"action": "decline", "content": None}}
    assert len(answers.asked) == 1
    assert journal.entries() == [
        asked("two_step", "Step 1 of 2: what should we call you?", "decline")]


@pytest.mark.parametrize("era", ERAS)
def test_withdraw_answered_in_time_says_so(era, journal):
    result = call(era, "withdraw", {"after": 60}, Answers(("accept", {"answer": "here"})))
    assert result.content[0].text == "You answered."
    assert journal.entries() == [
        asked("withdraw", "Answer within 60 s, or I withdraw this.", "accept", {"answer": "here"})]


@pytest.mark.parametrize("era", ERAS)
def test_withdraw_answered_too_late_is_withdrawn_and_the_answer_never_read(era, journal):
    """In the handshake era the server cancels its request; in 2026-07-28 there is none to
    cancel, and the answer that comes after the time is refused."""
    answers = Answers(("accept", {"answer": "late"}), wait=1.0)  # (after 0.2 s: too late)
    result = call(era, "withdraw", {"after": 0.2}, answers)
    assert result.content[0].text == "The question was withdrawn."
    assert journal.entries() == [{"tool": "withdraw", "event": "withdrawn"}]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(("action", "text"), [
    ("accept", "Signed in: you finished on the sign-in page."),
    ("decline", "Not signed in: you declined to open the page.")])
def test_sign_in_asks_to_open_its_page_in_url_mode(era, journal, action, text):
    answers = Answers((action, None))
    result = call(era, "sign_in", {"done_after": 0}, answers)
    assert result.content[0].text == text
    (question,) = answers.asked
    assert isinstance(question, types.ElicitRequestURLParams) and question.url == SIGN_IN_URL
    # (an elicitation id, and a completion notice, exist in the handshake era only)
    assert question.elicitation_id == (None if era == "2026-07-28" else "demo-sign-in")
    assert journal.entries() == [
        {"tool": "sign_in", "message": "url", "action": action, "url": SIGN_IN_URL}]


@pytest.mark.parametrize("era", ERAS)
def test_import_rows_asks_midway_and_reports_each_row_once(era, journal):
    progress = []

    async def reported(value, total, message):
        progress.append((value, total, message))

    answers = Answers(("accept", {"overwrite": True}))
    result = call(era, "import_rows", {"rows": 4, "delay": 0.01}, answers, progress=reported)
    assert result.content[0].text == "Imported 4 rows (overwrote row 3)."
    assert [q.message for q in answers.asked] == ["Row 3 already exists. Overwrite it?"]
    assert progress == [(i, 4, f"Importing row {i + 1} of 4") for i in range(4)] + [
        (4, 4, "Import finished")]
    assert journal.entries() == [asked("import_rows", "Row 3 already exists. Overwrite it?",
                                       "accept", {"overwrite": True})]


@pytest.mark.parametrize("era", ERAS)
def test_fail_reports_its_reason_and_import_rows_asks_about_the_row_it_is_importing(era):
    failed = call(era, "fail", {"reason": "The disk is full."}, Answers())
    assert failed.is_error and "The disk is full." in failed.content[0].text
    answers = Answers(("decline", None))
    result = call(era, "import_rows", {"rows": 40, "delay": 0}, answers)
    assert [q.message for q in answers.asked] == ["Row 21 already exists. Overwrite it?"]
    assert result.content[0].text == "Imported 40 rows (kept row 21)."


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("era", ERAS)
def test_as_a_process_the_demo_gets_every_kind_of_question_answered(request, era, journal,
                                                                    transport):
    """The demo as a process, as people run it (``mcp.Client(...)`` with its defaults, or in
    the handshake era), over stdio and streamable HTTP."""
    target = (stdio_params(demo_command(journal)) if transport == "stdio"
              else request.getfixturevalue("http_demo"))
    answers = Answers(("accept", {"name": "octocat"}), ("accept", {"name": "Ada"}),
                      ("accept", {"confirm": False}), ("accept", None),
                      ("decline", None))

    async def main():
        async with Client(target, elicitation_callback=answers, **ERAS[era]) as client:
            assert client.protocol_version == era
            return [(await client.call_tool(tool, arguments)).content[0].text
                    for tool, arguments in [("github_username", {}), ("two_step", {}),
                                            ("sign_in", {"done_after": 0}),
                                            ("import_rows", {"rows": 2, "delay": 0})]]

    texts = asyncio.run(asyncio.wait_for(main(), 90))
    assert texts[0] == "Hello, @octocat!"
    assert '"confirm": false' in texts[1]
    assert texts[2:] == ["Signed in: you finished on the sign-in page.",
                         "Imported 2 rows (kept row 2)."]
    assert [(e["tool"], e["action"]) for e in journal.entries()] == [
        ("github_username", "accept"), ("two_step", "accept"), ("two_step", "accept"),
        ("sign_in", "accept"), ("import_rows", "decline")]


# -- the request state of the 2026-07-28 rounds ----------------------------------------------------

def rounds(*steps):
    """Run ``steps`` (each ``await step(session)``) on a 2026-07-28 client of the demo, with no
    retries driven for it; what each returned."""
    async def main():
        async with Client(server, elicitation_callback=Answers()) as client:
            return [await step(client.session) for step in steps]

    return asyncio.run(asyncio.wait_for(main(), 60))


def test_an_answer_counts_only_for_the_question_the_state_says_was_asked(journal):
    """A client that answers the second question of two_step without the first is asked the
    first again: nothing it sent is taken."""
    async def both(session):
        start = await session.call_tool("two_step", {}, allow_input_required=True)
        skipped = await session.call_tool(
            "two_step", {}, allow_input_required=True, request_state=start.request_state,
            input_responses={"two_step-2": types.ElicitResult(action="accept",
                                                              content={"confirm": True})})
        return start, skipped

    ((start, skipped),) = rounds(both)
    assert list(start.input_requests) == ["two_step-1"]
    assert isinstance(skipped, types.InputRequiredResult)
    assert list(skipped.input_requests) == ["two_step-1"]
    assert skipped.input_requests["two_step-1"] == start.input_requests["two_step-1"]
    assert journal.entries() == []


def test_a_retry_without_the_answer_is_asked_again_and_imports_no_row_twice(journal):
    progress = []

    async def reported(value, total, message):
        progress.append(message)

    async def again(session):
        arguments = {"rows": 4, "delay": 0}
        first = await session.call_tool("import_rows", arguments, allow_input_required=True,
                                        progress_callback=reported)
        second = await session.call_tool("import_rows", arguments, allow_input_required=True,
                                         progress_callback=reported,
                                         request_state=first.request_state)
        return first, second

    ((first, second),) = rounds(again)
    assert isinstance(second, types.InputRequiredResult)
    assert second.input_requests == first.input_requests
    assert progress == [f"Importing row {i} of 4" for i in (1, 2, 3)]  # (once each)
    assert journal.entries() == []


def test_a_question_past_its_time_is_withdrawn_at_the_next_retry(journal):
    async def late(session):
        first = await session.call_tool("withdraw", {"after": 0.1}, allow_input_required=True)
        await asyncio.sleep(0.5)
        return await session.call_tool("withdraw", {"after": 0.1}, allow_input_required=True,
                                       request_state=first.request_state)

    (result,) = rounds(late)
    assert result.content[0].text == "The question was withdrawn."
    assert journal.entries() == [{"tool": "withdraw", "event": "withdrawn"}]


@pytest.mark.parametrize("forged", [
    '{"tool":"two_step","answers":[{"action":"accept","content":{"name":"Eve"}}],'
    '"asked":"two_step-2","deadline":null}',  # (the state as the tool writes it, unsealed)
    "two_step-2", ""])
def test_a_request_state_the_server_did_not_give_is_refused(journal, forged):
    async def forge(session):
        with pytest.raises(MCPError) as refused:
            await session.call_tool(
                "two_step", {}, allow_input_required=True, request_state=forged,
                input_responses={"two_step-2": types.ElicitResult(action="accept",
                                                                  content={"confirm": True})})
        return refused.value.code

    assert rounds(forge) == [types.INVALID_PARAMS]
    assert journal.entries() == []


def test_a_request_state_is_good_only_for_its_tool_and_arguments(journal):
    async def moved(session):
        start = await session.call_tool("import_rows", {"rows": 4, "delay": 0},
                                        allow_input_required=True)
        codes = []
        for tool, arguments in [("import_rows", {"rows": 40, "delay": 0}),
                                ("custom_form", {"message": "m", "requested_schema": DAY})]:
            with pytest.raises(MCPError) as refused:
                await session.call_tool(tool, arguments, allow_input_required=True,
                                        request_state=start.request_state,
                                        input_responses={"import_rows-1": types.ElicitResult(
                                            action="accept", content={"overwrite": True})})
            codes.append(refused.value.code)
        return codes

    assert rounds(moved) == [[types.INVALID_PARAMS, types.INVALID_PARAMS]]
    assert journal.entries() == []


def stand_in(state: str, responses: dict | None = None):
    """What Questions reads of a call's context: a 2026-07-28 call with ``state`` (past the
    SDK's seal: the demo checks what the state holds too)."""
    return SimpleNamespace(protocol_version="2026-07-28", request_state=state,
                           input_responses=responses)


ANSWER = {"two_step-1": types.ElicitResult(action="accept", content={"name": "Ada"})}


@pytest.mark.parametrize("state", [
    "not json", "[]", '{"tool": "github_username", "answers": [], "asked": "github_username-1",'
    ' "deadline": null}',
    '{"tool": "two_step", "answers": [], "asked": "two_step-2", "deadline": null}',
    '{"tool": "two_step", "answers": {}, "asked": "two_step-1", "deadline": null}',
    '{"tool": "two_step", "answers": [{"action": "maybe"}], "asked": "two_step-2",'
    ' "deadline": null}',
    '{"tool": "two_step", "answers": [], "asked": "two_step-1", "deadline": "soon"}',
    '{"tool": "two_step", "answers": [], "asked": "two_step-1", "deadline": NaN}',
    '{"tool": "two_step", "answers": [], "asked": "two_step-1", "deadline": true}',
    '{"tool": "two_step", "answers": [], "asked": "two_step-1"}',
], ids=["not-json", "a-list", "another-tool", "skips-a-question", "answers-not-a-list",
        "an-answer-no-answer", "deadline-text", "deadline-nan", "deadline-bool", "no-deadline"])
def test_a_state_that_is_not_what_the_demo_wrote_is_refused_even_past_the_seal(state):
    with pytest.raises(MCPError) as refused:
        Questions(stand_in(state, ANSWER), "two_step")
    assert refused.value.code == types.INVALID_PARAMS
    assert "not one this server gave" in refused.value.message


def test_an_answer_that_is_no_elicitation_result_is_refused():
    state = '{"tool": "two_step", "answers": [], "asked": "two_step-1", "deadline": null}'
    with pytest.raises(MCPError) as refused:
        Questions(stand_in(state, {"two_step-1": types.ListRootsResult(roots=[])}), "two_step")
    assert refused.value.code == types.INVALID_PARAMS
    good = Questions(stand_in(state, ANSWER), "two_step")
    assert good.replaying  # (the answer that came is taken, until its question is asked)


# -- nb_elicit's own connection -----------------------------------------------------------------------

#: Every demo tool that asks, what the person answers, and what the tool returns.
EVERY_FORM = [
    ("github_username", {}, [("accept", {"name": "octocat"})], "Hello, @octocat!"),
    ("contact_info", {}, [("accept", CONTACT)], '"email": "ada@example.com"'),
    ("all_fields", {}, [("accept", {"name": "Ada", "email": "ada@example.com"})],
     '"name": "Ada"'),
    ("custom_form", {"message": "Which day?", "requested_schema": DAY},
     [("accept", {"day": "Monday"})], '"day": "Monday"'),
    ("two_step", {}, [("accept", {"name": "Ada"}), ("accept", {"confirm": True})],
     '"confirm": true'),
    ("withdraw", {"after": 60}, [("accept", {"answer": "here"})], "You answered."),
    ("sign_in", {"done_after": 0}, [("accept", None)],
     "Signed in: you finished on the sign-in page."),
    ("import_rows", {"rows": 2, "delay": 0}, [("accept", {"overwrite": True})],
     "Imported 2 rows (overwrote row 2)."),
]


@pytest.mark.parametrize("era", [Era.HANDSHAKE, Era.V2026])
def test_nb_elicit_shows_every_demo_form_in_each_era_it_speaks(era, journal, views):
    """nb_elicit starts in the handshake era, where every demo tool now asks without a retry;
    the 2026-07-28 era is made the connection's first, as for a server that speaks only it."""
    async def scenario(person):
        for _, _, script, _ in EVERY_FORM:
            for action, content in script:
                person.will(action, content)
        conn = await nb_elicit.connect("demo", demo_command(journal))
        conn.sessions.primary = era
        texts = [(await conn.call_tool(tool, arguments)).text
                 for tool, arguments, _, _ in EVERY_FORM]
        eras = {conn.sessions.era_for(tool) for tool, *_ in EVERY_FORM}
        return texts, eras, conn.sessions.current(era).protocol_version

    texts, eras, protocol = drive(scenario)
    assert protocol == ("2026-07-28" if era is Era.V2026 else "2025-11-25")
    assert eras == {era}  # (no tool needed the other era)
    for text, (tool, _, _, expected) in zip(texts, EVERY_FORM, strict=True):
        assert expected in text, (tool, text)
    assert [len(view.asked) for view in views] == [len(s) for _, _, s, _ in EVERY_FORM]
    assert [(e["tool"], e["action"]) for e in journal.entries()] == [
        (tool, action) for tool, _, script, _ in EVERY_FORM for action, _ in script]
