"""6. Scale: 10 stdio servers, each asking 20 questions at once (200 forms); the frontend
clicks Submit or Decline on every one; all 200 answers must reach the servers."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from ..common import BenchError, Section, Target, log, median, ms, pct
from ..harness import Journal, Kernel, answer_form, server_command

TITLE = "6. Scale: 10 servers x 20 concurrent forms"


def run(opts, sec: Section) -> None:
    servers, each = 10, 20
    total = servers * each
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    journals = [Journal(tmp / f"s{i}.jsonl") for i in range(servers)]
    env = {"PYTHONPATH": opts.nb_elicit} if opts.nb_elicit else None
    with Kernel(opts) as kernel:
        fe = kernel.fe
        commands = [server_command(j.path) for j in journals]
        t0 = time.monotonic()
        kernel.run("import asyncio, json, nb_elicit\n"
                   f"conns = await asyncio.gather(*(nb_elicit.connect(f's{{i}}', c, env={env!r})"
                   f" for i, c in enumerate({commands!r})))", timeout=120)
        connected = time.monotonic() - t0
        kernel.unlimited([f"s{i}" for i in range(servers)])
        log(f"  scale: {servers} servers connected in {connected:.1f} s; {total} forms at once")
        fe.mark()
        started = time.time()
        cell = fe.execute(
            "results = await asyncio.gather(*(c.call_tool('ask_many', {'count': "
            f"{each}, 'tag': c.name, 'kind': 'click'}}) for c in conns))")
        clicked: dict[str, tuple[str, float]] = {}  # form id -> (action, click time)
        deadline = time.monotonic() + 180
        while len(clicked) < total:
            if time.monotonic() > deadline:
                raise BenchError(f"{len(fe.shown)} of {total} forms appeared and {len(clicked)}"
                                 f" were clicked within 180 s; cell: {kernel.cell_text(cell)}")
            if cell in fe._replies and len(fe.shown) < total:
                raise BenchError(f"the cell ended with {len(fe.shown)} of {total} forms shown:"
                                 f"\n{kernel.cell_text(cell)}")
            for shown in list(fe.shown):
                if shown.form_id not in clicked:
                    action = "accept" if len(clicked) % 2 == 0 else "decline"
                    button = "nb-elicit-submit" if action == "accept" else "nb-elicit-decline"
                    clicked[shown.form_id] = (action, answer_form(fe, shown, button))
            fe.pump(0.05)
        all_shown = max(s.frontend_at for s in fe.shown)
        reply = fe.wait_reply(cell, 120)
        if reply["status"] != "ok":
            raise BenchError(f"the calls failed: {kernel.cell_text(cell)}")
        ended = time.time()
        stats = kernel.call("stats")
        results = kernel.json("import in_kernel as _bench; _bench.emit([r.text for r in results])")
        tags = {}
        for shown in fe.shown:
            match = re.search(r"Benchmark question (s\d+-\d+)", fe.form_text(shown.form_id))
            if match is None:
                raise BenchError("a form does not show its question")
            tags[shown.form_id] = match[1]
    entries = {}
    for j in journals:
        entries.update(j.poll())
    lost = [tags[f] for f in clicked if tags[f] not in entries]
    wrong = [tags[f] for f, (action, _) in clicked.items()
             if tags[f] in entries and entries[tags[f]]["action"] != action]
    by_tag = {tags[f]: (action, at) for f, (action, at) in clicked.items()}
    click_to_server = [(entries[t]["answered"] - at) * 1000 for t, (_, at) in by_tag.items()
                       if t in entries]
    last_answer = max(e["answered"] for e in entries.values())
    first_sent = min(e["sent"] for e in entries.values())
    accepts = sum(1 for e in entries.values() if e["action"] == "accept")
    declines = sum(1 for e in entries.values() if e["action"] == "decline")
    ok = (len(entries) == total and not lost and not wrong and stats["pending"] == 0)
    sec.table(f"{servers} stdio servers x {each} concurrent questions = {total} forms",
              ["", "value"],
              [["connect 10 servers (concurrently)", f"{connected:.2f} s"],
               ["first request sent -> all forms shown at the frontend",
                f"{all_shown - first_sent:.2f} s"],
               ["cell started -> every answer held by its server",
                f"{last_answer - started:.2f} s"],
               ["cell started -> the cell ended (all 10 calls returned)",
                f"{ended - started:.2f} s"],
               ["click -> server holds the answer, median / p95 (clicks wait while the "
                "kernel builds the other forms)",
                f"{ms(median(click_to_server))} / {ms(pct(click_to_server, 95))}"],
               ["answers at the servers (accept / decline)",
                f"{len(entries)} of {total} ({accepts} / {declines})"],
               ["lost, or a different answer than clicked", f"{len(lost)}, {len(wrong)}"],
               ["forms still pending in the kernel (kernel_state().pending)",
                stats["pending"]],
               ["tool results returned", f"{len(results)} calls, "
                f"{sum(str(t).count('accept') + str(t).count('decline') for t in results)}"
                " actions echoed"]])
    sec.notes.append("The frontend clicks each form as soon as it is shown, alternating Submit "
                     "and Decline; all forms wait in their calls' cells at the same time.")
    sec.targets.append(Target(f"{total} concurrent forms from {servers} servers",
                              "all answered, none lost or pending",
                              f"{len(entries)}/{total} in {last_answer - started:.1f} s", ok))
