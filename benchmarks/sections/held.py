"""12. A hook's form while the kernel's thread is held, next to the same form while the cell
awaits. The SDK's Client with ``nb_elicit.elicitation_callback``, on a thread and event loop of
its own in the kernel, asks through the bench server over stdio; each round a new thread makes
the call, and the cell either awaits an asyncio future that thread resolves (the free path: the
kernel's loop runs the form) or joins the thread (the held path: the form runs on nb_elicit's
own subshell). The scripted frontend answers each form as soon as it shows, with and without
subshells of its own. Then where the time goes, from timestamps inside the kernel."""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path

from ..common import CELL, BenchError, Section, Target, log, median, ms, pct
from ..harness import Journal, Kernel, answer_form, server_command, wait_shown

TITLE = "12. A hook's form while the kernel's thread is held"

#: The held path's medians at most this many times the free path's.
TARGET = 1.2
#: The frontends: (key, whether it sends widget messages on a subshell of its own, label).
MODES = [("subshells", True, "frontend subshells (commsOverSubshells perCommTarget)"),
         ("main", False, "no frontend subshells (commsOverSubshells disabled)")]
PATHS = {"free": "free: the cell awaits a future the thread resolves",
         "held": "held: the cell joins the thread"}
WARM = 2
#: The bench server's form: one optional checkbox, so that Submit needs nothing typed first
#: (a Submit that comes within 0.3 s of a field's change waits for the field to settle).
KIND = "click"
#: Rounds of each path with timestamps inside the kernel, after the timed ones (not counted).
BREAKDOWN_ROUNDS = 10


def cell(path: str, tag: str) -> str:
    """The cell of one round: the call's thread is started, then awaited (free) or joined
    (held); the cell prints what the server received."""
    if path == "free":
        return ("import asyncio, in_kernel as _bench\n"
                "_loop = asyncio.get_running_loop()\n_done = _loop.create_future()\n"
                f"_bench.hook_call({tag!r}, {KIND!r}, "
                "lambda got: _loop.call_soon_threadsafe(_done.set_result, got))\n"
                "_bench.emit(str(await _done))")
    return ("import in_kernel as _bench\n"
            f"_thread = _bench.hook_call({tag!r}, {KIND!r})\n_thread.join({CELL!r})\n"
            "_bench.emit(str(_thread.result))")


def run(opts, sec: Section) -> None:
    n = opts.held_rounds or (7 if opts.quick else 30)
    breakdown_rounds = 3 if opts.quick else BREAKDOWN_ROUNDS
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-held-"))
    measured = {key: measure(opts, key, subshells, label, n, breakdown_rounds, tmp)
                for key, subshells, label in MODES}
    report(sec, measured, n)


def measure(opts, key: str, subshells: bool, label: str, n: int, breakdown_rounds: int,
            tmp: Path) -> dict:
    """One fresh kernel whose frontend uses subshells or not: ``n`` timed rounds of each path
    (after warm-up), then ``breakdown_rounds`` of each with timestamps. Returns, by path, the
    rounds' times in ms (``a``, ``a_front``, ``b``), the stamped rounds' points (Unix times),
    and the first held round's (a)."""
    journal = Journal(tmp / f"held-{key}.jsonl")
    log(f"  held, {label}: {n} rounds of each path (+{WARM} warm-up), alternating; "
        f"then {breakdown_rounds} of each with timestamps")
    rounds: dict[str, dict[str, dict]] = {path: {} for path in PATHS}
    stamped: dict[str, list[dict]] = {path: [] for path in PATHS}
    with Kernel(argparse.Namespace(**{**vars(opts), "subshells": subshells})) as kernel:
        fe = kernel.fe
        py, *args = server_command(journal.path)
        env = {"PYTHONPATH": opts.nb_elicit} if getattr(opts, "nb_elicit", None) else None
        kernel.run(f"import in_kernel as _bench; _bench.hook_open({py!r}, {args!r}, {env!r})")
        try:
            def one(path: str, tag: str) -> dict:
                fe.mark()
                msg = fe.execute(cell(path, tag))
                (shown,) = wait_shown(fe, 1, kernel, msg)[:1]
                clicked = answer_form(fe, shown, "nb-elicit-submit")
                entry = fe.wait_for(lambda: journal.get(tag), CELL, f"the answer to {tag}")
                reply = fe.wait_reply(msg, CELL)
                printed = kernel.cell_text(msg)
                if reply["status"] != "ok" or '"accept"' not in printed:
                    raise BenchError(f"the {path} round {tag} failed: {printed}")
                if entry["action"] != "accept":
                    raise BenchError(f"the {path} round {tag}: the server got {entry}")
                fe.wait_for(lambda: msg in fe.idle_sent, CELL, "the cell's idle")
                return {"sent": entry["sent"], "answered": entry["answered"],
                        "shown": shown.kernel_at, "shown_front": shown.frontend_at,
                        "clicked": clicked}

            first_held = None
            for i in range(WARM):
                for path in order(i):
                    got = one(path, f"warm-{path}-{i}")
                    if path == "held" and first_held is None:
                        first_held = (got["shown"] - got["sent"]) * 1000
            for i in range(n):
                for path in order(i):
                    rounds[path][f"{path}-{i}"] = one(path, f"{path}-{i}")
                if (i + 1) % 10 == 0 or i + 1 == n:
                    log(f"    {i + 1}/{n} rounds of each path")
            hooked = kernel.call("install_hook_stamps")
            for i in range(breakdown_rounds):
                for path in order(i):
                    kernel.call("take_stamps")
                    got = one(path, f"s-{path}-{i}")
                    got["stamps"] = kernel.call("take_stamps")
                    stamped[path].append(got)
        finally:
            with contextlib.suppress(Exception):
                kernel.run("_bench.hook_close()", timeout=20)
    times = {path: {"a": [(r["shown"] - r["sent"]) * 1000 for r in got.values()],
                    "a_front": [(r["shown_front"] - r["sent"]) * 1000 for r in got.values()],
                    "b": [(r["answered"] - r["clicked"]) * 1000 for r in got.values()]}
             for path, got in rounds.items()}
    return {"label": label, "times": times, "first_held": first_held,
            "legs": {path: legs_of(rs) for path, rs in stamped.items()}, "hooked": hooked}


def order(i: int) -> tuple[str, str]:
    """Which path goes first in round ``i``: they take turns."""
    return ("free", "held") if i % 2 == 0 else ("held", "free")


# -- where the time goes ------------------------------------------------------------------

#: The legs of a round: (what, from, to); a point is a stamp's name, or "sent", "answered"
#: (the server's journal), "shown" (the kernel's send time of the message that shows the form),
#: "clicked" (the frontend) or "decided" (the last of the look's and the probe's ends: the hook
#: knows where the form is answered).
LEGS = [
    ("(a1) server sends the request -> the hook entered (transport, the SDK on the session's "
     "thread)", "sent", "hook>"),
    ("(a2) the hook entered -> it knows where to answer (the kernel's loop or nb_elicit's "
     "subshell)", "hook>", "decided"),
    ("(a2), of which: it looks whether the cell's code holds the kernel's thread (the "
     "subshell made on first use)", "look>", "look<"),
    ("(a2), of which: its probe: a call handed to the kernel's loop is run, or the probe's "
     "wait ends", "probe>", "probe<"),
    ("(a3) decided -> answering begins on the kernel's loop or on nb_elicit's subshell",
     "decided", "cell>"),
    ("(a4) answering begins -> form build begins (view, checks, policy)", "cell>", "build>"),
    ("(a5) form build", "build>", "build<"),
    ("(a6) form built -> attached to its view", "build<", "attach>"),
    ("(a7) attached -> the message that shows it sent", "attach>", "shown"),
    ("(b1) Submit click at the frontend -> click handler entered", "clicked", "click>"),
    ("(b2) click handler (read, validate, answer)", "click>", "click<"),
    ("(b3) click handled -> answering ends on its loop", "click<", "cell<"),
    ("(b4) answering ended -> the hook returns on the session's thread", "cell<", "hook<"),
    ("(b5) the hook returned -> the server holds the answer (SDK, transport)", "hook<",
     "answered"),
]
WHOLE_A = "(a) request sent -> form shown, these rounds"
LESS_PROBE = "(a) less the probe's wait"
#: The breakdown's rows, in order: the legs of (a), (a) whole and without the probe, (b)'s.
ROWS = [*(w for w, _, _ in LEGS if w.startswith("(a")), WHOLE_A, LESS_PROBE,
        *(w for w, _, _ in LEGS if w.startswith("(b"))]


def legs_of(rounds: list[dict]) -> dict[str, list[float]]:
    """Each leg's ms in the stamped ``rounds`` (a point's first stamp; a click's once the
    frontend clicked)."""
    legs: dict[str, list[float]] = {what: [] for what in ROWS}
    for r in rounds:
        points = {k: r[k] for k in ("sent", "answered", "shown", "clicked")}
        for name, at in r.get("stamps", ()):
            if name not in points and (not name.startswith("click")
                                       or at >= r["clicked"] - 0.05):
                points[name] = at
        ends = [points[k] for k in ("look<", "probe<") if k in points]
        if ends:
            points["decided"] = max(ends)
        for what, start, end in LEGS:
            if start in points and end in points:
                legs[what].append((points[end] - points[start]) * 1000)
        a = (points["shown"] - points["sent"]) * 1000
        legs[WHOLE_A].append(a)
        probe = (points["probe<"] - points["probe>"]) * 1000 if "probe>" in points else 0.0
        legs[LESS_PROBE].append(a - probe)
    return legs


# -- the report -----------------------------------------------------------------------------


def ratio(held: list[float], free: list[float]) -> float:
    below = median(free)
    return median(held) / below if below > 0 else float("inf")


def report(sec: Section, measured: dict, n: int) -> None:
    """Tables and targets from :func:`measure`'s results, by mode."""
    sec.notes.append(
        "Each round: a new thread in the kernel hands `client.call_tool('ask', ...)` to the "
        "SDK Client's own thread and loop (made once, with "
        "`elicitation_callback=nb_elicit.elicitation_callback`, mode legacy, the bench server "
        "over stdio) and waits for it. Free: the cell awaits an asyncio future that thread "
        "resolves, so the kernel's loop is free and the form runs there. Held: the cell "
        "joins the thread, so the kernel's main thread is held and the form runs on "
        "nb_elicit's subshell. The form has one field, an optional checkbox (the bench "
        "server's `click`), and the frontend clicks Submit as soon as the form shows. The "
        "two paths take turns (which goes first alternates), after a warm-up of each; each "
        "frontend has a fresh kernel. "
        "(a) ends at the kernel's send time of the widget message that makes the form shown "
        "(header date), (a') when the frontend received it; (b) starts when the frontend "
        "sends the click. All times are Unix times of one machine.")
    for key, _, _ in MODES:
        if key not in measured:
            continue
        m = measured[key]
        free, held = ({**t, "total": [a + b for a, b in zip(t["a"], t["b"], strict=True)]}
                      for t in (m["times"]["free"], m["times"]["held"]))
        rows = []
        for leg, what in (("a", "(a) request sent -> form shown, kernel side"),
                          ("a_front", "(a') request sent -> form at the frontend"),
                          ("b", "(b) Submit click -> server holds the answer"),
                          ("total", "(a)+(b) total")):
            r = ratio(held[leg], free[leg])
            rows.append([what, ms(median(free[leg])), ms(pct(free[leg], 95)),
                         ms(median(held[leg])), ms(pct(held[leg], 95)),
                         f"{r:.2f}x" if r != float("inf") else "-"])
        label = m["label"]
        sec.table(f"A hook's form, {label}: {n} rounds of each path (median, p95)",
                  ["leg", "free median", "free p95", "held median", "held p95",
                   "held / free (median)"], rows)
        for leg, what in (("a", "request sent -> form shown"),
                          ("b", "Submit click -> server holds the answer")):
            r = ratio(held[leg], free[leg])
            fm, hm = median(free[leg]), median(held[leg])
            sec.targets.append(Target(
                f"Held kernel next to free, {what}, {label}", f"<= {TARGET:g}x (median)",
                f"{r:.2f}x ({hm:.1f} vs {fm:.1f} ms, median)", r <= TARGET,
                ms(hm - TARGET * fm) if r > TARGET else None))
        if m.get("first_held") is not None:
            sec.notes.append(
                f"{label[0].upper()}{label[1:]}: the kernel's first held request, which makes "
                f"nb_elicit's subshell, showed its form {ms(m['first_held'])} after the server "
                "sent it (a warm-up round, not counted).")
    breakdown(sec, measured)


def breakdown(sec: Section, measured: dict) -> None:
    """The table of where a round's time goes, each path and mode (medians per leg)."""
    keys = [key for key, _, _ in MODES if key in measured and measured[key].get("legs")]
    if not keys:
        return
    headers, columns = ["leg"], []
    for key in keys:
        frontend = "frontend subshells" if key == "subshells" else "no frontend subshells"
        for path in PATHS:
            headers.append(f"{path}, {frontend}")
            columns.append(measured[key]["legs"][path])
    rows = []
    for what in ROWS:
        values = [column.get(what) or [] for column in columns]
        if any(values):
            rows.append([what, *(ms(median(v), 2) if v else "-" for v in values)])
    counts = {len(v) for column in columns for v in column.values() if v}
    sec.table(f"Where the time goes: {max(counts, default=0)} more rounds of each path and "
              "frontend with timestamps inside the kernel (not counted above; median per leg)",
              headers, rows)
    hooked = measured[keys[0]].get("hooked") or []
    sec.notes.append(
        "The breakdown's timestamps come from wrappers put, after the timed rounds, around "
        "the hook's `answer`, its look at what the kernel's thread runs (`_held_by_the_cell`, "
        "where the code has it), its probe of the kernel's loop (`_loop_takes_calls`), "
        "`SideShell.run`, `_ask_in_cell` (the answering on the kernel's loop or on the "
        "subshell's), `ElicitationForm.__init__`, `CallView.add_form` and ipywidgets' button "
        f"click handler (hooked: {', '.join(hooked) or 'none'}). The probe hands a call to "
        "the kernel's loop and waits for it to run: a free loop runs it at once; a held one "
        "never does, and the probe ends at its limit (nb_elicit's `hooks.LOOP_PROBE`). Where "
        "the code has the look, a cell whose own code holds the kernel's thread sends the "
        "request to the subshell without the probe.")
