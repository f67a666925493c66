"""2. Added latency per elicitation in a real kernel, answered by the scripted frontend, next
to the SDK floor: a plain Client that accepts in its callback, against the same server, in the
same run (interleaved blocks)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..common import CELL, BenchError, Section, Target, log, median, ms, pct
from ..harness import FloorClient, Journal, Kernel, answer_form, wait_shown

TITLE = "2. End-to-end added latency per elicitation"


def run(opts, sec: Section) -> None:
    n = opts.rounds or (30 if opts.quick else 200)
    warm = 5
    blocks = 2 if opts.quick else 4
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    nb_journal, floor_journal = Journal(tmp / "nb.jsonl"), Journal(tmp / "floor.jsonl")
    nb: dict[str, dict] = {}
    log(f"  latency: {n} elicitations each way (+{warm} warm-up), {blocks} interleaved blocks")
    floor = FloorClient(floor_journal.path, {"name": "ada"})
    try:
        with Kernel(opts) as kernel:
            fe = kernel.fe
            kernel.connect("conn", nb_journal.path)

            def nb_round(tag: str) -> None:
                fe.mark()
                cell = fe.execute(f"await conn.call_tool('ask', {{'tag': {tag!r}, "
                                  f"'kind': 'name'}});")
                (shown,) = wait_shown(fe, 1, kernel, cell)[:1]
                clicked = answer_form(fe, shown, "nb-elicit-submit", "ada")
                entry = fe.wait_for(lambda: nb_journal.get(tag), CELL, f"the answer to {tag}")
                reply = fe.wait_reply(cell, CELL)
                if reply["status"] != "ok":
                    raise BenchError(f"round {tag} failed: {kernel.cell_text(cell)}")
                if entry["action"] != "accept" or entry["content"] != {"name": "ada"}:
                    raise BenchError(f"round {tag}: the server got {entry}")
                nb[tag] = {"shown": shown, "clicked": clicked}

            for i in range(warm):
                nb_round(f"warm-{i}")
                floor.rounds([f"warm-{i}"])
            per_block = [n // blocks + (1 if b < n % blocks else 0) for b in range(blocks)]
            done = 0
            for b, size in enumerate(per_block):
                tags = [f"r{done + i}" for i in range(size)]
                floor.rounds(tags)
                for tag in tags:
                    nb_round(tag)
                done += size
                log(f"    block {b + 1}/{blocks} done ({done}/{n})")
            # The same form, built in the kernel but not shown: how much of (a) is building it.
            build = kernel.call("form_build_time")
    finally:
        floor.close()

    tags = [f"r{i}" for i in range(n)]
    nb_entries, floor_entries = nb_journal.poll(), floor_journal.poll()
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
    total_nb = [a + b for a, b in zip(a_kernel, b_nb, strict=True)]
    total_front = [a + b for a, b in zip(a_front, b_nb, strict=True)]
    total_floor = [a + b for a, b in zip(a_floor, b_floor, strict=True)]

    def row(what, values, floor_values):
        m, p = median(values), pct(values, 95)
        fm, fp = median(floor_values), pct(floor_values, 95)
        return [what, ms(m), ms(p), ms(fm, 2), ms(fp, 2), ms(m - fm), ms(p - fp),
                f"{m / fm:.0f}x" if fm > 0 else "-"]

    sec.table(f"Per elicitation, {n} rounds each (median, p95); floor = plain SDK Client "
              "answering in its callback",
              ["leg", "nb_elicit median", "nb_elicit p95", "floor median", "floor p95",
               "added median", "added p95", "ratio (median)"],
              [row("(a) request sent -> form shown, kernel side", a_kernel, a_floor),
               row("(a') request sent -> form at the frontend", a_front, a_floor),
               row("(b) Submit click -> server holds the answer", b_nb, b_floor),
               row("(a)+(b) total", total_nb, total_floor),
               row("(a')+(b) total, frontend side", total_front, total_floor)])
    sec.notes.append(
        f"For comparison with (a) (median {ms(median(a_kernel))}): the same one-field "
        f"ElicitationForm, built in the same kernel without showing it, takes "
        f"{ms(build['ms'])} (median of 30) and makes {build['widgets']} widget models, each "
        "announced to the frontend with a comm_open message of its own.")
    sec.notes.append(
        "(a) ends at the kernel's send time of the widget message that attaches the built form "
        "to its cell (header date); (a') when the frontend received it. The floor's (a) ends "
        "when its callback is entered, its (b) starts when its callback returns. (b) for "
        "nb_elicit starts when the frontend sends the click, so it includes the trip from the "
        "frontend to the kernel, which the floor has no counterpart for. Typing into the form "
        "(3 keystrokes, each answered before the click) is not timed. All times are Unix "
        "times of one machine (server, kernel, frontend).")
    added_med = median(total_nb) - median(total_floor)
    added_p95 = pct(total_nb, 95) - pct(total_floor, 95)
    sec.targets.append(Target("Added latency per elicitation (a)+(b), median", "< 15 ms",
                              ms(added_med), added_med < 15))
    sec.targets.append(Target("Added latency per elicitation (a)+(b), p95", "< 50 ms",
                              ms(added_p95), added_p95 < 50))
