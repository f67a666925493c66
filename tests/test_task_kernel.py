"""A task outlives its kernel: real kernels, driven by the scripted frontend.

Kernel 1 connects to the FastMCP tasks server over streamable HTTP and calls ``slow_sum``, which
the server runs as a task (``io.modelcontextprotocol/tasks``); while it runs, the kernel is
restarted (or killed, and a new one started). The next kernel has the same Jupyter data
directory, so the same file of running tasks: ``%mcp tasks`` offers the task to attach to, and
``%mcp task NAME ID`` follows it to its result, in that cell.
"""

import json
import os
import stat

import pytest
from helpers.frontend import Frontend
from helpers.interop import fastmcp_tasks_command
from helpers.servers import served

# once: a kernel restarted or killed under a running task (jupyter_client's restart, the
# task file); attaching to a task runs on every Python in test_task_magics.
pytestmark = [pytest.mark.timeout(300), pytest.mark.blocking_kernel, pytest.mark.once]

CELL_TIMEOUT = 90
TOKEN = "SECRET-bearer-4be1d07c"


def text_of(outputs: list[dict]) -> str:
    """What a cell showed as text: its results' text/plain and what it printed."""
    return "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "") for o in outputs)


def saved_tasks(path) -> list[dict]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))["tasks"]
    except (OSError, ValueError):
        return []


@pytest.mark.parametrize("how", ["restart", "kill"])
def test_a_task_started_before_a_restart_is_attached_to_in_the_next_kernel(tmp_path, how):
    data = tmp_path / "jupyter-data"
    task_file = data / "nb_elicit" / "tasks.json"
    env = {"JUPYTER_DATA_DIR": str(data)}
    with served([*fastmcp_tasks_command(), "--http"], tmp_path / "server.log") as url:
        connect = (f"%mcp connect ft --url {url} --auth off "
                   f"--header 'Authorization: Bearer {TOKEN}'")
        first = Frontend.start(env=env)
        try:
            reply, outputs = first.run(f"%load_ext nb_elicit\n{connect}", timeout=CELL_TIMEOUT)
            assert reply["status"] == "ok", outputs
            call = first.execute('%mcp call ft slow_sum {"a": 2, "b": 40, "seconds": 8}')
            (entry,) = first.wait_for(lambda: saved_tasks(task_file), 30, "the task in the file")
            first.wait_for(lambda: first.find("nb-elicit-task-card"), 10, "the task card")
            assert first.kc.is_alive() and call not in first._replies  # (still running)
            # the file of running tasks: owner-only, and no header value in it
            assert stat.S_IMODE(os.stat(task_file).st_mode) == 0o600
            assert stat.S_IMODE(os.stat(task_file.parent).st_mode) == 0o700
            assert TOKEN not in task_file.read_text(encoding="utf-8")
            assert (entry["connection"], entry["tool"], entry["where"]) == ("ft", "slow_sum", url)
            if how == "restart":  # (Kernel > Restart: asked to shut down, then started again)
                first.kc.stop_channels()
                first.km.restart_kernel(now=False)
                second = Frontend(first.km, owns_kernel=True)
            else:
                first.close()
                second = Frontend.start(env=env)
        except BaseException:
            first.close()
            raise
        with second:
            reply, outputs = second.run(f"%load_ext nb_elicit\n{connect}", timeout=CELL_TIMEOUT)
            assert reply["status"] == "ok", outputs
            reply, outputs = second.run("%mcp tasks ft", timeout=CELL_TIMEOUT)
            listed = text_of(outputs)
            assert reply["status"] == "ok", outputs
            assert "Tasks of this kernel" not in listed  # (a new kernel follows none)
            offered = [line for line in listed.splitlines() if entry["task_id"] in line]
            assert len(offered) == 1, listed
            assert offered[0].rstrip().endswith(f"%mcp task ft {entry['task_id']}")

            reply, outputs = second.run(f"%mcp task ft {entry['task_id']}", timeout=CELL_TIMEOUT)
            assert reply["status"] == "ok", outputs
            transcript = second.wait_for(lambda: second.transcripts(), 10, "the transcript")[-1]
            assert "2 + 40 = 42" in transcript
            assert "ft · slow_sum" in transcript and "Completed after" in transcript
            assert f"task {entry['task_id'][:30]}" in transcript  # (its card's timeline)
            assert saved_tasks(task_file) == []  # ended: no longer in the file

            reply, outputs = second.run("%mcp tasks ft", timeout=CELL_TIMEOUT)
            after = text_of(outputs)
            assert "Done" in after and "Running on their servers" not in after
