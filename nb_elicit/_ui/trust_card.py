"""The trust card: before a server of a project file first starts, the person sees what it is.

It shows the file it comes from (and the file it links to, if it is a link); the command line
as it will run (its ``${env:...}`` and other variables filled in from this kernel's environment,
but its inputs, which are asked after Start) with the line as written under it when the two
differ, where it runs, each env key with its value and the env file's keys (stdio), or the URL
and each
header with its value, under the host they go to, and its sign-in: the mode, the hosts it
talks to, and each secret it reads (by its variable's or file's name) with the host it is sent
to (HTTP); and the inputs it uses (the ones given before in this kernel are sent again
without asking, and say so). Values are shown as written:
``${env:...}`` and ``${input:...}`` as they are, literal text masked
(:func:`~nb_elicit._core.secrets.names.mask_literals`); the command line and the URL without a
credential written into them (:func:`~nb_elicit._core.secrets.names.redact_argv`,
:func:`~nb_elicit._core.secrets.names.redact_url`, their references kept); every invisible character
as its escape (:func:`~nb_elicit._core.text.visible`). Everything from the file is shown as
text.

* **Start** answers ``accept``: nb_elicit may start it (and remembers that for this entry).
* **Don't start** answers ``decline`` (the person said no) and **Not now** ``cancel`` (closed
  without deciding): nothing starts, nothing is remembered, the next connect asks again. They
  are the card's only ways to close: it has no ✕.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping

import ipywidgets as widgets

from .._core.configs.servers import ConfiguredServer
from .._core.configs.trust import Shown, ShownInput, ShownSignIn, shown
from .._core.i18n import t
from .._core.outcome import AnsweredBy
from .._core.text import visible
from .html import text_html
from .prompt import PromptWidget, make_button

__all__ = ["TrustCard", "trust_text"]


def trust_text(key: str, **values: object) -> str:
    """One of the card's texts (``trust_KEY`` of the i18n table), in the language in use."""
    return t(f"trust_{key}", **values)


class TrustCard(PromptWidget):
    """Asks whether the project server ``server`` may start (see the module's docstring)."""

    def __init__(self, server: ConfiguredServer, *, hides: ConfiguredServer | None = None,
                 env_keys: Iterable[str] | None = None, given: Iterable[str] = (),
                 from_env: Mapping[str, str] | None = None, **kwargs: object):
        """``env_keys``: the keys of its env file as read before the card; ``given``: the ids
        of the inputs given before in this kernel, ``from_env``: those an environment variable
        gives (by id: the variable), both sent without asking."""
        message = trust_text("message", file=visible(server.file), name=server.name)
        super().__init__(message, visible(server.name), trust_text("asks"), **kwargs)
        self.configured = server
        self.shown: Shown = shown(server, env_keys)
        self.given = frozenset(given)
        self.from_env = dict(from_env or {})
        self.start_button = make_button(trust_text("start"), "nb-elicit-start",
                                        trust_text("start.tip"), style="primary", kit=self.kit)
        self.start_button.on_click(lambda _: self._guarded(self.start))
        self.decline_button.description = trust_text("decline")
        self.decline_button.tooltip = trust_text("decline.tip")
        # (Not now is the ✕'s answer, in words, next to the others: one way to close each)
        self.dismiss_button.description = trust_text("not_now")
        self.dismiss_button.tooltip = trust_text("not_now.tip")
        self.dismiss_button.remove_class("nb-elicit-dismiss")
        self.dismiss_button.add_class("nb-elicit-not-now")
        self.dismiss_button.add_class("nb-elicit-action")
        rows = [self._fact(label, value, code) for label, value, code in self.facts()]
        if hides is not None:
            warning = "⚠ " + trust_text("hides", name=hides.name, file=visible(hides.file))
            rows.append(self.html(
                f'<div style="color: var(--jp-warn-color0)">{text_html(warning)}</div>',
                "nb-elicit-trust-hides"))
        note = "note" if self.shown.transport == "stdio" else "note_http"
        rows.append(self.html(text_html(trust_text(note)), "nb-elicit-help"))
        actions = self.row([self.start_button, self.decline_button, self.dismiss_button],
                           "nb-elicit-actions")
        self.add_class("nb-elicit-trust-card")
        self.body([*rows, actions, self.status])

    def head_children(self) -> list[widgets.Widget]:
        """Who asks and how long it has waited; no ✕ (Not now is its answer, in words)."""
        return [self.message_line, self.waited]

    def facts(self) -> list[tuple[str, str, bool]]:
        """(label, text, in the code font) for every line the card shows."""
        server, what = self.configured, self.shown
        facts = [(trust_text("file"), visible(server.file), True)]
        if what.link is not None:
            facts.append((trust_text("link"), trust_text("link_here", target=what.link), True))
        if what.transport == "stdio":
            facts.append((trust_text("command"), what.runs or what.command, True))
            if what.runs and what.runs != what.command:
                facts.append((trust_text("as_written"), what.command, True))
            facts += [(trust_text("cwd"), what.cwd, True),
                      (trust_text("env"), _lines(f"{k}={v}" for k, v in what.env), True)]
            if what.env_file is not None:
                keys = ", ".join(what.env_file_keys or ()) or trust_text("none")
                facts.append((trust_text("env_file"),
                               trust_text("env_file_keys", file=what.env_file, keys=keys), True))
        else:
            facts += [(trust_text("transport"), what.transport, False),
                      (trust_text("url"), what.url, True),
                      (trust_text("headers", host=what.host),
                       _lines(f"{k}: {v}" for k, v in what.headers), True)]
            if what.sign_in is not None:
                facts.append((trust_text("signin"), _sign_in(what.sign_in, what.host), True))
        if what.inputs:
            facts.append((trust_text("inputs"),
                          "\n".join(self._input(i) for i in what.inputs), True))
        return facts

    def _input(self, spec: ShownInput) -> str:
        about = [spec.kind] if spec.defined else [trust_text("input_undefined")]
        if spec.secret:
            about.append(trust_text("input_secret"))
        if spec.default is not None:
            about.append(trust_text("input_default", value=spec.default))
        if spec.options:
            about.append(trust_text("input_options", options=", ".join(spec.options)))
        if spec.id in self.given:
            about.append(trust_text("input_given"))
        elif spec.id in self.from_env:
            about.append(trust_text("input_from_env", variable=self.from_env[spec.id]))
        label = f" {spec.description}" if spec.description else ""
        return f"${{input:{spec.id}}}{label} ({'; '.join(about)})"

    def _fact(self, label: str, value: str, code: bool) -> widgets.HTML:
        font = "font-family: var(--jp-code-font-family); " if code else ""
        return self.html(
            f'<div style="display: flex; gap: 8px">'
            f'<span class="nb-elicit-label" style="flex: none; min-width: 6em">'
            f"{html.escape(label)}</span>"
            f'<span style="{font}white-space: pre-wrap; overflow-wrap: anywhere">'
            f"{html.escape(value)}</span></div>", "nb-elicit-trust-fact")

    def text(self) -> str:
        """Every line of the card as plain text (what a person reads)."""
        return "\n".join(f"{label}: {value}" for label, value, _ in self.facts())

    def plain_text(self) -> str:
        target = (self.shown.runs or self.shown.command if self.shown.transport == "stdio"
                  else self.shown.target)
        return f"[start {self.configured.name!r} of {visible(self.configured.file)}? {target}]"

    def start(self) -> bool:
        """Answer ``accept``: the person agrees that it starts."""
        return self._answer_without_content("accept", status=trust_text("started"))

    def decline(self) -> bool:
        """Answer ``decline``: the person said Don't start."""
        return self._answer_without_content("decline", status=trust_text("declined"))

    def dismiss(self, answered_by: AnsweredBy = AnsweredBy.PERSON,
                status: str | None = None) -> bool:
        """Answer ``cancel``: Not now (or an interrupt, no frontend, ... for the person)."""
        if answered_by is AnsweredBy.PERSON:
            status = trust_text("dismissed")
        return self._answer_without_content("cancel", answered_by, status)

    def _buttons(self) -> list[widgets.Button]:
        return [self.start_button, *super()._buttons()]


def _sign_in(sign_in: ShownSignIn, server_host: str) -> str:
    """The sign-in's lines: its mode, the hosts it talks to, and each secret it reads (the
    variable's or file's name) with where it goes."""
    if not sign_in.key:
        return trust_text("signin_default")
    lines = [trust_text("signin_mode", mode=sign_in.mode, entry_key=sign_in.key)]
    if sign_in.client_id is not None:
        lines.append(trust_text("signin_client", id=sign_in.client_id))
    if sign_in.client_metadata_url is not None:
        lines.append(trust_text("signin_metadata", url=sign_in.client_metadata_url))
    if sign_in.issuer is not None:
        lines.append(trust_text("signin_issuer", host=sign_in.issuer_host,
                                url=sign_in.issuer))
    if sign_in.idp_token_endpoint is not None:
        lines.append(trust_text("signin_idp", host=sign_in.idp_host,
                                url=sign_in.idp_token_endpoint))
    if sign_in.idp_client_id is not None:
        lines.append(trust_text("signin_idp_client", id=sign_in.idp_client_id))
    if sign_in.scope is not None:
        lines.append(trust_text("signin_scope", scope=sign_in.scope))
    for read in sign_in.reads:
        source = trust_text("signin_file" if read.file else "signin_env", name=read.source)
        verb = ("signin_signs" if read.signs else "signin_sent") + ("" if read.to else "_found")
        lines.append(trust_text(verb, source=source, what=trust_text(f"signin_{read.what}"),
                                host=read.to or server_host))
    return "\n".join(lines)


def _lines(lines: Iterable[str]) -> str:
    return "\n".join(lines) or trust_text("none")
