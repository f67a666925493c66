"""Record the answers a person gives, and replay them in later runs without a person.

The file is human-readable JSON::

    {
      "format": "nb_elicit answers",
      "version": 1,
      "answers": [
        {"server": "demo", "tool": "contact_info", "schema": "sha256:3f1c…",
         "message": "Please provide your contact information",
         "action": "accept", "content": {"name": "Ada", "email": "ada@example.com"},
         "omitted": [], "at": "2026-11-30T15:20:00Z"}
      ]
    }

An answer is keyed by the connection's name (``server``), the tool whose call asked
(``tool``), and a hash of the form's schema (``schema``). Replay answers a request from the
first unused answer with the same key, in recorded order; once they are used up, the last
one answers again. A request whose server and tool were recorded with a *different* schema
is not answered from the file: the form changed, so nb_elicit says so and falls back to the
respond policy. Values of fields that look secret are never written: their names are listed
in ``omitted``, and a replayed answer that then lacks a required field falls back too.

Only forms are recorded; consent to open a web page (URL mode) is never recorded or replayed.
Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..answer import Action
from ..kernel import part
from ..secrets.names import secret_property

__all__ = ["FORMAT", "Mismatch", "RecordedAnswer", "Recorder", "Replayer", "record",
           "replay", "schema_hash"]

FORMAT = "nb_elicit answers"
VERSION = 1


def schema_hash(schema: Any) -> str:
    """A short, stable fingerprint of a requestedSchema (key order does not matter)."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class RecordedAnswer:
    server: str
    tool: str
    schema: str
    message: str
    action: Action
    content: dict[str, Any] | None = None
    omitted: list[str] = field(default_factory=list)
    at: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.server, self.tool, self.schema)


@dataclass(frozen=True)
class Mismatch:
    """The server and tool were recorded, but for a different form."""

    recorded: str
    asked: str


class Recorder:
    """Appends every answer a person gives to a file (rewritten whole, atomically). What the
    file held before is written back as it was, keys this version does not know included (a
    later version's, a hand edit's): recording never loses what it could not read."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.answers: list[RecordedAnswer] = []
        #: The file as it was (its answers and other keys, untouched), or None for a new one.
        self._before: dict[str, Any] | None = None
        if self.path.exists():
            self.answers = load(self.path)  # (checked whole first: a bad file is one line)
            from ..configs.filecheck import read_json

            self._before = read_json(self.path, str(self.path))
        self._added: list[RecordedAnswer] = []
        self._write()  # fail now (unwritable place), not at the first answer

    def add(self, server: str, tool: str, schema: Any, message: str, action: Action,
            content: dict[str, Any] | None) -> RecordedAnswer:
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        kept, omitted = None, []
        if content is not None:
            kept = {}
            for name, value in content.items():
                if secret_property(name, properties.get(name)):
                    omitted.append(name)
                else:
                    kept[name] = value
        answer = RecordedAnswer(server, tool, schema_hash(schema), message, action, kept,
                                omitted, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        with self._lock:
            self.answers.append(answer)
            self._added.append(answer)
            self._write()
        return answer

    def _write(self) -> None:
        before = self._before or {}
        document = {**before, "format": FORMAT, "version": VERSION,
                    "answers": [*before.get("answers", []),
                                *(asdict(a) for a in self._added)]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".nb_elicit-",
                                             suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(document, out, indent=2, ensure_ascii=False)
                out.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class Replayer:
    """Answers requests from a recorded file."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.answers = load(self.path)
        self._used: dict[tuple[str, str, str], int] = {}
        self._lock = threading.Lock()

    def find(self, server: str, tool: str, schema: Any) -> RecordedAnswer | Mismatch | None:
        """The recorded answer for this request, a :class:`Mismatch`, or None."""
        key = (server, tool, schema_hash(schema))
        with self._lock:
            matching = [a for a in self.answers if a.key == key]
            if matching:
                index = self._used.get(key, 0)
                self._used[key] = index + 1
                return matching[min(index, len(matching) - 1)]
        others = [a for a in self.answers if (a.server, a.tool) == (server, tool)]
        return Mismatch(others[-1].schema, key[2]) if others else None


def load(path: Path) -> list[RecordedAnswer]:
    """The answers in a recording; :class:`~nb_elicit.ConfigError` (a ValueError) says, in one
    line, what is wrong with it. Unknown keys are warnings; a file of a newer version says so."""
    from ..configs.filecheck import check, read_json, warn_unknown
    from ..errors import ConfigError
    from .answers_file import AnswersDocument

    shown = str(path)
    if not path.exists():
        raise ConfigError(f"no recording at {path}")
    document = read_json(path, shown)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ConfigError(f'{path} is not an nb_elicit recording (no "format": "{FORMAT}")')
    version = document.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise ConfigError(f"{path}: version: this answers file was written by a newer nb_elicit "
                          f"(version {version}); this one reads version {VERSION}, so upgrade "
                          "nb_elicit to replay it")
    if version != VERSION:
        raise ConfigError(f"{path}: version: expected {VERSION}")
    checked = check(AnswersDocument, document, shown)
    warn_unknown(checked, shown)
    return [RecordedAnswer(e.server, e.tool, e.schema_hash, e.message, e.action, e.content,
                           list(e.omitted), e.at) for e in checked.answers]


class Tape:
    """What this kernel records to, and replays from (at most one file each): a part of the
    kernel's owner (:mod:`.kernel`)."""

    def __init__(self) -> None:
        self.recorder: Recorder | None = None
        self.replayer: Replayer | None = None


def record(path: str | os.PathLike[str] | None) -> str:
    """Save every answer a person gives from now on to ``path`` (None stops recording)."""
    tape = part(Tape)
    if path is None:
        tape.recorder = None
        return "Not recording answers."
    tape.recorder = Recorder(path)
    count = len(tape.recorder.answers)
    kept = f" (it already holds {count} answer{'s' if count != 1 else ''})" if count else ""
    return f"Recording answers to {tape.recorder.path}{kept}."


def replay(path: str | os.PathLike[str] | None) -> str:
    """Answer later requests from the answers recorded in ``path`` (None stops replaying)."""
    tape = part(Tape)
    if path is None:
        tape.replayer = None
        return "Not replaying answers."
    tape.replayer = Replayer(path)
    count = len(tape.replayer.answers)
    return (f"Replaying {count} answer{'s' if count != 1 else ''} from "
            f"{tape.replayer.path}.")
