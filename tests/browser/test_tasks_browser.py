"""Tasks in a real JupyterLab in Chromium: the card of a call the demo server runs as a task,
a question asked inside it and answered with the mouse, Cancel clicked on the card, and Detach
clicked, then ``%mcp task`` to follow the task again.

The cell tells one story, once, in the order it happened, with statuses in words ("Needs your
answer", not ``input_required``): the question is said once, by its form, with the card's one
clock, and the task's Cancel stands on the card's header line, apart from the form's Decline;
Cancel and Detach end without a red line; a task detached, left a few seconds and attached to again shows its true age (its clock
counts from the server's createdAt, not from the attach); the record puts the question where
it was asked and the result once, at the end.

Each test opens its own notebook (cell 0 loads the extension, cell 1 connects the demo server
with ``--journal``; the fixtures are in ``conftest.py``), calls a task tool, works the card in
the browser, and checks what the demo server journaled: the answer it received, or how its
countdown ended (cancelled, or finished after the call was detached and attached again).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from helpers.lab import REPO

pytestmark = pytest.mark.once

try:
    from playwright.sync_api import expect
except ImportError:  # every test then fails in the browser fixture, saying how to install it
    expect = None

WAIT = 60_000
#: JupyterLab's commsOverSubshells settings: the form's widget messages go both ways.
SUBSHELLS = ["perCommTarget", "disabled"]
QUESTION = '"python" can be read three ways. Which do you mean?'


def status(card, name: str):
    """The card's status badge, once it says ``name``."""
    return card.locator(f".nb-elicit-task-badge .nb-elicit-task-status.nb-elicit-task-{name}")


def timeline(transcript) -> list[str]:
    """The task's lines in a call's transcript: its id, each status with its time, what the
    card said, the result."""
    transcript.locator(".nb-elicit-transcript-task").first.wait_for(timeout=WAIT)
    return [line.replace("\xa0", " ").strip() for line in
            transcript.locator(".nb-elicit-transcript-task > div").all_inner_texts()]


def no_failure(output) -> None:
    """The person's choice (Cancel, Detach) is no error: no red line, no ✖, in the cell."""
    expect(output.locator(".nb-elicit-transcript-failure, .nb-elicit-failure")).to_have_count(0)
    expect(output).not_to_contain_text("✖")


def seconds(text: str) -> int:
    """The first time in ``text`` ("7 s", "1 min 05 s"), in seconds."""
    found = re.search(r"(?:(\d+) min )?(\d+) s\b", text)
    assert found, text
    return int(found.group(1) or 0) * 60 + int(found.group(2))


@pytest.mark.parametrize("lab", SUBSHELLS, indirect=True)
def test_a_question_inside_a_task_is_answered_in_its_card(lab):
    lab.open('%mcp call demo research {"topic": "python", "ambiguous": true}')
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-task-card")
    card.wait_for(timeout=WAIT)
    expect(card.locator(".nb-elicit-task-header")).to_have_text("demo · research")
    expect(card.locator(".nb-elicit-task-badge .nb-elicit-task-status")).to_be_visible()
    expect(card.locator(".nb-elicit-task-cancel")).to_be_visible()
    expect(card.locator(".nb-elicit-task-detach")).to_be_visible()
    expect(card.locator(".nb-elicit-task-elapsed")).to_contain_text(re.compile(r"started .* ago"))

    # The question shows inside the card, and the badge says, in words, that the task waits
    # for it (the protocol's word is in the details line and the badge's tooltip).
    form = card.locator(".nb-elicit-task-forms .nb-elicit-form")
    form.wait_for(timeout=WAIT)
    expect(form).to_contain_text(QUESTION)
    expect(status(card, "input_required")).to_have_text("Needs your answer", timeout=WAIT)
    expect(status(card, "input_required")).to_have_attribute(
        "title", "status in the protocol: input_required")
    details = card.locator(".nb-elicit-task-id details")
    expect(details).to_contain_text("status in the protocol: input_required", use_inner_text=False)
    # Said once: the status line leaves the question to the form; one clock, the card's (the
    # form shows no "waiting N s" of its own); the task's buttons on the card's header line,
    # above the form and apart from its Decline.
    expect(card.locator(".nb-elicit-task-message")).not_to_contain_text(QUESTION, timeout=WAIT)
    assert card.inner_text().replace("\xa0", " ").count(QUESTION) == 1, card.inner_text()
    expect(form.locator(".nb-elicit-waited")).not_to_contain_text("waiting")
    cancel = card.locator(".nb-elicit-task-head .nb-elicit-task-cancel")
    expect(cancel).to_have_text("Cancel task")
    expect(card.locator(".nb-elicit-task-head .nb-elicit-task-detach")).to_have_text("Detach")
    decline = form.get_by_role("button", name="Decline")
    header_box = card.locator(".nb-elicit-task-header").bounding_box()
    cancel_box, decline_box = cancel.bounding_box(), decline.bounding_box()
    assert cancel_box["y"] + cancel_box["height"] <= decline_box["y"], (cancel_box, decline_box)
    assert abs((cancel_box["y"] + cancel_box["height"] / 2)
               - (header_box["y"] + header_box["height"] / 2)) < header_box["height"], (
        cancel_box, header_box)  # (on the header's line)
    select = form.locator(".nb-elicit-field-interpretation select")
    # (ipywidgets shows spaces in option labels as no-break spaces; the first is "Choose…")
    labels = [text.replace("\xa0", " ") for text in select.locator("option").all_text_contents()]
    assert labels[1:] == ["python: the technical side", "python: its history",
                          "python: in the news now"], labels
    select.select_option(index=2)
    lab.settle()
    lab.screenshot("question-in-the-card", of=card)
    clicked = time.monotonic()
    form.get_by_role("button", name="Submit").click()

    assert lab.wait_journal(1) == [{"tool": "research", "message": QUESTION, "action": "accept",
                                   "content": {"interpretation": "historical"}}]
    lab.wait_done(2)
    ended = time.monotonic() - clicked
    # The call is over: the card left its timeline in the call's transcript, which ends
    # completed, with the report the server wrote.
    transcript = lab.cell(2).locator(".nb-elicit-transcript")
    lines = timeline(transcript)
    assert any(re.fullmatch(r"\d\d:\d\d:\d\d Needs your answer · " + re.escape(QUESTION)
                            + r" \(\d+ s\)", line) for line in lines), lines
    assert any(re.fullmatch(r"\d\d:\d\d:\d\d Running · Going on with: historical \(\d+ s\)",
                            line) for line in lines), lines
    statuses = [line.split()[1] for line in lines if re.match(r"\d\d:\d\d:\d\d ", line)]
    # the final status and how the task ended: one line, one duration; words, not the
    # protocol's
    assert statuses[-1] == "Completed" and "Done" not in statuses, lines
    assert not {"working", "input_required", "completed"} & set(" ".join(lines).split()), lines
    assert re.fullmatch(r"\d\d:\d\d:\d\d Completed after \d+ s\.( — .*)?", lines[-1]), lines
    received = json.dumps({"action": "accept", "content": {"interpretation": "historical"}})
    report = f"Research report on python: 4 stages done. Clarification received: {received}."
    expect(transcript.locator(".nb-elicit-transcript-result")).to_contain_text(report)
    # In the order it happened, each once: the question and its answer between the status
    # that asked it and the status after it; the result once, at the end.
    page = transcript.inner_text().replace("\xa0", " ")
    assert page.count(report) == 1, page
    asked = page.index("Submitted.")
    assert page.index("Needs your answer · " + QUESTION) < asked < page.index(
        "Running · Going on with: historical") < page.index("Completed after") < page.index(
        report), page
    expect(transcript.locator(".nb-elicit-transcript-status")).to_have_text("Submitted.")
    expect(lab.cell(2).locator(".nb-elicit-task-card, .nb-elicit-form")).to_have_count(0)
    lab.screenshot("completed", of=lab.cell(2))
    (lab.artifacts / "timing.txt").write_text(
        f"Submit clicked to the cell's end: {ended:.2f} s\n", encoding="utf-8")


def test_cancel_clicked_on_the_card_stops_the_task_on_the_server(lab):
    lab.open('%mcp call demo countdown {"seconds": 30}')
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-task-card")
    card.wait_for(timeout=WAIT)
    expect(status(card, "working")).to_have_text("Running", timeout=WAIT)
    expect(card.locator(".nb-elicit-task-message")).to_contain_text(" s left", timeout=WAIT)
    lab.screenshot("counting", of=card)
    clicked = time.monotonic()
    card.locator(".nb-elicit-task-cancel").click()

    entries = lab.wait_journal(1)
    assert entries[0]["tool"] == "countdown" and entries[0]["event"] == "cancelled", entries
    assert entries[0]["seconds"] == 30 and 0 < entries[0]["left"] <= 30, entries
    lab.wait_done(2)
    ended = time.monotonic() - clicked
    output = lab.cell(2).locator(".jp-OutputArea")
    lines = timeline(output.locator(".nb-elicit-transcript"))
    statuses = [line.split()[1] for line in lines if re.match(r"\d\d:\d\d:\d\d ", line)]
    assert statuses[-1] == "Cancelled" and set(statuses[:-1]) == {"Running"}, lines
    # said once, in plain words: "Cancel sent…" gave way to the server's answer, and no red
    # line repeats it
    assert "Cancel sent…" not in lines, lines
    assert re.fullmatch(r"\d\d:\d\d:\d\d Cancelled \(the server confirmed\) after \d+ s\."
                        r"( — .*)?", lines[-1]), lines
    assert output.inner_text().count("Cancelled (the server confirmed)") == 1
    no_failure(output)
    expect(output).not_to_contain_text(re.compile(r"the task \S+ was cancelled"))  # (no error)
    expect(output).not_to_contain_text("Counted down")
    expect(lab.cell(2).locator(".nb-elicit-task-card")).to_have_count(0)
    lab.screenshot("cancelled", of=lab.cell(2))
    (lab.artifacts / "timing.txt").write_text(
        f"Cancel clicked to the cell's end: {ended:.2f} s\n", encoding="utf-8")


def test_detach_clicked_on_the_card_ends_the_cell_and_the_task_can_be_attached_again(lab):
    # The notebook's way: start_tool, then await the call in the same cell.
    lab.open("conn = nb_elicit.connections['demo']\n"
             "call = conn.start_tool('countdown', {'seconds': 12})\n"
             "try:\n    await call\nexcept nb_elicit.NbElicitError as ended:\n    print(ended)",
             "task_id = call.task.task_id\n%mcp tasks",
             "%mcp task demo {task_id}")
    lab.run(2, wait=False)
    card = lab.cell(2).locator(".nb-elicit-task-card")
    card.wait_for(timeout=WAIT)
    expect(card.locator(".nb-elicit-task-message")).to_contain_text(" s left", timeout=WAIT)
    lab.wait_running(2)
    card.locator(".nb-elicit-task-detach").click()
    lab.wait_done(2)
    detached_at = time.monotonic()
    output = lab.cell(2).locator(".jp-OutputArea")
    # (the cell's own print of the exception: the tool is not named twice)
    expect(output).to_contain_text("detached: the task ")
    lines = timeline(output.locator(".nb-elicit-transcript"))
    assert [line for line in lines if line.startswith("Detached: ")] == [
        line for line in lines if line.startswith(
            "Detached: the task keeps running on the server. %mcp task demo ")], lines
    assert len([line for line in lines if line.startswith("Detached: ")]) == 1, lines
    no_failure(output)
    assert lab.answers() == []  # neither cancelled nor finished: it goes on
    lab.screenshot("detached", of=lab.cell(2))

    lab.page.wait_for_timeout(3000)  # (a while away from the task)
    lab.run(3)
    listed = lab.cell(3).locator(".jp-OutputArea")
    expect(listed).to_contain_text("Running, detached")  # (its server, asked now)
    row = listed.locator("tr", has_text="countdown").inner_text()
    away = time.monotonic() - detached_at
    assert seconds(row.split("Running, detached")[1]) >= int(away), row  # its true age
    lab.run(4, wait=False)
    attached = lab.cell(4).locator(".nb-elicit-task-card")
    attached.wait_for(timeout=WAIT)
    # the attached card's clock goes on from the task's creation: it does not start again
    expect(attached.locator(".nb-elicit-task-elapsed")).to_contain_text("started", timeout=WAIT)
    assert seconds(attached.locator(".nb-elicit-task-elapsed").inner_text()) >= int(away)
    done = lab.cell(4).locator(".jp-OutputArea")
    expect(done.locator(".nb-elicit-transcript-result")).to_contain_text(
        "Counted down from 12 s: done.", timeout=WAIT)
    lines = timeline(done.locator(".nb-elicit-transcript"))
    # no "Running (0 s)" made up at the attach: the first status is the server's, at its age
    first = next(line for line in lines if re.match(r"\d\d:\d\d:\d\d ", line))
    assert seconds(first.rsplit("(", 1)[1]) >= int(away), lines
    ended = [line for line in lines if "Completed after" in line]
    assert len(ended) == 1 and seconds(ended[0].split("after", 1)[1]) >= 11, lines
    assert lab.wait_journal(1) == [{"tool": "countdown", "event": "finished", "seconds": 12}]
    lab.screenshot("attached", of=lab.cell(4))


def test_cancel_with_a_2026_question_open_cancels_on_the_server_and_sends_no_answer(lab):
    """A 2026-07-28 task (the hostile tasks server's ``flood`` with one question, over stdio)
    asks its question on the card; Cancel is clicked while the form is open. The form is
    withdrawn, the server gets ``tasks/cancel`` at once and never a ``tasks/update``."""
    log = lab.artifacts / "tasks-server.jsonl"
    server = REPO / "tests" / "servers" / "hostile_tasks_server.py"
    lab.open(f"%mcp connect ht -- {{sys.executable}} {server} --shape extension --log {log}",
             '%mcp call ht flood {"count": 1}')
    lab.run(2)
    expect(lab.cell(2)).to_contain_text("Connected 'ht'", timeout=WAIT)
    lab.run(3, wait=False)
    card = lab.cell(3).locator(".nb-elicit-task-card")
    form = card.locator(".nb-elicit-task-forms .nb-elicit-form")
    form.wait_for(timeout=WAIT)
    expect(form).to_contain_text("Flood #0")
    expect(status(card, "input_required")).to_have_text("Needs your answer", timeout=WAIT)
    form.locator("input").first.fill("Ada")  # (typed, never sent)
    lab.settle()
    lab.screenshot("question-open", of=card)
    clicked = time.time()
    card.locator(".nb-elicit-task-cancel").click()

    def logged(method: str) -> list[dict]:
        if not log.exists():
            return []
        return [line for line in map(json.loads, log.read_text().splitlines())
                if line["method"] == method]

    deadline = time.monotonic() + 30
    while not logged("tasks/cancel"):
        assert time.monotonic() < deadline, "the server never got tasks/cancel"
        lab.page.wait_for_timeout(20)
    (cancel,) = logged("tasks/cancel")
    took = cancel["at"] - clicked
    lab.wait_done(3)
    output = lab.cell(3).locator(".jp-OutputArea")
    lines = timeline(output.locator(".nb-elicit-transcript"))
    assert "Cancel sent…" not in lines, lines  # (it gave way to the server's answer)
    assert re.search(r"Cancelled \(the server confirmed\) after \d+ s\.", lines[-1]), lines
    no_failure(output)
    expect(output.locator(".nb-elicit-transcript")).to_contain_text(
        "You cancelled its task: this request is withdrawn.")  # (the person's, not the server's)
    lab.page.wait_for_timeout(1500)  # (an answer sent late would show in the log by now)
    assert logged("tasks/update") == []
    lab.screenshot("cancelled-with-question", of=lab.cell(3))
    (lab.artifacts / "timing.txt").write_text(
        f"Cancel clicked to the server's tasks/cancel: {took:.2f} s\n", encoding="utf-8")
    print(f"Cancel clicked to the server's tasks/cancel: {took:.2f} s")
