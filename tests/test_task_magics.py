"""``%mcp tasks``, ``%mcp task NAME ID`` and ``%mcp call ... --no-task``, through IPython's test
shell: the tables from made-up tasks, and attaching again against the FastMCP tasks server
(``tests/servers/fastmcp_tasks_server.py``, the ``io.modelcontextprotocol/tasks`` extension)."""

import asyncio
import json
import os
import re
import stat
import time

import pytest
from helpers.interop import fastmcp_tasks_command
from helpers.servers import Journal, demo_command, drive, served
from IPython.core.error import UsageError

import nb_elicit
from nb_elicit._core.tasks.model import TaskStart
from nb_elicit._core.tasks.store import SavedTask, ServerIdentity
from nb_elicit._runtime.state import kernel_state
from nb_elicit._runtime.tasks import TaskRun

pytestmark = pytest.mark.timeout(300)

EXTENSION = "io.modelcontextprotocol/tasks"


@pytest.fixture(autouse=True)
def task_file(tmp_path, monkeypatch):
    """Each test keeps its running tasks in a file of its own (and, with its own kernel state,
    follows none from before)."""
    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    return tmp_path / "tasks.json"


def run(ip, cell: str):
    """Run a cell; return its result, raising what it raised."""
    result = ip.run_cell(cell)
    if result.error_before_exec or result.error_in_exec:
        raise result.error_before_exec or result.error_in_exec
    return result.result


# -- the table, from made-up tasks -----------------------------------------------------------


class Remote:
    """What a TaskRun needs of the adapter's RemoteTask to be listed."""

    def __init__(self, task_id: str, tool: str, shape: str = EXTENSION):
        self.task_id, self.tool, self.shape = task_id, tool, shape


@pytest.fixture
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def follow(loop, connection: str, task_id: str, tool: str, age: float,
           shape: str = EXTENSION) -> TaskRun:
    """A task this kernel follows, started ``age`` seconds ago."""
    run_ = TaskRun(connection, Remote(task_id, tool, shape), start=TaskStart(time.time() - age),
                   _loop=loop)
    kernel_state().tasks.begin(run_, ServerIdentity("http://127.0.0.1:9/mcp", "srv"))
    return run_


def saved(connection: str, task_id: str, tool: str, age: float,
          where: str = "http://127.0.0.1:9/mcp") -> SavedTask:
    """A running task an earlier kernel started (in the file, followed by nobody here)."""
    entry = SavedTask(connection=connection, where=where, tool=tool, task_id=task_id,
                      shape="2025-11-25", started=time.time() - age)
    kernel_state().tasks.store.add(entry)
    return entry


def rows(text: str, marker: str) -> list[str]:
    return [line for line in text.splitlines() if marker in line]


def seconds_of(row: str) -> int:
    """The age a row of ``%mcp tasks`` ends with ("12 s", "2 min 05 s"), in seconds."""
    found = re.search(r"(?:(\d+) min )?(\d+) s\s*$", row)
    assert found, row
    return int(found.group(1) or 0) * 60 + int(found.group(2))


def test_the_table_lists_this_kernels_tasks_then_the_ones_to_attach_to(ip, loop):
    from nb_elicit._core.tasks.model import TaskState

    working = follow(loop, "ft", "task-working", "slow_sum", age=5)
    working.state = TaskState("task-working", "input_required")
    done = follow(loop, "ft", "task-done", "ask_mid_run", age=130)
    done.state = TaskState("task-done", "completed")
    kernel_state().tasks.end(done)
    detached = follow(loop, "ft", "task-detached", "slow_sum", age=12)
    detached.detached = True
    detached.seen_at = time.time() - 30  # (its server last told its state 30 s ago)
    lost = follow(loop, "ev", "task-lost", "research", age=3)
    kernel_state().tasks.end(lost)  # (ended without a final status: the server dropped it)
    saved("ev", "task-earlier", "simulate-research-query", age=7200)

    view = run(ip, "%mcp tasks")
    text = repr(view)
    mine, _, others = text.partition("Running on their servers")
    assert mine.startswith("Tasks of this kernel:")
    assert mine.splitlines()[1].split() == ["connection", "tool", "task", "id", "status", "age"]
    (working_row,) = rows(mine, "task-working")
    assert working_row.split()[:6] == ["ft", "slow_sum", "task-working", "Needs", "your",
                                       "answer"]
    assert 5 <= seconds_of(working_row) <= 8  # (the table's first use imports the runtime)
    (done_row,) = rows(mine, "task-done")
    assert done_row.split()[3] == "Done" and 130 <= seconds_of(done_row) <= 133
    # (statuses in words: the protocol's are not a person's)
    assert not {"input_required", "completed", "working"} & set(mine.split())
    # (no server to ask: what was seen last)
    assert re.search(r"detached \(last seen Running 3\d s ago: ft is not connected\)",
                     rows(mine, "task-detached")[0])
    assert "no longer followed (last seen Running)" in rows(mine, "task-lost")[0]
    # the file's running tasks this kernel does not follow: the detached one and the earlier
    # kernel's, each with the line that attaches to it
    assert others.splitlines()[0].startswith(", as this kernel remembers them")
    # (a path, not words: on hover in notebooks)
    assert str(kernel_state().tasks.store.path) not in text
    attach = {line.split()[2]: line for line in others.splitlines()[2:]}
    assert sorted(attach) == ["task-detached", "task-earlier"]
    assert attach["task-earlier"].rstrip().endswith("%mcp task ev task-earlier")
    assert "http://127.0.0.1:9/mcp" in attach["task-earlier"]
    assert re.search(r"120 min 0\d s", attach["task-earlier"])
    assert attach["task-detached"].rstrip().endswith("%mcp task ft task-detached")
    html = view._repr_html_()
    assert html.count('<table class="nb-elicit-table"') == 2
    assert "%mcp task ev " in html and "task-earlier</span>" in html
    assert "<p>Tasks of this kernel:</p>" in html
    assert f'<p title="kept in {kernel_state().tasks.store.path}">Running on their servers' in html
    assert EXTENSION not in text and "2025-11-25" not in text  # (no column of shapes)


def test_a_name_lists_only_that_connections_tasks(ip, loop):
    follow(loop, "ft", "task-ft", "slow_sum", age=1)
    saved("ev", "task-ev", "research", age=1)
    only_ft = repr(run(ip, "%mcp tasks ft"))
    assert "task-ft" in only_ft and "task-ev" not in only_ft
    assert "Running on their servers" not in only_ft
    only_ev = repr(run(ip, "%mcp tasks ev"))
    assert "task-ev" in only_ev and "task-ft" not in only_ev
    assert "Tasks of this kernel" not in only_ev


def test_no_tasks_is_one_helpful_line(ip, task_file):
    view = run(ip, "%mcp tasks")
    assert repr(view).count("\n") == 0
    assert repr(view).startswith("No tasks: this kernel follows none")
    assert str(task_file) not in repr(view) and "Detach" in repr(view)
    assert f'title="kept in {task_file}"' in view._repr_html_()
    assert view._repr_html_().startswith(f"<p title=\"kept in {task_file}\">No tasks")
    assert repr(run(ip, "%mcp tasks nope")).startswith("No tasks of 'nope':")


@pytest.mark.parametrize(("cell", "message"), [
    ("%mcp task", "%mcp task needs a connection name: %mcp task NAME ID"),
    ("%mcp task ft", "%mcp task needs the task's id: %mcp task ft ID (%mcp tasks lists them)"),
    ("%mcp task ft one two", "%mcp task needs the task's id: %mcp task ft ID"),
    ("%mcp task nope abc", "no connection named 'nope'"),
    ("%mcp call s --no-task", "%mcp call needs a tool name: %mcp call s TOOL [JSON-ARGS]"),
    ("%mcp call s t --notask", "unknown option --notask for %mcp call; it takes --no-task only"),
    ("%mcp call s t --no-task [1]", "the arguments must be a JSON object"),
])
def test_usage_errors_say_what_to_type(ip, cell, message):
    with pytest.raises(UsageError) as caught:
        run(ip, cell)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


class Stub:
    """A connection that records how it was called."""

    def __init__(self):
        self.calls = []

    async def call_tool(self, tool, arguments=None, *, task=None):
        self.calls.append((tool, arguments, task))

    async def tool_names(self):
        return ["t"]

    async def close(self):
        pass


@pytest.mark.parametrize(("line", "expected"), [
    ("s t", ("t", None, None)),
    ("s t --no-task", ("t", None, False)),
    ('s t {"a": 1} --no-task', ("t", {"a": 1}, False)),
    ('s t --no-task {"a": 1}', ("t", {"a": 1}, False)),
    ('s t\t{"a": 1}\t--no-task ', ("t", {"a": 1}, False)),
    ('s t {"a": "x --no-task"}', ("t", {"a": "x --no-task"}, None)),
    ('s t {"a": "--no-task"}', ("t", {"a": "--no-task"}, None)),
    ('s t {"a": 1}', ("t", {"a": 1}, None)),
])
def test_call_reads_no_task_after_the_tool_or_last(ip, monkeypatch, line, expected):
    stub = Stub()
    monkeypatch.setitem(nb_elicit.connections, "s", stub)
    assert run(ip, f"%mcp call {line}") is None
    assert stub.calls == [expected]


# -- against the FastMCP tasks server --------------------------------------------------------


@pytest.fixture(scope="module")
def fastmcp_tasks() -> list[str]:
    return fastmcp_tasks_command()


WAIT_FOR_TASK = """
import asyncio
for _ in range(2000):
    if call.task is not None and call.task.state is not None:
        break
    await asyncio.sleep(0.01)
"""


def test_detach_list_attach_again_and_the_result_shows_in_the_cell(ip, fastmcp_tasks, capsys):
    run(ip, f"%mcp connect ft -- {' '.join(fastmcp_tasks)}")
    run(ip, "import nb_elicit\ncall = nb_elicit.connections['ft'].start_tool("
            "'slow_sum', {'a': 2, 'b': 40, 'seconds': 2})\n"
            + WAIT_FOR_TASK + "call.task.card.detach_button.click()\n"
            "try:\n    await call\nexcept nb_elicit.NbElicitError as error:\n"
            "    said = str(error)")
    task_id = ip.user_ns["call"].task.task_id
    assert f"%mcp task ft {task_id} attaches to it again" in ip.user_ns["said"]

    listed = repr(run(ip, "%mcp tasks ft"))
    mine, _, others = listed.partition("Running on their servers")
    (row,) = rows(mine, task_id)
    assert "Running, detached" in row and "slow_sum" in row
    assert others == ""  # (a stdio server's task is not in the file: it dies with the kernel)
    # (so its own row says how to attach to it again)
    assert mine.splitlines()[1].split()[-2:] == ["to", "attach"]
    assert row.rstrip().endswith(f"%mcp task ft {task_id}"), row

    # The task ends on the server while nobody follows it: %mcp tasks asks its server, and
    # says what it says now, and the task's true age (from its createdAt).
    time.sleep(3.2)
    (row,) = rows(repr(run(ip, "%mcp tasks ft")), task_id)
    assert row.split()[3] == "Done" and seconds_of(row) >= 3, row
    assert "%mcp task" not in row  # (nothing left to attach to)

    capsys.readouterr()
    assert run(ip, f"%mcp task ft {task_id}") is None
    out = capsys.readouterr().out
    assert "2 + 40 = 42" in out  # (no frontend: the view's lines)
    # attached once it had ended: one status, the one the server told (no "working (0 s)"
    # made up at the attach), and the time it ran, not 0 s
    statuses = [line for line in out.splitlines() if re.match(r"  \d\d:\d\d:\d\d ", line)]
    (status,) = statuses
    assert re.fullmatch(r"  \d\d:\d\d:\d\d Completed after (\d+) s\.", status), out
    assert int(re.search(r"after (\d+) s", status).group(1)) >= 1, out
    (again,) = kernel_state().tasks.runs("ft")
    assert again.task_id == task_id and again.status == "completed" and not again.detached
    after = repr(run(ip, "%mcp tasks ft"))
    assert "Done" in rows(after, task_id)[0]
    assert seconds_of(rows(after, task_id)[0]) >= 3  # (its age, not the attach's)
    assert "Running on their servers" not in after and kernel_state().tasks.store.entries() == []


def test_attaching_to_an_unknown_task_is_one_line(ip, fastmcp_tasks, capsys):
    run(ip, f"%mcp connect ft -- {' '.join(fastmcp_tasks)}")
    capsys.readouterr()
    result = ip.run_cell("%mcp task ft no-such-task")
    error = result.error_in_exec
    assert isinstance(error, UsageError), repr(error)
    assert "the server no longer knows the task no-such-task" in str(error)
    assert "\n" not in str(error)
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err
    assert kernel_state().tasks.store.entries() == []


def test_detach_and_cancel_through_the_magic_end_quietly_with_one_line(ip, fastmcp_tasks, capsys):
    import threading

    run(ip, f"%mcp connect ft -- {' '.join(fastmcp_tasks)}")

    def click(button: str) -> threading.Thread:
        def press():  # (a click from the frontend's thread, as a real one comes)
            for _ in range(3000):
                running = [r for r in kernel_state().tasks.runs("ft")
                           if not r.ended and not r.detached]
                if running and running[0].state is not None and running[0].card is not None:
                    getattr(running[0].card, button).click()
                    return
                time.sleep(0.01)

        thread = threading.Thread(target=press)
        thread.start()
        return thread

    for button, said in [("detach_button", "keeps running on the server"),
                         ("cancel_button", "Cancelled (the server confirmed) after")]:
        presser = click(button)
        capsys.readouterr()
        result = ip.run_cell('%mcp call ft slow_sum {"a": 1, "b": 2, "seconds": 30}')
        presser.join(30)
        # The person's own choice: no error box, only the call's line (and the card) say it.
        assert result.error_in_exec is None, repr(result.error_in_exec)
        shown = capsys.readouterr()
        assert (shown.out + shown.err).count(said) == 1, shown
        assert "Traceback" not in shown.out + shown.err
        assert "✖" not in shown.out + shown.err and "Cancel sent" not in shown.out, shown


def test_no_task_runs_a_2025_tool_whose_task_support_is_optional_inline(ip, tmp_path, capsys):
    journal = Journal(tmp_path / "journal.jsonl")
    run(ip, f"%mcp connect demo -- {' '.join(demo_command(journal))}")
    capsys.readouterr()
    assert run(ip, '%mcp call demo countdown {"seconds": 1} --no-task') is None
    assert "Counted down from 1 s: done." in capsys.readouterr().out
    assert kernel_state().tasks.runs("demo") == []  # a plain call: no task
    assert run(ip, '%mcp call demo countdown {"seconds": 1}') is None
    assert "Counted down from 1 s: done." in capsys.readouterr().out
    (task,) = kernel_state().tasks.runs("demo")
    assert (task.tool, task.status, task.shape) == ("countdown", "completed", "2025-11-25")


def test_no_task_on_the_2026_extension_leaves_it_to_the_server(ip, fastmcp_tasks, capsys):
    """On io.modelcontextprotocol/tasks the server decides: a tool it runs only as a task still
    runs as one (``task=False`` is for 2025-11-25 tools whose task support is optional)."""
    run(ip, f"%mcp connect ft -- {' '.join(fastmcp_tasks)}")
    capsys.readouterr()
    assert run(ip, '%mcp call ft slow_sum {"a": 3, "b": 4, "seconds": 0.1} --no-task') is None
    assert "3 + 4 = 7" in capsys.readouterr().out
    assert [(r.tool, r.status) for r in kernel_state().tasks.runs("ft")] == [
        ("slow_sum", "completed")]


# -- the file of running tasks holds no secret -----------------------------------------------


def test_the_task_file_is_owner_only_and_holds_no_env_or_header_value(
        fastmcp_tasks, tmp_path, monkeypatch):
    data = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data))
    # (the real place: <data dir>/nb_elicit/)
    monkeypatch.setattr(kernel_state().tasks.store, "_path", None)
    header_secret, env_secret = "SECRET-header-7f3a9c", "SECRET-env-51d2e8"
    with served([*fastmcp_tasks, "--http"], tmp_path / "server.log") as url:
        async def scenario(person):
            remote = await nb_elicit.connect(
                "remote", url=url, auth="off",
                headers={"Authorization": f"Bearer {header_secret}"})
            local = await nb_elicit.connect("local", fastmcp_tasks,
                                            env={"NB_ELICIT_TOKEN": env_secret})
            calls = [remote.start_tool("slow_sum", {"a": 1, "b": 1, "seconds": 30}),
                     local.start_tool("slow_sum", {"a": 2, "b": 2, "seconds": 30})]
            for _ in range(3000):
                if kernel_state().tasks.store.entries() and all(c.task is not None for c in calls):
                    break
                await asyncio.sleep(0.01)
            text = kernel_state().tasks.store.path.read_text(encoding="utf-8")
            for call in calls:
                call.cancel()
            await asyncio.gather(*calls, return_exceptions=True)
            return text

        text = drive(scenario, timeout=120)
    path = data / "nb_elicit" / "tasks.json"
    assert kernel_state().tasks.store.path == path
    entries = json.loads(text)["tasks"]
    assert [e["connection"] for e in entries] == ["remote"]  # (a stdio server's: never)
    assert {e["where"] for e in entries} == {url}
    assert header_secret not in text and env_secret not in text and "SECRET" not in text
    assert "Authorization" not in text and "NB_ELICIT_TOKEN" not in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


def test_tasks_forget_drops_entries_of_the_file(tmp_path, monkeypatch):
    from nb_elicit._core.tasks.store import SavedTask
    from nb_elicit._magics import handlers

    monkeypatch.setattr(kernel_state().tasks.store, "_path", tmp_path / "tasks.json")
    for connection, task_id in [("a", "1"), ("a", "2"), ("b", "3")]:
        kernel_state().tasks.store.add(SavedTask(connection=connection, where="http://x/mcp",
                                                 tool="t", task_id=task_id,
                                                 shape="2025-11-25", started=0.0))
    said = asyncio.run(handlers.tasks(None, "--forget a 1")).text
    assert "Forgot 1 running task " in said
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["2", "3"]
    asyncio.run(handlers.tasks(None, "--forget a"))
    assert [s.task_id for s in kernel_state().tasks.store.entries()] == ["3"]
    asyncio.run(handlers.tasks(None, "--forget"))
    assert kernel_state().tasks.store.entries() == []
