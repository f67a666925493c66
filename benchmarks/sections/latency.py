"""2. Added latency per elicitation in a real kernel, answered by the scripted frontend, next
to the SDK floor: a plain Client that accepts in its callback, against the same kind of server,
in the same run (interleaved blocks); and next to a bare ipywidgets prompt (the same inputs and
three Buttons, built and displayed by an SDK callback in the kernel, answered by a click). Four
ways: a one-field form over stdio (the main measure) and over streamable HTTP, a ten-field form
over both. Then the widget models a plain tool call's view makes, without a form."""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..common import CELL, BenchError, Section, Target, log, median, ms, pct
from ..harness import (
    FloorClient,
    HttpServer,
    Journal,
    Kernel,
    answer_form,
    server_command,
    settle_seconds,
    wait_shown,
)
from ..profiling import PROFILE_NOTE, profile_tables

TITLE = "2. End-to-end added latency per elicitation"

#: The absolute added latency (a)+(b), nb_elicit minus the SDK floor, is reported as
#: information: on a shared machine its milliseconds move with the load, while the ratio to a
#: bare ipywidgets prompt measured in the same run (the targets, ``BARE_TARGETS``) does not.


@dataclass
class Way:
    key: str
    label: str
    transport: str  # "stdio" or "http"
    kind: str  # the bench server's form: "name" (one field) or "ten"
    share: float  # rounds, as a share of --rounds


WAYS = [Way("stdio", "stdio, one-field form", "stdio", "name", 1.0),
        Way("http", "streamable HTTP, one-field form", "http", "name", 0.5),
        Way("ten", "stdio, ten-field form", "stdio", "ten", 0.5),
        Way("http-ten", "streamable HTTP, ten-field form", "http", "ten", 0.5)]


def run(opts, sec: Section) -> None:
    n = opts.rounds or (16 if opts.quick else 200)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    rounds = {way.key: max(10, int(n * way.share)) for way in WAYS}
    found: dict[str, dict] = {}
    with contextlib.ExitStack() as stack:
        shared = stack.enter_context(Kernel(opts)) if opts.quick else None
        for group in plan(opts.quick):
            measure_group(opts, group, rounds, tmp, shared, found)
    for way in WAYS:
        report_way(opts, sec, way, found[way.key], main=way.key == MAIN)


#: Where each way's rounds ran, by quick mode (see ``plan``).
SHARING = {
    False: "Each way ran in a fresh kernel of its own, with servers of its own.",
    True: "(Quick mode) The four ways ran in one kernel: the two HTTP ways on one set of "
          "servers and connections, then the two stdio ways on another, the one-field form's "
          "last (its profile, breakdown and plain calls after every timed round).",
}

#: The way whose rounds also give the breakdown, the profile and the plain calls.
MAIN = "stdio"


def plan(quick: bool) -> list[list[Way]]:
    """Which ways share a rig (a kernel's connections and the servers behind them), in the
    order they run. A full run gives each way a fresh kernel of its own. Quick mode runs all
    four in one kernel, a rig per transport, so that it starts one kernel and three servers
    of each transport instead of four kernels and twelve servers: the HTTP ways first, then
    the stdio ones with the main way last, whose extra rounds (the profile, the breakdown's
    hooks, which stay in the kernel, and the plain calls) come after every timed round."""
    by_key = {way.key: way for way in WAYS}
    if not quick:
        return [[way] for way in WAYS]
    return [[by_key["http"], by_key["http-ten"]], [by_key["ten"], by_key[MAIN]]]


class Rig:
    """nb_elicit's connection ``conn`` and the bare prompt's client in ``kernel``, and the SDK
    floor client here, each against a bench server of its own over ``transport``, with a
    journal each. The ways of one transport can share it: their tags differ (each begins with
    its way's key). Its connections are closed on exit (the kernel is not)."""

    def __init__(self, stack: contextlib.ExitStack, kernel: Kernel | None, transport: str,
                 tmp: Path, opts):
        self.nb = Journal(tmp / f"nb-{transport}.jsonl")
        self.floor_journal = Journal(tmp / f"floor-{transport}.jsonl")
        self.prompt = Journal(tmp / f"prompt-{transport}.jsonl")
        nb_url = floor_url = prompt_url = None
        if transport == "http":
            nb_url = stack.enter_context(HttpServer(self.nb.path)).url
            floor_url = stack.enter_context(HttpServer(self.floor_journal.path)).url
            prompt_url = stack.enter_context(HttpServer(self.prompt.path)).url
        self.floor = FloorClient(self.floor_journal.path, {"name": "ada"}, url=floor_url)
        stack.callback(self.floor.close)
        if kernel is None:
            kernel = stack.enter_context(Kernel(opts))
        self.kernel = kernel
        self.fe = kernel.fe
        kernel.connect("conn", self.nb.path, url=nb_url)
        stack.callback(self.close)
        command = None if prompt_url else server_command(self.prompt.path)
        kernel.run(f"import bench_prompts as _p; await _p.connect('bare', 'bare', {command!r}, "
                   f"url={prompt_url!r})")

    def close(self) -> None:
        """Close the prompt's client and nb_elicit's connections in the kernel."""
        with contextlib.suppress(Exception):
            self.kernel.run("import bench_prompts as _p; await _p.close()", timeout=20)
        with contextlib.suppress(Exception):
            self.kernel.run("import in_kernel as _bench; await _bench.close_connections()",
                            timeout=20)


def measure_group(opts, group: list[Way], rounds: dict[str, int], tmp: Path,
                  shared: Kernel | None, found: dict[str, dict]) -> None:
    """The timed rounds of each way in ``group`` on one rig (in ``shared``, or a fresh kernel),
    then their extra rounds; what each way measured goes into ``found`` by its key."""
    with contextlib.ExitStack() as stack:
        rig = Rig(stack, shared, group[0].transport, tmp, opts)
        for way in group:
            found[way.key] = timed_rounds(opts, rig, way, rounds[way.key])
        for way in group:
            extra_rounds(opts, rig, way, found[way.key], main=way.key == MAIN)


#: Rounds with timestamps inside the kernel, for the breakdown (not counted in the totals).
BREAKDOWN_ROUNDS = 30
#: Rounds under a profiler, over stdio (not counted in the totals).
PROFILE_ROUNDS = 30
#: In quick mode: warm-up rounds of each prompt, and rounds of the breakdown and the profile.
QUICK_WARM, QUICK_EXTRA = 1, 8

#: The breakdown's legs: (what, from, to); a point is a stamp name, or "sent", "answered" (the
#: server's journal) or "clicked" (the frontend).
LEGS = [
    ("(a1) server sends the request -> nb_elicit's handler entered (transport, SDK)",
     "sent", "ask>"),
    ("(a2) handler -> form build begins (checks, policy, backlog)", "ask>", "build>"),
    ("(a3) form build, comm_open of every widget model included", "build>", "build<"),
    ("(a4) form built -> attached to its cell", "build<", "attach>"),
    ("(b1) click at the frontend -> click handler entered (to the kernel, its dispatch)",
     "clicked", "click>"),
    ("(b2) click handler (read, validate, answer)", "click>", "click<"),
    ("(b3) click handled -> nb_elicit's handler returns the answer (event loop, history)",
     "click<", "ask<"),
    ("(b4) handler returned -> the server holds the answer (SDK, transport, server)",
     "ask<", "answered"),
]


def breakdown(sec: Section, entries: dict, nb: dict, stamped: dict, hooked: list[str],
              a_floor: list[float], b_floor: list[float]) -> None:
    """The table of where a round's time goes (medians of the stamped rounds)."""
    legs: dict[str, list[float]] = {what: [] for what, _, _ in LEGS}
    for tag, stamps in stamped.items():
        points = {"sent": entries[tag]["sent"], "answered": entries[tag]["answered"],
                  "clicked": nb[tag]["clicked"]}
        clicked = points["clicked"]
        for name, at in stamps:
            # a point's first stamp (a click's, once the person clicked)
            if name not in points and (not name.startswith("click") or at >= clicked - 0.05):
                points[name] = at
        for what, start, end in LEGS:
            if start in points and end in points:
                legs[what].append((points[end] - points[start]) * 1000)
    rows = [[what, ms(median(v), 2) if v else "-"] for what, v in legs.items()]
    rows.append(["floor (a): server sends -> the plain client's callback entered",
                 ms(median(a_floor), 2)])
    rows.append(["floor (b): callback returned -> the server holds the answer",
                 ms(median(b_floor), 2)])
    sec.table(f"Where the time goes: stdio, one-field form, {len(stamped)} more rounds "
              "with timestamps inside the kernel (not counted above; median per leg)",
              ["leg", "median"], rows)
    sec.notes.append(
        "The breakdown's timestamps come from wrappers put around nb_elicit's request handler "
        f"(`ask`), `ElicitationForm.__init__`, `CallView.add_form` and ipywidgets' button "
        f"click handler once the timed rounds are over (hooked: {', '.join(hooked)}); the "
        "legs of one round add up to about its (a)+(b). (a1) and (b4) hold the SDK and "
        "transport work that the floor has too.")


def timed_rounds(opts, rig: Rig, way: Way, n: int) -> dict:
    """One way's warm-up and timed rounds on ``rig``: nb_elicit's, the floor's and the bare
    prompt's, in interleaved blocks. What the frontend saw of each round, by tag."""
    warm = QUICK_WARM if opts.quick else 5
    blocks = 2 if opts.quick else 4
    kernel, fe = rig.kernel, rig.fe
    nb: dict[str, dict] = {}
    bare: dict[str, dict] = {}
    log(f"  latency, {way.label}: {n} elicitations each way (+{warm} warm-up), {blocks} "
        "interleaved blocks; nb_elicit, the SDK floor, a bare ipywidgets prompt")

    def answered(journal: Journal, tag: str, cell: str, what: str,
                 typed: str | None = "ada") -> None:
        entry = fe.wait_for(lambda: journal.get(tag), CELL, f"the answer to {tag}")
        reply = fe.wait_reply(cell, CELL)
        if reply["status"] != "ok":
            raise BenchError(f"{what} round {tag} failed: {kernel.cell_text(cell)}")
        if entry["action"] != "accept" or (entry["content"] or {}).get("name") != typed:
            raise BenchError(f"{what} round {tag}: the server got {entry}")

    def nb_round(tag: str) -> None:
        fe.mark()
        cell = fe.execute(f"await conn.call_tool('ask', {{'tag': {tag!r}, "
                          f"'kind': {way.kind!r}}});")
        (shown,) = wait_shown(fe, 1, kernel, cell)[:1]
        clicked = answer_form(fe, shown, "nb-elicit-submit", "ada")
        answered(rig.nb, tag, cell, "nb_elicit")
        nb[tag] = {"shown": shown, "clicked": clicked}

    def bare_round(tag: str) -> None:
        fe.mark()
        cell = fe.execute(f"await _p.ask('bare', {tag!r}, {way.kind!r});")
        (shown,) = wait_shown(fe, 1, kernel, cell)[:1]
        # (a click alone: typing into bare ipywidgets while a cell awaits stalls on
        # ipykernel 7.4, which publishes no idle for the keystrokes' messages)
        # (after the same wait as nb_elicit's Submit, which follows its typing by the form's
        # settle time: both clicks reach a kernel idle as long)
        clicked = answer_form(fe, shown, "bench-submit", pause=True)
        answered(rig.prompt, tag, cell, "the bare ipywidgets prompt's", typed=None)
        fe.wait_for(lambda: cell in fe.idle_sent, CELL, "the cell's idle")
        fe.forget_closed()
        bare[tag] = {"shown": shown, "clicked": clicked}

    for i in range(warm):
        tag = f"{way.key}-warm-{i}"
        nb_round(tag)
        rig.floor.rounds([tag], kind=way.kind)
        bare_round(tag)
    per_block = [n // blocks + (1 if b < n % blocks else 0) for b in range(blocks)]
    done = 0
    for b, size in enumerate(per_block):
        tags = [f"{way.key}-r{done + i}" for i in range(size)]
        order = (nb_round, bare_round) if b % 2 == 0 else (bare_round, nb_round)
        rig.floor.rounds(tags, kind=way.kind)
        for one in order:
            for tag in tags:
                one(tag)
        done += size
        log(f"    block {b + 1}/{blocks} done ({done}/{n})")
    return {"n": n, "nb": nb, "bare": bare, "nb_round": nb_round, "rig": rig}


#: The built form's median build time, over this many builds (the first not counted).
BUILD_ROUNDS, QUICK_BUILD_ROUNDS = 31, 11


def extra_rounds(opts, rig: Rig, way: Way, got: dict, main: bool) -> None:
    """After the timed rounds: the way's form built without showing it, and, over stdio, more
    rounds under a profiler; for the main way, rounds with timestamps inside the kernel and
    calls without a form. Added to ``got``."""
    kernel, nb_round = rig.kernel, got["nb_round"]
    extra = QUICK_EXTRA if opts.quick else PROFILE_ROUNDS
    got["builds"] = QUICK_BUILD_ROUNDS if opts.quick else BUILD_ROUNDS
    got["build"] = kernel.call("form_build_time", got["builds"], way.kind)
    got["profile"] = None
    if way.transport == "stdio" and (main or not opts.quick):
        # where the kernel's CPU time goes: more rounds, profiled
        kernel.call("profile_start")
        for i in range(extra):
            nb_round(f"{way.key}-p{i}")
        got["profile"] = kernel.call("profile_stop", extra)
    got["extra"] = extra
    got["stamped"], got["hooked"], got["plain"] = {}, [], []
    if main:  # where the time goes: more rounds, with timestamps inside the kernel
        got["hooked"] = kernel.call("install_stamps")
        for i in range(QUICK_EXTRA if opts.quick else BREAKDOWN_ROUNDS):
            tag = f"{way.key}-s{i}"
            kernel.call("take_stamps")
            nb_round(tag)
            got["stamped"][tag] = kernel.call("take_stamps")
        got["plain"] = plain_calls(kernel, QUICK_PLAIN_CALLS if opts.quick else PLAIN_CALLS)


def report_way(opts, sec: Section, way: Way, got: dict, main: bool) -> None:
    """One way's tables, notes and targets, from what its rounds measured."""
    n, nb, bare, rig = got["n"], got["nb"], got["bare"], got["rig"]
    build, profile, extra = got["build"], got["profile"], got["extra"]
    stamped, hooked, plain = got["stamped"], got["hooked"], got["plain"]
    floor, nb_journal, prompt_journal = rig.floor, rig.nb, rig.prompt
    tags = [f"{way.key}-r{i}" for i in range(n)]
    nb_entries, floor_entries = nb_journal.poll(), rig.floor_journal.poll()
    a_kernel, a_front, b_nb, a_floor, b_floor = [], [], [], [], []
    for tag in tags:
        e, x = nb_entries[tag], nb[tag]
        a_kernel.append((x["shown"].kernel_at - e["sent"]) * 1000)
        a_front.append((x["shown"].frontend_at - e["sent"]) * 1000)
        b_nb.append((e["answered"] - x["clicked"]) * 1000)
        f = floor_entries.get(tag)
        entered, returned = floor.stamps[tag]
        if f is None or f["action"] != "accept":
            raise BenchError(f"the floor client's round {tag} did not arrive: {f}")
        a_floor.append((entered - f["sent"]) * 1000)
        b_floor.append((f["answered"] - returned) * 1000)
    a_bare, b_bare = [], []
    bare_entries = prompt_journal.poll()
    for tag in tags:
        e, x = bare_entries[tag], bare[tag]
        a_bare.append((x["shown"].kernel_at - e["sent"]) * 1000)
        b_bare.append((e["answered"] - x["clicked"]) * 1000)
    total_bare = [a + b for a, b in zip(a_bare, b_bare, strict=True)]
    total_nb = [a + b for a, b in zip(a_kernel, b_nb, strict=True)]
    total_front = [a + b for a, b in zip(a_front, b_nb, strict=True)]
    total_floor = [a + b for a, b in zip(a_floor, b_floor, strict=True)]

    def row(what, values, floor_values):
        m, p = median(values), pct(values, 95)
        fm, fp = median(floor_values), pct(floor_values, 95)
        return [what, ms(m), ms(p), ms(fm, 2), ms(fp, 2), ms(m - fm), ms(p - fp),
                f"{m / fm:.0f}x" if fm > 0 else "-"]

    sec.table(f"{way.label[0].upper()}{way.label[1:]}: per elicitation, {n} rounds each "
              "(median, p95); floor = plain SDK Client answering in its callback",
              ["leg", "nb_elicit median", "nb_elicit p95", "floor median", "floor p95",
               "added median", "added p95", "ratio (median)"],
              [row("(a) request sent -> form shown, kernel side", a_kernel, a_floor),
               row("(a') request sent -> form at the frontend", a_front, a_floor),
               row("(b) Submit click -> server holds the answer", b_nb, b_floor),
               row("(a)+(b) total", total_nb, total_floor),
               row("(a')+(b) total, frontend side", total_front, total_floor)])
    sec.notes.append(
        f"For comparison with (a), {way.label} (median {ms(median(a_kernel))}): the same "
        f"ElicitationForm, built in the same kernel without showing it, takes "
        f"{ms(build['ms'])} (median of {got['builds'] - 1}) and makes {build['widgets']} "
        "widget models, each announced to the frontend with a comm_open message of its own.")
    if main:
        sec.notes.append(
            "(a) ends at the kernel's send time of the widget message that attaches the built "
            "form to its cell (header date); (a') when the frontend received it. The floor's "
            "(a) ends when its callback is entered, its (b) starts when its callback returns. "
            "(b) for nb_elicit starts when the frontend sends the click, so it includes the "
            "trip from the frontend to the kernel, which the floor has no counterpart for. "
            "Typing into the form (3 keystrokes, each answered before the click) is not timed, "
            f"nor the {settle_seconds():g} s the frontend then waits before it clicks (a Submit "
            "that comes sooner after a field's change waits that long in the kernel, for "
            "changes still on their way from the page). "
            "All times are Unix times of one machine (server, kernel, frontend).")
        sec.notes.append(
            "Over streamable HTTP, each of nb_elicit and the floor has a bench server of its "
            "own, started before nb_elicit connects to it. " + SHARING[bool(opts.quick)] +
            " The ten-field form has one required text field "
            "(typed into) and nine optional fields of other kinds (email, URL, date, number, "
            "integer, checkbox, choice, titled choice, multi-select), left as they are.")
    next_to_bare(sec, way, n, {"a": a_kernel, "b": b_nb, "total": total_nb},
                 {"a": a_bare, "b": b_bare, "total": total_bare},
                 {"a": a_floor, "b": b_floor, "total": total_floor})
    if main:
        breakdown(sec, nb_journal.poll(), nb, stamped, hooked, a_floor, b_floor)
        report_plain(sec, plain)
    if profile:
        profile_tables(sec, f"{way.label}, {extra} more rounds (not counted above)",
                       "per round", profile)
        if main:
            sec.notes.append(PROFILE_NOTE)
    added_med = median(total_nb) - median(total_floor)
    added_p95 = pct(total_nb, 95) - pct(total_floor, 95)
    sec.targets.append(Target(f"Added latency per elicitation (a)+(b), {way.label}, median",
                              "(info)", ms(added_med, 2), None))
    sec.targets.append(Target(f"Added latency per elicitation (a)+(b), {way.label}, p95",
                              "(info)", ms(added_p95, 2), None))


# -- next to a bare ipywidgets prompt -----------------------------------------------------------

#: nb_elicit's added latency (over the SDK floor) at most this many times a bare ipywidgets
#: prompt's, median, by the form's kind: a one-field form adds no more than the bare prompt, a
#: ten-field form (whose fields nb_elicit checks and shows more of) at most a fifth more. The
#: same ratio at p95 is reported as information.
BARE_TARGETS = {"name": 1.0, "ten": 1.2}


def added_ratio(ours: list[float], theirs: list[float], floor: list[float],
                stat=median) -> float:
    """(stat(ours) - stat(floor)) / (stat(theirs) - stat(floor)); ``stat`` is the median
    unless given (a function of a list, such as the 95th percentile)."""
    below = stat(theirs) - stat(floor)
    return (stat(ours) - stat(floor)) / below if below > 0 else float("inf")


def p95(values: list[float]) -> float:
    return pct(values, 95)


def bare_target(what: str, ours: list[float], bare: list[float], floor: list[float],
                limit: float | None, stat=median, label: str = "median") -> Target:
    """The target ``added(ours) <= limit * added(bare)`` (added: over the SDK floor, by
    ``stat``), measured as the ratio with both added times and the floor in ms (``limit``
    None: information, no verdict)."""
    ratio = added_ratio(ours, bare, floor, stat)
    added = stat(ours) - stat(floor)
    bare_added = stat(bare) - stat(floor)
    measured = (f"{ratio:.2f}x ({added:.2f} vs {bare_added:.2f} ms over the SDK floor's "
                f"{stat(floor):.2f} ms)" if bare_added > 0 else
                f"no ratio: the bare prompt added {bare_added:.2f} ms over the SDK floor "
                f"(nb_elicit {added:.2f} ms)")
    if limit is None:
        return Target(what, f"(info; {label})", measured, None)
    return Target(what, f"<= {limit:g}x ({label})", measured, ratio <= limit,
                  ms(added - limit * bare_added, 2) if ratio > limit else None)


def next_to_bare(sec: Section, way: Way, n: int, ours: dict, bare: dict, floor: dict) -> None:
    """nb_elicit next to both floors: the SDK client's callback (a runner thread, no widgets)
    and a bare ipywidgets prompt built, displayed and answered in the kernel."""
    rows = []
    for key, what in (("a", "(a) request sent -> prompt shown, kernel side"),
                      ("b", "(b) Submit click -> server holds the answer"),
                      ("total", "(a)+(b) total")):
        o, b, f = ours[key], bare[key], floor[key]
        ratio = added_ratio(o, b, f)
        rows.append([what, ms(median(o)), ms(pct(o, 95)), ms(median(b)), ms(pct(b, 95)),
                     ms(median(f), 2), ms(median(o) - median(f)), ms(median(b) - median(f)),
                     f"{ratio:.2f}x" if ratio != float("inf") else "-"])
    sec.table(f"{way.label[0].upper()}{way.label[1:]}, next to a bare ipywidgets prompt (the "
              f"same inputs and three buttons, built and displayed in an SDK callback in the "
              f"kernel, answered by a click), {n} rounds each",
              ["leg", "nb_elicit median", "nb_elicit p95", "bare prompt median",
               "bare prompt p95", "SDK floor median", "nb_elicit added", "bare prompt added",
               "added: nb_elicit / bare prompt"], rows)
    limit = BARE_TARGETS[way.kind]
    kind = "ten-field" if way.kind == "ten" else "one-field"
    transport = "stdio" if way.transport == "stdio" else "streamable HTTP"
    what = f"Added latency, {kind} form, next to a bare ipywidgets prompt, {transport}"
    sec.targets.append(bare_target(what, ours["total"], bare["total"], floor["total"], limit))
    # (p95 as information: the difference of two tails, over the few rounds of a quick run
    # or a loaded machine, is mostly noise, and can come out below the floor)
    sec.targets.append(bare_target(f"{what}, p95", ours["total"], bare["total"],
                                   floor["total"], None, p95, "p95"))
    if way.key == "stdio":
        sec.notes.append(
            "The bare ipywidgets prompt: a plain SDK Client inside the kernel, on its event "
            "loop (benchmarks/bench_prompts.py), against a bench server of its own, whose "
            "elicitation callback builds one bare control per field (Text, DatePicker, "
            "FloatText, IntText, Checkbox, Dropdown, SelectMultiple, each with the field's "
            "title) and three Buttons (Submit, Decline, Cancel) in one VBox, displays it in the "
            "calling cell, awaits a click and returns the answer (its models are closed once the "
            "call has returned, in neither leg; nb_elicit closes its form's over the next turns "
            "of the event loop once it has answered). Its "
            "(a) ends at the kernel's send time of that display_data message. The frontend "
            "clicks its Submit without typing first: typing into bare ipywidgets while a cell "
            "awaits stalls after the first key on ipykernel 7.4, which publishes no idle for "
            "a widget message it handles then (JupyterLab's throttle waits for one; nb_elicit "
            "publishes it), and the typing is in neither (a) nor (b) of nb_elicit's rounds "
            "either (its keystrokes are all answered before the click). "
            "Added = the median minus the SDK floor's median; the ratio is nb_elicit's added "
            "over the bare prompt's. nb_elicit's, the bare prompt's and the floor's rounds take "
            "turns in blocks (which of the two kernel prompts goes first alternates).")


# -- a call without a form ------------------------------------------------------------------

#: Widget models a plain tool call's view may make (no form in it).
PLAIN_MODELS = 3
#: The plain calls measured: (seconds the tool takes, how many calls).
PLAIN_CALLS = [(0.0, 5), (1.0, 3)]
QUICK_PLAIN_CALLS = [(0.0, 2), (1.0, 1)]


def plain_calls(kernel: Kernel, calls: list[tuple[float, int]]) -> list[dict]:
    """Calls of the bench server's ``pause`` (no elicitation): the widget models each call's
    view opened (comm_open received by the frontend, from the cell's start to its idle)."""
    import collections

    fe = kernel.fe
    found = []
    for seconds, count in calls:
        for _ in range(count):
            fe.mark()
            cell = fe.execute(f"await conn.call_tool('pause', {{'seconds': {seconds!r}}});")
            reply = fe.wait_reply(cell, CELL)
            if reply["status"] != "ok":
                raise BenchError(f"a plain call failed: {kernel.cell_text(cell)}")
            fe.wait_for(lambda cell=cell: cell in fe.idle_sent, CELL, "the call's idle")
            fe.pump_for(0.2)  # (what the view sends as the call ends)
            names = collections.Counter(fe.models[m].model_name.removesuffix("Model")
                                        for m in fe.opened if m in fe.models)
            found.append({"seconds": seconds, "models": sum(names.values()),
                          "by_type": dict(names.most_common())})
    return found


def report_plain(sec: Section, plain: list[dict]) -> None:
    if not plain:
        return
    rows = []
    for seconds in sorted({p["seconds"] for p in plain}):
        calls = [p for p in plain if p["seconds"] == seconds]
        if not calls:
            continue
        counts = sorted({p["models"] for p in calls})
        rows.append([f"{seconds:g} s", len(calls), "/".join(map(str, counts)),
                     ", ".join(f"{k} {v}" for k, v in calls[-1]["by_type"].items()) or "none"])
    sec.table("A plain tool call (the bench server's `pause`, no form): widget models its "
              "view opens", ["the tool takes", "calls", "models opened (each call)",
                             "by type (the last call)"], rows)
    most = max(p["models"] for p in plain)
    sec.targets.append(Target(
        "Widget models of a call without a form", f"<= {PLAIN_MODELS}",
        f"{most} (the most of {len(plain)} calls of `pause`, 0 and 1 s)", most <= PLAIN_MODELS,
        f"{most - PLAIN_MODELS} models" if most > PLAIN_MODELS else None))
    sec.notes.append(
        "A call without a form: `await conn.call_tool('pause', {'seconds': S})` in a cell of "
        "the same kernel, after the timed rounds; the models are the comm_open messages the "
        "frontend received from the cell's execute_request until 0.2 s after its idle (every "
        "model the call's view made, whether or not it is still open), the layout and style "
        "models every prompt of the kernel shares already made by the rounds before.")
