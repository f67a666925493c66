"""Code the benchmark runs inside a Jupyter kernel.

The runner puts this folder at the end of the kernel's ``sys.path`` and sends one-line cells
such as ``import in_kernel as _bench; _bench.emit(_bench.stats())``. The module imports only
the standard library when it is imported (nb_elicit, ipywidgets and the SDK are imported by the
functions that use them), so that importing it in a fresh kernel imports nothing of nb_elicit.
The form build section also calls :func:`build` in the runner itself, without a kernel, so that
both measure the same code.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any


def emit(value: Any) -> None:
    """Print ``value`` as one line of JSON (the runner reads the last line of a cell's output)."""
    print(json.dumps(value))


def nb_module(*names: str):
    """The first of these nb_elicit modules that imports (module paths move between revisions,
    and ``--code REV`` may measure an older one)."""
    for name in names[:-1]:
        with contextlib.suppress(ImportError):
            return importlib.import_module(name)
    return importlib.import_module(names[-1])


def nb_kept(attr: str, *old: str):
    """What the kernel's owner keeps as ``attr`` (``kernel_state().history``); for an older
    revision, the module-level registry it was (``module:NAME`` each, newest first)."""
    with contextlib.suppress(ImportError):
        return getattr(importlib.import_module("nb_elicit._runtime.state").kernel_state(), attr)
    *newer, oldest = old
    for each in newer:
        module, name = each.split(":")
        with contextlib.suppress(ImportError):
            return getattr(importlib.import_module(module), name)
    module, name = oldest.split(":")
    return getattr(importlib.import_module(module), name)


# ---------------------------------------------------------------------------------- schemas

OPTIONS = ["red", "green", "blue"]
KINDS: dict[str, Callable[[int], dict]] = {
    "string": lambda i: {"type": "string", "title": f"Text {i}"},
    "string email": lambda i: {"type": "string", "format": "email", "title": f"Email {i}"},
    "string uri": lambda i: {"type": "string", "format": "uri", "title": f"Link {i}"},
    "string date": lambda i: {"type": "string", "format": "date", "title": f"Day {i}"},
    "string date-time": lambda i: {"type": "string", "format": "date-time",
                                   "title": f"Moment {i}"},
    "number": lambda i: {"type": "number", "minimum": 0, "maximum": 100, "title": f"Amount {i}"},
    "integer": lambda i: {"type": "integer", "minimum": 1, "title": f"Count {i}"},
    "boolean": lambda i: {"type": "boolean", "title": f"Flag {i}"},
    "enum": lambda i: {"type": "string", "enum": OPTIONS, "title": f"Colour {i}"},
    "titled oneOf": lambda i: {"type": "string", "title": f"Plan {i}", "oneOf": [
        {"const": c, "title": c.title()} for c in OPTIONS]},
    "legacy enumNames": lambda i: {"type": "string", "enum": OPTIONS, "title": f"Size {i}",
                                   "enumNames": [c.title() for c in OPTIONS]},
    "multi-select untitled": lambda i: {"type": "array", "title": f"Picks {i}",
                                        "items": {"type": "string", "enum": OPTIONS}},
    "multi-select titled": lambda i: {"type": "array", "title": f"Days {i}", "items": {
        "anyOf": [{"const": c, "title": c.title()} for c in OPTIONS]}},
}


def make_schema(kind: str, n: int) -> dict:
    """``n`` fields of one kind; every second one required (booleans stay optional)."""
    props = {f"f{i}": KINDS[kind](i) for i in range(n)}
    required = [] if kind == "boolean" else [f"f{i}" for i in range(0, n, 2)]
    return {"type": "object", "properties": props, "required": required}


# ---------------------------------------------------------------------------------- build


def build(sizes: list[int], kinds: list[str], reps_small: int, reps_large: int,
          lifted: bool) -> list[dict]:
    """Time parse_schema and ElicitationForm for ``sizes`` string fields and 20 fields of each
    of ``kinds``, next to one bare ipywidgets Text per field (median of several builds, ms)."""
    import ipywidgets

    import nb_elicit
    from nb_elicit import ElicitationForm, SchemaError

    schema_module = nb_module("nb_elicit._core.schema.fields", "nb_elicit._schema")

    @contextlib.contextmanager
    def no_limit():
        old = getattr(schema_module, "MAX_PROPERTIES", None)
        if old is not None:
            schema_module.MAX_PROPERTIES = 10**6
        try:
            yield
        finally:
            if old is not None:
                schema_module.MAX_PROPERTIES = old

    def once(make):
        gc.collect()
        t0 = time.perf_counter()
        make()
        elapsed = time.perf_counter() - t0
        ipywidgets.Widget.close_all()
        return elapsed * 1000

    def measure(make, reps):
        once(make)  # warm-up
        return statistics.median(once(make) for _ in range(reps))

    def floor(n):
        return ipywidgets.VBox([ipywidgets.Text(description=f"Text {i}") for i in range(n)])

    rows = []
    for kind, n in [("string", s) for s in sizes] + [(k, 20) for k in kinds]:
        schema = make_schema(kind, n)
        reps = reps_large if n > 50 else reps_small
        refused = None
        try:
            nb_elicit.parse_schema(schema)
        except SchemaError as error:
            refused = str(error)
        if refused and not lifted:
            rows.append({"kind": kind, "n": n, "refused": refused})
            continue
        with no_limit() if refused else contextlib.nullcontext():
            parse = measure(partial(nb_elicit.parse_schema, schema), reps)
            form = measure(partial(ElicitationForm, "Benchmark", schema, server="bench"), reps)
            ElicitationForm("Benchmark", schema, server="bench")
            count = len(ipywidgets.Widget.widgets)
            ipywidgets.Widget.close_all()
        rows.append({"kind": kind, "n": n, "parse": parse, "form": form, "widgets": count,
                     "floor": measure(partial(floor, n), reps) if kind == "string" else None,
                     "refused": refused})
    return rows


def _new_models(before: set) -> list:
    import ipywidgets

    return [m for k, m in list(ipywidgets.Widget.widgets.items()) if k not in before]


def _by_type(models: list) -> dict[str, int]:
    return dict(collections.Counter(type(m).__name__ for m in models).most_common())


def _shared_models() -> list:
    """The layout and style models every prompt of the kernel shares (made once, never closed
    with a form; nb_elicit marks them), if this nb_elicit has any."""
    import ipywidgets

    try:  # (an older nb_elicit shares none, or keeps its controls elsewhere)
        is_shared = nb_module("nb_elicit._ui.kit").is_shared
    except (ImportError, AttributeError):
        return []
    return [m for m in list(ipywidgets.Widget.widgets.values()) if is_shared(m)]


def form_models(sizes: list[int], settle: float = 0.0) -> list[dict]:
    """For ``sizes`` string fields: the widget models one ElicitationForm makes (live models
    after the build minus before), the inputs it asks for (one per field), and whether the live
    models are back to what they were once the form is closed as nb_elicit closes one
    (``close_tree``: the form, everything inside it, their layouts and styles). One form of
    one field is built and closed first (imports, caches). ``settle``: seconds to wait after
    each close (in a kernel, for the output thread to send the comm_close messages)."""
    import ipywidgets

    from nb_elicit import ElicitationForm

    try:
        close_tree = nb_module("nb_elicit._ui.closing").close_tree
    except ImportError:  # an older nb_elicit: the same walk
        def close_tree(widget):
            for child in getattr(widget, "children", ()):
                close_tree(child)
            for part in (getattr(widget, "layout", None), getattr(widget, "style", None),
                         widget):
                if isinstance(part, ipywidgets.Widget):
                    part.close()

    close_tree(ElicitationForm("Benchmark", make_schema("string", 1), server="bench"))
    rows = []
    for n in sizes:
        schema = make_schema("string", n)
        gc.collect()
        time.sleep(settle)
        baseline, before = len(ipywidgets.Widget.widgets), set(ipywidgets.Widget.widgets)
        form = ElicitationForm("Benchmark", schema, server="bench")
        made = _new_models(before)
        close_tree(form)
        del form
        gc.collect()
        time.sleep(settle)
        left = _new_models(before)
        rows.append({"n": n, "models": len(made), "inputs": len(schema["properties"]),
                     "by_type": _by_type(made), "shared": _by_type(_shared_models()),
                     "baseline": baseline,
                     "after": len(ipywidgets.Widget.widgets), "left": _by_type(left)})
        for model in left:  # (so that the next size starts from the same baseline)
            model.close()
    return rows


def peer_compare(sizes: list[int], reps: int, peer_path: str, peer_module: str,
                 peer_version: str, settle: float = 0.0) -> list[dict]:
    """nb_elicit's ElicitationForm next to ``peer_module``'s ``Form(schema).widget`` (the
    widget that shows its form; imported from ``peer_path``, which is on sys.path only
    meanwhile) for the same schemas of ``sizes``
    string fields: median build ms over ``reps`` builds each (after one warm-up build each;
    the two take turns, and which goes first alternates), and the widget models one build
    makes (live models after minus before). Every model a build made is closed after it."""
    import ipywidgets

    from nb_elicit import ElicitationForm

    sys.path.append(peer_path)
    try:
        peer = importlib.import_module(peer_module)
    finally:
        sys.path.remove(peer_path)
    where, got = getattr(peer, "__file__", "") or "", getattr(peer, "__version__", None)
    if not os.path.abspath(where).startswith(os.path.abspath(peer_path) + os.sep):
        raise RuntimeError(f"{peer_module} was imported from {where}, not from {peer_path}")
    if got != peer_version:
        raise RuntimeError(f"{peer_module} is version {got}, not {peer_version}")

    def once(make) -> tuple[float, list]:
        gc.collect()
        time.sleep(settle)
        before = set(ipywidgets.Widget.widgets)
        t0 = time.perf_counter()
        make()
        elapsed = (time.perf_counter() - t0) * 1000
        made = _new_models(before)
        for model in made:
            model.close()
        return elapsed, made

    rows = []
    for n in sizes:
        schema = make_schema("string", n)
        makers = {"ours": partial(ElicitationForm, "Benchmark", schema, server="bench"),
                  "peer": lambda schema=schema: peer.Form(schema).widget}
        times: dict[str, list[float]] = {"ours": [], "peer": []}
        counts: dict[str, set[int]] = {"ours": set(), "peer": set()}
        kinds: dict[str, dict[str, int]] = {}
        for make in makers.values():
            once(make)  # warm-up
        for i in range(reps):
            for name in (("ours", "peer") if i % 2 == 0 else ("peer", "ours")):
                elapsed, models = once(makers[name])
                times[name].append(elapsed)
                counts[name].add(len(models))
                kinds[name] = _by_type(models)
        row = {"n": n}
        for name in makers:
            row[name] = {"ms": statistics.median(times[name]), "models": max(counts[name]),
                         "models_vary": len(counts[name]) > 1, "by_type": kinds[name]}
        rows.append(row)
    return rows


def form_build_time(rounds: int = 31, kind: str = "name") -> dict:
    """The form of the latency rounds (the bench server's ``kind``), built but not shown:
    median ms (without the first build) and how many widget models one build makes."""
    import ipywidgets
    from bench_server import SCHEMAS

    from nb_elicit import ElicitationForm

    schema = SCHEMAS[kind]
    times, before, keep = [], len(ipywidgets.Widget.widgets), set(ipywidgets.Widget.widgets)
    count = 0
    for i in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        ElicitationForm("Benchmark question x", schema, server="conn")
        times.append((time.perf_counter() - t0) * 1000)
        if i == 0:
            count = len(ipywidgets.Widget.widgets) - before
        for model in [m for k, m in list(ipywidgets.Widget.widgets.items()) if k not in keep]:
            model.close()
        time.sleep(0.05)  # (the kernel's output thread sends the closes before the next build)
    return {"ms": statistics.median(times[1:]), "widgets": count}


# ---------------------------------------------------------------------------------- state


def stats() -> dict:
    """Live widget models (by kind, and which still hang off forms and call views), forms
    pending and history entries, after a gc.collect(); and the memory blocks Python holds."""
    import ipywidgets

    gc.collect()
    blocks = sys.getallocatedblocks()  # (first: before this function's own lists and sets)
    names = collections.Counter(type(w).__name__ for w in list(ipywidgets.Widget.widgets.values()))
    try:
        pending = len(nb_kept("pending", "nb_elicit._runtime.pending:PENDING",
                              "nb_elicit._pending:PENDING"))
    except Exception:  # noqa: BLE001 - reported as unknown
        pending = None
    try:
        history_ = nb_kept("history", "nb_elicit._core.records.history:HISTORY",
                           "nb_elicit._history:HISTORY")
        history = len(history_.entries) if hasattr(history_, "entries") else len(history_)
        history_limit = getattr(history_, "limit", None)
    except Exception:  # noqa: BLE001 - reported as unknown
        history = history_limit = None

    def reach(roots, seen):
        todo = list(roots)
        while todo:
            w = todo.pop()
            if id(w) in seen or not isinstance(w, ipywidgets.Widget):
                continue
            seen.add(id(w))
            todo += [getattr(w, "layout", None), getattr(w, "style", None)]
            todo += list(getattr(w, "children", None) or ())
        return seen

    live = list(ipywidgets.Widget.widgets.values())
    used = set()
    for w in live:
        used.update(id(x) for x in (getattr(w, "layout", None), getattr(w, "style", None)))
    shared = {id(w) for w in _shared_models()}
    orphans = sum(1 for w in live if id(w) not in used and id(w) not in shared
                  and (isinstance(w, ipywidgets.Layout) or type(w).__name__.endswith("Style")))
    in_forms = reach([w for w in live if type(w).__name__ == "ElicitationForm"], set())
    in_views = reach([w for w in live if type(w).__name__ == "CallView"], set(in_forms))
    return {"widgets": sum(names.values()), "forms": names.get("ElicitationForm", 0),
            "views": names.get("CallView", 0), "pending": pending,
            "in_forms": len(in_forms), "in_views": len(in_views) - len(in_forms),
            "orphans": orphans, "shared": len(shared), "history": history,
            "history_limit": history_limit,
            "blocks": blocks, "by_type": dict(names.most_common(12))}


def unlimited(names: list[str]) -> dict[str, str]:
    """Turn off the rate limit (how often a server may ask) of these connections, where
    connections have one: it would decline most of the hundreds of questions the benchmarks
    ask within seconds. Returns each connection's limit before, as text."""
    import nb_elicit

    before = {}
    for name in names:
        conn = nb_elicit.connections[name]
        if hasattr(type(conn), "rate_limit"):
            before[name] = str(conn.rate_limit)
            conn.rate_limit = None
    return before


# ---------------------------------------------------------------------------------- floor

_floor: dict[str, Any] = {}


async def start_floor(py: str, args: list[str]):
    """Start a plain SDK Client in the kernel, whose elicitation callback accepts at once;
    return it once it is connected (:func:`stop_floor` closes it)."""
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def accept(context, params):
        return types.ElicitResult(action="accept", content={})

    stop = asyncio.Event()

    async def run(ready):
        with open(os.devnull, "w") as errlog:
            params = StdioServerParameters(command=py, args=args)
            async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                              elicitation_callback=accept) as client:
                ready.set_result(client)
                await stop.wait()

    ready = asyncio.get_running_loop().create_future()
    _floor.update(stop=stop, task=asyncio.create_task(run(ready)))
    return await asyncio.wait_for(ready, 60)


async def stop_floor() -> None:
    _floor["stop"].set()
    await asyncio.wait_for(_floor.pop("task"), 10)


# ---------------------------------------------------------------------------------- a hook

_hook: dict[str, Any] = {}


def hook_open(py: str, args: list[str], env: dict[str, str] | None = None,
              timeout: float = 60.0) -> None:
    """The SDK's ``Client`` with ``nb_elicit.elicitation_callback``, on a thread and event loop
    of its own (as strands runs its sessions), connected over stdio to the server ``py args``;
    kept open until :func:`hook_close`. Its calls come through :func:`hook_call`."""
    import concurrent.futures
    import threading

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    import nb_elicit

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="hook-session", daemon=True)
    thread.start()
    ready: concurrent.futures.Future = concurrent.futures.Future()

    async def run() -> None:
        stop = asyncio.Event()
        try:
            with open(os.devnull, "w") as errlog:
                params = StdioServerParameters(command=py, args=args, env=env)
                async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                                  elicitation_callback=nb_elicit.elicitation_callback) as client:
                    ready.set_result((client, stop))
                    await stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            raise

    task = asyncio.run_coroutine_threadsafe(run(), loop)
    client, stop = ready.result(timeout)
    _hook.update(loop=loop, thread=thread, client=client, stop=stop, task=task)


def hook_call(tag: str, kind: str = "name", resolve: Callable[[Any], Any] | None = None,
              timeout: float = 60.0):
    """The bench server's ``ask(tag, kind)`` through :func:`hook_open`'s client, from a new
    thread that hands the call to the session's loop and waits for it; returns that thread,
    started. Its ``result`` is then the tool's text (the action the server received) or the
    error; ``resolve(result)``, if given, is called with it on that thread as it ends."""
    import threading

    def run() -> None:
        try:
            called = asyncio.run_coroutine_threadsafe(
                _hook["client"].call_tool("ask", {"tag": tag, "kind": kind}), _hook["loop"])
            thread.result = called.result(timeout).content[0].text
        except BaseException as error:  # noqa: BLE001 - handed to the cell
            thread.result = error
        if resolve is not None:
            resolve(thread.result)

    thread = threading.Thread(target=run, name=f"hook-call-{tag}", daemon=True)
    thread.result = None
    thread.start()
    return thread


def hook_close(timeout: float = 10.0) -> None:
    """Close :func:`hook_open`'s client (and so stop its server) and end its thread."""
    if not _hook:
        return
    loop = _hook["loop"]
    loop.call_soon_threadsafe(_hook["stop"].set)
    with contextlib.suppress(Exception):
        _hook["task"].result(timeout)
    loop.call_soon_threadsafe(loop.stop)
    _hook["thread"].join(timeout)
    _hook.clear()


def install_hook_stamps() -> list[str]:
    """Note the Unix time at the points of a hook's request from now on (the held section's
    breakdown): the hook entered and returned, its look at what the kernel's thread runs and
    its probe of the kernel's loop (each begun, done; the look only in revisions that have it),
    the request handed to nb_elicit's subshell, the answering begun on its loop (the kernel's
    or the subshell's), the form's build (begun, done), the form attached to its view, and a
    button click's handler (begun, done). Returns the points it could hook."""
    import functools

    import ipywidgets

    import nb_elicit

    hooks = nb_module("nb_elicit._runtime.hooks")
    view = nb_module("nb_elicit._ui.call_view", "nb_elicit._call_view")
    try:
        side_shell = nb_module("nb_elicit._runtime.side_shell")
    except ImportError:  # (a revision before the held kernel's subshell)
        side_shell = None

    def hook(owner, attr: str, name: str, done: bool = True) -> bool:
        original = getattr(owner, attr, None) if owner is not None else None
        if original is None:
            return False
        if asyncio.iscoroutinefunction(original):
            async def wrapper(*args, **kwargs):
                _stamps.append((name + ">", time.time()))
                try:
                    return await original(*args, **kwargs)
                finally:
                    if done:
                        _stamps.append((name + "<", time.time()))
        else:
            def wrapper(*args, **kwargs):
                _stamps.append((name + ">", time.time()))
                try:
                    return original(*args, **kwargs)
                finally:
                    if done:
                        _stamps.append((name + "<", time.time()))
        setattr(owner, attr, functools.wraps(original)(wrapper))
        return True

    hooked = {"hook": hook(hooks.ElicitationHook, "answer", "hook"),
              "look": hook(hooks, "_held_by_the_cell", "look"),
              "probe": hook(hooks, "_loop_takes_calls", "probe"),
              "side": hook(getattr(side_shell, "SideShell", None), "run", "side", done=False),
              "cell": hook(hooks, "_ask_in_cell", "cell"),
              "build": hook(nb_elicit.ElicitationForm, "__init__", "build"),
              "attach": hook(view.CallView, "add_form", "attach", done=False),
              "click": hook(ipywidgets.Button, "_handle_button_msg", "click")}
    return [name for name, ok in hooked.items() if ok]


# ---------------------------------------------------------------------------------- startup

_clock: list[float] = []


def tick() -> None:
    """Start the clock (the next line of the cell is the one measured)."""
    _clock[:] = [time.perf_counter()]


def lap(name: str) -> dict:
    """Seconds since :func:`tick`, and whether the SDK, ipywidgets and jsonschema are imported
    by now."""
    return {name: time.perf_counter() - _clock[0], "sdk": "mcp" in sys.modules,
            "widgets": "ipywidgets" in sys.modules, "jsonschema": "jsonschema" in sys.modules}


_wall: list[float] = []


def wall_tick() -> None:
    """Start a wall clock (Unix time), to compare with message header dates."""
    _wall[:] = [time.time()]


def wall_lap() -> float:
    """Seconds since :func:`wall_tick`."""
    return time.time() - _wall[0]


# ---------------------------------------------------------------------------------- stamps

_stamps: list[tuple[str, float]] = []


def install_stamps() -> list[str]:
    """Note the Unix time at a few points of every elicitation from now on (the latency
    section's breakdown): nb_elicit's request handler (entered, returned), the form's build
    (begun, done), the form attached to its cell, and a button click's handler (begun, done).
    Returns the points it could hook (module paths move between revisions)."""
    import functools

    def hook(owner, attr: str, name: str, done: bool = True) -> bool:
        original = getattr(owner, attr, None)
        if original is None:
            return False
        if asyncio.iscoroutinefunction(original):
            async def wrapper(*args, **kwargs):
                _stamps.append((name + ">", time.time()))
                try:
                    return await original(*args, **kwargs)
                finally:
                    _stamps.append((name + "<", time.time()))
        else:
            def wrapper(*args, **kwargs):
                _stamps.append((name + ">", time.time()))
                try:
                    return original(*args, **kwargs)
                finally:
                    if done:
                        _stamps.append((name + "<", time.time()))
        setattr(owner, attr, functools.wraps(original)(wrapper))
        return True

    import ipywidgets

    import nb_elicit

    # (the module whose ``ask`` a server's request goes through: the call runner's, or, in
    # revisions before it, the connection's)
    asking = nb_module("nb_elicit._runtime.runner", "nb_elicit._runtime.connection",
                       "nb_elicit._connection")
    view = nb_module("nb_elicit._ui.call_view", "nb_elicit._call_view")
    hooked = {"ask": hook(asking, "ask", "ask"),
              "build": hook(nb_elicit.ElicitationForm, "__init__", "build"),
              "attach": hook(view.CallView, "add_form", "attach", done=False),
              "click": hook(ipywidgets.Button, "_handle_button_msg", "click")}
    return [name for name, ok in hooked.items() if ok]


def take_stamps() -> list[tuple[str, float]]:
    """The stamps noted since the last call (and forget them)."""
    taken = list(_stamps)
    _stamps.clear()
    return taken


# ---------------------------------------------------------------------------------- profile

#: Where a profiled function's own time goes: the first group whose path part is in its file.
PROFILE_GROUPS = [
    ("nb_elicit", ("/nb_elicit/",)),
    ("ipywidgets and traitlets: making widget models",
     ("/ipywidgets/", "/traitlets/")),
    ("sending widget messages: comm, session (JSON, signing), zmq",
     ("/comm/", "/jupyter_client/", "/zmq/", "/json/", "/hmac.py", "ipykernel/iostream.py",
      "ipykernel/comm/", "/uuid.py", "/datetime.py")),
    ("ipykernel and IPython: receiving messages, running cells",
     ("/ipykernel/", "/IPython/")),
    ("the SDK and its transport: mcp, anyio, pydantic",
     ("/mcp/", "/anyio/", "/pydantic", "/httpx", "/httpcore", "/h11/")),
    ("the event loop: asyncio, selectors, tornado",
     ("/asyncio/", "/selectors.py", "/tornado/")),
]
OTHER_GROUP = "other (the standard library, the benchmark's own cells)"
#: Functions whose time with what they call the profile reports: what -> (file ends, name).
PROFILE_INSIDE = {
    "ElicitationForm.__init__": ("nb_elicit/_ui/form.py", "__init__"),
    "Widget.open (comm_open of every model made)": ("ipywidgets/widgets/widget.py", "open"),
    "Session.send (every message the main thread sent)": ("jupyter_client/session.py", "send"),
}

_profile: list = []


def profile_start() -> None:
    """Profile the kernel's main thread (where cells, widget messages and the SDK all run), by
    CPU time of that thread: time it spends idle, waiting for the frontend or the server, is not
    counted."""
    import cProfile

    profiler = cProfile.Profile(time.thread_time)
    _profile[:] = [profiler]
    profiler.enable()


def _group(filename: str) -> str:
    path = filename.replace("\\", "/")
    for name, parts in PROFILE_GROUPS:
        if any(part in path for part in parts):
            return name
    return OTHER_GROUP


def profile_stop(per: int, top: int = 12) -> dict:
    """Stop :func:`profile_start`'s profiler; its time per round (``per`` rounds), by group
    (a built-in function's time goes to the groups of its callers, as they called it), the
    functions with the most time of their own, and the time inside a few functions that say
    what a form costs."""
    import pstats

    profiler = _profile.pop()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    groups: dict[str, float] = collections.defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tt, _ct, callers) in stats.items():
        if filename == "~" and callers:
            shares = {caller: c[2] for caller, c in callers.items()}
            whole = sum(shares.values()) or 1.0
            for caller, share in shares.items():
                groups[_group(caller[0])] += tt * share / whole
        else:
            groups[_group(filename)] += tt
    total = sum(groups.values())

    def label(key) -> str:
        filename, line, name = key
        if filename == "~":
            return name
        parts = filename.replace("\\", "/").split("/")
        for anchor in ("site-packages", "nb_elicit", "lib"):
            if anchor in parts:
                at = len(parts) - 1 - parts[::-1].index(anchor)
                parts = parts[at + (anchor != "nb_elicit"):]
                break
        return f"{'/'.join(parts)}:{line} {name}"

    ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    inside = {}
    for (filename, _line, name), (_cc, nc, _tt, ct, _callers) in stats.items():
        path = filename.replace("\\", "/")
        for what, (ends, func) in PROFILE_INSIDE.items():
            if path.endswith(ends) and name == func:
                ms_, calls = inside.get(what, (0.0, 0))
                inside[what] = (ms_ + ct * 1000 / per, calls + nc / per)
    return {
        "total_ms": total * 1000 / per,
        "groups": sorted(([name, ms_ * 1000 / per] for name, ms_ in groups.items()),
                         key=lambda row: row[1], reverse=True),
        "top": [[label(key), tt * 1000 / per, ct * 1000 / per, nc / per]
                for key, (_cc, nc, tt, ct, _callers) in ranked],
        "inside": {what: list(value) for what, value in inside.items()},
    }


_callbacks: dict = {}


def _callback_name(handle) -> str:
    """What an event-loop callback runs: a task's coroutine, or the function's name."""
    callback = getattr(handle, "_callback", None)
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {getattr(coro, '__qualname__', type(coro).__name__)}"
    target = getattr(callback, "func", callback)  # functools.partial
    return getattr(target, "__qualname__", None) or type(target).__name__


def callbacks_start(over_ms: float = 5.0) -> None:
    """Time every callback the kernel's event loop runs from now on (each one holds the loop:
    nothing else, a cell included, runs until it returns); keep those over ``over_ms``."""
    from asyncio import events

    original = events.Handle._run
    kept: list = []

    def timed(handle):
        started = time.perf_counter()
        try:
            return original(handle)
        finally:
            took = (time.perf_counter() - started) * 1000
            record["count"] += 1
            record["ms"] += took
            if took > over_ms:
                kept.append((took, _callback_name(handle)))

    record = {"count": 0, "ms": 0.0}
    _callbacks.update(original=original, kept=kept, record=record, over=over_ms)
    events.Handle._run = timed


def callbacks_stop(top: int = 8) -> dict:
    """Stop :func:`callbacks_start`: how many callbacks ran, the time in them, and the longest
    ones (ms, what each ran), with the count and time of all kept by what they ran."""
    from asyncio import events

    events.Handle._run = _callbacks.pop("original")
    kept, record = _callbacks.pop("kept"), _callbacks.pop("record")
    by_name: dict[str, list] = {}
    for took, name in kept:
        entry = by_name.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += took
        entry[2] = max(entry[2], took)
    return {"count": record["count"], "ms": record["ms"], "over": _callbacks.pop("over"),
            "longest": sorted(kept, reverse=True)[:top],
            "by_name": sorted(([name, *v] for name, v in by_name.items()),
                              key=lambda row: row[2], reverse=True)[:top]}


# ---------------------------------------------------------------------------------- end


async def close_connections() -> None:
    """Close every nb_elicit connection of this kernel (and so stop its servers)."""
    import nb_elicit

    for conn in list(nb_elicit.connections.values()):
        await conn.close()
