"""How elicitations are answered when nobody is there: the respond policy.

    ask        show the form and wait for the person (the default)
    decline    answer "decline" at once
    cancel     answer "cancel" at once
    accept {…} answer "accept" with this JSON object (only the form's own fields are sent,
               and only if they are valid for the form)

A policy is set per connection, or for all of them (``%mcp respond``, :func:`respond`), or by the
environment variable ``NB_ELICIT_RESPOND`` for runs without a person (papermill, nbconvert, CI).
A connection's own policy wins over the global one, which wins over the environment.

An ``accept`` policy's values under secret-looking names (``api_key``, ``password``, ...) are
never shown: its text and repr mask them, and they are remembered as secrets, so that every
other surface masks them too (see :mod:`.masking`).

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from .errors import InvalidArgument
from .kernel import part
from .secrets.masking import remember
from .secrets.names import masked, secret_values

__all__ = ["ENV_RESPOND", "ENV_WAIT", "Policies", "Policy", "parse_policy", "respond"]

ENV_RESPOND = "NB_ELICIT_RESPOND"
ENV_WAIT = "NB_ELICIT_HEADLESS_WAIT"
ACTIONS = ("ask", "accept", "decline", "cancel")
DEFAULT_HEADLESS_WAIT = 10.0


@dataclass(frozen=True)
class Policy:
    action: str = "ask"
    content: dict[str, Any] | None = None
    source: str = field(default="default", compare=False)

    def __str__(self) -> str:
        if self.action == "accept":
            return f"accept {json.dumps(masked(self.content, None), ensure_ascii=False)}"
        return self.action

    def __repr__(self) -> str:
        return (f"Policy(action={self.action!r}, content={masked(self.content, None)!r}, "
                f"source={self.source!r})")


def parse_policy(text: str, source: str = "") -> Policy:
    """``"decline"``, ``"cancel"``, ``"ask"`` or ``'accept {"name": "x"}'`` as a :class:`Policy`."""
    action, _, rest = text.strip().partition(" ")
    action = action.strip().lower()
    if action.startswith("accept") and action != "accept":  # "accept:{...}" or "accept{...}"
        action, rest = "accept", action[len("accept"):].lstrip(":") + rest
    if action not in ACTIONS:
        raise InvalidArgument(f"unknown policy {action!r}: use one of {', '.join(ACTIONS)}")
    if action != "accept":
        if rest.strip():
            raise InvalidArgument(f"{action} takes no content (only accept does)")
        return Policy(action, None, source)
    try:
        content = json.loads(rest) if rest.strip() else None
    except json.JSONDecodeError as error:
        raise InvalidArgument('accept needs a JSON object, like accept {"name": "Ada"}: '
                              f"{error.msg} at column {error.colno}") from None
    if not isinstance(content, dict):
        raise InvalidArgument('accept needs a JSON object, like accept {"name": "Ada"}')
    remember(secret_values(content))
    return Policy("accept", content, source)


@dataclass
class Policies:
    """The global policy and one per connection; the environment is read when needed. A part
    of the kernel's owner (:mod:`.kernel`)."""

    everywhere: Policy | None = None
    per_connection: dict[str, Policy] = field(default_factory=dict)

    def set(self, policy: Policy, connection: str | None = None) -> None:
        if connection is None:
            self.everywhere = policy
        else:
            self.per_connection[connection] = policy

    def clear(self) -> None:
        self.everywhere = None
        self.per_connection.clear()

    def for_connection(self, name: str) -> Policy:
        """The policy set for the connection (or hook label) ``name``, else
        :meth:`for_anyone`."""
        if name in self.per_connection:
            return self.per_connection[name]
        return self.for_anyone()

    def for_anyone(self) -> Policy:
        """The policy for every connection: set for all, else ``$NB_ELICIT_RESPOND``, else
        ask. It alone answers a request whose name is a server's claim."""
        if self.everywhere is not None:
            return self.everywhere
        env = os.environ.get(ENV_RESPOND, "").strip()
        if env:
            try:
                return parse_policy(env, source=f"${ENV_RESPOND}")
            except ValueError:
                # An unreadable environment never answers for the person: fall back to ask.
                return Policy("ask", None, f"${ENV_RESPOND} (unreadable, so ask)")
        return Policy()


def headless_wait() -> float:
    """Seconds a form waits with no widget frontend before it answers cancel."""
    try:
        return max(0.0, float(os.environ.get(ENV_WAIT, DEFAULT_HEADLESS_WAIT)))
    except ValueError:
        return DEFAULT_HEADLESS_WAIT


def respond(policy: str, content: dict[str, Any] | None = None, *,
            connection: str | None = None) -> Policy:
    """Set how elicitations are answered without a person, for one connection or all.

        nb_elicit.respond("decline")                                  # every connection
        nb_elicit.respond("accept", {"name": "Ada"}, connection="demo")
        nb_elicit.respond("ask")                                      # back to showing forms
    """
    text = policy if content is None else f"{policy} {json.dumps(content)}"
    where = f"connection {connection!r}" if connection else "all connections"
    parsed = parse_policy(text, source=f"set for {where}")
    part(Policies).set(parsed, connection)
    return parsed
