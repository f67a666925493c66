"""Closing a widget and everything inside it: its children, and their layout and style models;
at once, or a few at a time over turns of the event loop (a call's view that held a flood of
answered forms has thousands of models)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import ipywidgets as widgets

from .kit import is_shared
from .loop import running_loop

__all__ = ["CLOSE_BUDGET", "CLOSE_PAUSE", "close_soon", "close_tree", "tree_models"]


def close_tree(widget: widgets.Widget) -> None:
    """Close a widget, everything inside it, and their layout and style models (but the ones
    every prompt shares: see kit.Kit)."""
    for model in tree_models(widget):
        model.close()


#: Seconds :func:`close_soon` spends closing models in one turn of the event loop (each close
#: is one message to the frontend: about 0.1 ms of the kernel's time, more on a busy machine).
CLOSE_BUDGET = 0.004
#: Seconds it then leaves the kernel to everything else. ipykernel's IOPub thread, which sends
#: the messages, needs the interpreter too: while the loop closes without a pause it sends
#: slowly, the messages pile up, and a cell's reply waits behind them (a cell flushes its
#: output through the same queue before it replies).
CLOSE_PAUSE = 0.004


def close_soon(widget: widgets.Widget) -> None:
    """:func:`close_tree`, spread over turns of the running event loop: at least one model and
    at most :data:`CLOSE_BUDGET` seconds' worth in each, :data:`CLOSE_PAUSE` apart, so that
    other work (a cell, a click) waits for one small batch at most. Without a running loop,
    everything is closed at once (a close that fails is raised after the others). Only for
    widgets no longer shown."""
    # (walked as it closes: a flood's view has thousands of models, and a walk over all of
    # them first would hold the turn that froze the view as long as a batch of closes)
    models = _walk(widget)
    loop = running_loop()

    def close_some() -> None:
        deadline = time.perf_counter() + CLOSE_BUDGET
        failure: Exception | None = None
        left = False
        for model in models:
            try:
                model.close()
            except Exception as exc:  # noqa: BLE001 - raised below: one failure stops no other
                failure = failure or exc
            if loop is not None and time.perf_counter() >= deadline:
                left = True
                break
        if left and loop is not None:
            if CLOSE_PAUSE > 0:
                # Background work: UI only: the closer's next batch.
                loop.call_later(CLOSE_PAUSE, close_some)
            else:
                loop.call_soon(close_some)
        if failure is not None:
            raise failure

    close_some()


def tree_models(widget: widgets.Widget) -> list[widgets.Widget]:
    """A widget, everything inside it, and their layout and style models, innermost first
    (each layout or style once; none of those every prompt shares: see kit.Kit)."""
    return list(_walk(widget))


def _walk(widget: widgets.Widget) -> Iterator[widgets.Widget]:
    """:func:`tree_models`, one at a time: each node's children, layout and style are read
    when the walk reaches it (before the node itself is given)."""
    seen: set[int] = set()

    def visit(node: widgets.Widget) -> Iterator[widgets.Widget]:
        for child in tuple(getattr(node, "children", ())):
            yield from visit(child)
        for part in (getattr(node, "layout", None), getattr(node, "style", None), node):
            if isinstance(part, widgets.Widget) and id(part) not in seen \
                    and not is_shared(part):
                seen.add(id(part))
                yield part

    return visit(widget)
