"""Which URLs a server may ask the person to open (URL-mode elicitation), and what to warn about.

Only ``https`` is allowed, plus ``http`` to this machine (``localhost``, ``127.0.0.1``,
``::1``) for development servers. Every other scheme (``javascript:``, ``data:``, ``file:``,
...) is refused. nb_elicit never fetches a URL; it only shows it, and links to it once the
person consents.

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import InvalidRequest
from .i18n import t
from .limits import MAX_URL

__all__ = ["CheckedUrl", "check_url"]

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class CheckedUrl:
    """A URL that may be shown, with its host and what the person should be warned about."""

    url: str
    host: str
    warnings: tuple[str, ...] = ()


def check_url(url: object) -> CheckedUrl:
    """Return the URL's host and warnings, or raise :class:`InvalidRequest` saying why not."""
    if not isinstance(url, str) or not url:
        raise InvalidRequest("a URL-mode request needs a url string")
    if len(url) > MAX_URL:
        raise InvalidRequest(f"the url is {len(url):,} characters; the limit is {MAX_URL:,}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") or c.isspace() for c in url):
        raise InvalidRequest("the url contains spaces or control characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as error:
        raise InvalidRequest(f"the url is not valid ({error})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        shown = f"{scheme}:" if scheme else "a relative URL"
        raise InvalidRequest(f"the url must be https (got {shown}); nb_elicit opens no other "
                             "kind of link")
    if not host:
        raise InvalidRequest("the url has no host")
    if scheme == "http" and host not in LOCAL_HOSTS:
        raise InvalidRequest(f"the url must be https (http is allowed only for localhost, "
                             f"got http://{host})")
    return CheckedUrl(url, host, tuple(_warnings(parts, host)))


def _warnings(parts, host: str) -> list[str]:
    warnings = []
    if parts.username is not None or parts.password is not None:
        warnings.append(t("warn_userinfo", before=parts.netloc.rsplit("@", 1)[0], host=host))
    labels = host.split(".")
    if any(label.startswith("xn--") for label in labels):
        warnings.append(t("warn_punycode", host=host))
    elif not host.isascii():
        warnings.append(t("warn_unicode", host=host))
    if _is_ip(host) and host not in LOCAL_HOSTS:
        warnings.append(t("warn_ip", host=host))
    return warnings


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
