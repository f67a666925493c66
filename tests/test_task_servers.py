"""The FastMCP tasks server (``tests/servers/fastmcp_tasks_server.py``, SEP-2663) works, as
FastMCP's own client sees it, over stdio and over streamable HTTP.

Both run in the pinned FastMCP tasks virtualenv (``tests/helpers/interop.py``); the client is
``tests/servers/fastmcp_tasks_client.py``, which prints what it saw as JSON. These tests prove
the server, so that tests of nb_elicit against it test nb_elicit.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers.interop import FASTMCP_TASKS, fastmcp_tasks_command, fastmcp_tasks_python
from helpers.servers import REPO, SERVERS, served

pytestmark = [pytest.mark.timeout(600), pytest.mark.once]

QUESTION = {"type": "object", "properties": {"answer": {"type": "string", "title": "Your answer"}},
            "required": ["answer"]}


@pytest.fixture(scope="module")
def python() -> str:
    return fastmcp_tasks_python()


@pytest.fixture(params=["stdio", "http"])
def where(request, python, tmp_path, monkeypatch):
    """How the client reaches the server (its arguments), and the file the server marks when a
    task is cancelled (the HTTP server is told at its start; the stdio one by the client)."""
    marker = tmp_path / "cancelled.txt"
    if request.param == "stdio":
        yield ["--stdio", python, str(SERVERS / "fastmcp_tasks_server.py")], marker
        return
    monkeypatch.setenv("NB_ELICIT_TASKS_MARKER", str(marker))
    with served([*fastmcp_tasks_command(), "--http"], tmp_path / "server.log") as url:
        yield ["--url", url], marker


def client(python: str, scenario: str, where: list[str], marker) -> dict:
    env = {**os.environ, "NB_ELICIT_TASKS_MARKER": str(marker)}
    done = subprocess.run([python, str(SERVERS / "fastmcp_tasks_client.py"), scenario, *where],
                          capture_output=True, text=True, timeout=120, cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_plain_task_reports_its_progress_and_returns_the_sum(python, where):
    seen = client(python, "sum", *where)
    assert seen["protocol_version"] == "2026-07-28"
    assert seen["first"] == "working"
    assert ["working", "Adding, step 1 of 4"] in seen["steps"]
    assert seen["steps"][-1][0] == "completed"
    assert seen["text"] == "2 + 3 = 5"


def test_a_task_asks_mid_run_and_returns_exactly_what_was_answered(python, where):
    seen = client(python, "ask", *where)
    (request,) = seen["input_requests"].values()
    assert request == {"method": "elicitation/create", "params": {
        "mode": "form", "message": "What should I know about tea?", "requestedSchema": QUESTION}}
    assert seen["asked"] == [{"message": "What should I know about tea?", "schema": QUESTION}]
    assert json.loads(seen["text"]) == {"topic": "tea", "action": "accept",
                                        "content": {"answer": "forty-two"}}


def test_a_cancelled_task_ends_cancelled_and_the_cancel_reaches_the_tool(python, where):
    path, marker = where
    assert not marker.exists()
    seen = client(python, "cancel", path, marker)
    assert seen["status"] == "cancelled"
    assert marker.read_text().startswith("cancelled after")


def test_a_client_without_the_extension_is_told_which_capability_it_lacks(python, where):
    seen = client(python, "plain", *where)
    assert seen["code"] == -32021
    assert "requires the tasks extension" in seen["message"]
    assert seen["data"] == {"requiredCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}}}


def test_the_testing_doc_names_the_pinned_versions():
    text = Path(REPO / "docs" / "testing.md").read_text(encoding="utf-8")
    for pin in FASTMCP_TASKS:
        assert f"`{pin}`" in text
