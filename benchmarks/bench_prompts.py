"""The floors a prompt of nb_elicit is put next to, run inside a kernel: a plain SDK Client in
the kernel whose elicitation callback displays a prompt in the calling cell and answers with
the button the person clicks.

Two prompts:

- ``bare``: ipywidgets itself, the least a form can be: one bare control per field of the
  schema (Text, DatePicker, FloatText, IntText, Checkbox, Dropdown, SelectMultiple, each with
  its title as description) and three Buttons (Submit, Decline, Cancel), in one VBox;
- ``peer``: ipywidgets-jsonschema's ``Form(schema).widget`` (imported from the directory
  the benchmark installed it in) and the same three Buttons, in one VBox.

The box has the class ``bench-prompt``, the buttons ``bench-submit``, ``bench-decline`` and
``bench-cancel``. The callback notes when it was entered, when the box was displayed and when
the click was handled (``time.time()``), by the question's tag (the last word of its message).
Every widget model the prompt made is closed once the call has returned (after the answer has
reached the server, before the cell ends), so that the closing is in neither leg measured.
Like :mod:`in_kernel`, this module imports only the standard library when it is imported.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import importlib
import os
import sys
import time
from typing import Any

#: The classes of the box and of its buttons (what the frontends look for).
BOX = "bench-prompt"
BUTTONS = {"accept": "bench-submit", "decline": "bench-decline", "cancel": "bench-cancel"}
KINDS = ("bare", "peer")

#: tag -> {"entered", "shown", "clicked", "models"}: the callback's times (Unix) and the widget
#: models the prompt made.
STAMPS: dict[str, dict[str, Any]] = {}
_clients: dict[str, dict[str, Any]] = {}
#: tag -> the context of the cell that asked (ipykernel keeps a cell's parent message in
#: context variables: the callback, a task of the client's, started by an earlier cell, shows
#: its prompt in the calling cell by building and displaying it in that cell's context).
_cells: dict[str, contextvars.Context] = {}
#: tag -> the widget models its prompt made, until they are closed.
_made: dict[str, list] = {}
_peer: dict[str, Any] = {}


def load_peer(path: str, module: str) -> str:
    """Import the peer from ``path`` (on sys.path only meanwhile); return its version."""
    sys.path.append(path)
    try:
        peer = importlib.import_module(module)
    finally:
        sys.path.remove(path)
    where = os.path.abspath(getattr(peer, "__file__", "") or "")
    if not where.startswith(os.path.abspath(path) + os.sep):
        raise RuntimeError(f"{module} was imported from {where}, not from {path}")
    _peer["module"] = peer
    return getattr(peer, "__version__", "?")


def bare_control(prop: dict):
    """The bare ipywidgets control for one field of a schema (and how to read its value)."""
    import ipywidgets as w

    title = prop.get("title", "")
    options = prop.get("enum") or [o["const"] for o in prop.get("oneOf") or ()]
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items") or {}
        choices = items.get("enum") or [o["const"] for o in items.get("anyOf") or ()]
        return w.SelectMultiple(options=choices, description=title), list
    if options:
        return w.Dropdown(options=options, value=None, description=title), None
    if kind == "boolean":
        return w.Checkbox(description=title), None
    if kind == "number":
        return w.FloatText(description=title), None
    if kind == "integer":
        return w.IntText(description=title), None
    if prop.get("format") == "date":
        return w.DatePicker(description=title), dt.date.isoformat
    return w.Text(description=title), None


def buttons() -> dict:
    import ipywidgets as w

    labels = {"accept": "Submit", "decline": "Decline", "cancel": "Cancel"}
    return {action: w.Button(description=labels[action], _dom_classes=(css,))
            for action, css in BUTTONS.items()}


def bare_prompt(schema: dict):
    """(box, buttons, read): the bare prompt for ``schema``; ``read()`` gives its content."""
    import ipywidgets as w

    controls = {name: bare_control(prop) for name, prop in schema["properties"].items()}
    pressed = buttons()
    box = w.VBox([*(c for c, _ in controls.values()), *pressed.values()], _dom_classes=(BOX,))

    def read() -> dict:
        content = {}
        for name, (control, convert) in controls.items():
            value = control.value
            if value is None or value == "" or value == ():
                continue
            content[name] = convert(value) if convert else value
        return content

    return box, pressed, read


def peer_prompt(schema: dict):
    """(box, buttons, read): ipywidgets-jsonschema's form for ``schema`` and three buttons."""
    import ipywidgets as w

    if "module" not in _peer:
        raise RuntimeError("the peer is not loaded: call load_peer first")
    form = _peer["module"].Form(schema)
    pressed = buttons()
    box = w.VBox([form.widget, *pressed.values()], _dom_classes=(BOX,))

    def read() -> dict:
        return {k: v for k, v in dict(form.data).items() if v not in (None, "", [])}

    return box, pressed, read


async def connect(name: str, kind: str, command: list[str] | None = None,
                  url: str | None = None) -> None:
    """Start a plain SDK Client ``name`` in this kernel, on its event loop, against the server
    ``command`` (stdio) or the one at ``url`` (streamable HTTP), whose elicitation callback
    shows the ``kind`` prompt (bare or peer)."""
    import ipywidgets
    import mcp_types as types
    from IPython.display import display
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    make = {"bare": bare_prompt, "peer": peer_prompt}[kind]

    async def on_elicit(context, params):
        entered = time.time()
        tag = params.message.rsplit(" ", 1)[-1]
        cell = _cells.pop(tag, None) or contextvars.copy_context()
        before = set(ipywidgets.Widget.widgets)
        box, pressed, read = cell.run(make, params.requested_schema)
        answered = asyncio.get_running_loop().create_future()
        for action, button in pressed.items():
            button.on_click(lambda _b, action=action: answered.done()
                            or answered.set_result((action, time.time())))
        cell.run(display, box)
        shown = time.time()
        action, clicked = await answered
        content = read() if action == "accept" else None
        made = [model for key, model in list(ipywidgets.Widget.widgets.items())
                if key not in before]
        STAMPS[tag] = {"entered": entered, "shown": shown, "clicked": clicked,
                       "models": len(made)}
        _made[tag] = made  # (closed by ask() once the call has returned: after the answer)
        return types.ElicitResult(action=action, content=content)

    stop = asyncio.Event()

    async def run(ready: asyncio.Future) -> None:
        with open(os.devnull, "w") as errlog:
            if url is not None:
                from mcp.client.streamable_http import streamable_http_client

                transport = streamable_http_client(url)
            else:
                py, *args = command
                env = ({"PYTHONPATH": os.environ["PYTHONPATH"]}
                       if os.environ.get("PYTHONPATH") else None)
                params = StdioServerParameters(command=py, args=args, env=env)
                transport = stdio_client(params, errlog=errlog)
            try:
                async with Client(transport, mode="legacy",
                                  elicitation_callback=on_elicit) as client:
                    ready.set_result(client)
                    await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    ready.set_exception(exc)
                raise

    ready = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run(ready))
    client = await asyncio.wait_for(ready, 60)
    _clients[name] = {"client": client, "stop": stop, "task": task}


async def ask(name: str, tag: str, kind: str) -> str:
    """Call the bench server's ``ask`` through the client ``name``; the action it returned."""
    _cells[tag] = contextvars.copy_context()
    try:
        result = await _clients[name]["client"].call_tool("ask", {"tag": tag, "kind": kind})
    finally:
        for model in _made.pop(tag, ()):
            model.close()
    return " ".join(getattr(block, "text", "") for block in result.content)


async def close() -> None:
    for name in list(_clients):
        found = _clients.pop(name)
        found["stop"].set()
        try:
            await asyncio.wait_for(found["task"], 10)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - closing anyway
            found["task"].cancel()
