"""7. Start-up: %load_ext nb_elicit and the first %mcp connect in fresh kernels. Floors: for
%load_ext, ``import ipywidgets`` in a fresh kernel of its own (one each, taking turns with
nb_elicit's at going first); for the connect, a fresh Python that imports the SDK and connects
a plain Client to the demo server."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from ..common import HERE, PY, REPO, BenchError, Section, Target, log, median, ms
from ..harness import Kernel

TITLE = "7. Start-up"

#: ``%load_ext nb_elicit`` in a fresh kernel may take this many times ``import ipywidgets`` in
#: another fresh kernel (the first thing a notebook of bare widgets pays). %load_ext imports
#: ipywidgets too (it tells the frontend to render widgets), registers the magic, its hooks
#: and the kernel's state, and starts importing the SDK in the background. (The absolute
#: target this replaces, 300 ms, was about 4x that floor: 72 ms in a quick run on a loaded
#: 2-core machine.)
LOAD_SHARE = 4.0


def fresh_python(opts, call: str) -> dict:
    """Run ``fresh_python.<call>`` in a fresh Python; the JSON it printed. It runs in the
    directory of the nb_elicit measured, so that it (and the demo server) import that one."""
    code = f"import sys; sys.path.append({str(HERE)!r}); import fresh_python; fresh_python.{call}"
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=opts.nb_elicit or REPO)
    if proc.returncode != 0:
        raise BenchError(f"{call} failed in a fresh Python: {proc.stderr[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def widgets_floor(opts) -> float:
    """The floor of %load_ext: ms to ``import ipywidgets`` in a fresh kernel (what a notebook
    of bare widgets pays first), timed as %load_ext is."""
    with Kernel(opts, check=False) as kernel:
        kernel.run("import in_kernel as _bench")
        out = kernel.json("_bench.tick()\nimport ipywidgets\n_bench.emit(_bench.lap('floor'))")
    if out["widgets"] is not True:
        raise BenchError("ipywidgets was not imported by the floor's cell")
    return out["floor"] * 1000


def run(opts, sec: Section) -> None:
    kernels = opts.kernels or (2 if opts.quick else 5)
    loads, connects, imported, after_connect, widget_imports = [], [], [], [], []
    env = f" --env PYTHONPATH={shlex.quote(opts.nb_elicit)}" if opts.nb_elicit else ""
    for k in range(kernels):
        log(f"  startup: fresh kernel {k + 1}/{kernels}, and a fresh kernel for the floor "
            f"({'after' if k % 2 == 0 else 'before'} it)")
        if k % 2:
            widget_imports.append(widgets_floor(opts))
        with Kernel(opts, check=False) as kernel:
            kernel.run("import in_kernel as _bench")  # nothing of nb_elicit yet
            out = kernel.json("_bench.tick()\n"
                              "%load_ext nb_elicit\n"
                              "_bench.emit(_bench.lap('load'))")
            loads.append(out["load"] * 1000)
            imported.append(out)
            out = kernel.json("_bench.tick()\n"
                              f"%mcp connect demo{env} -- {shlex.quote(PY)} -m nb_elicit.demo\n"
                              "_bench.emit(_bench.lap('connect'))", timeout=120)
            connects.append(out["connect"] * 1000)
            after_connect.append(out)
            kernel.check_code()
        if k % 2 == 0:
            widget_imports.append(widgets_floor(opts))
    floor_imports, floor_connects = [], []
    for _ in range(kernels):
        out = fresh_python(opts, "floor_connect()")
        floor_imports.append(out["import"] * 1000)
        floor_connects.append(out["connect"] * 1000)
    layered = (Path(opts.nb_elicit or REPO) / "nb_elicit" / "_runtime").is_dir()
    connection = "nb_elicit._runtime.connection" if layered else "nb_elicit._connection"
    steps: dict[str, list[float]] = {}
    for _ in range(1 if opts.quick else kernels):  # (information only: one in quick mode)
        for name, value in fresh_python(opts, f"imports({connection!r})").items():
            steps.setdefault(name, []).append(value)
    floor_total = [a + b for a, b in zip(floor_imports, floor_connects, strict=True)]
    sec.table(f"Fresh kernels: {kernels} (median, max)", ["step", "median", "max"],
              [["%load_ext nb_elicit", ms(median(loads), 0), ms(max(loads), 0)],
               ["floor: `import ipywidgets` in a fresh kernel", ms(median(widget_imports), 0),
                ms(max(widget_imports), 0)],
               ["first %mcp connect demo (imports the SDK, starts the server, handshake)",
                ms(median(connects), 0), ms(max(connects), 0)],
               ["floor: fresh Python, import mcp", ms(median(floor_imports), 0),
                ms(max(floor_imports), 0)],
               ["floor: then a plain Client connects to the demo server",
                ms(median(floor_connects), 0), ms(max(floor_connects), 0)],
               ["floor: import + connect", ms(median(floor_total), 0), "-"]])
    sec.table("What the first connect imports, then jsonschema (which neither the first form "
              "nor a Submit imports any more): a fresh Python imports "
              f"these one after the other (median of {len(next(iter(steps.values())))})",
              ["import", "time"],
              [[f"`{name}`" + (" (the rest of nb_elicit)" if name.startswith("nb_") else
                               " (only for values no form control makes)" if name == "jsonschema"
                               else ""),
                ms(1000 * median(values), 0)]
               for name, values in steps.items() if name != "rfc3987_syntax"])
    if steps.get("rfc3987_syntax", [False])[0]:
        sec.notes.append(
            "`import jsonschema` also imports `rfc3987_syntax` when it is installed (it comes "
            "with `jsonschema[format-nongpl]`, which jupyter-events, and so every Jupyter "
            "server install, requires), and that module builds a grammar when imported.")
    first = imported[0]
    sec.notes.append(f"After %load_ext: the SDK imported: {first['sdk']}; ipywidgets imported: "
                     f"{first['widgets']}; jsonschema imported: {first['jsonschema']}.")
    late = sum(out["jsonschema"] for out in after_connect)
    sec.notes.append(f"After the first %mcp connect, jsonschema was imported (or being imported) "
                     f"in {late} of {kernels} kernels.")
    sec.targets.append(load_target(loads, widget_imports))
    connect, sdk = median(connects), median(floor_total)
    sec.targets.append(Target("First %mcp connect to the demo server, next to the SDK floor "
                              "(a fresh Python: import mcp, connect)", "(info)",
                              f"{connect / sdk:.2f}x ({ms(connect, 0)} vs {ms(sdk, 0)})", None))


def load_target(loads: list[float], floors: list[float]) -> Target:
    """%load_ext's median ms next to the floor's (``import ipywidgets`` in the same kernels):
    the ratio and both times."""
    load, floor = median(loads), median(floors)
    ratio = load / floor if floor else float("inf")
    return Target(
        "%load_ext nb_elicit in a fresh kernel, next to `import ipywidgets` in another",
        f"<= {LOAD_SHARE:g}x the floor", f"{ratio:.2f}x ({ms(load, 0)} vs {ms(floor, 0)})",
        ratio <= LOAD_SHARE, ms(load - LOAD_SHARE * floor, 0) if ratio > LOAD_SHARE else None)
