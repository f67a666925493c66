"""The file of running tasks: a lock that holds across processes, which kernel follows a task,
which server it runs on (attach refuses another, and never drops its entry), no credential of
a URL in it, and no stdio server's task in it."""

import asyncio
import json
import multiprocessing
import subprocess
import sys
import textwrap
import time

import pytest
from helpers.servers import Journal, demo_command, drive, served

import nb_elicit
from nb_elicit._core.tasks.store import TaskStore
from nb_elicit._runtime.state import kernel_state

pytestmark = pytest.mark.timeout(180)

URL = "http://127.0.0.1:9/mcp"


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch):
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


def write_file(path, *rows: dict) -> None:
    """A file of running tasks as a kernel wrote it (the fields every version has)."""
    path.write_text(json.dumps({"version": 1, "tasks": [
        {"connection": "c", "where": URL, "tool": "t", "task_id": "t-1",
         "shape": "2025-11-25", "started": 0.0, **row} for row in rows]}), encoding="utf-8")


@pytest.fixture
def demo_http(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    with served([*demo_command(journal), "--http"], tmp_path / "server.log") as url:
        yield url


# -- two kernels at once ------------------------------------------------------------------------


def _add_many(path: str, who: int, count: int) -> None:
    from pathlib import Path

    from nb_elicit._core.tasks.store import SavedTask, TaskStore

    store = TaskStore(Path(path))
    for n in range(count):
        store.add(SavedTask(connection=f"k{who}", where=URL, tool="t", task_id=f"{who}-{n}",
                            shape="2025-11-25", started=float(n)))


def test_kernels_writing_the_file_at_once_lose_none_of_each_others_entries(task_file):
    kernels, each = 4, 40
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_add_many, args=(str(task_file), who, each))
               for who in range(kernels)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    ids = {s.task_id for s in TaskStore(task_file).entries()}
    assert len(ids) == kernels * each, f"{kernels * each - len(ids)} entries were lost"


# -- which kernel follows a task ----------------------------------------------------------------


FOLLOWER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from nb_elicit._core.tasks.store import SavedTask, TaskStore, this_kernel
    TaskStore(Path(sys.argv[1])).add(SavedTask(
        connection="c", where=sys.argv[2], tool="t", task_id="followed",
        shape="2025-11-25", started=0.0, kernel=this_kernel()))
    print("following", flush=True)
    sys.stdin.read()
""")


def test_a_task_another_live_kernel_follows_is_not_offered_until_that_kernel_ends(task_file):
    other = subprocess.Popen([sys.executable, "-c", FOLLOWER, str(task_file), URL],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "following"
        assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["followed"]
        # (that kernel follows it: %mcp tasks does not offer it)
        assert kernel_state().tasks.saved() == []
    finally:
        other.stdin.close()
        other.wait(30)
    assert [s.task_id for s in kernel_state().tasks.saved()] == ["followed"]  # (its kernel is gone)


def test_attaching_to_a_task_another_live_kernel_follows_is_refused_in_one_line(
        task_file, demo_http):
    other = subprocess.Popen([sys.executable, "-c", FOLLOWER, str(task_file), demo_http],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "following"

        async def scenario(person):
            conn = await nb_elicit.connect("c", url=demo_http, auth="off")
            with pytest.raises(nb_elicit.NbElicitError) as refused:
                await conn.attach_task("followed")
            return str(refused.value)

        said = drive(scenario, timeout=60)
    finally:
        other.stdin.close()
        other.wait(30)
    assert "is followed by another kernel" in said and f":{other.pid}:" in said
    assert "\n" not in said
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["followed"]


# -- which server a task runs on ----------------------------------------------------------------


def test_attach_refuses_a_task_of_another_server_and_keeps_its_entry(task_file, demo_http):
    write_file(task_file, {"where": "http://127.0.0.1:1/elsewhere/mcp", "server": "other"})

    async def scenario(person):
        conn = await nb_elicit.connect("c", url=demo_http, auth="off")
        with pytest.raises(nb_elicit.NbElicitError) as refused:
            await conn.attach_task("t-1")
        return str(refused.value)

    said = drive(scenario, timeout=60)
    assert "the task t-1 runs on other at http://127.0.0.1:1/elsewhere/mcp" in said
    assert f"c is connected to nb-elicit-demo at {demo_http}" in said or demo_http in said
    assert "\n" not in said
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["t-1"]  # (never dropped)


def test_attach_refuses_the_same_url_when_the_server_gave_another_name(task_file, demo_http):
    write_file(task_file, {"where": demo_http, "server": "not-the-demo"})

    async def scenario(person):
        conn = await nb_elicit.connect("c", url=demo_http, auth="off")
        with pytest.raises(nb_elicit.NbElicitError) as refused:
            await conn.attach_task("t-1")
        return str(refused.value), conn.server_name

    said, name = drive(scenario, timeout=60)
    assert f"runs on not-the-demo at {demo_http}" in said and name in said
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["t-1"]


def test_an_unknown_task_of_the_same_server_leaves_the_file(task_file, demo_http):
    write_file(task_file, {"where": demo_http})  # (an older file: no server name)

    async def scenario(person):
        conn = await nb_elicit.connect("c", url=demo_http, auth="off")
        with pytest.raises(nb_elicit.ServerError) as lost:
            await conn.attach_task("t-1")
        return str(lost.value)

    assert "the server no longer knows the task t-1" in drive(scenario, timeout=60)
    assert kernel_state().tasks.store.entries() == []


def test_removing_an_entry_leaves_another_servers_entry_of_that_name_and_id(task_file):
    from nb_elicit._core.tasks.store import SavedTask

    write_file(task_file, {"where": URL, "server": "one"})
    kernel_state().tasks.store.remove(SavedTask(
        connection="c", where="http://127.0.0.1:2/mcp", tool="t", task_id="t-1",
        shape="2025-11-25", started=0.0))
    kernel_state().tasks.store.remove(SavedTask(connection="c", where=URL, tool="t", task_id="t-1",
                                 shape="2025-11-25", started=0.0, server="two"))
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["t-1"]
    kernel_state().tasks.store.remove(SavedTask(connection="c", where=URL, tool="t", task_id="t-1",
                                 shape="2025-11-25", started=0.0, server="one"))
    assert kernel_state().tasks.store.entries() == []


# -- what the file holds ------------------------------------------------------------------------


SECRET = "sk-live-4f9a2c7e1b3d5a6c"


def test_the_file_holds_no_token_of_the_url_and_names_the_server(task_file, demo_http):
    async def scenario(person):
        conn = await nb_elicit.connect("c", url=f"{demo_http}?api_key={SECRET}&mode=1",
                                       auth="off")
        call = conn.start_tool("countdown", {"seconds": 30})
        for _ in range(2000):
            if kernel_state().tasks.store.entries():
                break
            await asyncio.sleep(0.01)
        text = task_file.read_text(encoding="utf-8")
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        return text, conn.server_name

    text, name = drive(scenario, timeout=90)
    assert SECRET not in text and "sk-live" not in text
    (entry,) = json.loads(text)["tasks"]
    assert entry["where"] == f"{demo_http}?api_key=••••••&mode=1"
    assert entry["server"] == name and name
    assert entry["kernel"]  # (this process follows it)


def test_an_older_files_tokens_are_masked_and_its_stdio_entries_left_out(task_file):
    write_file(task_file,
               {"where": "https://h.example/s/8f3kJ2mQ9xLp4R7tZ1vB/mcp?token=abc", "task_id": "a"},
               {"where": "npx server --api-key sk-live-4f9a2c7e1b3d5a6c", "task_id": "b"})
    (entry,) = kernel_state().tasks.store.entries()
    assert entry.task_id == "a"
    assert entry.where == "https://h.example/s/••••••/mcp?token=••••••"


def test_a_stdio_servers_task_is_never_written(task_file, tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")

    async def scenario(person):
        conn = await nb_elicit.connect("local", demo_command(journal))
        call = conn.start_tool("countdown", {"seconds": 30})
        deadline = time.monotonic() + 30
        while call.task is None or call.task.state is None:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        running = [r.task_id for r in kernel_state().tasks.runs("local")]
        written = task_file.exists() and json.loads(task_file.read_text())["tasks"]
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        return running, written

    running, written = drive(scenario, timeout=90)
    assert len(running) == 1
    assert not written


# -- what it cannot read, it keeps ------------------------------------------------------------


def test_rows_it_cannot_read_are_written_back_as_they_were(task_file):
    from nb_elicit._core.tasks.store import SavedTask

    good = {"connection": "c", "where": URL, "tool": "t", "task_id": "good",
            "shape": "2025-11-25", "started": 1.0}
    comma = {**good, "task_id": "hand-edited", "started": "1,5"}  # (a stray comma)
    newer = {**good, "task_id": "newer", "lease": {"until": 99}}  # (a later row shape)
    odd = ["not", "a", "row"]
    task_file.write_text(json.dumps({"version": 2, "owner": "another kernel",
                                     "tasks": [good, comma, newer, odd]}), encoding="utf-8")
    kernel_state().tasks.store.add(SavedTask(connection="c", where=URL, tool="t", task_id="new",
                              shape="2025-11-25", started=2.0))
    kernel_state().tasks.store.follow(kernel_state().tasks.store.find("c", "newer"), "host:1:2")
    written = json.loads(task_file.read_text(encoding="utf-8"))
    rows = {json.dumps(row, sort_keys=True) for row in written["tasks"]}
    assert json.dumps(comma, sort_keys=True) in rows and json.dumps(odd) in rows
    (kept,) = [r for r in written["tasks"] if isinstance(r, dict) and r["task_id"] == "newer"]
    assert kept["lease"] == {"until": 99} and kept["kernel"] == "host:1:2"
    assert {r["task_id"] for r in written["tasks"] if isinstance(r, dict)} == {
        "good", "hand-edited", "newer", "new"}
    assert written["owner"] == "another kernel"
    assert kernel_state().tasks.store.forget("c", "good") == 1
    assert len(json.loads(task_file.read_text(encoding="utf-8"))["tasks"]) == 4


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"tasks": {"a": 1}}'])
def test_a_file_it_cannot_parse_is_never_overwritten_and_said_in_one_line(task_file, text):
    from nb_elicit._core.errors import NbElicitError
    from nb_elicit._core.tasks.store import SavedTask

    task_file.write_text(text, encoding="utf-8")
    task = SavedTask(connection="c", where=URL, tool="t", task_id="new", shape="2025-11-25",
                     started=2.0)
    with pytest.raises(NbElicitError) as raised:
        kernel_state().tasks.store.add(task)
    assert str(task_file) in str(raised.value) and "\n" not in str(raised.value)
    assert isinstance(raised.value, OSError)  # (as a file that cannot be written)
    with pytest.warns(UserWarning, match="left as it is"):
        assert kernel_state().tasks.store.entries() == []
    assert task_file.read_text(encoding="utf-8") == text
