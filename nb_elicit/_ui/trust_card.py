"""The trust card: before a server of a project file first starts, the person sees what it is.

It shows the file and key, and the command line, where it runs and the NAMES of its env keys
(stdio), or the URL and the NAMES of its headers (HTTP): as written in the file, variables not
filled in, never a value. Everything from the file is shown as text.

* **Start** answers ``accept``: nb_elicit may start it (and remembers that for this entry).
* **Cancel** and ✕ answer ``decline`` and ``cancel``: nothing starts.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from .._core.configs import ConfiguredServer
from .._core.i18n import t
from .._core.trust import Shown, shown
from .controls import text_html
from .prompt import PromptWidget, make_button

__all__ = ["TrustCard", "trust_text"]



def trust_text(key: str, **values) -> str:
    """One of the card's texts (``trust_KEY`` of the i18n table), in the language in use."""
    return t(f"trust_{key}", **values)


class TrustCard(PromptWidget):
    """Asks whether the project server ``server`` may start (see the module's docstring)."""

    def __init__(self, server: ConfiguredServer, *, hides: ConfiguredServer | None = None,
                 **kwargs):
        message = trust_text("message", file=server.file, name=server.name)
        super().__init__(message, server.name, trust_text("asks"), **kwargs)
        self.configured = server
        self.shown: Shown = shown(server)
        self.start_button = make_button(trust_text("start"), "nb-elicit-start",
                                        trust_text("start.tip"), style="primary", kit=self.kit)
        self.start_button.on_click(lambda _: self._guarded(self.start))
        self.decline_button.description = trust_text("cancel")
        self.decline_button.tooltip = trust_text("cancel.tip")
        rows = [self._fact(trust_text(label), value, code) for label, value, code in self.facts()]
        if hides is not None:
            rows.append(self.html(
                f'<div style="color: var(--jp-warn-color0)">'
                f'{text_html("⚠ " + trust_text("hides", name=hides.name, file=hides.file))}'
                "</div>", "nb-elicit-trust-hides"))
        rows.append(self.html(text_html(trust_text("note")), "nb-elicit-help"))
        actions = self.row([self.start_button, self.decline_button], "nb-elicit-actions")
        self.add_class("nb-elicit-trust-card")
        self.body([*rows, actions, self.status])

    def facts(self) -> list[tuple[str, str, bool]]:
        """(label key, text, in the code font) for every line the card shows."""
        server, what = self.configured, self.shown
        facts = [("file", server.file, True), ("key", server.key, True)]
        if what.transport == "stdio":
            names = ", ".join(what.env_names)
            facts += [("command", what.command, True), ("cwd", what.cwd, True),
                      ("env", f"{names} {trust_text('names_only')}" if names
                       else trust_text("none"), False)]
            if what.env_file is not None:
                facts.append(("env_file", what.env_file, True))
        else:
            names = ", ".join(what.header_names)
            facts += [("transport", what.transport, False), ("url", what.url, True),
                      ("headers", f"{names} {trust_text('names_only')}" if names
                       else trust_text("none"), False)]
        return facts

    def _fact(self, label: str, value: str, code: bool) -> widgets.HTML:
        font = "font-family: var(--jp-code-font-family); " if code else ""
        return self.html(
            f'<div style="display: flex; gap: 8px">'
            f'<span class="nb-elicit-label" style="flex: none; min-width: 6em">'
            f"{html.escape(label)}</span>"
            f'<span style="{font}white-space: pre-wrap; overflow-wrap: anywhere">'
            f"{html.escape(value)}</span></div>", "nb-elicit-trust-fact")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = (f"[start {self.configured.name!r} of {self.configured.file}"
                                    f"? {self.shown.target}]")
        return bundle

    def start(self) -> bool:
        """Answer ``accept``: the person agrees that it starts."""
        return self._answer_without_content("accept", status=trust_text("started"))

    def decline(self) -> bool:
        return self._answer_without_content("decline", status=trust_text("cancelled"))

    def _buttons(self) -> list[widgets.Button]:
        return [self.start_button, *super()._buttons()]
