"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``): which tools come with an app,
what a server's app resource must be before it is shown, and the domains its Content Security
Policy may name (the policy itself is built where the frame is, in ``_ui/static/app_host.js``).

Pure: plain dicts in, plain values out. Everything here comes from a server, so each value is
checked before it reaches a frame: the resource must be ``text/html;profile=mcp-app`` and within
:data:`MAX_APP_BYTES`; the CSP's domains must be plain origins (a value with a space, a quote or
a ``;`` could add a directive of its own, so it is refused, not passed on); the permissions it
asks for (``_meta.ui.permissions``) are only those of :data:`PERMISSIONS`, and its frame's
``allow`` names only those the person granted (:func:`allow_attribute`).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import NbElicitError

__all__ = ["APP_METHODS", "APP_MIME", "EXTENSION", "MAX_APP_BYTES", "NOTIFICATIONS", "PERMISSIONS",
           "REQUESTS", "AppRefused", "AppResource", "allow_attribute", "app_only", "app_resource",
           "csp_domains", "granted_permissions", "permissions_asked", "resource_uri",
           "visibility"]

EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"
#: The largest app nb_elicit shows (the official examples are 0.2 to 2 MB of HTML).
MAX_APP_BYTES = 8 * 1024 * 1024
#: What an app may send its host, each method a "request" (answered) or a "notification" (no
#: answer goes back): the frame passes on these and no others, and the runtime answers each.
APP_METHODS = {
    "tools/call": "request",
    "resources/read": "request",
    "ui/open-link": "request",
    "ui/download-file": "request",
    "ui/message": "request",
    "ui/update-model-context": "request",
    "ui/request-display-mode": "request",
    "notifications/message": "notification",
    "ui/notifications/request-teardown": "notification",
}
#: The app's requests, from `APP_METHODS`.
REQUESTS = frozenset(m for m, how in APP_METHODS.items() if how == "request")
#: The app's notifications, from `APP_METHODS`.
NOTIFICATIONS = frozenset(m for m, how in APP_METHODS.items() if how == "notification")
#: The permissions an app may ask for (``_meta.ui.permissions``), in the order a card names
#: them, each with the Permission Policy feature its frame's ``allow`` attribute names (as the
#: reference host's ``buildAllowAttribute`` maps them).
PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
#: Domains one CSP list may name.
MAX_DOMAINS = 32
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
#: An origin as CSP source expressions write it: scheme://host[:port], the host may start
#: with "*." (a wildcard subdomain); nothing after it (no path, no quote, no space, no ";").
_ORIGIN = re.compile(r"^(https|http|wss|ws)://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$")


class AppRefused(NbElicitError):
    """A server's app that nb_elicit will not show; the message says why, in one line."""


def _ui_meta(tool: dict) -> dict:
    meta = tool.get("_meta") if isinstance(tool, dict) else None
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def resource_uri(tool: dict) -> str | None:
    """The ``ui://`` resource of a tool's app (``_meta.ui.resourceUri``, or the older flat
    ``_meta["ui/resourceUri"]``), or None."""
    uri = _ui_meta(tool).get("resourceUri")
    if uri is None and isinstance(tool.get("_meta"), dict):
        uri = tool["_meta"].get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") and len(uri) < 2048 else None


def visibility(tool: dict) -> tuple[str, ...]:
    """Who may call the tool: ``"model"`` (the person, in nb_elicit) and ``"app"`` (its app);
    both when the server says nothing. A value that is not a list of strings fails closed: the
    person only (an app is given no tool the server did not clearly give it)."""
    ui = _ui_meta(tool)
    if "visibility" not in ui or ui["visibility"] is None:
        return ("model", "app")
    shown = ui["visibility"]
    if not isinstance(shown, list) or not all(isinstance(v, str) for v in shown):
        return ("model",)
    return tuple(v for v in shown if v in ("model", "app"))


def app_only(tool: dict) -> bool:
    """A tool meant for its app alone (``visibility: ["app"]``)."""
    return visibility(tool) == ("app",)


@dataclass(frozen=True)
class AppResource:
    """An app's HTML as nb_elicit will show it, with its CSP domains."""

    uri: str
    html: str
    csp: dict[str, tuple[str, ...]] = field(default_factory=dict)
    prefers_border: bool | None = None
    #: The permissions it asks for (keys of :data:`PERMISSIONS`), none granted yet.
    permissions: tuple[str, ...] = ()


def app_resource(uri: str, read: dict, limit: int = MAX_APP_BYTES) -> AppResource:
    """The app of ``uri`` from a ``resources/read`` answer (plain dict), or :class:`AppRefused`."""
    contents = read.get("contents") if isinstance(read, dict) else None
    if not isinstance(contents, list) or not contents:
        raise AppRefused(f"the server sent no content for the app {uri}")
    item = next((c for c in contents if isinstance(c, dict) and c.get("uri") == uri), None)
    item = item or (contents[0] if isinstance(contents[0], dict) else {})
    mime = item.get("mimeType")
    if not isinstance(mime, str) or mime.replace(" ", "").lower() != APP_MIME:
        raise AppRefused(f"the app {uri} is {str(mime)[:80]!r}, not {APP_MIME}: it is not shown")
    if isinstance(item.get("text"), str):
        text = item["text"]
        size = len(text.encode("utf-8", "surrogatepass"))
    elif isinstance(item.get("blob"), str):
        if len(item["blob"]) > limit * 4 // 3 + 4:
            raise _too_large(uri, len(item["blob"]) * 3 // 4, limit)
        try:
            raw = base64.b64decode(item["blob"], validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            raise AppRefused(f"the app {uri} is not UTF-8 HTML: it is not shown") from None
        size = len(raw)
    else:
        raise AppRefused(f"the app {uri} has neither text nor blob: it is not shown")
    if size > limit:
        raise _too_large(uri, size, limit)
    ui = (item.get("_meta") or {}).get("ui") if isinstance(item.get("_meta"), dict) else None
    ui = ui if isinstance(ui, dict) else {}
    border = ui.get("prefersBorder")
    return AppResource(uri, text, csp_domains(ui.get("csp")),
                       border if isinstance(border, bool) else None,
                       permissions_asked(ui.get("permissions")))


def _too_large(uri: str, size: int, limit: int) -> AppRefused:
    return AppRefused(f"the app {uri} is {size / 1e6:.1f} MB; nb_elicit shows apps up to "
                      f"{limit / 1e6:.0f} MB")


def csp_domains(csp: Any) -> dict[str, tuple[str, ...]]:
    """The resource's ``_meta.ui.csp`` lists, each domain checked (see :data:`_ORIGIN`);
    anything else is left out, never passed on."""
    if not isinstance(csp, dict):
        return {}
    domains: dict[str, tuple[str, ...]] = {}
    for key in _CSP_KEYS:
        values = csp.get(key)
        if not isinstance(values, list):
            continue
        kept = tuple(v for v in values[:MAX_DOMAINS] if isinstance(v, str) and _ORIGIN.match(v))
        if kept:
            domains[key] = kept
    return domains


def permissions_asked(permissions: Any) -> tuple[str, ...]:
    """The permissions a resource's ``_meta.ui.permissions`` asks for, in :data:`PERMISSIONS`'
    order: a known key whose value is an object (``{}``, as the spec writes it) or ``true``.
    Unknown keys, and anything that is not an object, ask for nothing."""
    if not isinstance(permissions, dict):
        return ()
    return tuple(key for key in PERMISSIONS
                 if isinstance(permissions.get(key), dict) or permissions.get(key) is True)


def granted_permissions(granted: Any) -> dict[str, dict]:
    """What a frame is given, as the spec's object (``{"microphone": {}}``): only keys of
    :data:`PERMISSIONS` (a list of keys, or an object whose keys are asked for as above)."""
    keys = permissions_asked(granted) if isinstance(granted, dict) else (
        tuple(k for k in PERMISSIONS if isinstance(granted, (list, tuple)) and k in granted))
    return {key: {} for key in keys}


def allow_attribute(granted: Any) -> str:
    """The frame's ``allow`` attribute for ``granted`` (see :func:`granted_permissions`):
    ``"microphone; clipboard-write"``, or ``""`` for none."""
    return "; ".join(PERMISSIONS[key] for key in granted_permissions(granted))
