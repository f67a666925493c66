"""What ``%mcp`` subcommands show: tables, plain text, the elicitation history.

Every text shown goes through :func:`~nb_elicit._core.secrets.masking.scrub`: no secret nb_elicit
was given (a respond policy's key, a credential header, ...) reaches the cell.
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

from .._core.kernel import part
from .._core.records.history import History, table_html
from .._core.secrets.masking import scrub


class Table:
    """A small table that shows as HTML in notebooks and as aligned text elsewhere.

    ``code``: the columns (by index) that hold names or schemas, shown in the code font."""

    def __init__(self, headers: list[str], rows: list[list[str]], empty: str = "(none)",
                 code: tuple[int, ...] = ()):
        self.headers, self.empty, self.code = headers, scrub(empty), code
        self.rows = [[scrub(str(cell)) for cell in row] for row in rows]

    def _repr_html_(self) -> str:
        if not self.rows:
            return f"<p>{html.escape(self.empty)}</p>"
        return table_html(self.headers, self.rows, code=self.code)

    def __repr__(self) -> str:
        if not self.rows:
            return self.empty
        widths = [max(len(str(c).split("\n")[0]) for c in col)
                  for col in zip(self.headers, *self.rows, strict=True)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(self.headers, widths, strict=True))
                 .rstrip()]
        for row in self.rows:
            lines.append("  ".join(str(c).replace("\n", " ").ljust(w)
                                   for c, w in zip(row, widths, strict=True)).rstrip())
        return "\n".join(lines)


class Text:
    """Plain text shown as the cell's result (no quotes, unlike a str)."""

    def __init__(self, text: str):
        self.text = scrub(text)

    def __repr__(self) -> str:
        return self.text


class HelpView:
    """``%mcp help``: a table of the subcommands (how to type each, what it does) in notebooks,
    like the README's; its text (usage lines, the help beside or under them) elsewhere."""

    def __init__(self, headers: list[str], rows: list[list[str]], text: str,
                 footer: tuple[str, ...]):
        self.table = Table(headers, rows, code=(0,))
        self.text, self.footer = scrub(text), [scrub(line) for line in footer]

    def _repr_html_(self) -> str:
        table = table_html(self.table.headers, self.table.rows, code=self.table.code,
                           limit=10_000)
        footer = "".join(f"<p>{html.escape(line)}</p>" for line in self.footer)
        return table + footer

    def __repr__(self) -> str:
        return self.text


class TasksView:
    """``%mcp tasks``: this kernel's tasks, then the running ones the file of running tasks
    keeps that this kernel does not follow, under a caption that says how to attach. Where
    that file is (``kept_in``) is the caption's title in notebooks (shown on hover)."""

    def __init__(self, runs: Table, saved: Table, saved_caption: str, empty: str,
                 kept_in: str = ""):
        self.runs, self.saved = runs, saved
        self.saved_caption, self.empty = scrub(saved_caption), scrub(empty)
        self.kept_in = scrub(kept_in)

    def _parts(self) -> list[tuple[str, Table]]:
        parts: list[tuple[str, Table]] = []
        if self.runs.rows:
            parts.append(("Tasks of this kernel:", self.runs))
        if self.saved.rows:
            parts.append((self.saved_caption, self.saved))
        return parts

    def _repr_html_(self) -> str:
        title = f' title="{html.escape(self.kept_in, quote=True)}"' if self.kept_in else ""
        parts = self._parts()
        if not parts:
            return f"<p{title}>{html.escape(self.empty)}</p>"
        return "".join(f"<p{title if table is self.saved else ''}>{html.escape(caption)}</p>"
                       f"{table._repr_html_()}" for caption, table in parts)

    def __repr__(self) -> str:
        parts = self._parts()
        if not parts:
            return self.empty
        return "\n\n".join(f"{caption}\n{table!r}" for caption, table in parts)


class HistoryView:
    """Every elicitation so far: HTML in notebooks, text elsewhere."""

    def _repr_html_(self) -> str:
        return part(History).as_html()

    def __repr__(self) -> str:
        return part(History).as_text()


_DOUBLE_BACKTICKS = re.compile(r"``(.+?)``", re.S)
_ROLE = re.compile(r":[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*:`([^`]+)`")
_SINGLE = re.compile(r"(?<![\w`])`([^`\n]+)`(?![\w`])")


def clean_doc(text: object) -> str:
    """A server's description, as a docstring reads to a person: indentation removed
    (``inspect.cleandoc``), the lines of a paragraph joined, and reStructuredText's
    ``code`` and ``:role:`x``` marks made plain."""
    if not isinstance(text, str):
        return ""
    text = _ROLE.sub(lambda m: m.group(1).split("<")[0].strip().lstrip("~!"),
                     inspect.cleandoc(text))
    text = _SINGLE.sub(r"\1", _DOUBLE_BACKTICKS.sub(r"\1", text))
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n\n".join(_join_lines(p) for p in paragraphs if p.strip())


def _join_lines(paragraph: str) -> str:
    """The lines of a paragraph as one line, unless they are a list or indented block."""
    lines = paragraph.splitlines()
    if any(re.match(r"\s*([-*•]|\d+[.)])\s", line) or line.startswith((" ", "\t"))
           for line in lines[1:]):
        return paragraph
    return " ".join(line.strip() for line in lines)


def schema_text(schema: dict[str, Any] | None) -> str:
    """A tool's input schema in a few lines: ``name?: type`` per argument."""
    if not schema:
        return ""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not properties:
        return "(no arguments)"
    return "\n".join(f"{name}{'' if name in required else '?'}: {prop.get('type', 'any')}"
                     for name, prop in properties.items())
