"""The notices of one call, in order: what the live view shows and the transcript tells.

A notice is a line under a call (a refused request, a decline, a count that grows) of a
:class:`NoticeKind`, with the :class:`~nb_elicit._core.records.transcript.Asked` record when it
answered a request. A call keeps :data:`MAX_NOTICES` of them; past that, one more line counts
the rest ("… and N more notices"), made from the count. The model also keeps the call's
plain-text lines (the notices and how the call ended), for runs that show no widgets.

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_NOTICES", "Notice", "NoticeEntry", "NoticeKind", "Notices", "overflow_text"]

#: Notices one call shows; past this, one line counts the rest (a flood stays bounded).
MAX_NOTICES = 50


class NoticeKind(str, enum.Enum):
    """How a notice reads: a word and a colour for each kind."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def of(cls, kind: NoticeKind | str) -> NoticeKind:
        """``kind`` as a kind; an unknown one reads as info."""
        try:
            return cls(kind)
        except ValueError:
            return cls.INFO


@dataclass(frozen=True)
class Notice:
    """A notice under a call, as the transcript tells it."""

    text: str
    kind: NoticeKind = NoticeKind.INFO
    #: A class that names this line in the page (see :attr:`NoticeEntry.tag`), or "": how it
    #: is found, not what it says (two notices that say the same are equal).
    tag: str = field(default="", compare=False)


def overflow_text(more: int) -> str:
    """The line that counts the notices past the limit."""
    return (f"… and {more:,} more notice{'s' if more > 1 else ''} from this call; "
            "%mcp history lists every request.")


@dataclass(eq=False)
class NoticeEntry:
    """One notice line of a call (the handle :meth:`Notices.add` returns): its text, its
    kind, and the request it answered (``asked``, an ``Asked``), if any."""

    text: str
    kind: NoticeKind = NoticeKind.INFO
    asked: Any = None
    #: A class that names this line in the transcript's HTML, so that a live widget of the
    #: same page can hide it once it no longer holds (a page the kernel's updates of the
    #: transcript do not reach: a reloaded one); "" for none.
    tag: str = ""

    @property
    def item(self) -> Any:
        """What the transcript tells of it: the request it answered, or the notice."""
        return self.asked if self.asked is not None else Notice(self.text, self.kind, self.tag)


@dataclass
class Notices:
    """A call's notices in order, the count of those past ``limit``, and its plain lines."""

    limit: int = MAX_NOTICES
    #: The notices shown, in order (the overflow line last, once there is one).
    entries: list[NoticeEntry] = field(default_factory=list)
    #: How many notices the call asked for, shown or counted.
    count: int = 0
    #: The line that counts the notices past the limit, once there are any.
    overflow: NoticeEntry | None = None
    #: The plain lines, in order: notices (as entries, so that their latest text is told) and
    #: the call's own lines; those before ``_taken`` were taken (printed) already.
    _said: list[NoticeEntry | str] = field(default_factory=list)
    _taken: int = 0

    def add(self, text: str, kind: NoticeKind | str = NoticeKind.WARNING,
            asked: Any = None, tag: str = "") -> tuple[NoticeEntry, bool]:
        """Keep a notice (``tag``: see :attr:`NoticeEntry.tag`); returns its entry and whether
        it is a new line (False: past the limit, the overflow line, counting one more)."""
        self.count += 1
        if self.count > self.limit:
            more = self.count - self.limit
            if self.overflow is None:
                self.overflow = NoticeEntry(overflow_text(more), NoticeKind.INFO)
                self.entries.append(self.overflow)
                self._said.append(self.overflow)
                return self.overflow, True
            self.update(self.overflow, overflow_text(more))
            return self.overflow, False
        entry = NoticeEntry(text, NoticeKind.of(kind), asked, tag)
        self.entries.append(entry)
        self._said.append(entry)
        return entry, True

    def update(self, entry: NoticeEntry, text: str) -> None:
        """Say something new in a notice (a count that grew); a line already taken is told
        again."""
        entry.text = text
        if entry not in self._said[self._taken:]:
            self._said.append(entry)

    def say(self, text: str) -> None:
        """A plain line of the call's own (its result, its failure)."""
        self._said.append(text)

    @property
    def lines(self) -> list[str]:
        """The plain lines not taken yet."""
        return [item.text if isinstance(item, NoticeEntry) else item
                for item in self._said[self._taken:]]

    def take_lines(self) -> list[str]:
        """The plain lines not taken yet, which are then taken (printed once)."""
        lines = self.lines
        self._taken = len(self._said)
        return lines
