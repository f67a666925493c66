"""Addresses: checked where they enter, and sign-in over https only.

A URL nb_elicit is given (``connect(url=...)``, ``%mcp connect --url/--sse``, a config file's
``url``, the sign-in options' URLs) is checked where it enters: a malformed one is one line
naming the option, as nb_elicit's own error. Every URL a sign-in secret or token is sent to is
https, or http to this machine only: the one rule the sign-in card's address follows too
(``_core/url.py``). And the magic's error table tells nb_elicit's own errors in one line, and
nothing else: a ValueError of a bug keeps its traceback.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.servers import LocalHttp, QuietHandler
from IPython.core.error import UsageError

import nb_elicit
from nb_elicit._core.errors import ConfigError, InvalidRequest, NbElicitError, SignInError

pytestmark = pytest.mark.timeout(120)

#: Malformed addresses, and what their one line says is wrong.
MALFORMED = [
    ("http://127.0.0.1:99999/mcp", "port"),
    ("http://127.0.0.1:http/mcp", "port"),
    ("http://[::1/mcp", "IPv6"),
    ("http:///mcp", "no host"),
    ("ftp://example.org/mcp", "http:// or https://"),
    ("127.0.0.1:8000/mcp", "http:// or https://"),
    ("", "empty"),
    ("http://exa mple.org/mcp", "spaces"),
]


# -- the one rule: https, or http to this machine ----------------------------------------------

@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True),
    ("LOCALHOST", True), ("10.0.0.1", False), ("128.0.0.1", False), ("example.org", False),
    ("localhost.example.org", False), ("127.0.0.1.example.org", False), ("::2", False),
])
def test_loopback_is_localhost_127_0_0_0_8_and_ipv6_1(host, loopback):
    from nb_elicit._core.url import https_or_loopback, is_loopback

    assert is_loopback(host) is loopback
    assert https_or_loopback("http", host) is loopback
    assert https_or_loopback("https", host) is True
    assert https_or_loopback("ftp", host) is False


def test_the_sign_in_card_follows_the_same_rule():
    """The card's address (``check_url``) and the sign-in options share one rule: the whole
    127.0.0.0/8 is this machine, and no other http host is."""
    from nb_elicit._core.url import check_url

    assert check_url("http://127.0.0.2:9000/authorize").host == "127.0.0.2"
    with pytest.raises(InvalidRequest, match="must be https"):
        check_url("http://idp.example/authorize")


def _identity(**more) -> dict:
    return {"client_id": "app", "client_secret_env": "APP_SECRET",
            "issuer": "https://as.example.com", "idp_client_id": "hub",
            "id_token_env": "HUB_ID_TOKEN", "idp_token_endpoint": "https://idp.example/token",
            **more}


def test_the_identity_providers_token_endpoint_is_https_or_this_machine():
    from nb_elicit._core.signin.auth import AuthConfig

    with pytest.raises(ConfigError) as caught:
        AuthConfig("identity_assertion", **_identity(
            idp_token_endpoint="http://idp.example/token"))
    said = str(caught.value)
    assert "\n" not in said and said.startswith("idp_token_endpoint must be https")
    assert isinstance(caught.value, ValueError)  # (callers' except ValueError keeps working)
    AuthConfig("identity_assertion", **_identity(idp_token_endpoint="http://127.0.0.1:8123/token"))
    AuthConfig("identity_assertion", **_identity(idp_token_endpoint="http://localhost:8/token"))
    AuthConfig("identity_assertion", **_identity(idp_token_endpoint="http://[::1]:8/token"))


@pytest.mark.parametrize("mode", ["identity_assertion", "client_credentials"])
def test_the_issuer_is_https_or_this_machine(mode):
    from nb_elicit._core.signin.auth import AuthConfig

    options = _identity() if mode == "identity_assertion" else {
        "client_id": "svc", "client_secret_env": "SVC_SECRET"}
    with pytest.raises(ConfigError, match=r"^issuer must be https"):
        AuthConfig(mode, **{**options, "issuer": "http://as.example.com"})
    AuthConfig(mode, **{**options, "issuer": "http://127.0.0.1:9/"})


def test_the_magic_names_the_flag_of_an_insecure_sign_in_address():
    from nb_elicit._magics.options import parse_connect

    with pytest.raises(UsageError) as caught:
        parse_connect("corp --url https://mcp.example.com/mcp --auth identity_assertion "
                      "--client-id app --client-secret-env S --issuer https://as.example.com "
                      "--idp-client-id hub --id-token-env T "
                      "--idp-token-endpoint http://idp.example/token")
    assert str(caught.value).startswith("--idp-token-endpoint must be https")


def test_a_config_files_sign_in_address_is_named_by_its_key(tmp_path):
    from nb_elicit._core.configs.servers import Place, load

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"corp": {"url": "https://mcp.example.com/mcp", "auth": {
        "mode": "client_credentials", "clientId": "svc", "clientSecretEnv": "S",
        "issuer": "http://as.example.com"}}}}))
    with pytest.raises(ConfigError) as caught:
        load(Place(path, "mcp.json", tmp_path))
    assert str(caught.value).startswith("mcp.json: servers.corp.auth: issuer must be https")


# -- malformed addresses, where they enter ------------------------------------------------------

@pytest.mark.parametrize(("url", "problem"), MALFORMED)
def test_connect_refuses_a_malformed_url_in_one_line_naming_it(url, problem):
    with pytest.raises(ConfigError) as caught:
        asyncio.run(nb_elicit.connect("x", url=url))
    said = str(caught.value)
    assert "\n" not in said and said.startswith("url ") and problem in said, said
    assert isinstance(caught.value, ValueError)
    assert "x" not in nb_elicit.connections


def test_a_url_that_is_no_string_is_nb_elicits_own_type_error():
    with pytest.raises(TypeError) as caught:
        asyncio.run(nb_elicit.connect("x", url=8000))
    assert isinstance(caught.value, NbElicitError)
    assert str(caught.value).startswith("url must be a string")


@pytest.mark.parametrize("option", ["issuer", "idp_token_endpoint"])
def test_a_malformed_sign_in_address_is_one_line_naming_it(option):
    from nb_elicit._core.signin.auth import AuthConfig

    with pytest.raises(ConfigError) as caught:
        AuthConfig("identity_assertion", **_identity(**{option: "https://[::1/x"}))
    assert str(caught.value).startswith(f"{option} ") and "IPv6" in str(caught.value)


def test_a_config_files_malformed_url_is_one_line_naming_file_and_key(tmp_path):
    from nb_elicit._core.configs.servers import Place, expand, load

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"api": {"url": "http://127.0.0.1:99999/mcp"}}}))
    (server,) = load(Place(path, "mcp.json", tmp_path))
    with pytest.raises(ConfigError) as caught:
        expand(server, environ={})
    said = str(caught.value)
    assert said.startswith("mcp.json: servers.api.url ") and "port" in said and "\n" not in said


# -- the magic: one line, no traceback ------------------------------------------------------------

@pytest.mark.parametrize(("flag", "url", "problem"), [
    ("--url", "http://127.0.0.1:99999/mcp", "port"),
    ("--url", "http://[::1/mcp", "IPv6"),
    ("--sse", "http://127.0.0.1:0/sse", "port"),
    ("--url", "''", "empty"),
])
def test_the_magic_says_a_malformed_url_in_one_line(ip, capsys, flag, url, problem):
    result = ip.run_cell(f"%mcp connect x {flag} {url}")
    error = result.error_in_exec
    assert isinstance(error, UsageError), repr(error)
    assert str(error).startswith(f"{flag} ") and problem in str(error)
    assert "\n" not in str(error)
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err
    assert "x" not in nb_elicit.connections


def test_a_bugs_value_error_keeps_its_traceback_and_a_mistake_is_one_line():
    """The table tells nb_elicit's own error types, never a ValueError because of where it was
    raised: an Answer with an unknown action, made by nb_elicit's code, is a bug."""
    from nb_elicit._core.answer import Answer
    from nb_elicit._core.i18n import set_language
    from nb_elicit._core.policy import parse_policy
    from nb_elicit._magics.errors import map_exceptions

    with pytest.raises(ValueError, match="unknown action"), map_exceptions():
        Answer("maybe")
    for mistake in (lambda: parse_policy("maybe"), lambda: set_language("fr")):
        with pytest.raises(ValueError) as caught:
            mistake()
        assert isinstance(caught.value, NbElicitError)
        with pytest.raises(UsageError), map_exceptions():
            mistake()


def test_logging_out_of_an_unknown_connection_is_nb_elicits_own_error():
    with pytest.raises(ValueError) as caught:
        asyncio.run(nb_elicit.logout("nobody-here"))
    assert isinstance(caught.value, NbElicitError)


def test_logging_out_of_a_malformed_server_url_is_one_line(ip, capsys):
    """``%mcp logout URL`` takes a server's URL too: a malformed one is checked where it
    enters, not met by the token store's ``urlsplit().port``."""
    result = ip.run_cell("%mcp logout http://127.0.0.1:99999/mcp")
    assert isinstance(result.error_in_exec, UsageError), repr(result.error_in_exec)
    assert "port" in str(result.error_in_exec)
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err


# -- on the wire: the sign-in sends nothing to a plain-http address -----------------------------

class _Metadata(LocalHttp):
    """A server on 127.0.0.1 that asks for sign-in (401) and whose authorization server's
    metadata, served here too, names ``token_endpoint``; it records every request."""

    def __init__(self, token_endpoint: str):
        self.requests: list[tuple[str, str, str]] = []
        scripted = self

        class Handler(QuietHandler):
            def _answer(self, status: int, body: dict | None = None, **headers) -> None:
                data = json.dumps(body or {}).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(data)

            def _any(self):
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length).decode() if length else ""
                scripted.requests.append((self.command, self.path, body))
                base = scripted.base
                if self.path.startswith("/.well-known/oauth-protected-resource"):
                    return self._answer(200, {"resource": f"{base}/mcp",
                                              "authorization_servers": [base]})
                if self.path.startswith("/.well-known/oauth-authorization-server"):
                    return self._answer(200, {
                        "issuer": base, "token_endpoint": token_endpoint,
                        "authorization_endpoint": f"{base}/authorize",
                        "response_types_supported": ["code"],
                        "grant_types_supported": ["client_credentials"]})
                if self.path.startswith("/mcp"):
                    return self._answer(401, {}, www_authenticate=(
                        f'Bearer resource_metadata="{base}/.well-known/'
                        'oauth-protected-resource/mcp"'))
                return self._answer(404)

            do_GET = do_POST = _any  # noqa: N815 - http.server's names

        super().__init__(Handler)


SECRET = "the-client-secret-SECRET-77"


def test_a_discovered_plain_http_token_endpoint_gets_no_secret(monkeypatch, tmp_path):
    """The authorization server's metadata names an http token endpoint on another host: the
    client secret is not sent there; one line names the step and the address."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SVC_SECRET", SECRET)
    with _Metadata("http://as.example.invalid/token") as scripted, \
            pytest.raises(SignInError) as caught:
        asyncio.run(asyncio.wait_for(nb_elicit.connect(
            "svc", url=f"{scripted.base}/mcp", auth="client_credentials", client_id="svc",
            client_secret_env="SVC_SECRET", token_store="memory"), 60))
    said = str(caught.value)
    assert caught.value.step == "https" and "\n" not in said
    assert said.startswith("could not sign in to svc: ") and "http://as.example.invalid/token" in said
    assert SECRET not in said + repr(scripted.requests)
    assert "svc" not in nb_elicit.connections
