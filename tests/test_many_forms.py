"""Forms answered one after another: nb_elicit keeps nothing of each once its call has ended.
Section 5 of the benchmark answers 10,000 of them in one kernel (benchmarks/notes/memory.md);
this is the same guard at the scale of a test."""

from __future__ import annotations

import asyncio
import gc

import ipywidgets
from helpers.servers import demo_command, drive

import nb_elicit
from nb_elicit._runtime.state import kernel_state


def _alive(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, kind))


def test_forms_answered_one_after_another_leave_nothing_behind(journal, views):
    from nb_elicit import ElicitationForm
    from nb_elicit._ui.call_view import CallView

    async def scenario(person):
        conn = await nb_elicit.connect("demo", demo_command(journal))
        # (what earlier tests in this process left alive counts in neither direction)
        kept = [{"forms": _alive(ElicitationForm), "views": _alive(CallView)}]
        for _ in range(3):
            for _ in range(10):
                person.will("accept", {"name": "Ada"})
                await conn.call_tool("github_username")
            await asyncio.sleep(0.5)  # (the last view's models close a batch a turn)
            person.seen.clear()  # (the test's own references to the forms and views)
            views.clear()
            kept.append({"widgets": _alive(ipywidgets.Widget),
                         "forms": _alive(ElicitationForm), "views": _alive(CallView),
                         "pending": len(kernel_state().pending.forms())})
        return kept

    before, after_10, after_20, after_30 = drive(scenario)
    assert after_30 == after_20 == after_10
    assert after_30["forms"] <= before["forms"] + 1
    assert after_30["views"] <= before["views"] + 1 and after_30["pending"] == 0
