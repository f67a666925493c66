"""What ``%mcp`` subcommands show: tables, plain text, the elicitation history."""

from __future__ import annotations

import html

from .._core.history import HISTORY


class Table:
    """A small table that shows as HTML in notebooks and as aligned text elsewhere."""

    def __init__(self, headers: list[str], rows: list[list[str]], empty: str = "(none)"):
        self.headers, self.rows, self.empty = headers, rows, empty

    def _repr_html_(self) -> str:
        if not self.rows:
            return f"<p>{html.escape(self.empty)}</p>"
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td style='text-align:left'><pre style='margin:0'>"
                                         f"{html.escape(c)}</pre></td>" for c in row) + "</tr>"
                       for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        if not self.rows:
            return self.empty
        widths = [max(len(str(c).split("\n")[0]) for c in col)
                  for col in zip(self.headers, *self.rows, strict=True)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(self.headers, widths, strict=True))]
        for row in self.rows:
            lines.append("  ".join(str(c).replace("\n", " ").ljust(w)
                                   for c, w in zip(row, widths, strict=True)))
        return "\n".join(lines)


class Text:
    """Plain text shown as the cell's result (no quotes, unlike a str)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class HistoryView:
    """Every elicitation so far: HTML in notebooks, text elsewhere."""

    def _repr_html_(self) -> str:
        return HISTORY.as_html()

    def __repr__(self) -> str:
        return HISTORY.as_text()


def schema_text(schema) -> str:
    """A tool's input schema in a few lines: ``name?: type`` per argument."""
    if not schema:
        return ""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    if not properties:
        return "(no arguments)"
    return "\n".join(f"{name}{'' if name in required else '?'}: {prop.get('type', 'any')}"
                     for name, prop in properties.items())
