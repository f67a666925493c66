"""URLs: which a server may ask the person to open, and what to warn about; which nb_elicit
may send a secret to; and an address checked where it enters.

One rule (:func:`https_or_loopback`) for every URL the person is asked to open (URL-mode
elicitation, the sign-in card) and every URL a sign-in secret or token is sent to (token
endpoints, issuers, the identity provider's token endpoint): ``https``, or ``http`` to this
machine only (``localhost``, 127.0.0.0/8, ``::1``), for development servers. Every other scheme
(``javascript:``, ``data:``, ``file:``, ...) is refused. nb_elicit never fetches a URL it shows;
it links to it once the person consents.

:func:`check_address` checks an address nb_elicit is given (``connect(url=...)``, a config
file's ``url``, the sign-in options' URLs): a malformed one (a port that is not one, unmatched
IPv6 brackets, no host, another scheme) is one :class:`~.errors.ConfigError` line naming the
option as it was given.

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from .errors import ArgumentTypeError, ConfigError, InvalidRequest
from .i18n import t
from .limits import MAX_URL
from .secrets.names import redact_url
from .text import shorten, visible

__all__ = ["CheckedUrl", "check_address", "check_url", "https_or_loopback", "is_loopback"]

#: This machine, as the one rule says it (what :func:`https_or_loopback` allows http to).
LOOPBACK = "localhost, 127.0.0.0/8 or ::1"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as :func:`~urllib.parse.urlsplit` gives it: no brackets) is this
    machine: ``localhost``, an address of 127.0.0.0/8, or ``::1``."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def https_or_loopback(scheme: str, host: str) -> bool:
    """The one rule for a URL the person opens or a secret is sent to: https, or http to this
    machine only."""
    scheme = scheme.lower()
    return scheme == "https" or (scheme == "http" and is_loopback(host))


def check_address(url: object, option: str, *, secrets: bool = False) -> str:
    """``url``, an address nb_elicit was given as ``option`` (``url``, ``--url``, a config
    file's key), if it is one: an http(s) URL with a host and a valid port; else one
    :class:`~.errors.ConfigError` line naming ``option``. ``secrets``: sign-in secrets or tokens
    are sent there, so it must also be https, or http to this machine."""
    if not isinstance(url, str):
        raise ArgumentTypeError(f"{option} must be a string, like 'https://example.org/mcp'")
    shown = visible(shorten(redact_url(url), 120, one_line=True))
    if not url.strip():
        raise ConfigError(f"{option} is empty; give an address, like https://example.org/mcp")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") or c.isspace() for c in url):
        raise ConfigError(f"{option} has spaces or control characters in it: {shown}")
    try:
        parts = urlsplit(url)
    except ValueError:  # (unmatched brackets, no IP address inside them, or a look-alike of
        # a delimiter that NFKC turns into one)
        what = ("its host in [brackets] is not an IPv6 address" if "[" in url or "]" in url
                else "its host has characters that stand for a delimiter (/ ? # @ :)")
        raise ConfigError(f"{option} is not a valid URL: {what}: {shown}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ConfigError(f"{option} must be an http:// or https:// URL, like "
                          f"https://example.org/mcp: {shown}")
    try:
        port = parts.port
    except ValueError:  # (not a number, or above 65535)
        port = -1
    if port is not None and not 0 < port <= 65535:
        raise ConfigError(f"{option} is not a valid URL: its port is not a number from 1 to "
                          f"65535: {shown}")
    host = parts.hostname or ""
    if not host:
        raise ConfigError(f"{option} has no host: {shown}")
    if secrets and not https_or_loopback(scheme, host):
        raise ConfigError(f"{option} must be https: nb_elicit sends sign-in secrets and tokens "
                          f"there (http only to this machine: {LOOPBACK}): {shown}")
    return url


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
    if not https_or_loopback(scheme, host):
        raise InvalidRequest(f"the url must be https (http only to this machine: {LOOPBACK}; "
                             f"got http://{host})")
    return CheckedUrl(url, host, tuple(_warnings(parts, host)))


def _warnings(parts: SplitResult, host: str) -> list[str]:
    warnings = []
    if parts.username is not None or parts.password is not None:
        warnings.append(t("warn_userinfo", before=parts.netloc.rsplit("@", 1)[0], host=host))
    labels = host.split(".")
    if any(label.startswith("xn--") for label in labels):
        warnings.append(t("warn_punycode", host=host))
    elif not host.isascii():
        warnings.append(t("warn_unicode", host=host))
    if _is_ip(host) and not is_loopback(host):
        warnings.append(t("warn_ip", host=host))
    return warnings


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
