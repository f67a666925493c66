"""Which fields look like they ask for a secret, and masking their values.

MCP servers must not ask for secrets (passwords, API keys, tokens, payment credentials) in a
form. nb_elicit recognises fields whose name, title or description reads like one: the form
warns and prefills nothing, the connection can refuse such forms, and the history masks them.
Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MASK", "looks_secret", "masked", "secret_fields"]

_SECRET = re.compile(
    r"\bpass(word|code|phrase)?s?\b|passwd|\bpwd\b|\bpin\b|\b(access|auth|bearer|refresh)?"
    r"[\s_-]?tokens?\b|api[\s_-]?key|\bsecrets?\b|private[\s_-]?key|"
    r"credit[\s_-]?card|card[\s_-]?(number|no)|\bcvv\b|\bcvc\b|\bssn\b|social[\s_-]?security|"
    r"\biban\b|security[\s_-]?code|one[\s_-]?time[\s_-]?(code|password)|\botp\b",
    re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
MASK = "••••••"


def looks_secret(*texts: str | None) -> bool:
    """Whether any of a field's name, title or description reads like a secret."""
    return any(text and _SECRET.search(_CAMEL.sub(" ", text).replace("_", " "))
               for text in texts)


def masked(content: dict[str, Any] | None, schema: Any) -> dict[str, Any] | None:
    """``content`` with the values of secret-looking fields replaced by a mask."""
    if content is None:
        return None
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    out = {}
    for name, value in content.items():
        prop = properties.get(name) if isinstance(properties.get(name), dict) else {}
        secret = looks_secret(name, prop.get("title"), prop.get("description"))
        out[name] = MASK if secret else value
    return out


def secret_fields(spec) -> list[str]:
    """The names of a form spec's fields that look like secrets."""
    return [f.name for f in spec if looks_secret(f.name, f.title, f.description)]

