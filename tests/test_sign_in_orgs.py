"""Signing in for organisations: ``private_key_jwt`` (SEP-1046, RFC 7523) and enterprise-managed
authorization (``identity_assertion``, SEP-990), their settings, their one-line errors, and the
secrets they read (a private key, a client secret, an ID token, the ID-JAG), which never show.

The flows' happy paths run against the official conformance suite's scenarios
(``auth/client-credentials-jwt``, ``auth/cross-app-access-complete-flow`` in test_conformance);
here they run against the demo's real authorization server (built from the SDK's server-side
auth, which takes neither grant) and a scripted identity provider on 127.0.0.1, to see what
goes over the wire and that every failure is one line with nothing secret in it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from urllib.parse import parse_qs

import nbformat
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from helpers.notebooks import kernel_env
from helpers.servers import LocalHttp, QuietHandler, served
from IPython.core.error import UsageError
from nbformat.v4 import new_code_cell, new_notebook

import nb_elicit
from nb_elicit._core.errors import SignInError
from nb_elicit._core.secrets.masking import scrub
from nb_elicit._core.signin.auth import AuthConfig, parse_auth
from nb_elicit._magics.options import parse_connect
from nb_elicit._runtime.state import kernel_state

ID_TOKEN = "eyJhbGciOiJFUzI1NiJ9.the-persons-id-token-SECRET.c2lnbmF0dXJl"
CLIENT_SECRET = "the-mcp-client-secret-SECRET-42"
IDP_SECRET = "the-idp-client-secret-SECRET-43"
ID_JAG = "eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0In0.the-id-jag-SECRET.c2ln"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))


def _pem(kind: str = "ec") -> str:
    key = (ec.generate_private_key(ec.SECP256R1()) if kind == "ec"
           else rsa.generate_private_key(public_exponent=65537, key_size=2048))
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _pem_body(pem: str) -> list[str]:
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


# -- the settings -------------------------------------------------------------------------------

def test_private_key_jwt_needs_a_client_id_and_one_key_source():
    assert AuthConfig("private_key_jwt", client_id="svc", private_key_env="KEY").headless
    with pytest.raises(ValueError, match="needs client_id"):
        AuthConfig("private_key_jwt", private_key_env="KEY")
    with pytest.raises(ValueError, match="private_key_env .* or private_key_file"):
        AuthConfig("private_key_jwt", client_id="svc")
    with pytest.raises(ValueError, match="private_key_env .* or private_key_file"):
        AuthConfig("private_key_jwt", client_id="svc", private_key_env="K", private_key_file="f")
    with pytest.raises(ValueError, match="signing_algorithm is one of RS256"):
        AuthConfig("private_key_jwt", client_id="svc", private_key_env="K",
                   signing_algorithm="HS256")  # (a shared secret: not a private key)
    with pytest.raises(ValueError, match="not a secret"):
        AuthConfig("private_key_jwt", client_id="svc", private_key_env="K",
                   client_secret_env="S")
    with pytest.raises(ValueError, match="private_key_env is for auth='private_key_jwt'"):
        AuthConfig("client_credentials", client_id="svc", client_secret_env="S",
                   private_key_env="K")


def test_identity_assertion_names_what_it_still_needs():
    full = {"client_id": "app", "client_secret_env": "S", "issuer": "https://as.example.com",
            "idp_token_endpoint": "https://idp.example.com/token", "idp_client_id": "hub",
            "id_token_env": "ID_TOKEN"}
    assert AuthConfig("identity_assertion", **full).client_key.startswith("assertion:")
    with pytest.raises(ValueError, match="needs client_secret_env, issuer"):
        AuthConfig("identity_assertion", **{**full, "client_secret_env": None, "issuer": None})
    with pytest.raises(ValueError, match="id_token_env .* or id_token"):
        AuthConfig("identity_assertion", **{**full, "id_token_env": None})
    with pytest.raises(ValueError, match="id_token_env .* or id_token"):
        AuthConfig("identity_assertion", **full, id_token=lambda: "x")
    with pytest.raises(ValueError, match="never the token itself"):
        AuthConfig("identity_assertion", **{**full, "id_token_env": None}, id_token=ID_TOKEN)
    with pytest.raises(ValueError, match="idp_token_endpoint must be an http"):
        AuthConfig("identity_assertion", **{**full, "idp_token_endpoint": "idp.example.com"})
    with pytest.raises(ValueError, match="confidential"):
        AuthConfig("identity_assertion", **full, token_auth="none")
    with pytest.raises(ValueError, match="id_token_env is for auth='identity_assertion'"):
        AuthConfig("oauth", id_token_env="ID_TOKEN")


@pytest.mark.parametrize("field", ["client_secret_env", "private_key_env", "id_token_env"])
def test_a_value_given_where_a_variable_name_goes_is_refused_without_echoing_it(field):
    pem = _pem()
    options = {"client_id": "svc", field: pem}
    mode = {"client_secret_env": "client_credentials", "private_key_env": "private_key_jwt",
            "id_token_env": "identity_assertion"}[field]
    with pytest.raises(ValueError) as caught:
        parse_auth(mode, **options)
    assert "NAME of an environment variable" in str(caught.value)
    assert not any(line in str(caught.value) for line in _pem_body(pem))


def test_connect_takes_the_sign_in_options_and_refuses_unknown_ones():
    with pytest.raises(TypeError, match="unknown sign-in option 'private_key'"):
        asyncio.run(nb_elicit.connect("x", url="http://127.0.0.1:9/mcp", auth="private_key_jwt",
                                      client_id="svc", private_key="-----BEGIN"))
    with pytest.raises(ValueError, match="needs one of private_key_env"):
        asyncio.run(nb_elicit.connect("x", url="http://127.0.0.1:9/mcp", auth="private_key_jwt",
                                      client_id="svc"))
    assert "x" not in nb_elicit.connections


def test_the_magic_takes_the_new_flows_flags():
    jwt = parse_connect("svc --url https://mcp.example.com/mcp --auth private_key_jwt "
                        "--client-id batch --private-key-env SVC_KEY --signing-algorithm ES256")
    assert jwt.auth == "private_key_jwt" and jwt.sign_in == {
        "client_id": "batch", "private_key_env": "SVC_KEY", "signing_algorithm": "ES256"}
    config = jwt.auth_config()
    assert config.mode == "private_key_jwt" and config.signing_algorithm == "ES256"
    idp = parse_connect(
        "corp --url https://mcp.example.com/mcp --auth identity_assertion --client-id app "
        "--client-secret-env APP_SECRET --issuer https://as.example.com --id-token-env ID_TOKEN "
        "--idp-token-endpoint https://idp.example.com/token --idp-client-id hub")
    assert idp.auth_config().idp_client_id == "hub"
    with pytest.raises(UsageError, match="--private-key-env takes the NAME"):
        parse_connect("svc --url https://x/mcp --auth private_key_jwt --client-id b "
                      "--private-key-env 'MII=='")
    with pytest.raises(UsageError, match="--auth takes auto, oauth, client_credentials, "
                                         "private_key_jwt, identity_assertion or off"):
        parse_connect("svc --url https://x/mcp --auth jwt")
    with pytest.raises(UsageError, match="for --url servers"):
        parse_connect("svc --private-key-env K -- python server.py")


# -- reading the secrets ------------------------------------------------------------------------

def test_a_private_key_comes_from_its_variable_and_is_masked_from_then_on(monkeypatch):
    pem = _pem()
    monkeypatch.setenv("SVC_KEY", pem)
    config = parse_auth("private_key_jwt", client_id="svc", private_key_env="SVC_KEY")
    assert config.private_key("svc") == pem
    assert "SVC_KEY" in repr(config) and not any(line in repr(config) for line in _pem_body(pem))
    assert pem not in scrub(f"oops: {pem}")
    monkeypatch.delenv("SVC_KEY")
    with pytest.raises(SignInError, match="SVC_KEY .the private key. is not set") as caught:
        config.private_key("svc")
    assert caught.value.step == "config"


def test_a_private_key_file_must_be_the_owners_alone(tmp_path):
    pem = _pem("rsa")
    path = tmp_path / "svc.pem"
    path.write_text(pem)
    config = parse_auth("private_key_jwt", client_id="svc", private_key_file=str(path))
    path.chmod(0o644)
    with pytest.raises(SignInError, match="readable by you only .chmod 600.") as caught:
        config.private_key("svc")
    assert "\n" not in str(caught.value)
    assert not any(line in str(caught.value) for line in _pem_body(pem))
    path.chmod(0o600)
    assert config.private_key("svc") == pem.strip()
    missing = parse_auth("private_key_jwt", client_id="svc",
                         private_key_file=str(tmp_path / "none.pem"))
    with pytest.raises(SignInError, match="no private key file at"):
        missing.private_key("svc")


def test_an_id_token_comes_from_its_variable_or_a_function_plain_or_async(monkeypatch):
    base = {"client_id": "app", "client_secret_env": "S", "issuer": "https://as.example.com",
            "idp_token_endpoint": "https://idp.example.com/token", "idp_client_id": "hub"}
    monkeypatch.setenv("HUB_ID_TOKEN", ID_TOKEN)
    from_env = parse_auth("identity_assertion", **base, id_token_env="HUB_ID_TOKEN")
    assert asyncio.run(from_env.identity_token("corp")) == ID_TOKEN

    async def minted():
        return ID_TOKEN + "-async"

    assert asyncio.run(parse_auth("identity_assertion", **base, id_token=minted)
                       .identity_token("corp")) == ID_TOKEN + "-async"
    plain = parse_auth("identity_assertion", **base, id_token=lambda: ID_TOKEN + "-plain")
    assert asyncio.run(plain.identity_token("corp")) == ID_TOKEN + "-plain"
    assert "plain" not in repr(plain) and "lambda" not in repr(plain)

    def broken():
        raise RuntimeError(f"the hub said no to {ID_TOKEN}")

    with pytest.raises(SignInError, match=r"id_token\(\) failed \(RuntimeError\)") as caught:
        asyncio.run(parse_auth("identity_assertion", **base, id_token=broken)
                    .identity_token("corp"))
    assert ID_TOKEN not in str(caught.value)
    with pytest.raises(SignInError, match="returned no ID token"):
        asyncio.run(parse_auth("identity_assertion", **base, id_token=lambda: None)
                    .identity_token("corp"))


# -- on the wire: the demo's authorization server and a scripted identity provider -------------

class _IdentityProvider(LocalHttp):
    """A token endpoint on 127.0.0.1 that records each request and gives ``answer``."""

    def __init__(self, answer: tuple[int, dict]):
        self.requests: list[dict] = []
        provider = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
                provider.requests.append({"form": {k: v[0] for k, v in parse_qs(body).items()},
                                          "authorization": self.headers.get("authorization")})
                status, payload = answer
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
        self.url = f"{self.base}/token"


@pytest.fixture
def demo(tmp_path):
    with served([sys.executable, "-m", "nb_elicit.demo", "--auth", "--http"],
                tmp_path / "demo-auth.log") as url:
        yield url


def _surfaces(error: BaseException, caplog) -> str:
    """Every text a failed connect leaves where a person or a log could read it."""
    from nb_elicit._magics.handlers import list_connections

    class Magic:
        connecting: dict = {}

    listing = list_connections(Magic(), "")
    return "\n".join([str(error), repr(error), caplog.text, kernel_state().history.as_text(),
                      repr(listing), str(getattr(listing, "rows", ""))])


def _identity_options(demo: str, idp: str, **more) -> dict:
    return {"auth": "identity_assertion", "client_id": "notebook-app",
            "client_secret_env": "APP_SECRET", "issuer": demo.removesuffix("/mcp"),
            "idp_token_endpoint": idp, "idp_client_id": "hub", "id_token_env": "HUB_ID_TOKEN",
            "token_store": "memory", **more}


def test_the_token_exchange_sends_the_id_token_for_an_id_jag_for_this_server(
        demo, monkeypatch, caplog):
    """Leg 1 on the wire (RFC 8693): the ID token in, an ID-JAG for the configured issuer and
    this server out; the SDK then presents it (leg 2), which the demo's authorization server
    does not take: one line, and neither the ID token, the ID-JAG nor a secret anywhere."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("HUB_ID_TOKEN", ID_TOKEN)
    monkeypatch.setenv("APP_SECRET", CLIENT_SECRET)
    monkeypatch.setenv("IDP_SECRET", IDP_SECRET)
    answer = {"access_token": ID_JAG, "issued_token_type":
              "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"}
    with _IdentityProvider((200, answer)) as idp, pytest.raises(SignInError) as caught:
        asyncio.run(nb_elicit.connect("corp", url=demo, **_identity_options(
            demo, idp.url, idp_client_secret_env="IDP_SECRET")))
    (request,) = idp.requests
    form = request["form"]
    assert form == {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                    "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                    "subject_token": ID_TOKEN,
                    "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                    "audience": demo.removesuffix("/mcp"), "resource": demo}
    assert request["authorization"].startswith("Basic ")  # (the IdP client's secret)
    assert caught.value.step == "token" and "\n" not in str(caught.value)
    assert str(caught.value).startswith("could not sign in to corp: ")
    seen = _surfaces(caught.value, caplog)
    for secret in (ID_TOKEN, ID_JAG, CLIENT_SECRET, IDP_SECRET):
        assert secret not in seen
    assert "corp" not in nb_elicit.connections


def test_an_identity_provider_that_refuses_is_one_line_with_its_error_code_only(
        demo, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("HUB_ID_TOKEN", ID_TOKEN)
    monkeypatch.setenv("APP_SECRET", CLIENT_SECRET)
    refusal = {"error": "invalid_grant", "error_description": f"expired token {ID_TOKEN}"}
    with _IdentityProvider((400, refusal)) as idp, pytest.raises(SignInError) as caught:
        asyncio.run(nb_elicit.connect("corp", url=demo, **_identity_options(demo, idp.url)))
    assert idp.requests[0]["form"]["client_id"] == "hub"  # (a public client at the IdP)
    assert caught.value.step == "identity"
    assert str(caught.value) == ("could not sign in to corp: the identity provider refused to "
                                 "exchange the ID token (token exchange) (400 invalid_grant)")
    assert ID_TOKEN not in _surfaces(caught.value, caplog)


def test_private_key_jwt_signs_with_the_sdk_and_a_refusal_shows_no_key(demo, monkeypatch, caplog):
    """The SDK's PrivateKeyJWTOAuthProvider against the demo's authorization server, which
    knows no such client: a token refusal, one line; the key shows nowhere."""
    caplog.set_level(logging.DEBUG)
    pem = _pem()
    monkeypatch.setenv("SVC_KEY", pem)
    with pytest.raises(SignInError) as caught:
        asyncio.run(nb_elicit.connect("svc", url=demo, auth="private_key_jwt", client_id="batch",
                                      private_key_env="SVC_KEY", signing_algorithm="ES256",
                                      token_store="memory"))
    assert caught.value.step == "token" and "\n" not in str(caught.value)
    seen = _surfaces(caught.value, caplog)
    assert not any(line in seen for line in _pem_body(pem))


def test_a_key_that_cannot_sign_is_one_line_naming_the_algorithm(demo, monkeypatch):
    monkeypatch.setenv("SVC_KEY", _pem("ec"))  # an EC key asked to sign RS256
    with pytest.raises(SignInError) as caught:
        asyncio.run(nb_elicit.connect("svc", url=demo, auth="private_key_jwt", client_id="batch",
                                      private_key_env="SVC_KEY", token_store="memory"))
    assert caught.value.step == "config"
    assert "cannot sign a RS256 assertion with the private key" in str(caught.value)
    assert "BEGIN" not in str(caught.value)


@pytest.mark.blocking_kernel  # (its cells await a connect)
@pytest.mark.timeout(180)
def test_a_saved_notebook_holds_no_key_token_or_secret(demo, tmp_path):
    """A notebook whose sign-ins fail (the key and the ID token in the kernel's environment):
    its saved outputs, %mcp list and %mcp history show none of them."""
    pem = _pem()
    env = kernel_env(wait=0.5)
    env.update(SVC_KEY=pem, HUB_ID_TOKEN=ID_TOKEN, APP_SECRET=CLIENT_SECRET)
    with _IdentityProvider((400, {"error": "invalid_grant", "error_description": ID_TOKEN})) as idp:
        nb = new_notebook()
        nb.cells = [
            new_code_cell("%load_ext nb_elicit"),
            new_code_cell(f"%mcp connect svc --url {demo} --auth private_key_jwt --client-id b "
                          "--private-key-env SVC_KEY --signing-algorithm ES256 "
                          "--token-store memory"),
            new_code_cell(f"%mcp connect corp --url {demo} --auth identity_assertion "
                          f"--client-id app --client-secret-env APP_SECRET --issuer "
                          f"{demo.removesuffix('/mcp')} --id-token-env HUB_ID_TOKEN "
                          f"--idp-token-endpoint {idp.url} --idp-client-id hub"),
            new_code_cell("%mcp list"), new_code_cell("%mcp history"),
            new_code_cell("import logging; logging.getLogger('nb_elicit').info('done')")]
        nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                     "display_name": "Python 3"}
        client_nb = execute_allowing_errors(nb, tmp_path, env)
    saved = nbformat.writes(client_nb)
    assert "could not sign in to svc" in saved and "could not sign in to corp" in saved
    assert "400 invalid_grant" in saved
    for secret in (ID_TOKEN, CLIENT_SECRET, *_pem_body(pem)):
        assert secret not in saved


def execute_allowing_errors(nb, path, env):
    """Every cell run in a fresh kernel; a cell that fails (a sign-in that fails) is kept."""
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path)}})
    client.execute(env=env)
    return nb

