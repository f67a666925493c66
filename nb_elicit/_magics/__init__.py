"""The ``%mcp`` line magic: connect to MCP servers and call their tools from notebook cells.

``%load_ext nb_elicit`` registers it. Subcommands that talk to a server run asynchronously: an
input transformer turns every ``%mcp ...`` line into ``await ...`` (and marks it, so the magic
knows), so a cell waits for its call while forms in it still receive clicks and keystrokes
(ipykernel >= 7.4). On older kernels, ``%mcp call`` starts the call and returns at once; its form
and result appear in the cell. A line the transformer did not see (in the same cell as
``%load_ext``) runs in the background instead, and later ``%mcp`` lines wait for its connection.

The subcommands live in one table, :data:`commands.COMMANDS`; their handlers in
:mod:`.handlers`, the flags of ``connect`` in :mod:`.options`, what they show in :mod:`.tables`.

This package imports neither ipywidgets nor the SDK; the connection module is imported the first
time a subcommand needs it, which keeps ``%load_ext`` quick.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
import threading

from .commands import AWAITED, COMMANDS, McpMagics

__all__ = ["McpMagics", "load", "unload"]

_MAGIC_CALL = re.compile(
    r"(?<!await )\bget_ipython\(\)\.run_line_magic\(\s*(['\"])mcp\1,\s*(['\"])")


def _await_mcp_lines(lines: list[str]) -> list[str]:
    """Input transformer: ``%mcp ...`` lines (already turned into run_line_magic) are awaited,
    and their argument string starts with :data:`~.commands.AWAITED` so that the magic knows."""
    return [_MAGIC_CALL.sub(lambda m: f"await {m.group(0)}{AWAITED}", line) for line in lines]


def _complete(shell, event) -> list[str]:
    """Tab completion: subcommands, then connection names where the subcommand takes one."""
    words = event.line.split()
    typing_new = event.line.endswith(" ")
    position = len(words) - (0 if typing_new else 1)
    if position <= 1:
        return [command.name for command in COMMANDS]
    if position == 2:
        for command in COMMANDS:
            if command.name == words[1] and command.takes_name:
                from .._runtime import connection as _connection

                return [*command.choices, *_connection.connections]
    return []


def _prewarm() -> None:
    # Import the SDK in the background, so that the first %mcp connect is quicker, without
    # slowing %load_ext down. Not jsonschema, which only Submit needs: its import takes about a
    # second where rfc3987-syntax is installed, and would hold the GIL against the SDK's import
    # and the connect (it is made later, at a quiet moment: see _runtime/warmup.py).
    def run():
        with contextlib.suppress(Exception):  # only an optimisation
            from .. import _mcp  # noqa: F401 - the SDK, through its one adapter

    threading.Thread(target=run, name="nb_elicit-prewarm", daemon=True).start()


def load(ip) -> None:
    ip.register_magics(McpMagics)
    if _await_mcp_lines not in ip.input_transformers_post:
        ip.input_transformers_post.append(_await_mcp_lines)
    ip.set_hook("complete_command", _complete, str_key="%mcp")
    _prewarm()


def unload(ip) -> None:
    """Close every connection and every waiting form; remove the magic's input transformer."""
    if _await_mcp_lines in ip.input_transformers_post:
        ip.input_transformers_post.remove(_await_mcp_lines)
    warmup = sys.modules.get("nb_elicit._runtime.warmup")
    if warmup is not None:
        warmup.cancel()
    connection_module = sys.modules.get("nb_elicit._runtime.connection")
    if connection_module is None:
        return
    from .._runtime.pending import PENDING

    PENDING.abandon("nb_elicit was unloaded.")
    closing = [conn.close() for conn in list(connection_module.connections.values())]
    connection_module.connections.clear()
    if not closing:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        for coro in closing:
            loop.create_task(coro)
    else:
        asyncio.run(_gather(closing))


async def _gather(coros):
    await asyncio.gather(*coros, return_exceptions=True)
