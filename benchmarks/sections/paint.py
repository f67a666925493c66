"""11. A form's first paint in a real JupyterLab in headless Chromium: from the server's request
to the form's first input painted and focusable, for 1, 10 and 50 fields; next to the floor
(bare ipywidgets: as many Texts and three Buttons in a VBox, displayed in the cell from a plain
SDK client's elicitation callback in the kernel) and to ipywidgets-jsonschema's form for the
same schemas (displayed the same way), in the same page, rounds interleaved."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from .. import peers
from ..common import CELL, HERE, PY, REPO, SERVER, BenchError, Section, Target, log, median, ms, pct
from ..harness import Journal
from .app import clock_offset, in_lab, prerequisites, run_in_place

TITLE = "11. A form's first paint in JupyterLab"

SIZES = [1, 10, 50]
#: The prompts compared: key -> (what it is called, the class of its box, its Decline button).
PROMPTS = {
    "nb": ("nb_elicit", ".nb-elicit-form", ".nb-elicit-decline"),
    "bare": ("bare ipywidgets", ".bench-prompt", ".bench-decline"),
    "peer": (peers.PEER, ".bench-prompt", ".bench-decline"),
}
#: Targets at ten fields, medians of the first paint: nb_elicit at most these times the other.
BARE_RATIO = 1.2
PEER_RATIO = 0.5
TARGET_FIELDS = 10
PROBE = HERE / "paint_probe.js"


def setup_cell(tmp: Path, peer_path: str) -> str:
    """The kernel's side, run once before the rounds: nb_elicit connected to a bench server, two
    plain SDK clients (the bare prompt's, the peer's) to bench servers of their own, stamps in
    nb_elicit's request handler, and a tag per round."""
    def command(who: str) -> list[str]:
        return [PY, str(SERVER), "--journal", str(tmp / f"{who}.jsonl")]

    return f"""\
import sys, json as _json, nb_elicit
sys.path.append({str(HERE)!r})
import bench_prompts as _p, in_kernel as _bench
_paint = await nb_elicit.connect('bench', {command('nb')!r})
_bench.unlimited(['bench'])
_p.load_peer({peer_path!r}, {peers.PEER_MODULE!r})
await _p.connect('bare', 'bare', {command('bare')!r})
await _p.connect('peer', 'peer', {command('peer')!r})
_paint_hooked = _bench.install_stamps()
_paint_k = {{}}
def _paint_tag(who, n):
    k = _paint_k.get((who, n), 0)
    _paint_k[(who, n)] = k + 1
    return f"{{who}}-{{n}}-{{k}}"
print("paint-ready", _json.dumps(nb_elicit.__file__))"""


def round_cell(who: str, n: int) -> str:
    kind = f"strings-{n}"
    if who == "nb":
        return (f"await _paint.call_tool('ask', {{'tag': _paint_tag('nb', {n}), "
                f"'kind': {kind!r}}});")
    return f"await _p.ask({who!r}, _paint_tag({who!r}, {n}), {kind!r});"


END_CELL = "print(_json.dumps({'stamps': _bench.take_stamps(), 'prompts': _p.STAMPS}))"


def run(opts, sec: Section) -> None:
    prerequisites()  # (before the peer is installed)
    rounds = getattr(opts, "paint_rounds", None) or (2 if opts.quick else 20)
    peer_path = str(peers.ensure_peer())
    measured = in_lab("paint", lambda lab, server, browser, tmp: measure(
        opts, lab, server, browser, tmp, rounds, peer_path))
    report(sec, measured, rounds)


def order(k: int) -> list[str]:
    """The prompts' order in round ``k``: each goes first, second and third in turn."""
    keys = list(PROMPTS)
    return keys[k % 3:] + keys[:k % 3]


def measure(opts, lab, server, browser, tmp: Path, rounds: int, peer_path: str) -> dict:
    context = browser.new_context(viewport=lab.VIEWPORT)
    context.set_default_timeout(lab.TIMEOUT)
    context.add_init_script(path=str(PROBE))
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: console.append(f"[pageerror] {e}"))
    nb = lab.Notebook(server, page, "paint-bench", tmp)
    nb.demo_cwd = Path(opts.nb_elicit) if opts.nb_elicit else REPO
    cells = {(who, n): 3 + i for i, (n, who) in
             enumerate((n, who) for n in SIZES for who in PROMPTS)}
    sources = [setup_cell(tmp, peer_path)]
    sources += [round_cell(who, n) for (who, n) in sorted(cells, key=cells.get)]
    sources.append(END_CELL)
    end = 3 + len(cells)
    browser_rounds: dict[str, dict] = {}
    try:
        try:
            nb.open(*sources)
        except AssertionError as error:
            raise BenchError(f"the notebook did not open and load nb_elicit: {error}") from None
        nb.run(2)
        said = nb.cell(2).locator(".jp-OutputArea").inner_text()
        if "paint-ready" not in said:
            raise BenchError(f"the setting-up cell failed: {said[-2000:]}")
        where = json.loads(said.split("paint-ready", 1)[1].strip().splitlines()[0])
        if opts.nb_elicit and not Path(where).is_relative_to(opts.nb_elicit):
            raise BenchError(f"the kernel imported {where}, not the nb_elicit in "
                             f"{opts.nb_elicit}")
        clock = clock_offset(page)
        log(f"  paint: {rounds} rounds (and one warm-up) of {len(SIZES)} sizes x "
            f"{len(PROMPTS)} prompts; browser clock {clock['offset']:+.2f} ms from the "
            f"kernel's (±{clock['spread']:.2f})")
        for k in range(rounds + 1):
            for n in SIZES:
                for who in order(k):
                    label = f"{who}-{n}-{k}"
                    browser_rounds[label] = one_round(nb, page, cells[(who, n)], who, label)
            if k:
                log(f"    round {k}/{rounds} done")
        nb.run(end)
        said = nb.cell(end).locator(".jp-OutputArea").inner_text()
        kernel = json.loads(said.strip().splitlines()[-1])
    finally:
        with contextlib.suppress(Exception):
            nb.screenshot("final")
        (tmp / "console.log").write_text("\n".join(console) + "\n", encoding="utf-8")
        context.close()
        with contextlib.suppress(OSError):
            server.shut_down_sessions(nb.name)
    journals = {who: Journal(tmp / f"{who}.jsonl").poll() for who in PROMPTS}
    measured = {"clock": clock, "browser": browser_rounds, "kernel": kernel,
                "journals": journals, "artifacts": str(tmp)}
    (tmp / "measured.json").write_text(json.dumps(measured), encoding="utf-8")
    log(f"  paint: every round's points are kept in {tmp / 'measured.json'}")
    return measured


def one_round(nb, page, cell: int, who: str, label: str) -> dict:
    """Run the prompt's cell once: the probe armed for its first input, then its Decline
    clicked once it is painted; the probe's record."""
    _, box, decline = PROMPTS[who]
    page.evaluate("o => window.__benchPaint.arm(o)", {"cell": cell, "box": box, "label": label})
    run_in_place(nb, cell)
    try:
        page.wait_for_function(f"() => {{ const r = window.__benchPaint.results[{label!r}];"
                               " return r && r.painted; }", timeout=CELL * 1000)
    except Exception as error:  # noqa: BLE001 - said with what the page had
        armed = page.evaluate("() => window.__benchPaint.armed")
        raise BenchError(f"the {PROMPTS[who][0]} prompt {label} was not painted within "
                         f"{CELL:g} s (the probe had {armed}): {error}") from None
    found = page.evaluate(f"() => window.__benchPaint.results[{label!r}]")
    nb.cell(cell).locator(decline).first.click()
    nb.wait_done(cell)
    page.wait_for_timeout(100)
    return found


# -- the report --------------------------------------------------------------------------------

#: A round's points after t0 (the server sends the request): (key, what).
POINTS = [
    ("received", "kernel: the request in hand (nb_elicit's handler entered; the SDK callback "
     "entered)"),
    ("shown", "kernel: the prompt shown (nb_elicit's form attached to the call's view; the "
     "box displayed)"),
    ("box_dom", "browser: the prompt's box in the DOM"),
    ("dom", "browser: its first input in the DOM"),
    ("visible", "browser: the first input visible and focusable (focus() takes it)"),
    ("painted", "browser: the frame showing it painted (first paint)"),
]


def rounds_of(measured: dict, who: str, n: int) -> list[dict]:
    """The counted rounds (not the warm-up) of one prompt and size, as points in ms after t0,
    the server's send time of the request."""
    offset = measured["clock"]["offset"]
    journal = measured["journals"][who]
    kernel = measured["kernel"]
    ask = [at for name, at in kernel["stamps"] if name == "ask>"]
    attach = [at for name, at in kernel["stamps"] if name == "attach>"]
    nb_labels = sorted((label for label in measured["browser"] if label.startswith("nb-")),
                       key=lambda label: int(label.rsplit("-", 1)[1]) * 1000
                       + int(label.split("-")[1]))
    found = []
    for label, page in measured["browser"].items():
        if not label.startswith(f"{who}-{n}-") or label.endswith("-0"):
            continue
        entry = journal.get(label)
        if entry is None:
            raise BenchError(f"the bench server has no request {label}")
        t0 = entry["sent"] * 1000
        points = {key: page[key] - offset - t0 for key in ("box_dom", "dom", "visible",
                                                          "painted") if page.get(key)}
        if who == "nb":
            if len(ask) == len(nb_labels):
                k = nb_labels.index(label)
                points["received"] = ask[k] * 1000 - t0
                if len(attach) == len(nb_labels):
                    points["shown"] = attach[k] * 1000 - t0
        elif label in kernel["prompts"]:
            stamps = kernel["prompts"][label]
            points["received"] = stamps["entered"] * 1000 - t0
            points["shown"] = stamps["shown"] * 1000 - t0
        found.append(points)
    return found


def report(sec: Section, measured: dict, rounds: int) -> None:
    by = {(who, n): rounds_of(measured, who, n) for who in PROMPTS for n in SIZES}
    for key in by:
        if not by[key]:
            raise BenchError(f"no rounds of {key} were measured")

    def med(who: str, n: int, key: str) -> float:
        return median([r[key] for r in by[(who, n)] if key in r])

    def p95(who: str, n: int, key: str) -> float:
        return pct([r[key] for r in by[(who, n)] if key in r], 95)

    rows = []
    for n in SIZES:
        for who, (name, _, _) in PROMPTS.items():
            rows.append([n, name, ms(med(who, n, "painted")), ms(p95(who, n, "painted")),
                         ms(med(who, n, "visible")), ms(p95(who, n, "visible")),
                         f"{med(who, n, 'painted') / med('bare', n, 'painted'):.2f}x",
                         f"{med(who, n, 'painted') / med('peer', n, 'painted'):.2f}x"])
    sec.table(f"The server sends the request -> the form's first input painted and focusable in "
              f"JupyterLab ({rounds} rounds each, after one warm-up; ms)",
              ["fields", "prompt", "first paint, median", "first paint, p95",
               "focusable, median", "focusable, p95", "paint / bare ipywidgets",
               f"paint / {peers.PEER}"], rows)
    legs = []
    for n in SIZES:
        for who, (name, _, _) in PROMPTS.items():
            legs.append([n, name, *(ms(med(who, n, key)) if any(key in r for r in by[(who, n)])
                                    else "-" for key, _ in POINTS)])
    sec.table("Where the time goes: each point in ms after the server sent the request (median)",
              ["fields", "prompt", *(what for _, what in POINTS)], legs)
    ours, bare, peer = (med(who, TARGET_FIELDS, "painted") for who in ("nb", "bare", "peer"))
    for what, theirs, limit in (("bare ipywidgets", bare, BARE_RATIO),
                                (peers.PEER, peer, PEER_RATIO)):
        ratio = ours / theirs
        sec.targets.append(Target(
            f"Form first paint in JupyterLab, ten fields, next to {what}",
            f"<= {limit:g}x" + (" (median)" if what == "bare ipywidgets" else ""),
            f"{ratio:.2f}x ({ours:.1f} vs {theirs:.1f} ms, median)", ratio <= limit,
            ms(ours - limit * theirs) if ratio > limit else None))
    clock = measured["clock"]
    sec.notes.append(
        "A real JupyterLab (the browser tests' harness, `tests/helpers/lab.py`) in headless "
        "Chromium, a 1280x1600 window, one notebook and one kernel. The kernel holds three "
        "clients, each against a bench server of its own over stdio: nb_elicit's connection, "
        "whose form is shown in the calling cell by `await conn.call_tool('ask', ...)`; and two "
        "plain SDK Clients on the kernel's event loop (benchmarks/bench_prompts.py), whose "
        "elicitation callback builds a prompt and displays it in the calling cell: bare "
        "ipywidgets (a Text per field with its title, and Submit, Decline and Cancel Buttons, "
        f"in a VBox) or {peers.PEER} {peers.PEER_VERSION}'s `Form(schema).widget` and the same "
        "three Buttons in a VBox. Every schema is n titled string fields, every second one "
        "required. One cell per prompt and size, run again in place for every round (its "
        "output replaced); in each round the three prompts take turns, each first in turn, "
        "and every form is answered by a click on its Decline before the next cell runs.")
    sec.notes.append(
        "t0 is the bench server's `time.time()` just before it hands the request to the SDK. "
        "In the page an init script (benchmarks/paint_probe.js), armed with the cell before "
        "it runs, watches the cell's output with a MutationObserver and on every animation "
        "frame: the first input of the prompt's box in the DOM; visible (laid out with a size, "
        "inside the window, `checkVisibility()`, not disabled) and focusable (its `focus()` "
        "takes the keyboard: `document.activeElement` is it); then the first paint: the task "
        "after the next animation frame's callback, when the frame that shows the input has "
        "been rendered by the page's main thread (the compositor's last step to the screen is "
        "not in it). The page's times are `performance.timeOrigin + performance.now()`, the "
        "same machine's clock as the server's and the kernel's `time.time()`; the runner read "
        f"the page's clock {clock['offset']:+.2f} ms from its own (±{clock['spread']:.2f} ms, "
        "15 bracketed reads) and took that offset off. The kernel's points: nb_elicit's "
        "request handler and `CallView.add_form` entered (wrappers put on them before the "
        "rounds), the SDK callback entered and its `display()` returned.")

