"""The sections, in the order they run: name -> module (each has ``TITLE`` and
``run(opts, section)``)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from . import (
    app,
    build,
    first_form,
    flood,
    held,
    idle,
    latency,
    memory,
    paint,
    scale,
    startup,
    task,
)

MODULES: dict[str, ModuleType] = {
    "build": build,
    "latency": latency,
    "idle": idle,
    "task": task,
    "memory": memory,
    "scale": scale,
    "startup": startup,
    "flood": flood,
    "first-form": first_form,
    "app": app,
    "paint": paint,
    "held": held,
}
SECTIONS = tuple(MODULES)
RUNNERS: dict[str, tuple[str, Callable]] = {name: (module.TITLE, module.run)
                                           for name, module in MODULES.items()}


def choose(only: str | None = None, skip: str | None = None) -> list[str]:
    """The sections to run, in their order, from ``--only`` and ``--skip`` (comma-separated).
    Raises ValueError naming any section that does not exist."""
    chosen = list(SECTIONS)
    if only:
        chosen = [s.strip() for s in only.split(",") if s.strip()]
    if skip:
        skipped = {s.strip() for s in skip.split(",")}
        chosen = [s for s in chosen if s not in skipped]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(SECTIONS)}")
    return chosen
