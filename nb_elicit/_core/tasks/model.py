"""A tool call that the server runs as a task: its state, how often to poll it, and the
statuses it went through.

The same for both wire shapes of tasks: the SDK adapter turns what the server sent into a
:class:`TaskState`; the runtime polls at :func:`poll_seconds` and keeps a :class:`TaskTimeline`
(through the task card). Everything the server wrote is shortened to one line when it is
stored. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import collections
import datetime as _dt
import math
import re
import time
from dataclasses import dataclass
from enum import Enum

from ..i18n import duration, t
from ..text import shorten

__all__ = ["MAX_AGE", "MAX_POLL", "MIN_POLL", "STATUSES", "TERMINAL", "TaskShape", "TaskState",
           "TaskStart", "TaskTimeline", "TimelineEntry", "age_of", "attach_command",
           "parse_instant", "poll_seconds", "status_word"]

STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
#: The statuses after which a task never changes again.
TERMINAL = frozenset({"completed", "failed", "cancelled"})


def attach_command(connection: str, task_id: str) -> str:
    """The line that attaches to a running task again, in the cell where it runs."""
    return f"%mcp task {connection} {task_id}"


def status_word(status: object) -> str:
    """A task's status as a person says it ("Needs your answer" for ``input_required``); a
    status no version of the protocol knows, as the server sent it, shortened to one line
    (text to be escaped where it is shown, never HTML)."""
    if status in STATUSES:
        return t("task_status_" + status)
    return shorten(str(status), QUOTE_LIMIT, one_line=True)

class TaskShape(str, Enum):
    """The wire shape of a server's tasks, by the protocol that defines it (the value the tasks
    file keeps). Each shape is spoken in one protocol era (:attr:`era`)."""

    #: The experimental tasks of protocol 2025-11-25 (SEP-1686), in the handshake era.
    V2025 = "2025-11-25"
    #: The 2026-07-28 extension (SEP-2663), by its identifier.
    EXTENSION = "io.modelcontextprotocol/tasks"

    __str__ = str.__str__
    def __format__(self, format_spec: str) -> str:  # (the text, as __str__: not the member)
        return str.__format__(self, format_spec)

    @property
    def era(self) -> str:
        """The era whose session speaks this shape, by the value of the adapter's ``Era``
        ("legacy": the handshake era; "auto": 2026-07-28)."""
        return _SHAPES[self][0]

    @property
    def label(self) -> str:
        """What a task card calls this shape."""
        return t(_SHAPES[self][1])


#: Each shape's era (the adapter's ``Era`` value) and the text key of its label.
_SHAPES = {
    TaskShape.V2025: ("legacy", "task_shape_2025"),
    TaskShape.EXTENSION: ("auto", "task_shape_extension"),
}

#: Seconds between polls: the server's suggestion, within these bounds.
MIN_POLL = 0.5
MAX_POLL = 30.0
#: Seconds between polls when the server suggests nothing usable.
DEFAULT_POLL = 1.0
#: Characters of a status message or an error the model keeps (on one line).
TEXT_LIMIT = 300
#: Characters of an unknown status or interval quoted in a problem or a note.
QUOTE_LIMIT = 40


def _one_line(text: object, limit: int = TEXT_LIMIT) -> str:
    return shorten(str(text), limit, one_line=True)


@dataclass(frozen=True)
class TaskState:
    """What the server last said about a task. ``status_message`` and ``error`` (a failed
    task's message) are the server's texts, kept shortened to one line."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | float | None = None
    ttl_ms: int | None = None
    created_at: str | None = None
    last_updated_at: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        for name in ("status_message", "error"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _one_line(value))

    @property
    def terminal(self) -> bool:
        """Whether the task has ended (completed, failed or cancelled)."""
        return self.status in TERMINAL

    def age(self, now: float | None = None) -> float | None:
        """Seconds since the server created the task (its ``createdAt``), or None when it
        gave none that can be believed (see :func:`age_of`)."""
        return age_of(self.created_at, now)


#: An ISO 8601 date and time as servers write ``createdAt``: a date, ``T`` (or a space), the
#: time to the second, a fraction of 1 to 9 digits, and ``Z`` or an offset (none: UTC).
_INSTANT = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?"
                      r"(?:([Zz])|([+-])(\d\d):?(\d\d))?", re.ASCII)
#: Characters of a time stamp read at most (a longer one is no time stamp).
_INSTANT_LIMIT = 64
#: Seconds a server's clock may run ahead of ours: a task created "in the future" by up to
#: this much is taken as created now.
CLOCK_SKEW = 300.0
#: Seconds of the oldest age believed (a month): older, the server's time is taken as unknown.
MAX_AGE = 31 * 24 * 3600.0


def parse_instant(text: object) -> float | None:
    """An ISO 8601 time stamp (``2026-12-05T10:00:00Z``, ``...00.123456789+02:00``) as
    seconds since the epoch, or None when it is none (anything else, never an error). Read
    here, not by ``datetime.fromisoformat``, which before Python 3.11 reads neither ``Z`` nor
    fractions of other than 3 or 6 digits."""
    if not isinstance(text, str) or len(text) > _INSTANT_LIMIT:
        return None
    match = _INSTANT.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction = match.group(7) or "0"
    sign, off_hours, off_minutes = match.group(9, 10, 11)
    try:
        offset = _dt.timedelta(0)
        if sign is not None:
            if int(off_hours) > 23 or int(off_minutes) > 59:
                return None
            offset = _dt.timedelta(hours=int(off_hours), minutes=int(off_minutes))
            if sign == "-":
                offset = -offset
        when = _dt.datetime(year, month, day, hour, minute, second,
                            tzinfo=_dt.timezone(offset))
        scale: int = 10 ** len(fraction)  # (int ** int is typed Any: a negative power is a float)
        return when.timestamp() + int(fraction) / scale
    except (ValueError, OverflowError):
        return None


def age_of(created_at: object, now: float | None = None) -> float | None:
    """Seconds from ``created_at`` (a server's time stamp) to ``now`` (seconds since the
    epoch; by default the wall clock), never negative: a time a little ahead of ours (up to
    :data:`CLOCK_SKEW`) is an age of 0. None when the stamp cannot be read, lies further in
    the future, or is older than :data:`MAX_AGE`: a server's word is not believed blindly."""
    created = parse_instant(created_at)
    if created is None:
        return None
    age = (time.time() if now is None else now) - created
    if not math.isfinite(age) or age < -CLOCK_SKEW or age > MAX_AGE:
        return None
    return max(0.0, age)


def poll_seconds(interval_ms: object) -> tuple[float, str | None]:
    """Seconds to wait between polls for the server's suggested ``interval_ms``, and a note
    when the suggestion was clamped to [:data:`MIN_POLL`, :data:`MAX_POLL`] or replaced by
    :data:`DEFAULT_POLL` (no number, NaN, negative); None when it was taken as it is or there
    was none."""
    if interval_ms is None:
        return DEFAULT_POLL, None
    if isinstance(interval_ms, bool) or not isinstance(interval_ms, (int, float)):
        shown = shorten(repr(interval_ms), QUOTE_LIMIT, one_line=True)
        return DEFAULT_POLL, t("poll_invalid", value=shown, s=_seconds_text(DEFAULT_POLL))
    try:
        seconds = float(interval_ms) / 1000
    except OverflowError:  # (an int too large for a float)
        seconds = math.inf if interval_ms > 0 else -math.inf
    if math.isnan(seconds):
        return DEFAULT_POLL, t("poll_invalid", value="NaN", s=_seconds_text(DEFAULT_POLL))
    chosen = DEFAULT_POLL if seconds < 0 else min(max(seconds, MIN_POLL), MAX_POLL)
    if chosen == seconds:
        return chosen, None
    return chosen, t("poll_clamped", ms=_ms_text(seconds * 1000), s=_seconds_text(chosen))


def _ms_text(ms: float) -> str:
    if math.isfinite(ms) and ms.is_integer() and abs(ms) < 1e15:
        return str(int(ms))
    return f"{ms:g}"


def _seconds_text(seconds: float) -> str:
    return f"{seconds:g}"


@dataclass(frozen=True)
class TimelineEntry:
    """One status a task was in (or a new message in the same status), and when:
    ``at`` on the monotonic clock, ``wall`` on the wall clock (seconds since the epoch)."""

    status: str
    message: str | None
    error: str | None
    at: float
    wall: float
    #: How many other things (the call's forms and notices) were shown before it: where it
    #: goes among them in a transcript.
    mark: int = 0

    def detail(self) -> str:
        """The message and the error, as one text ("" when there is neither)."""
        return " · ".join(part for part in (self.message, self.error) if part)


#: Entries a timeline keeps: the first and the latest ones; the ones between are counted.
MAX_ENTRIES = 50


class TaskStart:
    """When a task began, kept in one place for all that tell its age: its card's clock, the
    times in its record, ``%mcp tasks`` and the file of running tasks. The server's
    ``createdAt``, once a state gives one that can be believed (:meth:`date`); until then,
    when this kernel first knew of the task. On both clocks: :attr:`wall` (seconds since the
    epoch: for the file, and the next kernel) and :attr:`mono` (:func:`time.monotonic`: for
    ages, which a change of the wall clock must not change)."""

    def __init__(self, wall: float | None = None):
        now_wall, now_mono = time.time(), time.monotonic()
        self.wall = now_wall if wall is None else wall
        self.mono = now_mono - max(0.0, now_wall - self.wall)
        #: Whether it is the server's ``createdAt`` (taken once).
        self.dated = False

    def date(self, state: TaskState) -> bool:
        """Take the beginning from ``state``'s ``createdAt``, the first time one can be
        believed (:meth:`TaskState.age`); whether it was taken now."""
        if self.dated:
            return False
        age = state.age()
        if age is None:
            return False
        self.wall, self.mono, self.dated = time.time() - age, time.monotonic() - age, True
        return True

    def __repr__(self) -> str:
        return f"<TaskStart wall={self.wall:.3f} dated={self.dated}>"


class TaskTimeline:
    """The statuses a task went through, in order, each with its times and message.

    A status after a final one, or a status no version of the protocol knows, is not recorded:
    :meth:`record` returns a one-line problem instead. Times are relative to ``started``
    (monotonic seconds): the task's :class:`TaskStart` when one is given (it is read, not
    copied, and never written here), else the first entry's time.
    """

    def __init__(self, start: TaskStart | None = None, max_entries: int = MAX_ENTRIES):
        #: The task's beginning, where it is kept (None: the first entry's time is the beginning).
        self.start = start
        self.max_entries = max(2, max_entries)
        self._first: TimelineEntry | None = None
        self._rest: collections.deque[TimelineEntry] = collections.deque(
            maxlen=self.max_entries - 1)
        #: Entries no longer kept (between the first and the latest ones).
        self.omitted = 0

    @property
    def started(self) -> float | None:
        """When the task began (monotonic seconds; None: not yet known)."""
        if self.start is not None:
            return self.start.mono
        return None if self._first is None else self._first.at

    @property
    def entries(self) -> list[TimelineEntry]:
        """The entries kept, oldest first."""
        return [] if self._first is None else [self._first, *self._rest]

    @property
    def latest(self) -> TimelineEntry | None:
        if self._rest:
            return self._rest[-1]
        return self._first

    @property
    def status(self) -> str | None:
        """The latest status recorded (None before the first)."""
        latest = self.latest
        return None if latest is None else latest.status

    def record(self, state: TaskState, now: float | None = None,
               wall: float | None = None, mark: int = 0) -> str | None:
        """Record ``state`` (``now``: monotonic seconds, ``wall``: the wall clock, ``mark``:
        see :attr:`TimelineEntry.mark`); None when it was accepted (also when it said nothing
        new), else the problem, in one line."""
        latest = self.latest
        previous = None if latest is None else latest.status
        if state.status not in STATUSES:
            status = shorten(str(state.status), QUOTE_LIMIT, one_line=True)
            if previous is None:
                return t("task_unknown_status_first", status=status)
            return t("task_unknown_status", status=status, previous=status_word(previous))
        if previous in TERMINAL and state.status != previous:
            return t("task_after_final", status=status_word(state.status),
                     previous=status_word(previous))
        message = state.status_message or None
        error = state.error or None
        if self.says_nothing_new(state):
            return None
        entry = TimelineEntry(state.status, message, error,
                              time.monotonic() if now is None else now,
                              time.time() if wall is None else wall, mark)
        if self._first is None:
            self._first = entry
            return None
        if len(self._rest) == self._rest.maxlen:
            self.omitted += 1
        self._rest.append(entry)
        return None

    def says_nothing_new(self, state: TaskState) -> bool:
        """Whether ``state`` is the latest entry again: its status, message and error."""
        latest = self.latest
        return latest is not None and (latest.status, latest.message, latest.error) == (
            state.status, state.status_message or None, state.error or None)

    def elapsed(self, now: float | None = None) -> float:
        """Seconds since ``started`` (0 before the first entry)."""
        if self.started is None:
            return 0.0
        return max(0.0, (time.monotonic() if now is None else now) - self.started)

    def took(self, now: float | None = None) -> float:
        """How long the task ran: to its final status, once it has one (the time that status
        line shows), else to ``now``."""
        latest = self.latest
        if latest is not None and latest.status in TERMINAL:
            return self.elapsed(latest.at)
        return self.elapsed(now)

    def text_lines(self, clock: bool = False) -> list[str]:
        """One line per entry: "Running · Gathering sources… (0 s)", the time since
        ``started``; ``clock`` puts the wall clock time first ("14:02:07 Running …")."""
        lines = []
        for index, entry in enumerate(self.entries):
            lines.append(self.entry_line(entry, clock))
            if index == 0 and self.omitted:
                lines.append(t("task_omitted", n=self.omitted))
        return lines

    def entry_line(self, entry: TimelineEntry, clock: bool = False) -> str:
        """One entry as a line of text (see :meth:`text_lines`)."""
        word = status_word(entry.status)
        message = entry.message if (entry.message or "").casefold() != word.casefold() else None
        detail = " · ".join(part for part in (message, entry.error) if part)
        line = word + (f" · {detail}" if detail else "")
        line += f" ({duration(self.elapsed(entry.at))})"
        if clock:
            line = f"{self.clock_time(entry)} {line}"
        return line

    @staticmethod
    def clock_time(entry: TimelineEntry) -> str:
        """When ``entry`` was recorded, on the wall clock ("14:02:07")."""
        return time.strftime("%H:%M:%S", time.localtime(entry.wall))
