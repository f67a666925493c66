"""Which fields count as secrets: real field names, both ways, and what the rule ignores."""

import pytest
from helpers.schemas import EVERYTHING

from nb_elicit._core.records.history import History
from nb_elicit._core.records.recording import Recorder
from nb_elicit._core.schema.fields import parse_schema
from nb_elicit._core.secrets.fields import secret_fields
from nb_elicit._core.secrets.masking import MASK
from nb_elicit._core.secrets.names import looks_secret, masked, secret_property, words

# Field names (and a few titles) that real servers, SDKs and APIs use for secrets.
SECRETS = [
    "password",                      # PostgreSQL / MySQL connection forms
    "PGPASSWORD",                    # libpq environment
    "MYSQL_ROOT_PASSWORD",           # MySQL image
    "db_password",
    "redis_pass",
    "passphrase",                    # SSH key passphrase
    "api_key",                       # OpenAI / Anthropic clients
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "x-api-key",                     # Anthropic's header
    "apiKey",                        # Brave search / many TS servers
    "BRAVE_API_KEY",
    "GITHUB_PERSONAL_ACCESS_TOKEN",  # GitHub MCP server
    "SLACK_BOT_TOKEN",               # Slack MCP server
    "SLACK_SIGNING_SECRET",
    "STRIPE_SECRET_KEY",             # Stripe
    "webhook_secret",
    "card_number",                   # Stripe card[number]
    "cardNumber",
    "cvc",                           # Stripe card[cvc]
    "cvv",
    "client_secret",                 # OAuth
    "access_token",
    "refresh_token",
    "id_token",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "HF_TOKEN",                      # Hugging Face
    "SENTRY_AUTH_TOKEN",
    "TWILIO_AUTH_TOKEN",
    "private_key",
    "license_key",
    "pin",
    "pin_code",
    "otp",
    "mfa_code",
    "2FA code",
    "ssn",
    "Social Security number",
    "iban",
    "security_code",
    "credit_card_number",
    "one-time code",
    "API Key",                       # titles
    "Personal access token",
    "密码",
    # words as people write them in titles and messages
    "password", "Passcode", "userPassword", "API key", "access token", "Your token", "secret",
    "private key", "credit card", "Card number", "CVV", "SSN", "IBAN", "PIN",
]

# Field names that look a bit like secrets but are not.
NOT_SECRETS = [
    # token counts and limits (OpenAI, Anthropic, Gemini, Hugging Face, usage reports)
    "max_tokens", "maxTokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens",
    "max_new_tokens", "max_tokens_to_sample", "budget_tokens", "prompt_tokens",
    "completion_tokens", "total_tokens", "input_tokens", "output_tokens",
    "cache_read_input_tokens", "reasoning_tokens", "num_tokens", "token_limit", "token_count",
    "tokens_used", "token_budget", "tokens_per_minute", "cost_per_token", "Number of tokens",
    # a model's special tokens and page cursors
    "pad_token_id", "eos_token_id", "skip_special_tokens", "stop_token", "pageToken",
    "nextPageToken", "NextToken",
    # about a secret, not the secret
    "token_type", "token_url", "secret_name", "password_min_length", "private_key_path",
    "aws_access_key_id",
    # other settings
    "temperature", "top_p", "top_k", "frequency_penalty", "presence_penalty", "seed", "stop",
    "model", "user", "username", "host", "port", "database", "sslmode", "owner", "repo",
    "per_page", "channel_id", "customer", "currency", "cardholder_name",
    "name", "Email", "age", "company", "city", "spine", "spinning top", "tokenize", "passport",
    # keys that are not credentials, and words that only contain a secret word
    "sort_key", "primary_key", "partition_key", "idempotency_key", "keyboard_layout",
    "pass_rate", "passed", "score_to_pass", "passport_number", "pinned", "pin_to_top",
    "spinner", "tokenizer", "compass",
    # the official "everything" server's 13 fields (names and titles)
    *EVERYTHING["requestedSchema"]["properties"],
    *(p.get("title") for p in EVERYTHING["requestedSchema"]["properties"].values()),
]


def test_the_tables_are_big_enough():
    assert len(SECRETS) >= 20 and len(set(NOT_SECRETS)) >= 20


@pytest.mark.parametrize("name", SECRETS)
def test_secret_names(name):
    assert looks_secret(name)


@pytest.mark.parametrize("name", NOT_SECRETS)
def test_names_that_are_not_secrets(name):
    assert not looks_secret(name)


@pytest.mark.parametrize(("text", "expected"), [
    ("userAPIKey", ["user", "api", "key"]),
    ("x-api-key", ["x", "api", "key"]),
    ("db.pass", ["db", "pass"]),
    ("MAX_TOKENS", ["max", "tokens"]),
    ("2FACode", ["2fa", "code"]),
    ("Card number", ["card", "number"]),
])
def test_names_are_read_as_words(text, expected):
    assert words(text) == expected


def test_a_title_alone_can_make_a_field_secret():
    assert looks_secret("k", "API key") and looks_secret("value", "Password")
    assert not looks_secret("k", "Max tokens")


def test_a_description_that_warns_against_a_secret_does_not_make_a_field_secret():
    schema = {"type": "object", "properties": {
        "integer": {"type": "integer", "title": "Integer", "default": 42, "description":
                    "Your favorite integer (do not give us your phone number, pin, or other "
                    "sensitive info)"},
        "note": {"type": "string", "description": "Never paste your API key or password here"}}}
    assert secret_fields(parse_schema(schema)) == []
    assert masked({"integer": 7, "note": "hi"}, schema) == {"integer": 7, "note": "hi"}


def test_only_fields_one_types_into_can_be_secret():
    schema = {"type": "object", "properties": {
        "pin": {"type": "integer"},
        "password": {"type": "string"},
        "remember_password": {"type": "boolean"},
        "token": {"type": "string", "enum": ["github", "gitlab"]},
        "api_key": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "password_changed": {"type": "string", "format": "date"}}}
    assert secret_fields(parse_schema(schema)) == ["pin", "password"]
    props = schema["properties"]
    assert [n for n in props if secret_property(n, props[n])] == ["pin", "password"]


def test_the_everything_servers_form_has_no_secret():
    schema = EVERYTHING["requestedSchema"]
    assert secret_fields(parse_schema(schema)) == []
    props = schema["properties"]
    assert not [n for n in props if secret_property(n, props[n])]


def test_history_masks_only_secret_values():
    schema = {"type": "object", "properties": {
        "max_tokens": {"type": "integer"}, "api_key": {"type": "string"},
        "k": {"type": "string", "title": "Secret key"}}}
    content = {"max_tokens": 1024, "api_key": "sk-1", "k": "sk-2"}
    assert masked(content, schema) == {"max_tokens": 1024, "api_key": MASK, "k": MASK}
    history = History()
    history.add("demo", "Settings", "accept", content, "person", schema)
    assert "sk-1" not in history.as_text() and "1024" in history.as_text()


def test_a_recording_omits_only_secret_values(tmp_path):
    schema = {"type": "object", "properties": {
        "max_tokens": {"type": "integer"}, "api_key": {"type": "string"},
        "integer": {"type": "integer", "description": "do not give us your pin"}}}
    recorder = Recorder(tmp_path / "answers.json")
    answer = recorder.add("demo", "settings", schema, "Settings", "accept",
                          {"max_tokens": 1024, "api_key": "sk-1", "integer": 7})
    assert answer.content == {"max_tokens": 1024, "integer": 7}
    assert answer.omitted == ["api_key"]
    assert "sk-1" not in (tmp_path / "answers.json").read_text(encoding="utf-8")


# -- one masking path: every surface -------------------------------------------------------------

KEY = "sk-live-4f9a2c81e7"


def test_a_policys_secret_is_masked_in_its_text_and_repr():
    from nb_elicit._core.policy import parse_policy

    policy = parse_policy(f'accept {{"api_key": "{KEY}", "name": "Ada"}}')
    assert policy.content["api_key"] == KEY  # (what it sends is untouched)
    for shown in (str(policy), repr(policy), f"{policy}", repr([policy])):
        assert KEY not in shown and MASK in shown
    assert '"name": "Ada"' in str(policy)


def test_a_remembered_secret_is_masked_in_errors_and_history():
    from nb_elicit._core.errors import ConnectError, ServerError, SignInError
    from nb_elicit._core.secrets.masking import remember

    remember([KEY])
    for error in (ConnectError(f"the server said: bad key {KEY}"),
                  SignInError(f"token {KEY} refused", "token"), ServerError(-1, f"no {KEY}")):
        for shown in (str(error), repr(error), f"{error!s}"):
            assert KEY not in shown and MASK in shown
    history = History()
    history.add("demo", "Your note?", "accept", {"note": f"my key is {KEY}", "n": 1}, "policy",
                {"properties": {"note": {"type": "string"}, "n": {"type": "integer"}}})
    assert KEY not in history.as_text() and KEY not in history.as_html()
    assert history.entries[0].content == {"note": f"my key is {MASK}", "n": 1}


def test_short_values_are_never_searched_for_in_text():
    from nb_elicit._core.secrets.masking import remember, scrub

    remember(["no", "1"])
    assert scrub("no 1 here") == "no 1 here"


def test_a_targets_secrets_are_its_hidden_inputs_secret_env_and_credential_headers():
    from nb_elicit._core.secrets.masking import hide
    from nb_elicit._core.secrets.names import target_secrets
    from nb_elicit._core.types import HttpTarget, StdioTarget

    stdio = StdioTarget(("srv",), {"GITHUB_TOKEN": "ghp_abcdef", "DEBUG": "1"}, None,
                        frozenset({"typed-in"}))
    assert target_secrets(stdio) == {"ghp_abcdef", "typed-in"}
    http = HttpTarget("http://h/mcp", {"Authorization": "Bearer tok-123456", "X-Api-Key": "k-9876",
                                       "Accept": "text/plain"})
    assert target_secrets(http) == {"Bearer tok-123456", "tok-123456", "k-9876"}
    assert hide("sent Bearer tok-123456 and tok-123456", target_secrets(http)) == (
        f"sent {MASK} and {MASK}")


def test_a_python_connect_masks_its_secret_env_values_in_the_connect_error():
    """``nb_elicit.connect(..., env=...)`` (not only ``%mcp connect``) keeps a secret-named
    environment value out of the error that quotes the server's last words."""
    import asyncio
    import sys

    import nb_elicit
    from nb_elicit._core.errors import ConnectError

    secret = "sk-python-connect-77ab31"
    quit_loudly = ("import os, sys; print('bad token', os.environ['API_TOKEN'], "
                   "file=sys.stderr, flush=True); sys.exit(3)")

    async def main() -> str:
        try:
            await nb_elicit.connect("loud", [sys.executable, "-c", quit_loudly],
                                    env={"API_TOKEN": secret})
        except ConnectError as error:
            return str(error) + repr(error)
        raise AssertionError("the connect should have failed")

    told = asyncio.run(asyncio.wait_for(main(), 60))
    assert "bad token" in told
    assert secret not in told


def test_a_transcript_shows_a_date_time_of_any_precision_as_the_picker_does():
    from nb_elicit._core.records.transcript import _date_time

    assert _date_time("2026-01-02T03:04:05.12345+02:00") == "2026-01-02 03:04:05 UTC+02:00"
    assert _date_time("2026-01-02T03:04:00.1Z") == "2026-01-02 03:04 UTC"
    assert _date_time("not a date") == "not a date"
