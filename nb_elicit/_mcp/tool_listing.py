"""A server's tools as its last listing said (:class:`ToolListing`), kept by its session.

Each tool is kept as listed (its ``_meta`` names its app, if any), with its
``execution.taskSupport`` (2025-11-25). Nothing here asks the server by itself: what is not
known yet is listed through the session's own ``list_tools``, at most once until the server
says its list changed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import mcp_types as types
from pydantic import BaseModel

from .._core.errors import ServerError

__all__ = ["ToolListing", "plain"]


class ToolListing:
    """The tools of one session's server; ``list_tools()`` (the session's) lists them again,
    and gives them to :meth:`keep`."""

    def __init__(self, list_tools: Callable[[], Awaitable[list[dict[str, Any]]]]):
        self._list_tools = list_tools
        #: Each tool's ``execution.taskSupport`` (2025-11-25), as the last listing said.
        self._task_support: dict[str, str] = {}
        #: Each tool as the last listing showed it.
        self._tools: dict[str, dict[str, Any]] = {}
        self._listed = False

    def keep(self, tools: Sequence[types.Tool]) -> list[dict[str, Any]]:
        """A listing the server answered: kept, and given back as plain dicts."""
        for tool in tools:
            execution = getattr(tool, "execution", None)
            self._task_support[tool.name] = getattr(execution, "task_support", None) or "forbidden"
        listed = [plain(t) for t in tools]
        self._tools = {t["name"]: t for t in listed}
        self._listed = True
        return listed

    def changed(self) -> None:
        """The server's tool list changed: what is asked next lists it again."""
        self._tools = {}
        self._task_support = {}
        self._listed = False

    async def output_schema(self, name: str) -> dict[str, Any] | None:
        """The output schema of the tool ``name`` (listed once if it is not known yet, as the
        SDK would list it to check a result); None: none, or not listed."""
        if name not in self._tools:
            with contextlib.suppress(ServerError):
                await self._list_tools()
        return self._tools.get(name, {}).get("outputSchema")

    async def tool(self, name: str, may_have_apps: bool) -> dict[str, Any] | None:
        """The tool ``name`` as listed, listed once if need be; only a server that
        ``may_have_apps`` (it has resources) is asked (None: not listed)."""
        if name not in self._tools and not self._listed and may_have_apps:
            with contextlib.suppress(ServerError):
                await self._list_tools()
        return self._tools.get(name)

    async def names(self) -> list[str] | None:
        """The names of the tools (listed once if need be); None if they cannot be listed."""
        if not self._listed:
            try:
                await self._list_tools()
            except ServerError:
                return None
        return list(self._tools)

    async def may_run_as_task(self, name: str) -> bool:
        """Whether the tool ``name`` may run as a 2025-11-25 task (its ``taskSupport`` is
        optional or required; a tool not listed is asked about once only)."""
        if name not in self._task_support:
            with contextlib.suppress(ServerError):
                await self._list_tools()
            self._task_support.setdefault(name, "forbidden")
        return self._task_support.get(name, "forbidden") in ("optional", "required")


def plain(model: BaseModel) -> dict[str, Any]:
    """An SDK model as the JSON-shaped dict of the wire (camelCase keys, no nulls)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
