"""A person at a headless kernel's task cards: clicks **Cancel task** or **Detach** on the card
of each task as it starts, by script, through the card's own buttons.

It runs inside the kernel. A notebook run under nbclient shows no widgets, so nobody could click
its cards; the test puts :func:`cell` before the notebook's own cells, and the person acts while
the notebook's cells wait, as a person at the screen would.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def cell(script: list[tuple[str, str]]) -> str:
    """The source of a cell that starts the person with ``script``: (tool, "cancel" or
    "detach") for each task of that tool, in the order they start."""
    return (
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from helpers.task_person import start\n"
        f"await start({script!r})"
    )


async def start(script: list[tuple[str, str]]) -> asyncio.Task:
    """Start clicking, on the kernel's loop (where the notebook's awaiting cells wait)."""
    return asyncio.get_running_loop().create_task(_click(list(script)))


async def _click(script: list[tuple[str, str]]) -> None:
    from nb_elicit._runtime.state import kernel_state

    seen: set[tuple[str, str]] = set()
    while script:
        for run in kernel_state().tasks.runs():
            card = getattr(run, "card", None)
            key = (run.connection, run.task_id)
            # (once the server told the task's first state: the card says it runs)
            if key in seen or card is None or run.ended or run.state is None:
                continue
            seen.add(key)
            if run.tool == script[0][0]:
                _, action = script.pop(0)
                (card.cancel_button if action == "cancel" else card.detach_button).click()
                if not script:
                    return
        await asyncio.sleep(0.02)
