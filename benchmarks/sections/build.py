"""1. Form build: ElicitationForm for 1 to 200 string fields and 20 fields of each kind,
without a kernel and in one, next to one bare ipywidgets control per field; next to
ipywidgets-jsonschema's Form for the same schemas; and the widget models one form makes, and
whether closing it gives them all back."""

from __future__ import annotations

import statistics

from .. import in_kernel, peers
from ..common import BenchError, Section, Target, log, ms
from ..harness import Kernel

TITLE = "1. Form build"
SIZES = [1, 10, 50, 200]
#: The sizes (string fields) built next to ipywidgets-jsonschema, and counted model by model.
COMPARED = [1, 10, 50]
#: Targets next to ipywidgets-jsonschema: nb_elicit's build time and widget models at most
#: these shares of its.
TIME_SHARE = 0.4
MODELS_SHARE = 0.3
#: A form of 200 string fields builds in at most this many times bare ipywidgets' time for
#: the same fields (one Text each, built in the same run).
LARGE_SHARE = 1.0
#: Widget models a form may make beyond one per input (the same number at every size).
FIXED_MODELS = 12
#: In quick mode, builds of 20 fields of each kind (after a warm-up build).
QUICK_KIND_BUILDS = 1
#: Seconds to wait after closing models in a kernel, for its output thread to send them.
SETTLE = 0.05


def run(opts, sec: Section) -> None:
    import ipywidgets

    reps_small, reps_large = (3, 2) if opts.quick else (15, 7)
    # (the forms of each kind give a table and no target: one build each after a warm-up is
    # enough for quick mode, where they were a third of the builds without a kernel)
    reps_kinds = QUICK_KIND_BUILDS if opts.quick else reps_small
    peer_error, peer_path = None, None
    try:
        peer_path = str(peers.ensure_peer())
    except BenchError as error:
        peer_error = error
        log(f"  build: no comparison: {error}")
    ipywidgets.Widget.close_all()
    log("  build: widget models per form, no kernel")
    models = in_kernel.form_models(COMPARED)
    compared = None
    if peer_path:
        log(f"  build: next to {peers.PEER} {peers.PEER_VERSION}, no kernel, "
            f"{reps_small} builds each")
        compared = in_kernel.peer_compare(COMPARED, reps_small, peer_path, peers.PEER_MODULE,
                                          peers.PEER_VERSION)
    log(f"  build: no kernel, {reps_small}/{reps_large} builds per size, {reps_kinds} of 20 "
        "fields of each kind")
    rows = in_kernel.build(SIZES, [], reps_small, reps_large, True)
    rows += in_kernel.build([], list(in_kernel.KINDS), reps_kinds, reps_kinds, True)

    in_kernel_rows = kernel_models = kernel_compared = None
    if not opts.no_kernel_build:
        log("  build: the same inside a kernel")
        with Kernel(opts) as kernel:
            kernel_models = kernel.call("form_models", COMPARED, SETTLE, timeout=600)
            if peer_path:
                kernel_compared = kernel.call("peer_compare", COMPARED, reps_small, peer_path,
                                              peers.PEER_MODULE, peers.PEER_VERSION, SETTLE,
                                              timeout=600)
            in_kernel_rows = kernel.call("build", SIZES, [], reps_small, reps_large, True,
                                         timeout=600)
    report(sec, rows, in_kernel_rows)
    report_models(sec, models, kernel_models)
    if compared:
        report_peer(sec, compared, kernel_compared, peers.requirements_here(peer_path))
    if peer_error:
        raise peer_error


def report(sec: Section, rows: list[dict], in_kernel_rows: list[dict] | None) -> None:
    limited = [r for r in rows if r["refused"]]
    string_rows = [r for r in rows if r["kind"] == "string" and r["n"] in SIZES]
    kernel_by_n = {r["n"]: r for r in in_kernel_rows or []}
    table = []
    for r in string_rows:
        k = kernel_by_n.get(r["n"])
        table.append([r["n"], r["widgets"], ms(r["parse"], 2), ms(r["form"]),
                      f"{r['form'] / r['n']:.2f}", ms(r["floor"]),
                      f"{r['form'] / r['floor']:.1f}x", ms(k["form"]) if k else "-",
                      ms(k["floor"]) if k else "-"])
    sec.table("String fields (median of several builds; 'in a kernel' also sends every widget's"
              " comm_open)",
              ["fields", "widgets", "parse_schema", "ElicitationForm", "ms / field",
               "floor: bare Text per field", "form / floor", "form, in a kernel",
               "floor, in a kernel"], table)
    kinds_table = [[r["kind"], r["widgets"], ms(r["form"]), f"{r['form'] / r['n']:.2f}"]
                   for r in rows if r["n"] == 20]
    sec.table("20 fields of each kind (in quick mode one build each, after a warm-up)",
              ["kind", "widgets", "ElicitationForm", "ms / field"], kinds_table)

    # Linearity: a least-squares line through (fields, ms), and ms/field at 200 vs 50.
    xs = [r["n"] for r in string_rows]
    ys = [r["form"] for r in string_rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
             / sum((x - mx) ** 2 for x in xs))
    intercept = my - slope * mx
    ss_res = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    ss_tot = sum((y - my) ** 2 for y in ys) or 1.0
    by_n = {r["n"]: r for r in string_rows}
    sec.notes.append(
        f"Growth is linear: a straight line through (fields, ms) gives {slope:.2f} ms per field"
        f" + {intercept:.1f} ms fixed (R² = {1 - ss_res / ss_tot:.4f}); ms per field is "
        f"{by_n[200]['form'] / 200:.2f} at 200 fields and {by_n[50]['form'] / 50:.2f} at 50.")
    if limited:
        first = limited[0]["refused"]
        sec.notes.append(
            f"nb_elicit refuses a form of {', '.join(str(r['n']) for r in limited)} fields "
            f"({first}); those builds were measured with that limit lifted for the benchmark, "
            "to show the cost curve. A server that sends such a schema gets an error, no form.")
    sec.targets.append(floor_target("Form build, 200 string fields (no kernel)", by_n[200],
                                    LARGE_SHARE))
    if kernel_by_n.get(200):
        sec.targets.append(floor_target("Form build, 200 string fields, in a kernel",
                                        kernel_by_n[200], None))


def floor_target(what: str, row: dict, limit: float | None) -> Target:
    """A form's build time next to the floor's (one bare Text per field, built in the same
    run): the ratio, both times; a target of at most ``limit`` times the floor (None: info)."""
    form, floor = row["form"], row["floor"]
    ratio = form / floor if floor else float("inf")
    measured = f"{ratio:.2f}x ({ms(form)} vs {ms(floor)}, bare Text per field)"
    if limit is None:
        return Target(what, "(info)", measured, None)
    return Target(what, f"<= {limit:g}x bare ipywidgets", measured, ratio <= limit,
                  ms(form - limit * floor) if ratio > limit else None)


def by_type(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "none"


def report_models(sec: Section, rows: list[dict], kernel_rows: list[dict] | None) -> None:
    """Widget models per form: models, inputs and the rest for each size, and whether the live
    models went back to the baseline once each form was closed (without a kernel and in one)."""
    kernel_by_n = {r["n"]: r for r in kernel_rows or []}
    table = []
    for r in rows:
        k = kernel_by_n.get(r["n"])
        table.append([r["n"], r["models"], r["inputs"], r["models"] - r["inputs"],
                      f"{r['baseline']} -> {r['after']}",
                      f"{k['baseline']} -> {k['after']}" if k else "-", by_type(r["by_type"])])
    sec.table("Widget models per form (string fields)",
              ["fields", "models", "inputs", "models - inputs", "live models before -> after"
               " close, no kernel", "the same, in a kernel", "models by type"], table)
    counts = {r["n"]: (r["models"], r["inputs"]) for r in rows}
    sec.targets += peers.constant_overhead_targets(counts, FIXED_MODELS)
    kernel_counts = {r["n"]: (r["models"], r["inputs"]) for r in kernel_rows or []}
    if kernel_rows and kernel_counts != counts:
        sec.targets += peers.constant_overhead_targets(kernel_counts, FIXED_MODELS,
                                                       ", in a kernel")
    for where, group in (("", rows), (", in a kernel", kernel_rows or [])):
        for r in group:
            left = r["after"] - r["baseline"]
            measured = f"{r['baseline']} before, {r['after']} after"
            if r["left"]:
                measured += f" (left: {by_type(r['left'])})"
            sec.targets.append(Target(
                f"Live widget models after a form of {r['n']} string field"
                f"{'s' if r['n'] != 1 else ''} is closed{where}", "back to the baseline",
                measured, left == 0, f"{left} models" if left else None))
    shared = next((r.get("shared") for r in rows if r.get("shared")), None)
    if shared:
        sec.notes.append(
            f"Besides these, the forms of a kernel share {sum(shared.values())} layout and style "
            f"models ({by_type(shared)}): made by the first prompt, never closed with a form, "
            "and so counted in no form's models (nor in the baseline's change).")
    same = ("the same in a kernel" if kernel_counts == counts
            else f"in a kernel: {', '.join(f'{n}: {m}' for n, (m, _) in kernel_counts.items())}")
    sec.notes.append(
        "Widget models per form: one ElicitationForm('Benchmark', schema, server='bench') for "
        "each schema of in_kernel.make_schema('string', n); models = len(Widget.widgets) after "
        "the build minus before it (every model the build made: widgets, layouts, styles), "
        "inputs = the fields the schema asks for (one text input each), models - inputs = what "
        "the form makes besides one model per input. Then the form is closed as nb_elicit "
        "closes one (close_tree: the form, everything inside it, their layouts and styles) and "
        "len(Widget.widgets) is read again after a gc.collect(); 'left' names the models still "
        "live. A form of one field is built and closed first (imports). "
        f"Counts {same if kernel_rows else '(not measured in a kernel)'}.")


def report_peer(sec: Section, rows: list[dict], kernel_rows: list[dict] | None,
                requirements: list[str]) -> None:
    """nb_elicit next to the peer library: a table with both, ratios, and the targets."""
    peer = f"{peers.PEER} {peers.PEER_VERSION}"
    table = []
    for where, group in (("no kernel", rows), ("in a kernel", kernel_rows or [])):
        for r in group:
            ours, theirs = r["ours"], r["peer"]
            table.append([r["n"], where, ms(ours["ms"]), ms(theirs["ms"]),
                          f"{ours['ms'] / theirs['ms']:.2f}x", ours["models"],
                          theirs["models"], f"{ours['models'] / theirs['models']:.2f}x"])
            suffix = f", {r['n']} string field{'s' if r['n'] != 1 else ''}" + (
                ", in a kernel" if where == "in a kernel" else "")
            sec.targets.append(peers.ratio_target(
                f"Build time next to {peers.PEER}{suffix}", ours["ms"], theirs["ms"],
                TIME_SHARE, "ms", 2))
            sec.targets.append(peers.ratio_target(
                f"Widget models next to {peers.PEER}{suffix}", ours["models"],
                theirs["models"], MODELS_SHARE, "models", 0))
    sec.table(f"nb_elicit next to {peer}, the same schemas (median build; models one build "
              "makes)", ["fields", "where", "nb_elicit", peers.PEER, "time: nb_elicit / "
                         "peer", "nb_elicit models", f"{peers.PEER} models",
                         "models: nb_elicit / peer"], table)
    vary = [f"{r['n']} fields ({name})" for r in rows + (kernel_rows or [])
            for name in ("ours", "peer") if r[name]["models_vary"]]
    samples = [r for r in rows if r["n"] in (1, 10)] or rows[-1:]
    sec.notes.append(
        f"Next to {peer} (from PyPI, installed for the benchmark alone with `pip install "
        f"--no-deps --target .cache/bench-peers/...`, on sys.path only while it is compared; "
        f"its requirements came from this environment: {', '.join(requirements)}): for each "
        "schema of in_kernel.make_schema('string', n) (n string fields with titles, every "
        "second one required), ElicitationForm('Benchmark', schema, server='bench') and "
        f"{peers.PEER_MODULE}.Form(schema).widget with its default options (Form builds the "
        "fields; .widget puts them in the VBox that shows them, as ElicitationForm is the "
        "widget that shows nb_elicit's form: two models more). One warm-up build each, "
        "then the two take turns (which goes first alternates), each build timed alone after "
        "a gc.collect(); the median is shown. The time is the whole constructor: nb_elicit's "
        "includes parse_schema, the peer's its Draft7Validator.check_schema. Models = "
        "len(Widget.widgets) after a build minus before it; after each build every model it "
        "made was closed, so each build starts from the same live models. In a kernel each "
        "model also sends its comm_open during the build (in the time), and after each close "
        f"the kernel waits {SETTLE * 1000:.0f} ms for the comm_close messages to go out.")
    sec.notes.append(
        "What the two forms are: nb_elicit's is a whole prompt (who asks, the message, the "
        "buttons that answer it) besides the fields; the peer's is the fields alone, with no "
        "buttons, so at one field the prompt's fixed part weighs most. "
        + " ".join(f"At {r['n']} field{'s' if r['n'] != 1 else ''} nb_elicit makes "
                   f"{by_type(r['ours']['by_type'])}; {peers.PEER} makes "
                   f"{by_type(r['peer']['by_type'])}." for r in samples)
        + (f" The model count varied between builds for {', '.join(vary)}; the largest is "
           "shown." if vary else ""))
