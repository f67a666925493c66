"""MCP Apps (SEP-1865, extension ``io.modelcontextprotocol/ui``): which tools come with an app,
what a server's app resource must be before it is shown, the domains its Content Security Policy
may name, and the policy itself (:func:`content_security_policy`, which the frame applies as it
is).

Pure: plain dicts in, plain values out. Everything here comes from a server, so each value is
checked before it reaches a frame: the resource must be ``text/html;profile=mcp-app`` and within
:data:`MAX_APP_BYTES`; a CSP domain is refused, not passed on, when it could add a source or a
directive of its own (a space, a quote, a ``;``), as the reference host of the ext-apps
repository (``examples/basic-host/src/csp.ts``) refuses it. The permissions a resource asks for
(``_meta.ui.permissions``) are only those of :data:`PERMISSIONS`, and its frame's ``allow``
names only those the person granted (:func:`allow_attribute`); camera and microphone are never
offered (:data:`NOT_OFFERED`). What the policy does not govern, WebRTC and clipboard writes,
the frame shuts unless the resource opened it (:func:`side_doors`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import NbElicitError

__all__ = ["APP_METHODS", "APP_MIME", "EXTENSION", "MAX_APP_BYTES", "NOTIFICATIONS", "NOT_OFFERED",
           "PERMISSIONS", "REQUESTS", "AppRefused", "AppResource", "allow_attribute", "app_csp",
           "app_only", "app_resource", "content_security_policy", "csp_domains",
           "granted_permissions", "permissions_asked", "permissions_not_offered", "resource_uri",
           "side_doors", "visibility"]

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
#: The permissions nb_elicit offers an app that asks for them (``_meta.ui.permissions``), in
#: the order a card names them, each with the Permission Policy feature its frame's ``allow``
#: attribute names (as the reference host's ``buildAllowAttribute`` maps them).
PERMISSIONS = {
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
#: The permissions of the spec that nb_elicit never offers, because they cannot work: the app's
#: frame has an opaque origin of its own (its sandbox has no ``allow-same-origin``, so that it
#: never shares the notebook's), and Chromium refuses ``getUserMedia`` in such a frame
#: ("Invalid security origin") whatever its ``allow`` attribute says. The card says so in one
#: line, and the app's host capabilities (``sandbox.permissions``) never name them.
NOT_OFFERED = ("camera", "microphone")
#: Domains one CSP list may name, and the longest domain.
MAX_DOMAINS = 32
MAX_DOMAIN_CHARS = 512
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
#: The resource's flag that adds ``'wasm-unsafe-eval'`` to ``script-src``.
WASM_FLAG = "wasmUnsafeEval"
#: What a domain may not hold, as the reference host refuses it: ``;`` (a new directive), a
#: quote (a keyword such as ``'unsafe-eval'``), a space or a line break (a second source); and,
#: beyond it, any other whitespace or control character and ``,`` (which ends a policy).
_UNSAFE = re.compile(r"[;,'\"\x00-\x20\x7f]")


class AppRefused(NbElicitError):
    """A server's app that nb_elicit will not show; the message says why, in one line."""


def _ui_meta(tool: dict[str, Any]) -> dict[str, Any]:
    meta = tool.get("_meta") if isinstance(tool, dict) else None
    ui = meta.get("ui") if isinstance(meta, dict) else None
    return ui if isinstance(ui, dict) else {}


def resource_uri(tool: dict[str, Any]) -> str | None:
    """The ``ui://`` resource of a tool's app (``_meta.ui.resourceUri``, or the older flat
    ``_meta["ui/resourceUri"]``), or None."""
    uri = _ui_meta(tool).get("resourceUri")
    if uri is None and isinstance(tool.get("_meta"), dict):
        uri = tool["_meta"].get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") and len(uri) < 2048 else None


def visibility(tool: dict[str, Any]) -> tuple[str, ...]:
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


def app_only(tool: dict[str, Any]) -> bool:
    """A tool meant for its app alone (``visibility: ["app"]``)."""
    return visibility(tool) == ("app",)


@dataclass(frozen=True)
class AppResource:
    """An app's HTML as nb_elicit will show it, with its checked CSP (:func:`app_csp`)."""

    uri: str
    html: str
    csp: dict[str, Any] = field(default_factory=dict)
    prefers_border: bool | None = None
    #: The permissions it asks for that nb_elicit offers (keys of :data:`PERMISSIONS`), none
    #: granted yet.
    permissions: tuple[str, ...] = ()
    #: Those it asks for that nb_elicit never offers (of :data:`NOT_OFFERED`).
    not_offered: tuple[str, ...] = ()


def app_resource(uri: str, read: dict[str, Any], limit: int = MAX_APP_BYTES) -> AppResource:
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
    return AppResource(uri, text, app_csp(ui.get("csp")),
                       border if isinstance(border, bool) else None,
                       permissions_asked(ui.get("permissions")),
                       permissions_not_offered(ui.get("permissions")))


def _too_large(uri: str, size: int, limit: int) -> AppRefused:
    return AppRefused(f"the app {uri} is {size / 1e6:.1f} MB; nb_elicit shows apps up to "
                      f"{limit / 1e6:.0f} MB")


def csp_domains(csp: Any) -> dict[str, tuple[str, ...]]:
    """The resource's ``_meta.ui.csp`` domain lists, each domain checked (see :data:`_UNSAFE`);
    anything else is left out, never passed on."""
    if not isinstance(csp, dict):
        return {}
    domains: dict[str, tuple[str, ...]] = {}
    for key in _CSP_KEYS:
        values = csp.get(key)
        if not isinstance(values, list):
            continue
        kept = tuple(v for v in values[:MAX_DOMAINS] if _safe_domain(v))
        if kept:
            domains[key] = kept
    return domains


def _safe_domain(value: Any) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= MAX_DOMAIN_CHARS
            and not _UNSAFE.search(value))


def app_csp(csp: Any) -> dict[str, Any]:
    """The resource's ``_meta.ui.csp`` as nb_elicit keeps it (the shape of the spec's
    ``McpUiResourceCsp``): the checked domain lists, and ``wasmUnsafeEval: True`` when the
    resource asks for it (``true`` itself, nothing that merely looks true)."""
    kept: dict[str, Any] = {key: list(values) for key, values in csp_domains(csp).items()}
    if isinstance(csp, dict) and csp.get(WASM_FLAG) is True:
        kept[WASM_FLAG] = True
    return kept


def content_security_policy(csp: Any = None) -> str:
    """The policy of an app's frame, from its resource's ``_meta.ui.csp`` (checked here again).

    The reference host's (``examples/basic-host/src/csp.ts`` of the ext-apps repository), with
    ``default-src 'none'`` and ``form-action 'none'``, and ``'self'`` (in a ``srcdoc`` frame,
    the notebook server's origin) only in ``script-src`` and ``worker-src``: the app fetches,
    styles, images, fonts and media from its declared domains, ``data:`` and ``blob:`` only.
    docs/apps.md sets the two side by side.
    """
    checked = app_csp(csp)
    resource = checked.get("resourceDomains", [])

    def sources(*fixed: str, domains: Iterable[str] = ()) -> str:
        return " ".join([*fixed, *domains]) or "'none'"

    wasm = ("'wasm-unsafe-eval'",) if checked.get(WASM_FLAG) else ()
    return "; ".join([
        "default-src 'none'",
        "script-src " + sources("'self'", "'unsafe-inline'", "'unsafe-eval'", *wasm, "blob:",
                                "data:", domains=resource),
        "style-src " + sources("'unsafe-inline'", "blob:", "data:", domains=resource),
        "img-src " + sources("data:", "blob:", domains=resource),
        "font-src " + sources("data:", "blob:", domains=resource),
        "media-src " + sources("data:", "blob:", domains=resource),
        "connect-src " + sources(domains=checked.get("connectDomains", [])),
        "worker-src " + sources("'self'", "blob:", domains=resource),
        "frame-src " + sources(domains=checked.get("frameDomains", [])),
        "object-src 'none'",
        "base-uri " + sources(domains=checked.get("baseUriDomains", [])),
        "form-action 'none'",
    ])


def _asked(permissions: object, keys: Iterable[str]) -> tuple[str, ...]:
    if not isinstance(permissions, dict):
        return ()
    return tuple(key for key in keys
                 if isinstance(permissions.get(key), dict) or permissions.get(key) is True)


def permissions_asked(permissions: Any) -> tuple[str, ...]:
    """The permissions a resource's ``_meta.ui.permissions`` asks for that nb_elicit offers, in
    :data:`PERMISSIONS`' order: a known key whose value is an object (``{}``, as the spec writes
    it) or ``true``. Unknown keys, and anything that is not an object, ask for nothing."""
    return _asked(permissions, PERMISSIONS)


def permissions_not_offered(permissions: Any) -> tuple[str, ...]:
    """The permissions of :data:`NOT_OFFERED` that ``_meta.ui.permissions`` asks for (read as
    :func:`permissions_asked` reads the others)."""
    return _asked(permissions, NOT_OFFERED)


def granted_permissions(granted: object) -> dict[str, dict[str, object]]:
    """What a frame is given, as the spec's object (``{"microphone": {}}``): only keys of
    :data:`PERMISSIONS` (a list of keys, or an object whose keys are asked for as above)."""
    keys = permissions_asked(granted) if isinstance(granted, dict) else (
        tuple(k for k in PERMISSIONS if isinstance(granted, (list, tuple)) and k in granted))
    return {key: {} for key in keys}


def allow_attribute(granted: Any) -> str:
    """The frame's ``allow`` attribute for ``granted`` (see :func:`granted_permissions`):
    ``"microphone; clipboard-write"``, or ``""`` for none."""
    return "; ".join(PERMISSIONS[key] for key in granted_permissions(granted))


def side_doors(csp: Any = None, granted: Any = None) -> dict[str, bool]:
    """What an app's frame may do that its Content Security Policy does not govern, each
    ``True`` only when the resource opened it; the frame's front end shuts the others.

    - ``webrtc``: ``RTCPeerConnection``, which Chromium lets reach any address whatever
      ``connect-src`` says (and which ignores the CSP ``webrtc`` directive: "Unrecognized
      Content-Security-Policy directive"). Open only for an app that declared
      ``connectDomains``: an app that declared none reaches no network.
    - ``clipboardWrite``: any write to the clipboard (``execCommand("copy")``/``"cut"``, a copy
      event's ``clipboardData``, ``navigator.clipboard``), which the ``allow`` attribute gates
      only for ``navigator.clipboard``. Open only once the person granted ``clipboardWrite``.
    """
    return {"webrtc": bool(app_csp(csp).get("connectDomains")),
            "clipboardWrite": "clipboardWrite" in granted_permissions(granted)}
