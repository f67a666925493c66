"""The transcript a finished call leaves in its cell: who asked what, how it was answered,
what was sent (secret-looking values masked), and the tool's result.

It is plain HTML built from escaped text (plus a text/plain twin), so it renders in JupyterLab,
in GitHub's notebook viewer and in ``jupyter nbconvert --to html``, with no kernel and no
widget state. Colours come from JupyterLab's ``--jp-*`` variables only.

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..i18n import t
from ..notices import Notice, NoticeKind
from ..outcome import AnsweredBy
from ..schema.fields import ChoiceField, Field, FormSpec, MultiChoiceField
from ..secrets.fields import secret_fields
from ..secrets.masking import MASK
from ..text import shorten, visible

__all__ = ["CODE_STYLE", "NOTICE_COLORS", "Asked", "Shown", "Transcript", "block_text",
           "image_problem", "item_html", "json_text", "link_html", "notice_html",
           "redundant_structured", "result_parts", "shown_fields", "shown_value",
           "transcript_bundle", "words_html"]


@dataclass(frozen=True)
class Asked:
    """One request shown during a call, and what became of it."""

    server: str
    message: str
    status: str  # what the widget said at the end: "Submitted.", "example withdrew ..."
    action: str | None = None  # accept, decline, cancel; None when it was never answered
    answered_by: AnsweredBy = AnsweredBy.PERSON
    #: (label, value as shown, JSON sent) per answered field, masked; see :class:`Shown`.
    fields: tuple[tuple[str, ...], ...] = ()
    url: str | None = None
    #: The page's host, when the person consented to open ``url``: the transcript links to it.
    consented_host: str | None = None


#: The JupyterLab colour of each kind of notice.
NOTICE_COLORS = {NoticeKind.INFO: "var(--jp-info-color1)",
                 NoticeKind.WARNING: "var(--jp-warn-color1)",
                 NoticeKind.ERROR: "var(--jp-error-color1)"}


#: What a notice line's ``tag`` may be: a class name of letters, digits and "-".
_TAG = re.compile(r"[a-z][a-z0-9-]{0,80}")


def notice_html(text: str, kind: NoticeKind | str, tag: str = "") -> str:
    """A notice as HTML: a left border in its kind's colour and a word for its kind (no icon),
    then the escaped text; ``tag``, a class that names the line (letters, digits and "-")."""
    kind = NoticeKind.of(kind)
    color = NOTICE_COLORS[kind]
    named = f" {tag}" if tag and _TAG.fullmatch(tag) else ""
    return (f'<div class="nb-elicit-notice-text nb-elicit-notice-text-{kind}{named}" '
            f'data-kind="{kind}" style="border-left: 3px solid {color}; padding: 1px 0 1px 8px; '
            f'margin: 2px 0; white-space: pre-wrap; line-height: normal; '
            f'color: var(--jp-content-font-color1)">'
            f'<span class="nb-elicit-notice-label" style="color: {color}; font-weight: 600">'
            f"{_e(t('notice_' + kind))}</span> {_e(text)}</div>")


@dataclass
class Transcript:
    server: str
    what: str
    items: list[Asked | Notice | str] = field(default_factory=list)  # requests and notices
    result: dict[str, Any] | None = None  # {"content": [...], "structured": ..., "is_error": ..}
    failure: str | None = None
    #: A call run as a task: each status it went through, with its time, one line each.
    task: tuple[str, ...] = ()
    #: For each line of :attr:`task`, how many :attr:`items` came before it (none given: the
    #: task's lines come first): the transcript tells both in the order they happened.
    task_marks: tuple[int, ...] = ()
    #: Where the result (or the failure) came among ``items``: the items before this index
    #: came before it, the others after it (an app's lines, once the call has returned).
    #: None: after every item.
    result_at: int | None = None

    def in_order(self) -> list[tuple[str, Any]]:
        """The task's lines and the items, in the order they happened: ("task", [lines]) for
        each run of task lines, ("item", item) for each item."""
        marks = list(self.task_marks) if len(self.task_marks) == len(self.task) else []
        marks += [0] * (len(self.task) - len(marks))
        order: list[tuple[str, Any]] = []
        pending = list(zip(marks, self.task, strict=True))

        def lines_before(count: float) -> None:
            run = []
            while pending and pending[0][0] <= count:
                run.append(pending.pop(0)[1])
            if run:
                order.append(("task", run))

        for index, item in enumerate(self.items):
            lines_before(index)
            order.append(("item", item))
        lines_before(float("inf"))
        return order

    def before_and_after(self) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """:meth:`in_order`'s parts that came before the result, and those that came after
        it (the task's lines go with the items around them)."""
        at = len(self.items) if self.result_at is None else self.result_at
        before: list[tuple[str, Any]] = []
        after: list[tuple[str, Any]] = []
        seen = 0
        for part, item in self.in_order():
            (before if seen < at or (part == "task" and seen == at) else after).append(
                (part, item))
            seen += part == "item"
        return before, after


class Shown(NamedTuple):
    """One answered field as the transcript tells it: its ``label``, the ``value`` as the person
    saw and chose it (an option's title, Yes or No, ...), and the JSON ``sent`` to the server."""

    label: str
    value: str
    sent: str


def shown_fields(spec: FormSpec, content: dict[str, Any] | None) -> tuple[Shown, ...]:
    """``content`` of a form as the person saw it, field by field, secrets masked."""
    if not content:
        return ()
    secrets = set(secret_fields(spec))
    shown = []
    for name, value in content.items():
        spec_field: Field | None
        try:
            spec_field = spec.field(name)
        except KeyError:
            spec_field = None
        label = spec_field.label if spec_field is not None else name
        if name in secrets:
            shown.append(Shown(label, MASK, MASK))
            continue
        shown.append(Shown(label, shown_value(spec_field, value),
                           json.dumps(value, ensure_ascii=False)))
    return tuple(shown)


def shown_value(spec_field: Field | None, value: object) -> str:
    """A value of ``spec_field`` as the form showed it (in the current language)."""
    kind = getattr(spec_field, "kind", None)
    if kind == "boolean" and isinstance(value, bool):
        return t("yes") if value else t("no")
    if isinstance(spec_field, ChoiceField):
        return _option_label(spec_field, value)
    if isinstance(spec_field, MultiChoiceField) and isinstance(value, list):
        return ", ".join(_option_label(spec_field, v) for v in value)
    if (kind == "text" and getattr(spec_field, "format", None) == "date-time"
            and isinstance(value, str)):
        return _date_time(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _option_label(spec_field: ChoiceField | MultiChoiceField, value: object) -> str:
    for option in spec_field.options:
        if option.value == value:
            return option.label
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _date_time(text: str) -> str:
    """An RFC 3339 date-time as the picker shows it: date, time, and its offset."""
    from ..schema.formats import parse_date_time  # (the one reader; it loads `regex`, so only here)

    when = parse_date_time(text) if isinstance(text, str) else None
    if when is None:
        return text
    shown = when.strftime("%Y-%m-%d %H:%M" + (":%S" if when.second else ""))
    offset = when.strftime("%z")
    if offset:
        shown += f" UTC{offset[:3]}:{offset[3:]}" if offset != "+0000" else " UTC"
    return shown


def redundant_structured(content: list[dict[str, Any]], structured: Any) -> bool:
    """Whether a result's structured content only repeats its text: the text block is its
    JSON, it is ``{"result": ...}`` around the text (what SDKs make of a plain return), or
    each of its values is a string the text says word for word (a time, once)."""
    if structured is None:
        return True
    texts = [b.get("text", "") for b in content if b.get("type") == "text"]
    if len(texts) != 1 or len(texts) != len(content):
        return False
    text = texts[0]
    parsed = _json(text)
    candidates = [structured]
    if isinstance(structured, dict) and set(structured) == {"result"}:
        candidates.append(structured["result"])
    if (isinstance(structured, dict) and structured
            and all(isinstance(v, str) and v and v in text for v in structured.values())):
        return True
    return any(c == text or (parsed is not _NOT_JSON and c == parsed) for c in candidates)


_NOT_JSON = object()


def _json(text: str) -> Any:
    """``text`` parsed as a JSON object or array, or ``_NOT_JSON``."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return _NOT_JSON
    try:
        return json.loads(stripped)
    except ValueError:
        return _NOT_JSON


def json_text(text: str) -> str | None:
    """A text block that holds a JSON object or array, pretty-printed; None if it is not."""
    parsed = _json(text)
    return None if parsed is _NOT_JSON else json.dumps(parsed, indent=2, ensure_ascii=False)


def result_parts(content: list[dict[str, Any]],
                 structured: object) -> tuple[list[dict[str, Any]], str | None]:
    """What a result shows: its content blocks, and its structured content as indented JSON
    when it adds something to them (None when it only repeats the text)."""
    if redundant_structured(content, structured):
        return content, None
    return content, json.dumps(structured, indent=2, ensure_ascii=False)


def transcript_bundle(transcript: Transcript) -> dict[str, str]:
    """The transcript as a display bundle: ``text/html`` and ``text/plain``."""
    return {"text/html": _html(transcript), "text/plain": _text(transcript)}


# -- HTML ---------------------------------------------------------------------------------------

_BOX = ("border-left: 3px solid var(--jp-brand-color1); padding: 2px 0 2px 10px; "
        "margin: 4px 0; color: var(--jp-content-font-color1)")
_MUTED = "color: var(--jp-content-font-color2)"
_ERROR = "color: var(--jp-error-color1)"
#: JSON and code, in JupyterLab's monospace font.
CODE_STYLE = ("font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size); "
              "line-height: var(--jp-code-line-height); white-space: pre-wrap; "
              "overflow-wrap: anywhere; margin: 2px 0; padding: 0; background: none; "
              "color: var(--jp-content-font-color1)")
_CELL = ("text-align: left; vertical-align: top; padding: 1px 12px 1px 0; background: none; "
         "word-break: normal; overflow-wrap: break-word")
#: An address: one long word, which may break anywhere, but only where a line is full.
_URL = "overflow-wrap: anywhere; word-break: normal"


def _html(transcript: Transcript) -> str:
    parts = [f'<div class="nb-elicit-transcript" style="{_BOX}">',
             f'<div style="{_MUTED}">{_e(transcript.server)} · {_e(transcript.what)}</div>']
    before, after = transcript.before_and_after()
    parts.extend(_part_html(part, item) for part, item in before)
    if transcript.result is not None:
        parts.append(_result_html(transcript))
    if transcript.failure:
        parts.append(f'<div class="nb-elicit-transcript-failure" style="{_ERROR}">'
                     f'{_e(transcript.failure)}</div>')
    parts.extend(_part_html(part, item) for part, item in after)
    parts.append("</div>")
    return "".join(parts)


def _part_html(part: str, item: Any) -> str:
    """One part of :meth:`Transcript.in_order`: a run of the task's lines, or an item."""
    if part == "task":
        return ('<div class="nb-elicit-transcript-task" style="margin: 2px 0">'
                + "".join(f'<div style="white-space: pre-wrap">{_e(line)}</div>'
                          for line in item) + "</div>")
    return item_html(item)


def item_html(item: Asked | Notice | str) -> str:
    """One request or notice of a transcript, as HTML."""
    if isinstance(item, Asked):
        return _asked_html(item)
    notice = item if isinstance(item, Notice) else Notice(str(item))
    return (f'<div class="nb-elicit-transcript-notice">'
            f"{notice_html(notice.text, notice.kind, notice.tag)}</div>")


def _asked_html(asked: Asked) -> str:
    who = "" if _says_who(asked.answered_by) else f" ({_e(asked.answered_by)})"
    rows = "".join(_field_row(field) for field in asked.fields)
    table = (f'<table class="nb-elicit-transcript-fields" style="margin: 2px 0 2px 0; '
             f'border-collapse: collapse"><tbody>{rows}</tbody></table>' if rows else "")
    # The page once: the link itself when the person agreed to open it, else its text.
    url = ""
    if asked.url:
        page = (link_html(asked.url, asked.consented_host, text=asked.url)
                if asked.consented_host else
                f'<code style="{_URL}">{_e(asked.url)}</code>')
        url = f'<div class="nb-elicit-transcript-page">{_e(t("transcript_page"))} {page}</div>'
    return (f'<div class="nb-elicit-transcript-asked" style="margin: 4px 0">'
            f"<div><b>{_e(t('transcript_asked', server=asked.server))}</b> "
            f'<span style="white-space: pre-wrap">{_e(visible(asked.message, lines=True))}'
            f"</span></div>{url}"
            f'<div class="nb-elicit-transcript-status">{_e(asked.status)}{who}</div>'
            f"{table}</div>")


def _field_row(field: tuple[str, ...]) -> str:
    label, value, *sent = field
    title = ""
    if sent and _sent_differs(value, sent[0]):
        title = f' title="{html.escape(t("transcript_sent", value=sent[0]), quote=True)}"'
    return (f'<tr style="background: none"><td style="{_CELL}; {_MUTED}">'
            f"{words_html(visible(label))}</td>"
            f'<td style="{_CELL}; white-space: pre-wrap"{title}>'
            f"{words_html(visible(value, lines=True))}</td></tr>")


def _sent_differs(value: str, sent: str) -> bool:
    """Whether the JSON sent says more than the value shown (it is not just the value)."""
    return sent not in (value, json.dumps(value, ensure_ascii=False))


#: Characters from which a word counts as a long unbroken string (an address, a token).
LONG_WORD = 30


def words_html(text: str) -> str:
    """``text`` escaped for a table cell, whose words never break: not even at a hyphen or a
    slash (``2026-07-28``, ``input-required``); only a word longer than :data:`LONG_WORD`
    characters may, as a last resort, where a line is full (such a word alone, so that it does
    not make its whole column as wide as itself)."""
    return "".join(_word_html(part) for part in _WORDS.split(text))


def _word_html(word: str) -> str:
    if len(word) > LONG_WORD:
        return f'<span style="{_URL}">{_e(word)}</span>'
    if _BREAKS.search(word):
        return f'<span style="white-space: nowrap">{_e(word)}</span>'
    return _e(word)


_WORDS = re.compile(r"(\s+)")
#: Where a browser would break a word that has no space: after a hyphen, dash or slash.
_BREAKS = re.compile(r"(?<=\S)[-‐–—/](?=\S)")


def link_html(url: str, host: str, text: str | None = None) -> str:
    """The link to a page the person agreed to open: a new tab, no opener, no referrer. It
    reads "Open HOST in a new tab ↗", or ``text`` and ↗.

    (JupyterLab rewrites ``rel`` of links in HTML outputs to ``noopener``; the
    ``referrerpolicy`` keeps the referrer out there too.)
    """
    look = "font-weight: bold" if text is None else _URL
    shown = t("open_link", host=host) if text is None else f"{text} ↗"
    return (f'<a class="nb-elicit-url-link" href="{html.escape(url, quote=True)}" '
            f'target="_blank" rel="noopener noreferrer" referrerpolicy="no-referrer" '
            f'style="color: var(--jp-content-link-color); text-decoration: underline; {look}">'
            f"{_e(shown)}</a>")


def _result_html(transcript: Transcript) -> str:
    result = transcript.result or {}
    parts = []
    if result.get("is_error"):
        error = t("transcript_error", server=transcript.server, what=transcript.what)
        parts.append(f'<div style="{_ERROR}">{_e(error)}</div>')
    else:  # (labelled: under an answer's table, it would read as the answer again)
        parts.append(f'<div class="nb-elicit-transcript-result-label" style="{_MUTED}; '
                     f'margin-top: 4px">{_e(t("result_from", server=transcript.server))}</div>')
    content, structured = result_parts(result.get("content", []), result.get("structured"))
    for block in content:
        kind = block.get("type")
        if kind == "text":
            text = str(block.get("text", ""))
            dumped = json_text(text)
            parts.append(f'<pre style="{CODE_STYLE}">{_e(dumped)}</pre>' if dumped is not None
                         else f'<div style="white-space: pre-wrap">{_e(text)}</div>')
        elif kind == "image" and image_problem(block) is None:
            alt = t("transcript_image", server=transcript.server)
            parts.append(f'<img alt="{_e(alt)}" src="data:'
                         f'{_e(block["mimeType"])};base64,{_e(block.get("data", ""))}">')
        else:
            parts.append(f'<div style="{_MUTED}">{_e(block_text(block))}</div>')
    if structured is not None:
        parts.append(f'<pre class="nb-elicit-structured" style="{CODE_STYLE}">'
                     f"{_e(structured)}</pre>")
    return f'<div class="nb-elicit-transcript-result">{"".join(parts)}</div>'


# -- text ---------------------------------------------------------------------------------------

def _text(transcript: Transcript) -> str:
    lines = [f"[{transcript.server} · {transcript.what}]"]
    before, after = transcript.before_and_after()
    for part, item in before:
        lines.extend(item if part == "task" else _item_lines(item))
    if transcript.result is not None:
        result = transcript.result
        lines.append(t("transcript_error", server=transcript.server, what=transcript.what)
                     if result.get("is_error") else t("result_from", server=transcript.server))
        content, structured = result_parts(result.get("content", []), result.get("structured"))
        lines.extend(block_text(b) for b in content)
        if structured is not None:
            lines.append(structured)
    if transcript.failure:
        lines.append(transcript.failure)
    for part, item in after:
        lines.extend(item if part == "task" else _item_lines(item))
    return "\n".join(lines)


def _item_lines(item: Asked | Notice | str) -> list[str]:
    if isinstance(item, Notice):
        return [f"{t('notice_' + item.kind)} {item.text}"]
    if isinstance(item, str):
        return [item]
    who = "" if _says_who(item.answered_by) else f" ({item.answered_by})"
    lines = [f"{t('transcript_asked', server=item.server)} "
             f"{visible(item.message, lines=True)}"]
    if item.url:
        lines.append(f"  {t('transcript_page')} {item.url}")
    lines.append(f"  {item.status}{who}")
    lines.extend(_field_line(field) for field in item.fields)
    return lines


def _says_who(answered_by: str) -> bool:
    """Whether a request's status line already says who answered it (the person, or what
    ended it: "demo withdrew this request."), so that no "(withdrawn)" follows it."""
    try:
        how = AnsweredBy(answered_by)
    except ValueError:
        return False
    return how == AnsweredBy.PERSON or how.told_by_status


def _field_line(field: tuple[str, ...]) -> str:
    label, value, *sent = field
    shown = f"  {visible(label)}: {visible(value, lines=True)}"
    if sent and _sent_differs(value, sent[0]):
        return f"{shown}  ({t('transcript_sent', value=sent[0])})"
    return shown


def block_text(block: dict[str, Any]) -> str:
    """A content block as one plain text (a bad image: the notice that stands in for it)."""
    kind = block.get("type")
    if kind == "image":
        problem = image_problem(block)
        return f"[An image was not shown: {problem}.]" if problem else "[image content]"
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "resource_link":
        return f"Resource: {block.get('name', '')} {block.get('uri', '')}"
    if kind == "resource":
        resource = block.get("resource", {})
        text = resource.get("text")
        return str(text) if text is not None else f"Resource: {resource.get('uri')}"
    return f"[{kind} content]"


_IMAGE_TYPE = re.compile(r"image/[A-Za-z0-9][A-Za-z0-9.+-]{0,100}")


def image_problem(block: dict[str, Any]) -> str | None:
    """Why an image block from a server cannot be shown (None: it can).

    Every part of it is the server's: the data must be text in strict base64, and the
    mimeType an image type (``image/png``, ``image/svg+xml``, ...), nothing else.
    """
    data, mime = block.get("data"), block.get("mimeType")
    if not isinstance(mime, str):
        return "it has no mimeType"
    if not _IMAGE_TYPE.fullmatch(mime):
        return f"its type {shorten(mime, 60, one_line=True)!r} is not an image type"
    if not isinstance(data, str):
        return "its data is not text"
    if not data:
        return "it has no data"
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "its data is not valid base64"
    return None



def _e(value: Any) -> str:
    return html.escape(str(value))
