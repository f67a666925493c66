"""Connecting by name: the server a config file names, with its ``${input:...}`` values asked for.

An input (VS Code's ``inputs``) is asked for in the calling cell with nb_elicit's own form, a
one-field :class:`~nb_elicit.ElicitationForm` shown and awaited like a server's form (masked
when it is a secret: :func:`~nb_elicit._core.secrets.names.secret_input`; Decline and ✕ end the
connect). Where no widget frontend is attached, it comes from the environment variable
``NB_ELICIT_INPUT_<ID>`` (which the error names). A value asked for is kept in memory for the
kernel's life, and never reaches an output, the transcript, the history, the answers file or a
log: the form is replaced by a line that does not quote it, and no outcome is written for it. A
secret input's value is masked wherever it would show (a failed command line, an error); any
other (a script's name) is shown as it is.

Before a server of a project file first starts, the calling cell shows a trust card
(:class:`~nb_elicit._ui.trust_card.TrustCard`) with what it would run; nothing is started, and
no input asked for, until **Start**. Its env file is read once, before the card: the card shows
its keys, the consent covers them, and those values are what starts. Where no widget frontend
is attached, only an approval starts it: ``NB_ELICIT_TRUST``, ``trust=True`` or ``%mcp connect
NAME --trust`` (a remembered Start is for a person: it only skips the card). A trust file that
cannot be written costs the memory of the Start, in one line, not the Start.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .._core.configs.servers import (
    ConfiguredServer,
    InputSpec,
    auth_options,
    expand,
    find_server,
    input_env_name,
    input_ids,
    inputs_needed,
    read_env_file,
)
from .._core.configs.trust import ENV_TRUST, TrustStore, approved_by_env, hidden_own, is_own
from .._core.errors import ConnectError
from .._core.secrets.names import secret_input
from .._core.text import visible
from .._core.types import HttpTarget, SseTarget, StdioTarget
from .._ui.call_view import CallView
from .._ui.closing import close_tree
from .._ui.form import ElicitationForm
from .._ui.trust_card import TrustCard
from . import kernel_compat
from .asking import RequestContext, wait_for_person
from .kernel_compat import (
    check_blocking_supported,
    shows_display_updates,
)
from .state import kernel_state

__all__ = ["configured_target", "forget_inputs"]

def forget_inputs() -> None:
    """Forget every input value given so far (the next connect asks again): the kernel's
    owner keeps them, by (config file, input id), for its life."""
    kernel_state().inputs.clear()


async def configured_target(name: str, config: str | os.PathLike[str] | None = None,
                            trust: bool = False) -> StdioTarget | HttpTarget | SseTarget:
    """The target of the configured server ``name``, trusted and its inputs asked for.

    ``trust=True`` approves a server of a project file without asking."""
    server = find_server(name, config=config)
    hides = hidden_own(server) if config is None else None
    if hides is not None:
        print(f"{name!r} is the one of the project file {server.file}, which hides your own "
              f"{name!r} of {hides.file} (that one: %mcp connect --config {hides.file} {name})")
    env_file = read_env_file(server)  # (once: the card shows its keys, the consent covers them)
    needed = inputs_needed(server)  # (a wrong input is said before the card, not after Start)
    await _trusted(server, trust, hides, env_file)
    answers = {spec.id: await _input_value(server, spec) for spec in needed}
    resolved = expand(server, answers, env_file=env_file)
    hidden = frozenset(answers[spec.id] for spec in needed
                       if secret_input(spec) and answers[spec.id])
    if resolved.transport == "stdio":
        return StdioTarget(resolved.command, resolved.env or None, resolved.cwd, hidden)
    kind = SseTarget if resolved.transport == "sse" else HttpTarget
    return kind(resolved.url or "", dict(resolved.headers), hidden, auth_options(server))


async def _trusted(server: ConfiguredServer, trust: bool, hides: ConfiguredServer | None,
                   env_file: Mapping[str, str] | None) -> None:
    """Return once ``server`` may start: the person's own file, an approval, or **Start**
    (given now, or remembered for this very entry where a person is watching)."""
    if trust or is_own(server) or approved_by_env(server.name):
        return
    name = server.name
    store, env_keys = TrustStore(), tuple(env_file or ())
    if not kernel_compat.widget_frontend_attached():
        started = (" for a run without a person (a Start is remembered for when one watches)"
                   if store.trusts(server, env_keys) else "")
        raise ConnectError(
            f"{name!r} comes from the project file {server.file} ({server.key}) and is not "
            f"trusted{started}, so nothing was started; approve it with %mcp connect {name} "
            f"--trust, connect({name!r}, trust=True) or {ENV_TRUST}={name}")
    if store.trusts(server, env_keys):
        return
    check_blocking_supported()
    ids = input_ids(server)
    card = TrustCard(server, hides=hides, env_keys=env_keys,
                     given=[i for i in ids if (str(server.path), i) in kernel_state().inputs],
                     from_env={i: input_env_name(i) for i in ids
                               if input_env_name(i) in os.environ})
    view = CallView(visible(name), "trust", show_waiting=False)
    view.show(keyboard=True, in_place=not shows_display_updates())
    answer, line = None, f"{name}: not started."
    try:
        answer = await wait_for_person(RequestContext(name, view), card)
        if answer.action == "accept":
            line = _remember(store, server, env_keys)
        else:
            line = _NOT_STARTED.get(answer.action, "{name}: not started.").format(name=name)
    finally:
        _close_card(view, line)
    if answer.action != "accept":
        raise ConnectError(f"connecting {name!r} stopped: its entry in {server.file} was not "
                           "trusted, so nothing was started")


#: The line that replaces the trust card when nothing starts: what the person chose.
_NOT_STARTED = {
    "decline": "{name}: not started (you chose Don't start); the next connect asks again.",
    "cancel": "{name}: not started (Not now); the next connect asks again.",
}


def _remember(store: TrustStore, server: ConfiguredServer, env_keys: tuple[str, ...]) -> str:
    """Keep the person's Start; the line that replaces the card says whether it was kept."""
    try:
        store.remember(server, env_keys)
    except OSError as error:  # (the Start still starts it, this once)
        reason = error.strerror or type(error).__name__
        return (f"{server.name}: started this once; the consent could not be kept in "
                f"{store.path} ({reason}), so it asks again next time.")
    return f"{server.name}: trusted {server.file}; asked again if it changes."


def _close_card(view: CallView, text: str) -> None:
    """Replace the card by one line that says what was decided; close its widgets."""
    view.frozen = True
    if view.display_handle is not None:
        view.display_handle.update(_Line(text))
    if view.script_handle is not None:
        view.script_handle.update(_Line(""))
    close_tree(view)


async def _input_value(server: ConfiguredServer, spec: InputSpec) -> str:
    key = (str(server.path), spec.id)
    given = kernel_state().inputs
    if key in given:
        return given[key]
    variable = input_env_name(spec.id)
    if variable in os.environ:
        return os.environ[variable]
    if not kernel_compat.widget_frontend_attached():
        if spec.default is not None and not secret_input(spec):
            return spec.default
        raise ConnectError(f"{server.name!r} needs the input {spec.id!r} of {server.file}, and "
                           f"no widget frontend is attached to ask for it: set {variable} in "
                           "the kernel's environment")
    value = await _ask(server, spec)
    given[key] = value
    return value


async def _ask(server: ConfiguredServer, spec: InputSpec) -> str:
    check_blocking_supported()
    secret = secret_input(spec)
    field = "password" if secret else "value"
    prop: dict[str, Any] = {"type": "string", "title": spec.description or spec.id}
    if spec.type == "pickString":
        prop["enum"] = list(spec.options or [])
    if spec.default is not None and not secret:
        prop["default"] = spec.default
    schema = {"type": "object", "properties": {field: prop}, "required": [field]}
    message = f"{server.name} needs {spec.description or spec.id} (${{input:{spec.id}}})"
    form = ElicitationForm(message, schema, server=server.file)
    # The form's warning is about servers that ask for secrets; here nb_elicit asks for its own
    # config's input, so it would only mislead.
    form.children = [c for c in form.children
                     if "nb-elicit-secret-warning" not in getattr(c, "_dom_classes", ())]
    view = CallView(server.name, f"input {spec.id}", show_waiting=False)
    view.show(keyboard=True, in_place=not shows_display_updates())
    answer = None
    try:
        answer = await wait_for_person(RequestContext(server.name, view), form)
    finally:
        _forget_view(view, spec, answer.action if answer is not None else None)
    if answer.action != "accept" or not answer.content or field not in answer.content:
        raise ConnectError(f"connecting {server.name!r} stopped: the input {spec.id!r} was "
                           f"{_GIVEN[answer.action]}")
    return str(answer.content[field])


_GIVEN = {"accept": "given", "decline": "declined", "cancel": "cancelled", None: "not given"}


def _forget_view(view: CallView, spec: InputSpec, action: str | None) -> None:
    """Replace the form by a line that does not quote its value; close its widgets."""
    view.frozen = True
    if view.display_handle is not None:
        view.display_handle.update(_Line(
            f"{view.server}: the input {spec.id} was {_GIVEN.get(action, 'not given')}."))
    if view.script_handle is not None:
        view.script_handle.update(_Line(""))
    close_tree(view)


class _Line:
    def __init__(self, text: str):
        self.text = text

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, str]:
        return {"text/plain": self.text}
