"""The ``%mcp`` line magic: connect to MCP servers and call their tools from notebook cells.

``%load_ext nb_elicit`` registers it. Subcommands that talk to a server run asynchronously: an
input transformer turns a ``%mcp ...`` line of such a subcommand into ``await ...`` (and marks it,
so the magic knows) where an ``await`` may stand: at the top level of a cell (also inside its
``for``, ``if``, ``with`` and ``try`` blocks) and directly inside an ``async def``. So a cell
waits for its call while forms in it still receive clicks and keystrokes (ipykernel >= 7.4). On
older kernels, ``%mcp call`` starts the call and returns at once; its form and result appear in
the cell. Inside a ``def``, a ``class`` body or a ``lambda`` the line stays IPython's plain
``run_line_magic`` call: it runs in the background, like a line the transformer did not see (in
the same cell as ``%load_ext``), and later ``%mcp`` lines wait for its connection.

The subcommands live in one table, :data:`commands.COMMANDS`; their handlers in
:mod:`.handlers`, the flags of ``connect`` in :mod:`.options`, what they show in :mod:`.tables`,
and how their failures are told (one line, from one table) in :mod:`.errors`.

This package imports neither ipywidgets nor the SDK; the connection module is imported the first
time a subcommand needs it, which keeps ``%load_ext`` quick.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import threading
from typing import TYPE_CHECKING, Protocol

from .._core import kernel
from .commands import AWAITED, COMMANDS, McpMagics

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .._runtime.hooks import ElicitationCallback

__all__ = ["McpMagics", "load", "unload"]

_MAGIC_CALL = re.compile(
    r"(?<!await )\bget_ipython\(\)\.run_line_magic\(\s*(['\"])mcp\1,\s*(['\"])")
_SYNC = frozenset(command.name for command in COMMANDS if not command.awaited)
#: Where an ``await`` would be a SyntaxError, or would make something else a coroutine.
_NO_AWAIT = (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
             ast.GeneratorExp)


def _await_mcp_lines(lines: list[str]) -> list[str]:
    """Input transformer: ``%mcp ...`` lines (already turned into run_line_magic) of subcommands
    that talk to a server are awaited where an ``await`` may stand, and their argument string
    starts with :data:`~.commands.AWAITED` so that the magic knows. Other lines are left as
    they are."""
    source = "".join(lines)
    if "run_line_magic" not in source:
        return lines
    try:
        tree = ast.parse(source)
    except SyntaxError:  # (Python reports it, with the cell as typed)
        return lines
    lines = list(lines)
    for row, column in sorted(_awaitable_magic_calls(tree), reverse=True):
        line = lines[row - 1]
        start = len(line.encode()[:column].decode(errors="replace"))
        found = _MAGIC_CALL.match(line, start)
        if found is not None:
            lines[row - 1] = (f"{line[:start]}await {found.group(0)}{AWAITED}"
                              f"{line[found.end():]}")
    return lines


def _awaitable_magic_calls(tree: ast.AST) -> list[tuple[int, int]]:
    """Where (line, byte column) the ``%mcp`` calls that may and should be awaited start."""
    spots = []

    def visit(node: ast.AST, may_await: bool, awaited: bool = False) -> None:
        if isinstance(node, ast.Call) and _is_mcp_line(node) and may_await and not awaited:
            spots.append((node.lineno, node.col_offset))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.AsyncFunctionDef):
                inner = True
            elif isinstance(child, _NO_AWAIT):
                inner = False
            else:
                inner = may_await
            visit(child, inner, isinstance(node, ast.Await))

    visit(tree, True)
    return spots


def _is_mcp_line(call: ast.Call) -> bool:
    """``get_ipython().run_line_magic('mcp', '...')`` of a subcommand that is awaited (or one
    that cannot be told before it runs, such as ``$sub``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "run_line_magic"
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython" and len(call.args) == 2):
        return False
    name, line = call.args
    if not (isinstance(name, ast.Constant) and name.value == "mcp"
            and isinstance(line, ast.Constant) and isinstance(line.value, str)):
        return False
    words = line.value.split(None, 1)
    return not words or words[0] not in _SYNC


class _CompletionEvent(Protocol):
    """What IPython's completer tells a ``complete_command`` hook: the line typed so far."""

    line: str


def _complete(shell: InteractiveShell, event: _CompletionEvent) -> list[str]:
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


def _hook() -> ElicitationCallback:
    """nb_elicit's unlabelled hook, for a session made without one (imported only then)."""
    from .._runtime.hooks import elicitation_callback

    return elicitation_callback


def _prewarm() -> None:
    # Import the SDK in the background, so that the first %mcp connect is quicker, without
    # slowing %load_ext down. (Submit needs no jsonschema: each field checks its own value.)
    def run() -> None:
        with contextlib.suppress(Exception):  # only an optimisation
            from .._mcp import session  # noqa: F401 - the SDK, through its one adapter

    threading.Thread(target=run, name="nb_elicit-prewarm", daemon=True).start()


def load(ip: InteractiveShell) -> None:
    ip.register_magics(McpMagics)
    if _await_mcp_lines not in ip.input_transformers_post:
        ip.input_transformers_post.append(_await_mcp_lines)
    # (IPython's set_hook has no annotations)
    ip.set_hook("complete_command", _complete, str_key="%mcp")  # type: ignore[no-untyped-call]
    from .._mcp import every_session
    from .._runtime.kernel_compat import enable_frontend, watch_cells
    from .._runtime.state import kernel_state

    kernel_state()  # (this kernel's owner: see nb_elicit._runtime.state)
    enable_frontend()  # (Colab renders ipywidgets 8 only once told to)
    watch_cells()  # (and the kernel reads busy while a cell runs, whatever waits in it)
    every_session.turn(_hook)  # every MCP session made from now on, a framework's without a
    _prewarm()                 # hook of its own too, gets the form (answer_every_session)


def unload(ip: InteractiveShell) -> None:
    """Close every connection and every waiting form; remove the magic's input transformer;
    sessions made from now on get no form of nb_elicit's."""
    if _await_mcp_lines in ip.input_transformers_post:
        ip.input_transformers_post.remove(_await_mcp_lines)
    from .._mcp import every_session

    every_session.turn(None)
    if "nb_elicit._runtime.state" not in sys.modules:  # (no runtime: only pure state to drop)
        replaced = kernel.install(None)
        if replaced is not None:
            replaced.close()
        return
    from .._runtime.state import close_kernel_state

    close_kernel_state("nb_elicit was unloaded.")
