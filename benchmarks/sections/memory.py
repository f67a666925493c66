"""5. Kernel RSS and live widget models before and after many answered elicitations, next to
a plain SDK Client that accepts at once, in a kernel of its own."""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path

from ..common import CELL, PY, BenchError, Section, Target, cpu_seconds, log, ms, pct, rss_mb
from ..harness import Journal, Kernel, answer_form, server_command, wait_shown

TITLE = "5. Memory over many elicitations"

#: Kernel RSS growth allowed over the rounds, after warm-up (MB).
RSS_TARGET = 5.0
#: How much slower the last rounds' p95 latency may be than the first rounds' (a share).
DRIFT_TARGET = 0.10
#: Rounds measured in quick mode: enough that a tenth of them (the windows compared) is 20
#: rounds, whose p95 is not simply their slowest (as it was at 100 rounds, 10 a window).
QUICK_ROUNDS = 200
#: Rounds run by one cell (a loop of calls), in both kernels: IPython keeps something of every
#: cell for as long as the kernel runs, which would otherwise be most of what grows.
PER_CELL = 50


def batches(tags: list[str]) -> list[list[str]]:
    """``tags`` in runs of :data:`PER_CELL`, one run a cell."""
    return [tags[i:i + PER_CELL] for i in range(0, len(tags), PER_CELL)]


def loop_cell(client: str, tags: list[str]) -> str:
    """A cell that calls the bench server's ``ask`` once per tag, one call after the other."""
    return (f"for _tag in {tags!r}:\n"
            f"    await {client}.call_tool('ask', {{'tag': _tag, 'kind': 'click'}})\n")


def window(n: int) -> int:
    """How many rounds the first and the last latency windows hold: 1,000 of 10,000 (a
    tenth, at most 1,000, at least 10)."""
    return max(10, min(1000, n // 10))


def cpu_per_round(marks: list[tuple[int, float]], w: int) -> tuple[float, float]:
    """The kernel's CPU time per round (ms) over the first and the last ``w`` rounds, from
    ``marks``: (rounds done, kernel CPU seconds) at the start and after each cell. A cell is the
    finest step, so a window shorter than a cell takes the whole first or last cell."""
    (_, start), (n, end) = marks[0], marks[-1]
    first = next(m for m in marks if m[0] >= min(w, n))
    last = max((m for m in marks if m[0] <= max(n - w, 0)), key=lambda m: m[0])
    return (1000 * (first[1] - start) / first[0], 1000 * (end - last[1]) / (n - last[0]))


def descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and theirs (the kernel's: its stdio server)."""
    found, todo = [], [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                kids = [int(k) for k in task.read_text().split()]
                found += kids
                todo += kids
    return found


def server_cpu(pid: int) -> float:
    """CPU seconds of the processes the kernel ``pid`` started (its bench server)."""
    total = 0.0
    for kid in descendants(pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(kid)
    return total


def warm_up(n: int, history_limit: int) -> int:
    """Rounds of each kind run before anything is measured: as many as nb_elicit's history
    keeps (so that it is full, and stays the same size, while RSS is measured), but no more
    than the rounds measured."""
    return max(10, min(n, history_limit))


def _floor(opts, n: int, journal: Journal) -> dict:
    """The floor in a kernel of its own: a plain SDK Client answering at once, warmed up like
    nb_elicit's kernel, then ``n`` rounds. RSS (MB) and Python's memory blocks along the way."""
    with Kernel(opts) as kernel:
        _, *args = server_command(journal.path)
        kernel.run(f"import in_kernel as _bench; "
                   f"floor_client = await _bench.start_floor({PY!r}, {args!r})")

        def floor_rounds(tags: list[str]) -> None:
            for batch in batches(tags):
                kernel.run(loop_cell("floor_client", batch))

        fresh = kernel.call("stats")
        warm = warm_up(n, fresh["history_limit"] or 0)
        log(f"  memory, floor: warm-up of {warm} rounds, then {n} elicitations answered by a "
            "plain SDK client in a kernel of its own")
        floor_rounds([f"warm-{i}" for i in range(warm)])
        before = kernel.call("stats")
        rss_before = rss_mb(kernel.pid)
        floor_rounds([f"f{i}" for i in range(n)])
        after = kernel.call("stats")
        rss_after = rss_mb(kernel.pid)
        kernel.call("stop_floor", awaited=True)
    return {"warm": warm, "limit": fresh["history_limit"], "rss_before": rss_before,
            "rss_after": rss_after, "blocks_before": before["blocks"],
            "blocks_after": after["blocks"]}


def run(opts, sec: Section) -> None:
    n = opts.memory_rounds or (QUICK_ROUNDS if opts.quick else 10_000)
    tmp = Path(tempfile.mkdtemp(prefix="nb-elicit-bench-"))
    journal, floor_journal = Journal(tmp / "memory.jsonl"), Journal(tmp / "floor.jsonl")
    floor = _floor(opts, n, floor_journal)
    warm = floor["warm"]
    with Kernel(opts) as kernel:
        fe = kernel.fe
        kernel.connect("conn", journal.path)

        stamps: dict[str, tuple[float, float]] = {}  # tag -> (form shown, Submit clicked)
        forgotten = [0]  # closed models the frontend dropped

        def rounds(tags: list[str], progress: bool = False) -> None:
            """One cell per batch of tags; Submit on each form as it is shown."""
            for batch in batches(tags):
                fe.mark()
                cell = fe.execute(loop_cell("conn", batch))
                for k, tag in enumerate(batch):
                    shown = wait_shown(fe, k + 1, kernel, cell)[k]
                    stamps[tag] = (shown.kernel_at, answer_form(fe, shown, "nb-elicit-submit"))
                reply = fe.wait_reply(cell, CELL)
                if reply["status"] != "ok":
                    raise BenchError(f"rounds {batch[0]}... failed: {kernel.cell_text(cell)}")
                # (the scripted frontend would otherwise keep every model of every round)
                forgotten[0] += fe.forget_closed_models()
                fe.forget_cell(cell)
                done = int(batch[-1].rsplit("m", 1)[-1]) + 1 if progress else 0
                if progress:
                    cpu_marks.append((done, cpu_seconds(kernel.pid)))
                    server_marks.append((done, server_cpu(kernel.pid)))
                step = max(1, n // 5)
                if progress and (done // step > (done - len(batch)) // step or done == n):
                    checkpoints.append((done, rss_mb(kernel.pid)))
                    log(f"    {done}/{n}, kernel RSS {checkpoints[-1][1]:.1f} MB")

        kernel.call("stats")
        rss_fresh = rss_mb(kernel.pid)
        log(f"  memory: warm-up of {warm} rounds, then {n} elicitations answered with Submit "
            "in nb_elicit forms")
        checkpoints: list[tuple[int, float]] = []
        rounds([f"warm-{i}" for i in range(warm)])
        before = kernel.call("stats")  # (its gc.collect() before each reading)
        rss_before = rss_mb(kernel.pid)
        open_before = sum(not m.closed for m in fe.models.values())
        started = time.monotonic()
        cpu_marks = [(0, cpu_seconds(kernel.pid))]
        server_marks = [(0, server_cpu(kernel.pid))]
        rounds([f"m{i}" for i in range(n)], progress=True)
        elapsed = time.monotonic() - started
        after = kernel.call("stats")
        rss_after = rss_mb(kernel.pid)
        open_after = sum(not m.closed for m in fe.models.values())
    entries, floor_entries = journal.poll(), floor_journal.poll()
    got = [entries.get(f"m{i}", {}).get("action") for i in range(n)]
    if got.count("accept") != n:
        raise BenchError(f"only {got.count('accept')} of {n} answers reached the server as "
                         f"accept: {[g for g in got if g != 'accept'][:5]}")
    floor_got = sum(1 for i in range(n) if floor_entries.get(f"f{i}", {}).get("action")
                    == "accept")
    if floor_got != n:
        raise BenchError(f"only {floor_got} of {n} floor answers reached the server")
    growth, floor_growth = rss_after - rss_before, floor["rss_after"] - floor["rss_before"]
    blocks = (after["blocks"] - before["blocks"]) / n
    floor_blocks = (floor["blocks_after"] - floor["blocks_before"]) / n
    # Added latency of each round, as in section 2: (request sent -> form shown) + (Submit
    # click -> the server holds the answer).
    latency = [1000 * ((stamps[f"m{i}"][0] - entries[f"m{i}"]["sent"])
                       + (entries[f"m{i}"]["answered"] - stamps[f"m{i}"][1])) for i in range(n)]
    w = window(n)
    first, last = latency[:w], latency[-w:]
    drift = pct(last, 95) / pct(first, 95) - 1
    cpu_first, cpu_last = cpu_per_round(cpu_marks, w)
    server_first, server_last = cpu_per_round(server_marks, w)
    sec.table(f"Kernel RSS over {n:,} elicitations each, after a warm-up of {warm:,} rounds, "
              "each in a kernel of its own (gc.collect() before each reading)",
              ["", "RSS growth", "per elicitation", "Python objects kept per elicitation"],
              [["floor: plain SDK Client in a kernel, accepting at once",
                f"{floor_growth:+.1f} MB", f"{1024 * floor_growth / n:.1f} kB",
                f"{floor_blocks:+.1f}"],
               ["nb_elicit: a form per elicitation, answered with Submit",
                f"{growth:+.1f} MB", f"{1024 * growth / n:.1f} kB", f"{blocks:+.1f}"]])
    limit = floor["limit"]
    full = ("as many as nb_elicit's history keeps, so that it is full, and stays the same "
            "size, while RSS is measured" if limit and warm >= limit else
            f"as many as the rounds measured (fewer than the {limit or 0:,} entries nb_elicit's "
            "history keeps, so it still grows by one entry per elicitation while RSS is "
            "measured)")
    sec.notes.append(
        f"The warm-up: {warm:,} rounds in each kernel before anything is measured: {full}. "
        "Each kernel had connected and run a few small cells before it. nb_elicit's kernel "
        f"grew from {rss_fresh:.1f} MB to {rss_before:.1f} MB during the warm-up ({warm:,} "
        "entries of history, the heap growing to its working size, first-use imports and "
        "caches); the growth in the table is all that came after it. The floor and nb_elicit "
        "run in separate kernels because in one kernel the second to run reuses, or does not, "
        "the memory the first one freed, which says nothing about either.")
    sec.notes.append(
        "Python objects kept: memory blocks the interpreter holds (sys.getallocatedblocks(), "
        "after gc.collect()), per elicitation. Both include what IPython keeps of every cell "
        "(its source, for tracebacks and In[]) and the signatures jupyter_client keeps of every "
        "message the kernel receives (to refuse replays; up to 65,536), for as long as the "
        "kernel runs; each nb_elicit round sends the kernel one message more (the Submit "
        "click).")
    kept = ""
    with contextlib.suppress(Exception):
        from ..in_kernel import nb_kept

        history = nb_kept("history", "nb_elicit._core.records.history:HISTORY",
                          "nb_elicit._history:HISTORY")
        kept = f" (nb_elicit's history keeps the last {history.limit:,} entries)"
    sec.table(f"Kernel before and after the {n} nb_elicit elicitations{kept}",
              ["", "kernel RSS", "live widget models (kernel)", "ElicitationForm",
               "CallView", "open models (frontend)", "history entries"],
              [["before", f"{rss_before:.1f} MB", before["widgets"], before["forms"],
                before["views"], open_before, before["history"]],
               ["after", f"{rss_after:.1f} MB", after["widgets"], after["forms"],
                after["views"], open_after, after["history"]],
               ["per elicitation", f"{1024 * growth / n:.1f} kB",
                f"{(after['widgets'] - before['widgets']) / n:.1f}",
                f"{(after['forms'] - before['forms']) / n:.2f}",
                f"{(after['views'] - before['views']) / n:.2f}",
                f"{(open_after - open_before) / n:.1f}",
                f"{(after['history'] - before['history']) / n:.2f}"
                if before["history"] is not None else "-"]])
    grown = {k: after["by_type"].get(k, 0) - before["by_type"].get(k, 0)
             for k in after["by_type"]}
    top = ", ".join(f"{k} {v:+d}" for k, v in sorted(grown.items(), key=lambda kv: -kv[1])
                    if v)
    per_form = (after["in_forms"] - before["in_forms"]) / n
    per_view = (after["in_views"] - before["in_views"]) / n
    orphans = (after["orphans"] - before["orphans"]) / n
    sec.notes.append(f"Widget models added (the most common types): {top or 'none'}. Per "
                     f"elicitation, {per_form:.0f} models of the answered form (its children, "
                     f"layouts and styles) and {per_view:.0f} more of the call's output view "
                     "(waiting line, result) are still alive after the call ended, and "
                     f"{orphans:.0f} layout or style models that no live widget uses any more "
                     "(replaced, but never closed).")
    sec.table(f"Latency per elicitation ((a)+(b) as in section 2) in the first and the last "
              f"{w:,} of the {n:,} rounds, and the CPU time per round of the kernel and of "
              "the bench server in them",
              ["rounds", "median", "p95", "kernel CPU per round", "server CPU per round"],
              [[f"first {w:,}", ms(pct(first, 50)), ms(pct(first, 95)), ms(cpu_first),
                ms(server_first)],
               [f"last {w:,}", ms(pct(last, 50)), ms(pct(last, 95)), ms(cpu_last),
                ms(server_last)]])
    sec.notes.append(
        f"The kernel's CPU time per round, last {w:,} next to the first: {cpu_last:.1f} vs "
        f"{cpu_first:.1f} ms ({cpu_last / cpu_first - 1:+.0%}); the bench server's, whose work "
        f"per round is the same in every round: {server_last:.2f} vs {server_first:.2f} ms "
        f"({server_last / server_first - 1:+.0%}). Work in the kernel that grew with every "
        "elicitation would show as the kernel's share growing next to the server's: "
        f"{cpu_first / server_first:.1f}x the server's in the first rounds, "
        f"{cpu_last / server_last:.1f}x in the last. On a machine whose cores other work shares, "
        "both CPU times, and the latency of the same rounds, move with that work's load, which "
        "a run of minutes rarely keeps even; the section's header says how much there was.")
    sec.notes.append("Kernel RSS along the way (no gc.collect()): "
                     + ", ".join(f"{rss:.1f} MB after {i}" for i, rss in checkpoints)
                     + f" (from {rss_before:.1f} MB).")
    sec.notes.append(f"The scripted frontend dropped each cell's closed models once the cell "
                     f"ended ({forgotten[0]:,} in all, warm-up included), as JupyterLab drops "
                     "a closed model, and the cell's outputs; it used to keep every model and "
                     "every output of every round.")
    sec.notes.append(f"The {n} nb_elicit rounds took {elapsed:.1f} s ({1000 * elapsed / n:.0f} "
                     "ms each: wait for the form, click Submit, wait for the call to end). The "
                     "form has one optional checkbox, so Submit needs no typing.")
    sec.notes.append(f"In both kernels a cell runs {PER_CELL} rounds, one call after the other "
                     "(`for tag in tags: await client.call_tool('ask', ...)`): IPython keeps "
                     "the source of every cell for as long as the kernel runs, about 1.3 kB a "
                     "cell, which with one cell a round was most of what grew in both kernels.")
    sec.targets.append(Target(f"Kernel RSS growth over {n} elicitations, after warm-up",
                              f"< {RSS_TARGET:g} MB",
                              f"{growth:+.1f} MB (floor {floor_growth:+.1f} MB)",
                              growth < RSS_TARGET))
    sec.targets.append(Target(f"Live widget models after {n} elicitations", "back to baseline",
                              f"{before['widgets']} -> {after['widgets']}",
                              after["widgets"] <= before["widgets"]))
    sec.targets.append(Target(f"p95 latency, last {w:,} rounds next to the first {w:,}",
                              f"within {DRIFT_TARGET:.0%}",
                              f"{ms(pct(last, 95))} vs {ms(pct(first, 95))} ({drift:+.0%})",
                              drift <= DRIFT_TARGET))
