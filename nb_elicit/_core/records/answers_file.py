"""The answers file of ``%mcp record`` / ``%mcp replay``, as a pydantic model (see
:mod:`.recording`). Kept apart so that ``import nb_elicit`` does not import pydantic.
Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AnswersDocument", "RecordedEntry"]


class RecordedEntry(BaseModel):
    """One recorded answer."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    server: str
    tool: str
    schema_hash: str = Field(alias="schema")
    message: str
    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None
    omitted: list[str] = Field(default_factory=list)
    at: str = ""


class AnswersDocument(BaseModel):
    """The whole file (its ``format`` and ``version`` are checked before this model)."""

    model_config = ConfigDict(extra="allow")

    format: str
    version: int
    answers: list[RecordedEntry] = Field(default_factory=list)
