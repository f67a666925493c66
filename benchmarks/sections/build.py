"""1. Form build: ElicitationForm for 1 to 200 string fields and 20 fields of each kind,
without a kernel and in one, next to one bare ipywidgets control per field."""

from __future__ import annotations

import statistics

from .. import in_kernel
from ..common import Section, Target, log, ms
from ..harness import Kernel

TITLE = "1. Form build"
SIZES = [1, 10, 50, 200]


def run(opts, sec: Section) -> None:
    import ipywidgets

    reps_small, reps_large = (5, 3) if opts.quick else (15, 7)
    ipywidgets.Widget.close_all()
    log(f"  build: no kernel, {reps_small}/{reps_large} builds per size")
    rows = in_kernel.build(SIZES, list(in_kernel.KINDS), reps_small, reps_large, True)

    in_kernel_rows = None
    if not opts.no_kernel_build:
        log("  build: the same inside a kernel")
        with Kernel(opts) as kernel:
            in_kernel_rows = kernel.call("build", SIZES, [], reps_small, reps_large, True,
                                         timeout=600)
    report(sec, rows, in_kernel_rows)


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
    sec.table("20 fields of each kind", ["kind", "widgets", "ElicitationForm",
                                         "ms / field"], kinds_table)

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
    f200 = by_n[200]["form"]
    sec.targets.append(Target("Form build, 200 string fields (no kernel)", "< 150 ms", ms(f200),
                              f200 < 150))
    if kernel_by_n.get(200):
        sec.targets.append(Target("Form build, 200 string fields, in a kernel", "(info)",
                                  ms(kernel_by_n[200]["form"]), None))
