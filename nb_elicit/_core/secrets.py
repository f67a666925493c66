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

A secret field is masked as typed, never prefilled, shown as ``••••••`` in history and
transcripts, and left out of recordings; the rest of its form is untouched.
Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import re
from typing import Any

from .schema import NumberField, TextField
from .shapes import unwrap_nullable

__all__ = ["MASK", "is_secret", "looks_secret", "masked", "secret_fields", "secret_property",
           "words"]

MASK = "••••••"

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


def looks_secret(name: str | None, title: str | None = None) -> bool:
    """Whether a field's name or title names a secret (see the module docstring)."""
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


def is_secret(field) -> bool:
    """Whether a parsed field is a secret: a text (not a date) or number field named like one."""
    typed_in = isinstance(field, NumberField) or (
        isinstance(field, TextField) and field.format not in ("date", "date-time"))
    return typed_in and looks_secret(field.name, field.title)


def secret_fields(spec) -> list[str]:
    """The names of a form spec's secret fields, in form order."""
    return [f.name for f in spec if is_secret(f)]


def masked(content: dict[str, Any] | None, schema: Any) -> dict[str, Any] | None:
    """``content`` with the values of secret fields replaced by :data:`MASK`."""
    if content is None:
        return None
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if not isinstance(properties, dict):
        properties = {}
    return {name: MASK if secret_property(name, properties.get(name)) else value
            for name, value in content.items()}


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
