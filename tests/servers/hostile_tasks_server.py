"""A deliberately hostile MCP tasks server (SDK 2.x) for the test suite: task tools that
misbehave, on the demo server's task engine (``nb_elicit/demo/tasks.py``, ``task_wire.py``).

    python hostile_tasks_server.py --shape extension [--log FILE]   # stdio
    python hostile_tasks_server.py --shape 2025 [--log FILE]

``--shape extension`` speaks only the 2026-07-28 protocol (it refuses ``initialize``) and runs
its task tools as tasks of ``io.modelcontextprotocol/tasks``; ``--shape 2025`` speaks the
2025-11-25 handshake and runs them as its experimental tasks. ``--log FILE`` appends one JSON
line per ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` it answered: ``{"method", "tool",
"task", "at"}`` (``at``: when, ``time.time()``), with ``n`` (the how-manieth ``tasks/get`` of
that task) for a get, and the actions it carried for an update.

Each task tool misbehaves in one way, mostly on ``tasks/get`` (see ``HOSTILITY``):

- ``out_of_order``: working, then the unknown status ``paused``, then completed, then working
  again, one per ``tasks/get``;
- ``poll_every(ms, seconds)``: asks for ``ms`` between polls; completes after ``seconds``;
- ``dropped(after)``: after ``after`` polls, ``tasks/get`` answers -32602 "Task not found";
- ``malformed(what)``: ``tasks/get`` answers a broken task (``no-task-id``, ``status-number``,
  ``result-not-object``, ``result-not-call-tool-result``, ``result-off-schema``,
  ``other-task-id``: another task's), or ``tasks/cancel`` does (``cancel-other-task-id``: it
  cancels, and answers about another task);
- ``loud``: a 100 kB status message of HTML, script and newlines; completes after a second;
- ``born_completed`` (extension): ``tools/call`` answers its task as completed already;
- ``flood(count)`` (extension): ``count`` questions at once, in one ``tasks/get``;
- ``refused_question`` (extension): a question with a nested object, and a plain one;
- ``gives_up(seconds)``: asks a question, and completes without its answer after ``seconds``
  (the task no longer waits for it).

And one plain tool, ``ask_unrelated(task_id)``: an ``elicitation/create`` whose ``_meta`` names
a related task ``task_id`` (2025-11-25). Tools return what they received, as JSON text.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # (this checkout's nb_elicit)

from nb_elicit.demo import tasks  # noqa: E402
from nb_elicit.demo.task_wire import EXTENSION, DemoTasks, UpdateTaskParams, _era  # noqa: E402

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}}
NESTED_FORM = {"type": "object", "properties": {"address": {
    "type": "object", "properties": {"street": {"type": "string"}}}}}
#: 100 kB of markup, script and newlines.
LOUD = ('<script>alert("loud")</script>\n<b onmouseover="x()">bold</b>\n' * 1600)[:100_000]
RESULT = {"content": [{"type": "text", "text": "done once"}],
          "structuredContent": {"result": "done once"}}


class HostileTasks(DemoTasks):
    """The demo's tasks, with ``tasks/get`` answered by each tool's hostility."""

    def __init__(self, shape: str, log: Path | None) -> None:
        super().__init__()
        self.shape, self.log = shape, log
        self.polls: Counter[str] = Counter()
        #: What each task's tool was called with (read by its hostility).
        self.arguments: dict[str, dict[str, Any]] = {}

    def write(self, **line: Any) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps({**line, "at": time.time()}) + "\n")

    async def middleware(self, ctx: ServerRequestContext[Any, Any],
                         call_next: CallNext) -> HandlerResult:
        if self.shape == "extension" and ctx.method == "initialize":
            raise MCPError(code=types.INVALID_REQUEST,
                           message="this server speaks only the 2026-07-28 protocol")
        return await super().middleware(ctx, call_next)

    async def intercept_tool_call(self, params: types.CallToolRequestParams,
                                  ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        answer = await super().intercept_tool_call(params, ctx, call_next)
        if params.name == "born_completed" and isinstance(answer, dict) and "taskId" in answer:
            task = self._find(ctx, answer["taskId"])
            while not task.terminal:  # the task ends before tools/call answers
                await task.wait_for_change()
            return {"resultType": "task", **task.extension_view(detailed=False)}
        return answer

    async def _get(self, ctx: ServerRequestContext[Any, Any],
                   params: types.GetTaskRequestParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        self.polls[task.task_id] += 1
        n = self.polls[task.task_id]
        self.write(method="tasks/get", tool=task.tool, task=task.task_id, n=n)
        view = task.extension_view() if _era(ctx) == EXTENSION else task.legacy_view()
        hostility = HOSTILITY.get(task.tool)
        if hostility is None:
            return view
        return await hostility(task, view, n, self.arguments.get(task.task_id, {}))

    async def _update(self, ctx: ServerRequestContext[Any, Any],
                      params: UpdateTaskParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        actions = Counter(str(r.get("action")) if isinstance(r, dict) else "?"
                          for r in params.input_responses.values())
        self.write(method="tasks/update", tool=task.tool, task=task.task_id,
                   actions=dict(actions))
        return await super()._update(ctx, params)

    async def _cancel(self, ctx: ServerRequestContext[Any, Any],
                      params: types.CancelTaskRequestParams) -> dict[str, Any]:
        task = self._find(ctx, params.task_id)
        self.write(method="tasks/cancel", tool=task.tool, task=task.task_id)
        answer = await super()._cancel(ctx, params)
        if self.arguments.get(task.task_id, {}).get("what") == "cancel-other-task-id":
            return {**answer, "taskId": "someone-elses-task"}
        return answer


def _interval_key(view: dict[str, Any]) -> str:
    return "pollIntervalMs" if "pollIntervalMs" in view else "pollInterval"


async def _out_of_order(task: tasks.Task, view: dict, n: int, args: dict) -> dict:
    if n == 2:
        return {**view, "status": "paused", "statusMessage": "paused, whatever that means"}
    if n == 3:  # completed for real, so that 2025-11-25's tasks/result answers too
        await task._finish(RESULT, None)  # noqa: SLF001
        if task.runner is not None:
            task.runner.cancel()
        return task.extension_view() if task.era == EXTENSION else task.legacy_view()
    if n > 3:
        return {**view, "status": "working", "statusMessage": "working again"}
    return view


async def _poll_every(task: tasks.Task, view: dict, n: int, args: dict) -> dict:
    return {**view, _interval_key(view): args.get("ms", 0)}


async def _dropped(task: tasks.Task, view: dict, n: int, args: dict) -> dict:
    if n > args.get("after", 1):
        raise MCPError(code=types.INVALID_PARAMS,
                       message=f"Failed to retrieve task: Task not found ({task.task_id})")
    return view


async def _malformed(task: tasks.Task, view: dict, n: int, args: dict) -> dict:
    what = args.get("what")
    if what == "no-task-id":
        return {k: v for k, v in view.items() if k != "taskId"}
    if what == "status-number":
        return {**view, "status": 7}
    if what == "result-not-object":
        return {**view, "status": "completed", "result": "<b>not a result</b>"}
    if what == "result-not-call-tool-result":
        return {**view, "status": "completed", "result": {"content": "not a list"}}
    if what == "other-task-id":
        return {**view, "taskId": "someone-elses-task"}
    if what == "cancel-other-task-id":
        return view
    if what == "result-off-schema":  # (the tool has an output schema: its result has none)
        return {**view, "status": "completed",
                "result": {"content": [{"type": "text", "text": "no structured content"}]}}
    raise MCPError(code=types.INVALID_PARAMS, message=f"unknown malformation {what!r}")


HOSTILITY = {"out_of_order": _out_of_order, "poll_every": _poll_every, "dropped": _dropped,
             "malformed": _malformed}


def build(shape: str, log: Path | None) -> MCPServer:
    hostile = HostileTasks(shape, log)
    server = MCPServer("hostile-tasks", version="6.6.6", extensions=[hostile],
                       middleware=[hostile.middleware])

    def remember(**arguments: Any) -> tasks.Task:
        task = tasks.current()
        if task is None:
            raise ValueError("this tool runs only as a task")
        hostile.arguments[task.task_id] = arguments
        return task

    @server.tool()
    async def out_of_order() -> str:
        """Working, paused (unknown), completed, then working again, one per tasks/get."""
        await remember().report("working once")
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool()
    async def poll_every(ms: float, seconds: float = 1.0) -> str:
        """Ask for ``ms`` milliseconds between polls; complete after ``seconds``."""
        await remember(ms=ms).report(f"asking for polls every {ms:g} ms")
        await anyio.sleep(seconds)
        return f"done after {seconds:g} s"

    @server.tool()
    async def dropped(after: int = 1) -> str:
        """Forget the task after ``after`` polls: tasks/get answers -32602 from then on."""
        await remember(after=after).report("about to forget this task")
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool()
    async def malformed(what: str) -> str:
        """Answer tasks/get with a broken task (see the module's docstring)."""
        await remember(what=what).report("about to answer nonsense")
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool()
    async def loud() -> str:
        """A 100 kB status message of markup, script and newlines; done after a second."""
        await remember().report(LOUD)
        await anyio.sleep(1)
        return "loud and done"

    @server.tool()
    async def born_completed() -> str:
        """(extension) A task that tools/call already answers as completed."""
        remember()
        return "born completed"

    @server.tool()
    async def flood(count: int = 200) -> str:
        """``count`` questions at once; how many of each action came back."""
        task = remember(count=count)
        answers = await asyncio.gather(*(task.ask(f"Flood #{i}", NAME_FORM)
                                         for i in range(count)))
        return json.dumps(dict(Counter(a.action for a in answers)), sort_keys=True)

    @server.tool()
    async def refused_question() -> str:
        """Ask a question with a nested object and a plain one at once; what came back."""
        task = remember()
        nested, plain = await asyncio.gather(task.ask("Where do you live?", NESTED_FORM),
                                             task.ask("Your name?", NAME_FORM))
        return json.dumps({"nested": nested.model_dump(exclude_none=True),
                           "plain": plain.model_dump(exclude_none=True)}, sort_keys=True)

    @server.tool()
    async def gives_up(seconds: float = 1.0) -> str:
        """Ask a question, and complete without its answer after ``seconds``."""
        task = remember(seconds=seconds)
        with anyio.move_on_after(seconds):
            answer = await task.ask("Your name?", NAME_FORM)
            return json.dumps(answer.model_dump(exclude_none=True), sort_keys=True)
        return "gave up waiting"

    @server.tool()
    async def ask_unrelated(ctx: Context, task_id: str) -> str:
        """Ask a form whose _meta names ``task_id`` as its related task; what came back."""
        request = types.ElicitRequest(params=types.ElicitRequestFormParams(
            message="A question about a task you never saw", requested_schema=NAME_FORM,
            _meta={tasks.RELATED_TASK: {"taskId": task_id}}))
        answer = await ctx.session.send_request(request, types.ElicitResult)
        return json.dumps(answer.model_dump(exclude_none=True), sort_keys=True)

    for name in ("out_of_order", "poll_every", "dropped", "malformed", "loud", "born_completed",
                 "flood", "refused_question", "gives_up"):
        hostile.task_tool(name, "required")
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=("extension", "2025"), default="extension")
    parser.add_argument("--log", type=Path)
    options = parser.parse_args()
    build(options.shape, options.log).run()
