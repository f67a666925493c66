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
from typing import Any

from .i18n import t
from .secrets import MASK, secret_fields

__all__ = ["Asked", "Transcript", "block_text", "image_problem", "link_html", "shown_fields",
           "transcript_bundle"]


@dataclass(frozen=True)
class Asked:
    """One request shown during a call, and what became of it."""

    server: str
    message: str
    status: str  # what the widget said at the end: "Submitted.", "example withdrew ..."
    action: str | None = None  # accept, decline, cancel; None when it was never answered
    answered_by: str = "person"
    fields: tuple[tuple[str, str], ...] = ()  # (label, value as shown), masked
    url: str | None = None
    #: The page's host, when the person consented to open ``url``: the transcript links to it.
    consented_host: str | None = None


@dataclass
class Transcript:
    server: str
    what: str
    items: list[Asked | str] = field(default_factory=list)  # requests and notices, in order
    result: dict[str, Any] | None = None  # {"content": [...], "structured": ..., "is_error": ..}
    failure: str | None = None


def shown_fields(spec, content: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """``content`` of a form as (label, value) pairs for a transcript, secrets masked."""
    if not content:
        return ()
    secrets = set(secret_fields(spec))
    shown = []
    for name, value in content.items():
        text = MASK if name in secrets else (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        shown.append((spec.field(name).label, text))
    return tuple(shown)


def transcript_bundle(transcript: Transcript) -> dict[str, str]:
    """The transcript as a display bundle: ``text/html`` and ``text/plain``."""
    return {"text/html": _html(transcript), "text/plain": _text(transcript)}


# -- HTML ---------------------------------------------------------------------------------------

_BOX = ("border-left: 3px solid var(--jp-brand-color1); padding: 2px 0 2px 10px; "
        "margin: 4px 0; color: var(--jp-content-font-color1)")
_MUTED = "color: var(--jp-content-font-color2)"
_ERROR = "color: var(--jp-error-color1)"


def _html(transcript: Transcript) -> str:
    parts = [f'<div class="nb-elicit-transcript" style="{_BOX}">',
             f'<div style="{_MUTED}">{_e(transcript.server)} · {_e(transcript.what)}</div>']
    for item in transcript.items:
        parts.append(_asked_html(item) if isinstance(item, Asked) else
                     f'<div class="nb-elicit-transcript-notice" style="{_MUTED}">{_e(item)}</div>')
    if transcript.result is not None:
        parts.append(_result_html(transcript))
    if transcript.failure:
        parts.append(f'<div class="nb-elicit-transcript-failure" style="{_ERROR}">'
                     f'{_e(transcript.failure)}</div>')
    parts.append("</div>")
    return "".join(parts)


def _asked_html(asked: Asked) -> str:
    who = "" if asked.answered_by == "person" else f" ({_e(asked.answered_by)})"
    rows = "".join(f"<tr><td style=\"text-align: left\">{_e(label)}</td>"
                   f"<td style=\"text-align: left\"><code>{_e(value)}</code></td></tr>"
                   for label, value in asked.fields)
    table = (f'<table class="nb-elicit-transcript-fields"><tbody>{rows}</tbody></table>'
             if rows else "")
    url = (f'<div>{_e(t("transcript_page"))} <code style="word-break: break-all">'
           f"{_e(asked.url)}</code></div>" if asked.url else "")
    if asked.url and asked.consented_host:
        url += link_html(asked.url, asked.consented_host)
    return (f'<div class="nb-elicit-transcript-asked" style="margin: 4px 0">'
            f"<div><b>{_e(t('transcript_asked', server=asked.server))}</b> "
            f'<span style="white-space: pre-wrap">{_e(asked.message)}</span></div>{url}'
            f'<div class="nb-elicit-transcript-status">{_e(asked.status)}{who}</div>{table}</div>')


def link_html(url: str, host: str) -> str:
    """The link to a page the person agreed to open: a new tab, no opener, no referrer.

    (JupyterLab rewrites ``rel`` of links in HTML outputs to ``noopener``; the
    ``referrerpolicy`` keeps the referrer out there too.)
    """
    return (f'<a class="nb-elicit-url-link" href="{html.escape(url, quote=True)}" '
            f'target="_blank" rel="noopener noreferrer" referrerpolicy="no-referrer" '
            f'style="color: '
            f'var(--jp-content-link-color); text-decoration: underline; font-weight: bold">'
            f"{_e(t('open_link', host=host))}</a>")


def _result_html(transcript: Transcript) -> str:
    result = transcript.result or {}
    parts = []
    if result.get("is_error"):
        error = t("transcript_error", server=transcript.server, what=transcript.what)
        parts.append(f'<div style="{_ERROR}">{_e(error)}</div>')
    for block in result.get("content", []):
        kind = block.get("type")
        if kind == "text":
            parts.append(f'<div style="white-space: pre-wrap">{_e(block.get("text", ""))}</div>')
        elif kind == "image" and image_problem(block) is None:
            alt = t("transcript_image", server=transcript.server)
            parts.append(f'<img alt="{_e(alt)}" src="data:'
                         f'{_e(block["mimeType"])};base64,{_e(block.get("data", ""))}">')
        else:
            parts.append(f'<div style="{_MUTED}">{_e(block_text(block))}</div>')
    if result.get("structured") is not None:
        dumped = json.dumps(result["structured"], indent=2, ensure_ascii=False)
        parts.append(f"<pre>{_e(dumped)}</pre>")
    return f'<div class="nb-elicit-transcript-result">{"".join(parts)}</div>'


# -- text ---------------------------------------------------------------------------------------

def _text(transcript: Transcript) -> str:
    lines = [f"[{transcript.server} · {transcript.what}]"]
    for item in transcript.items:
        if isinstance(item, str):
            lines.append(item)
            continue
        who = "" if item.answered_by == "person" else f" ({item.answered_by})"
        lines.append(f"{t('transcript_asked', server=item.server)} {item.message}")
        if item.url:
            lines.append(f"  {t('transcript_page')} {item.url}")
        lines.append(f"  {item.status}{who}")
        lines.extend(f"  {label}: {value}" for label, value in item.fields)
    if transcript.result is not None:
        result = transcript.result
        if result.get("is_error"):
            lines.append(t("transcript_error", server=transcript.server, what=transcript.what))
        lines.extend(block_text(b) for b in result.get("content", []))
        if result.get("structured") is not None:
            lines.append(json.dumps(result["structured"], indent=2, ensure_ascii=False))
    if transcript.failure:
        lines.append(transcript.failure)
    return "\n".join(lines)


def block_text(block: dict) -> str:
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


def image_problem(block: dict) -> str | None:
    """Why an image block from a server cannot be shown (None: it can).

    Every part of it is the server's: the data must be text in strict base64, and the
    mimeType an image type (``image/png``, ``image/svg+xml``, ...), nothing else.
    """
    data, mime = block.get("data"), block.get("mimeType")
    if not isinstance(mime, str):
        return "it has no mimeType"
    if not _IMAGE_TYPE.fullmatch(mime):
        return f"its type {_short(mime)!r} is not an image type"
    if not isinstance(data, str):
        return "its data is not text"
    if not data:
        return "it has no data"
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "its data is not valid base64"
    return None


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())  # one line
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _e(value: Any) -> str:
    return html.escape(str(value))
