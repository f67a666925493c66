"""Which fields ask for a secret, and masking their values.

MCP servers must not ask for secrets (passwords, API keys, tokens, payment credentials) in a
form. A field counts as a secret when

- it is one the person types into: text (not a date) or a number. A checkbox, a choice among
  the server's own options or a date cannot carry a password, so ``pin_to_top: boolean`` and
  ``token_type: enum`` never count; and
- its **name or title** (never its description) names a secret, read as whole words:
  ``userPassword``, ``api_key``, ``x-api-key``, ``db.pass`` and "Card number" are split into
  words first, so ``passport``, ``spinner``, ``tokenizer`` and ``keyboard`` do not match.

A description is left out on purpose: "do not give us your PIN" warns against a secret, it
does not ask for one. The words:

- alone: password, passwd, pwd, passcode, passphrase, PIN, secret, token, OTP/TOTP/HOTP, CVV,
  CVC, SSN, IBAN, the run-together apikey, accesstoken, authtoken, privatekey, ..., and any
  word ending in password, passwd, passphrase, passcode or apikey (``PGPASSWORD``);
- in pairs: API key, private/secret/license/signing/encryption/master key, credit card, card
  number, security code, verification code, 2FA/MFA code, recovery/backup code, one-time code,
  seed/recovery phrase, social security (number), security answer;
- "pass" only as the last word (``db_pass``, ``smtpPass``), not ``pass_rate`` or
  ``score_to_pass``;
- "tokens" only after a credential word (``access_tokens``): plain ``tokens`` is a count.

Not secrets: a token word next to a quantity (``max_tokens``, ``token_limit``,
``tokens_per_minute``, ``prompt_tokens``, ``cost_per_token``), a model's special tokens
(``stop_token``, ``eos_token``), a page cursor (``next_page_token``), a secret word followed by
the word right after that describes it rather than holds it (``token_type``, ``token_url``,
``password_min_length``, ``private_key_path``, ``secret_name``), and "pin" as a verb
(``pin_to_top``). "key" alone is not a secret (``sort_key``, ``primary_key``), nor is
``aws_access_key_id`` (an identifier; its partner ``aws_secret_access_key`` is a secret).

**Inputs.** A config's input (VS Code's ``inputs``, in ``mcp.json`` and ``tasks.json``) is a
secret when it is marked ``"password": true`` or its id or description (the title its form
shows) names a secret by the same words: ``${input:api-key}`` is one, ``${input:script}``
(``server.py``) is not (:func:`secret_input`).

A secret field is masked as typed, never prefilled, shown as ``••••••`` in history and
transcripts, and left out of recordings; the rest of its form is untouched.

Masking: :func:`masked` replaces the values of secret-named keys in a dict of content (a
form's answer in the history, a respond policy's ``accept {...}`` in its text and repr), and
:func:`target_secrets` names the secrets a server's target carries, for
:mod:`.masking` to keep. Which fields of a parsed form are secret: :mod:`.secret_fields`.

Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from ..schema.shapes import unwrap_nullable
from .masking import MASK

__all__ = ["looks_like_token", "looks_secret", "mask_literals", "masked", "redact_argv",
           "redact_url", "secret_input", "secret_property", "secret_values", "target_secrets",
           "words"]

#: Header names whose value is a credential whatever it looks like.
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})

# A chunk between separators splits at camelCase humps: "userAPIKey" -> user, API, Key.
# Digits stay with the letters they touch: "2FA", "cvv2", "OAuth2".
_SEPARATORS = re.compile(r"[\W_]+")
_HUMPS = re.compile(r"\d+(?:[a-z]+|[A-Z]+(?![a-z]))?|[A-Z]+\d*(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*"
                    r"|[A-Z]+\d*|[^\W\d_]+")

#: Words that name a secret on their own.
_ALONE = frozenset({
    "password", "passwords", "passwd", "pwd", "passcode", "passphrase", "pin", "pincode",
    "secret", "secrets", "token", "otp", "totp", "hotp", "cvv", "cvc", "cvv2", "cvc2", "ssn",
    "iban", "apikey", "apikeys", "apitoken", "accesstoken", "authtoken", "refreshtoken",
    "bearertoken", "privatekey", "secretkey", "clientsecret", "onetimepassword"})

#: Endings that make a run-together word a secret: PGPASSWORD, rootpasswd, openaiapikey.
_ENDINGS = ("password", "passwd", "passphrase", "passcode", "apikey")

#: Word runs that name a secret together (each word alone does not).
_RUNS = (
    ("api", "key"), ("api", "keys"), ("private", "key"), ("secret", "key"),
    ("license", "key"), ("licence", "key"), ("product", "key"), ("signing", "key"),
    ("encryption", "key"), ("master", "key"), ("credit", "card"), ("card", "number"),
    ("card", "no"), ("card", "num"), ("security", "code"), ("verification", "code"),
    ("2fa", "code"), ("mfa", "code"), ("recovery", "code"), ("recovery", "codes"),
    ("backup", "code"), ("backup", "codes"), ("one", "time", "code"), ("onetime", "code"),
    ("seed", "phrase"), ("recovery", "phrase"), ("social", "security"),
    ("security", "answer"))

#: A credential word that makes "tokens" (plural) a secret: "access_tokens".
_CREDENTIAL = frozenset({"access", "auth", "bearer", "refresh", "api", "session", "oauth",
                         "id", "personal"})

#: Words right before "token" that make it something other than a credential.
_NOT_A_CREDENTIAL = frozenset({
    # quantities: max_token, cost_per_token, number of token(s)
    "max", "maximum", "min", "minimum", "num", "number", "n", "count", "total", "per",
    "prompt", "completion", "output", "input", "context", "reasoning", "thinking", "cached",
    "budget", "remaining", "generated",
    # a language model's special tokens
    "stop", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end",
    # page cursors
    "page", "pagination", "continuation", "cursor", "sync", "next", "resume"})

#: Words right after a secret word that describe the secret rather than hold it: token_type,
#: password_min_length, private_key_path, token_limit.
_ABOUT = frozenset({
    "type", "kind", "url", "uri", "endpoint", "expiry", "expires", "expiration", "expire",
    "ttl", "lifetime", "hint", "length", "len", "policy", "strength", "name", "path", "file",
    "filename", "location", "env", "format", "rotation",
    "limit", "limits", "count", "counts", "budget", "used", "usage", "per", "total", "quota",
    "rate", "size", "window", "cost", "price", "estimate", "remaining", "min", "max",
    "minimum", "maximum"})

#: The same idea where words are not separated: a title in Chinese.
_CHINESE = ("密码", "口令", "令牌", "密钥", "验证码", "信用卡", "卡号", "安全码", "社保号")


def words(text: str) -> list[str]:
    """``text`` as lower-case words: split at spaces, punctuation, ``_``, ``-``, ``.`` and
    camelCase humps."""
    return [w.lower() for chunk in _SEPARATORS.split(text) for w in _HUMPS.findall(chunk)]


@functools.lru_cache(maxsize=512)
def looks_secret(name: str | None, title: str | None = None) -> bool:
    """Whether a field's name or title names a secret (see the module docstring). Kept for
    the last few hundred names: a form asks it of each field several times (its mask, its
    hints, the transcript), each time splitting the words again."""
    return any(text and (_names_secret(words(text)) or any(w in text for w in _CHINESE))
               for text in (name, title))


def secret_property(name: str, prop: Any) -> bool:
    """Whether the requestedSchema property ``name`` (raw JSON, perhaps invalid) is a secret.

    Used where only the raw schema is at hand (history, recordings). Unknown shapes count as
    fields one types into, so a secret-looking name is masked when in doubt.
    """
    prop = unwrap_nullable(prop) if isinstance(prop, dict) else {}
    typed_in = (prop.get("type") not in ("boolean", "array", "object")
                and not any(k in prop for k in ("enum", "oneOf", "anyOf", "const"))
                and prop.get("format") not in ("date", "date-time"))
    title = prop.get("title")
    return typed_in and looks_secret(name, title if isinstance(title, str) else None)


def secret_input(spec: Any) -> bool:
    """Whether a config's input (an object with ``id``, and perhaps ``description`` and
    ``password``, as VS Code's ``inputs`` entries have) holds a secret: marked as a password, or
    named like one."""
    if getattr(spec, "password", False) is True:
        return True
    description = getattr(spec, "description", None)
    return looks_secret(getattr(spec, "id", None),
                        description if isinstance(description, str) else None)


#: A variable of a config value: ``${env:TOKEN}``, ``${input:key}``, ``${VAR:-default}``.
_REFERENCE = re.compile(r"\$\{([^}]*)\}")
#: An authorization scheme at the start of a value (``Bearer ${env:TOKEN}``): it says what kind
#: of credential follows, it is not the credential.
_SCHEME = re.compile(r"(?:Bearer|Basic|Token|Bot|Digest|ApiKey) +(?=\S)", re.IGNORECASE)


def mask_literals(text: str) -> str:
    """A config value as a trust card shows it: every ``${...}`` reference as written (the
    default of ``${VAR:-default}`` masked), every run of literal text between them as
    :data:`MASK` (a file may hold a token as it is), a leading authorization scheme kept; an
    empty value as ``""``. ``Bearer ${env:GITHUB_TOKEN}`` stays, ``Bearer ghp_abc`` is
    ``Bearer ••••••``."""
    if not text:
        return '""'
    out: list[str] = []
    scheme = _SCHEME.match(text)
    pos = scheme.end() if scheme else 0
    if scheme:
        out.append(scheme.group(0))
    for match in _REFERENCE.finditer(text, pos):
        if match.start() > pos:
            out.append(MASK)
        out.append(_reference(match.group(0)))
        pos = match.end()
    if pos < len(text):
        out.append(MASK)
    return "".join(out)


def masked(content: dict[str, Any] | None, schema: Any) -> dict[str, Any] | None:
    """``content`` with the values of secret fields replaced by :data:`MASK`."""
    if content is None:
        return None
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if not isinstance(properties, dict):
        properties = {}
    return {name: MASK if secret_property(name, properties.get(name)) else value
            for name, value in content.items()}


def secret_values(content: Any) -> list[str]:
    """The values (as text) under secret-looking names in ``content``, at any depth."""
    found: list[str] = []
    if isinstance(content, dict):
        for name, value in content.items():
            if isinstance(name, str) and looks_secret(name) and not isinstance(
                    value, (dict, list, bool)) and value is not None:
                found.append(str(value))
            else:
                found += secret_values(value)
    elif isinstance(content, list):
        for value in content:
            found += secret_values(value)
    return found


def target_secrets(target: Any) -> frozenset[str]:
    """The secrets a server's target (or connect options) carries: the config's hidden inputs,
    the values of secret-named environment variables, and credential headers (their token
    too, after ``Bearer``)."""
    found = set(getattr(target, "hidden", None) or ())
    env = getattr(target, "env", None) or {}
    found.update(str(v) for k, v in env.items() if looks_secret(k) and v)
    for name, value in (getattr(target, "headers", None) or {}).items():
        if value and (name.lower() in _CREDENTIAL_HEADERS or looks_secret(name)):
            found.add(str(value))
            scheme, _, token = str(value).partition(" ")
            if token.strip() and scheme.isalpha():
                found.add(token.strip())
    return frozenset(found)


def _names_secret(ws: list[str]) -> bool:
    for i in range(len(ws)):
        end = _secret_run_end(ws, i)
        if end and (end == len(ws) or ws[end] not in _ABOUT):
            return True
    return False


def _secret_run_end(ws: list[str], i: int) -> int:
    """If a secret is named starting at ``ws[i]``, the index just after it; else 0."""
    word = ws[i]
    before = _word_before(ws, i)
    for run in _RUNS:
        if tuple(ws[i:i + len(run)]) == run:
            return i + len(run)
    if word == "token":
        return 0 if before in _NOT_A_CREDENTIAL else i + 1
    if word == "tokens":
        return i + 1 if before in _CREDENTIAL else 0
    if word == "pass":  # "db_pass" holds a password; "pass_rate", "score_to_pass" do not
        return i + 1 if i == len(ws) - 1 and before != "to" else 0
    if word == "pin" and ws[i + 1:i + 2] == ["to"]:  # "pin to top": the verb
        return 0
    return i + 1 if word in _ALONE or word.endswith(_ENDINGS) else 0


def _word_before(ws: list[str], i: int) -> str | None:
    j = i - 1
    if j >= 0 and ws[j] in ("of", "the"):  # "number of tokens"
        j -= 1
    return ws[j] if j >= 0 else None


# -- where a server runs, without its secrets: URLs and command lines -----------------------------
#
# A server's URL or command line may carry a credential of its own: a token as a path segment
# (``https://host/s/<token>/mcp``), a query value (``?api_key=...``), userinfo
# (``https://user:pass@host``), a flag's value (``--api-key sk-...``, ``--token=...``), a
# ``NAME=value`` word, a header given on the command line (``"Authorization: Bearer ..."``).
# :func:`redact_url` and :func:`redact_argv` mask them, with the same words for secret names as
# the forms (:func:`looks_secret`), so that what is shown or kept of where a server runs
# (``where()``, the file of running tasks) holds no secret.

__all__ += ["looks_like_token", "redact_argv", "redact_url"]

#: Prefixes that mark a value as a credential whatever surrounds it (API keys, access tokens).
_TOKEN_PREFIX = re.compile(
    r"(?:sk|rk|pk_live|sk_live|sk_test|rk_live|rk_test|ghp|gho|ghu|ghs|ghr|github_pat|glpat"
    r"|xox[abposr]|xapp|hf|npm|pypi|shpat|shpss|dop_v1|sgp|pat|sq0atp|sq0csp)[-_][\w.\-]{8,}"
    r"|AKIA[0-9A-Z]{16}|AIza[\w\-]{30,}|ya29\.[\w.\-]{10,}"
    r"|eyJ[\w\-]{8,}\.[\w\-]{8,}\.[\w\-]*")  # (a JWT)
#: What a random token is made of (base64, base64url, hex, with separators).
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.~+/=%]{16,}")
#: Query keys that hold a credential in URLs though they are no secret words in a form.
_URL_SECRET_KEYS = frozenset({"key", "sig", "signature", "code", "auth", "jwt", "sid",
                              "session", "sessionid", "credential", "credentials"})
_HEADER_WORD = re.compile(r"([A-Za-z][\w-]*)\s*:\s*(\S.*)", re.S)
_SECRET_ASSIGNMENT = re.compile(r"([A-Za-z_][\w.-]*)=(.*)", re.S)
_URL_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def looks_like_token(value: str) -> bool:
    """Whether ``value`` (a word, a path segment, a query value) looks like a credential on its
    own: a known key or token prefix (``sk-...``, ``ghp_...``, ``AKIA...``, a JWT), or a long
    random-looking run (16 or more token characters, with letters and at least three digits, or
    letters of both cases and a digit: a hex digest, a UUID, base64). Words, paths and version
    numbers do not: ``streamable-http``, ``v2024``, ``/usr/lib/python3.11``."""
    if not isinstance(value, str) or not value:
        return False
    if _TOKEN_PREFIX.fullmatch(value):
        return True
    if not _TOKEN_CHARS.fullmatch(value) or "/" in value:
        return False
    digits = sum(c.isdigit() for c in value)
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    return (lower or upper) and (digits >= 3 or (lower and upper and digits >= 1))


def _secret_key(name: str) -> bool:
    return looks_secret(name) or name.lower() in _URL_SECRET_KEYS


class _Filled:
    """The rules for text as it is sent (``where()``): a value in a secret place is masked whole."""

    def mask(self, value: str) -> str:
        return MASK

    def token(self, value: str) -> bool:
        return looks_like_token(value)

    def prefixed(self, value: str) -> bool:
        return bool(_TOKEN_PREFIX.fullmatch(value))


#: A ``${...}`` reference (or a stray character of the stand-ins' own) while a text as written
#: is judged; it stands there as ``\ue000N\ue001``, which no rule takes for a token or a
#: delimiter. So do control characters, which ``urlsplit`` would drop (what is shown is what
#: is written), and in a URL spaces, which it strips at the start.
_STANDS_IN = re.compile(r"\$\{[^}]*\}|[\ue000\ue001\x00-\x1f\x7f]")
_STANDS_IN_URL = re.compile(r"\$\{[^}]*\}|[\ue000\ue001\x00-\x20\x7f]")
_STAND_IN = re.compile("\ue000(\\d+)\ue001")


class _Written(_Filled):
    """The rules for text as a config file writes it, its references stood in for: a value in a
    secret place keeps its references and a leading authorization scheme, its literal text is
    masked (as :func:`mask_literals` does), and literal text is judged run by run."""

    def mask(self, value: str) -> str:
        scheme = _SCHEME.match(value)
        out, pos = [scheme.group(0) if scheme else ""], scheme.end() if scheme else 0
        for match in _STAND_IN.finditer(value, pos):
            if match.start() > pos:
                out.append(MASK)
            out.append(match.group(0))
            pos = match.end()
        if pos < len(value):
            out.append(MASK)
        return "".join(out)

    def token(self, value: str) -> bool:
        return any(looks_like_token(run) for run in _STAND_IN.split(value) if run)

    def prefixed(self, value: str) -> bool:
        return any(_TOKEN_PREFIX.fullmatch(run) for run in _STAND_IN.split(value) if run)


_FILLED, _WRITTEN = _Filled(), _Written()


def _reference(text: str) -> str:
    """A reference as shown: as written, but for the default of ``${VAR:-default}``."""
    name, dash, default = text[2:-1].partition(":-")
    return f"${{{name}:-{MASK}}}" if text.startswith("${") and dash and default else text


class _StoodIn:
    """Texts as written, each reference replaced by a stand-in, and put back."""

    def __init__(self, pattern: re.Pattern[str] = _STANDS_IN) -> None:
        self.references: list[str] = []
        self.pattern = pattern

    def __call__(self, text: str) -> str:
        def stand_in(match: re.Match[str]) -> str:
            self.references.append(match.group(0))
            return f"\ue000{len(self.references) - 1}\ue001"

        return self.pattern.sub(stand_in, text)

    def back(self, text: str) -> str:
        return _STAND_IN.sub(lambda m: _reference(self.references[int(m.group(1))]), text)


def _redact_pairs(text: str, rules: _Filled) -> str:
    """A query (or fragment) with the values of secret keys, and token-like values, masked."""
    pairs = []
    for pair in text.split("&"):
        name, eq, value = pair.partition("=")
        if eq and value and (_secret_key(_unquoted(name)) or rules.token(_unquoted(value))):
            value = rules.mask(value)
        elif not eq and rules.token(_unquoted(name)):
            name = rules.mask(name)
        pairs.append(f"{name}{eq}{value}")
    return "&".join(pairs)


def _unquoted(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)


def redact_url(url: str, *, written: bool = False) -> str:
    """``url`` with its credentials masked (:data:`MASK`): the userinfo, path segments that
    look like tokens (:func:`looks_like_token`) or follow a segment that names a secret
    (``/token/<value>``), and the values of secret-looking query (and fragment) keys
    (``api_key``, ``access_token``, ``key``, ``sig``, ...) or that look like tokens. The rest
    stays as written, so two URLs of one server still compare equal.

    ``written``: ``url`` as a config file writes it (a trust card, ``%mcp servers``): its
    ``${env:...}`` and ``${input:...}`` references stay as written wherever they are (the
    default of ``${VAR:-default}`` masked), and only the literal text of a secret place is
    masked: ``?api_key=${env:KEY}`` stays, ``?api_key=abc123`` does not."""
    if not isinstance(url, str) or not url:
        return url
    if not written:
        return _redact_url(url, _FILLED)
    stood_in = _StoodIn(_STANDS_IN_URL)
    return stood_in.back(_redact_url(stood_in(url), _WRITTEN))


def _redact_url(url: str, rules: _Filled) -> str:
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return rules.mask(url) if rules.token(url) else url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        netloc = rules.mask(userinfo) + "@" + host
    segments = parts.path.split("/")
    for i, segment in enumerate(segments):
        before = _unquoted(segments[i - 1]) if i else ""
        if segment and (rules.token(_unquoted(segment)) or (before and _secret_key(before))):
            segments[i] = rules.mask(segment)
    query = _redact_pairs(parts.query, rules) if parts.query else ""
    fragment = _redact_pairs(parts.fragment, rules) if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, "/".join(segments), query, fragment))


def redact_argv(argv: Iterable[str], *, written: bool = False) -> list[str]:
    """A command line (its words) with its credentials masked: the value after a flag that names
    a secret (``--api-key VALUE``, ``-token VALUE``; a one-letter flag such as ``-p`` names
    nothing), the value of ``--flag=VALUE`` and of ``NAME=VALUE`` for such names, a header
    word's value (``"Authorization: Bearer ..."``, ``"X-Api-Key: ..."``), a URL's credentials
    (:func:`redact_url`), and a word that starts like a key (``sk-...``, ``ghp_...``, a JWT: see
    :func:`looks_like_token`; long random runs count only inside URLs, so that paths and
    hashes of files stay).

    ``written``: the words as a config file writes them: references stay as written, as
    :func:`redact_url` keeps them (``--api-key ${env:KEY}`` stays, ``--api-key sk-...``
    does not)."""
    if not written:
        return _redact_argv([str(w) for w in argv], _FILLED)
    stood_in = _StoodIn()
    return [stood_in.back(w) for w in _redact_argv([stood_in(str(w)) for w in argv], _WRITTEN)]


def _redact_argv(words_in: list[str], rules: _Filled) -> list[str]:
    out: list[str] = []
    mask_next = False
    for word in words_in:
        if mask_next and not word.startswith("-"):
            out.append(rules.mask(word))
            mask_next = False
            continue
        mask_next = False
        out.append(_redact_word(word, rules))
        if word.startswith("--") and "=" not in word and _secret_key(word.lstrip("-")):
            mask_next = True
        elif (word.startswith("-") and not word.startswith("--") and len(word) > 2
              and "=" not in word and looks_secret(word.lstrip("-"))):
            mask_next = True  # (-token VALUE, as some tools spell it)
    return out


def _redact_word(word: str, rules: _Filled) -> str:
    if rules.prefixed(word):
        return rules.mask(word)
    if _URL_WORD.match(word):
        return _redact_url(word, rules)
    flag = word.startswith("-")
    name, eq, value = word.lstrip("-").partition("=") if flag else word.partition("=")
    if eq and value:
        if (flag or _SECRET_ASSIGNMENT.fullmatch(word)) and _secret_key(name):
            return word[:len(word) - len(value)] + rules.mask(value)
        return word[:len(word) - len(value)] + _redact_word(value, rules)
    header = _HEADER_WORD.fullmatch(word)
    if header and "://" not in word and (
            header.group(1).lower() in _CREDENTIAL_HEADERS or looks_secret(header.group(1))):
        return f"{header.group(1)}: {rules.mask(header.group(2))}"
    return word
