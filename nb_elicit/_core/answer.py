"""What a form answers: one of the three elicitation actions, with content only for accept."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Action", "Answer"]

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Answer:
    """The person's answer to one elicitation.

    ``accept`` of a form carries ``content``: exactly the fields the person gave, already
    validated. ``accept`` of a URL request (consent to open the page) carries none, and
    neither do ``decline`` (an explicit no) and ``cancel`` (dismissed without choosing).
    """

    action: Action
    content: dict[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        if self.action not in ("accept", "decline", "cancel"):
            raise ValueError(f"unknown action {self.action!r}")
        if self.action != "accept" and self.content is not None:
            raise ValueError(f"{self.action} carries no content")

    def to_result(self) -> dict[str, Any]:
        """The ``ElicitResult`` as it goes on the wire."""
        if self.action == "accept" and self.content is not None:
            return {"action": "accept", "content": dict(self.content)}
        return {"action": self.action}
