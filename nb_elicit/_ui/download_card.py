"""The consent card for a file an app asks to save (``ui/download-file``): the file's name, type
and size, and nothing saved until the person agrees.

**Save** answers ``accept`` and only then shows the file as a link (``download``, a ``data:``
address made here from the bytes the app sent: nothing is fetched); **Decline** and **Dismiss**
(✕) answer ``decline`` and ``cancel``.
"""

from __future__ import annotations

import base64
import html
import re

import ipywidgets as widgets

from .._core.answer import Answer
from .._core.i18n import t
from .._core.text import is_invisible, shorten, visible
from .prompt import PromptWidget, make_button

__all__ = ["DownloadCard", "SavedFile"]

#: A media type as the link may carry it (anything else is saved as bytes).
_MIME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}$")


class SavedFile:
    """A file an app sent: the name it is saved as (``name``: its invisible characters, bidi
    controls among them, each an ``_``, so that ``invoice<U+202E>fdp.exe`` is saved as
    ``invoice_fdp.exe``), that name as the app sent it, to show (``shown``: its invisible
    characters as escapes, :func:`~nb_elicit._core.text.visible`), its media type and its
    bytes."""

    def __init__(self, name: str, mime: str, data: bytes):
        sent = shorten(name.replace("/", "_").replace("\\", "_"), 120, one_line=True)
        sent = sent.strip() or "download"
        self.name = "".join("_" if is_invisible(c) else c for c in sent)
        self.shown = visible(sent)
        self.mime = mime if _MIME.match(mime or "") else "application/octet-stream"
        self.data = data

    def link_html(self) -> str:
        address = f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"
        return (f'<a download="{html.escape(self.name, quote=True)}" '
                f'href="{html.escape(address, quote=True)}" rel="noopener noreferrer">'
                f'{html.escape(t("download_link", name=self.name))}</a>')


class DownloadCard(PromptWidget):
    """Asks whether to save ``file`` (a :class:`SavedFile`)."""

    def __init__(self, message: str, file: SavedFile, *, server: str = "MCP server",
                 **kwargs: object):
        super().__init__(message, server, t("asks_download", server=server), **kwargs)
        self.file = file
        self.save_button = make_button(t("download_save"), "nb-elicit-save",
                                       t("download_save.tip"), style="primary", kit=self.kit)
        self.save_button.on_click(lambda _: self._guarded(self.consent))
        kind = t("download_about", mime=visible(file.mime), size=_size(file))
        about = self.html(f'<div style="font-size: 1.2em; font-weight: bold">'
                          f'{html.escape(file.shown)}</div><div>{html.escape(kind)}'
                          f"</div>", "nb-elicit-download-file")
        self.link = widgets.HTML(layout=widgets.Layout(display="none"),
                                 _dom_classes=("nb-elicit-download-link",))
        actions = self.row([self.save_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-download-card")
        self.body([about, actions, self.link, self.status])

    def consent(self) -> bool:
        """Answer ``accept`` and show the file's link."""
        with self._lock:
            if self.answer.done():
                return False
            self.link.value = self.file.link_html()
            self.link.layout.display = None
            self._finish(Answer("accept"), t("download_consented"))
            return True

    def _buttons(self) -> list[widgets.Button]:
        return [self.save_button, *super()._buttons()]


def _size(file: SavedFile) -> str:
    size = len(file.data)
    return f"{size:,} B" if size < 10_000 else f"{size / 1000:,.0f} kB"
