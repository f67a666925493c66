"""Sign-in settings in MCP config files: a server entry's ``auth`` (Cursor's key) or ``oauth``
(Claude Code's), with ``connect()``'s sign-in options in camelCase, read and checked like the
rest of the file (one line naming the key path), never holding a secret; and a server connected
by name signing in with them (the demo's client credentials, for real).
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings

import pytest
from helpers.servers import served

import nb_elicit
from nb_elicit._core.configs.servers import auth_options, load, place_of
from nb_elicit._core.errors import ConfigError
from nb_elicit._core.signin.auth import parse_auth

SECRET = "the-cursor-client-secret-SECRET-7"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "project" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path / "project"


def _servers(folder, entry: dict, dialect: str = "mcpServers"):
    path = folder / ".mcp.json"
    path.write_text(json.dumps({dialect: {"crm": entry}}), encoding="utf-8")
    return load(place_of(".mcp.json"))  # (the kernel's cwd is the folder)


@pytest.mark.parametrize("dialect", ["mcpServers", "servers"])
def test_the_new_flows_read_from_either_dialect_as_connect_takes_them(folder, dialect):
    (server,) = _servers(folder, {"url": "https://crm.example.com/mcp", "auth": {
        "mode": "identity_assertion", "clientId": "hub-crm", "clientSecretEnv": "CRM_SECRET",
        "issuer": "https://auth.crm.example.com", "idTokenEnv": "HUB_ID_TOKEN",
        "idpTokenEndpoint": "https://sso.example.com/token", "idpClientId": "hub"}}, dialect)
    options = auth_options(server)
    assert options == {"mode": "identity_assertion", "client_id": "hub-crm",
                       "client_secret_env": "CRM_SECRET", "issuer": "https://auth.crm.example.com",
                       "id_token_env": "HUB_ID_TOKEN",
                       "idp_token_endpoint": "https://sso.example.com/token",
                       "idp_client_id": "hub"}
    assert parse_auth(options).mode == "identity_assertion"
    (jwt,) = _servers(folder, {"url": "https://crm.example.com/mcp", "oauth": {
        "mode": "private_key_jwt", "clientId": "batch", "privateKeyFile": "~/.keys/crm.pem",
        "signingAlgorithm": "ES256"}})
    assert parse_auth(auth_options(jwt)).private_key_file == "~/.keys/crm.pem"


def test_cursors_client_id_and_scopes_are_read_and_claude_codes_other_keys_warned(folder):
    (server,) = _servers(folder, {"url": "https://x/mcp",
                                  "auth": {"CLIENT_ID": "cursor-app", "scopes": ["read", "write"]}})
    assert auth_options(server) == {"client_id": "cursor-app", "scope": "read write"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (claude,) = _servers(folder, {"url": "https://x/mcp",
                                      "oauth": {"clientId": "app", "callbackPort": 8080}})
    assert [str(w.message) for w in caught] == [
        ".mcp.json: mcpServers.crm.oauth.callbackPort: unknown key, ignored"]
    assert parse_auth(auth_options(claude)).mode == "oauth"  # (a pre-registered client)


@pytest.mark.parametrize(("entry", "line"), [
    ({"url": "https://x/mcp", "auth": {"CLIENT_ID": "a", "CLIENT_SECRET": SECRET}},
     ".mcp.json: mcpServers.crm.auth.CLIENT_SECRET: a secret is never kept in a config file; "
     "name the environment variable that holds it (clientSecretEnv, privateKeyEnv or "
     "privateKeyFile, idTokenEnv)"),
    ({"url": "https://x/mcp", "auth": {"mode": "identity_assertion", "clientId": "a"}},
     ".mcp.json: mcpServers.crm.auth: mode 'identity_assertion' needs clientSecretEnv, issuer, "
     "idpTokenEndpoint, idpClientId (see docs/sign-in.md)"),
    ({"url": "https://x/mcp", "auth": {"mode": "private_key_jwt", "clientId": "a",
                                       "privateKeyEnv": f"-----BEGIN KEY-----\n{SECRET}"}},
     ".mcp.json: mcpServers.crm.auth: privateKeyEnv takes the NAME of an environment variable "
     "(like MY_VAR), never the value itself"),
    ({"url": "https://x/mcp", "auth": {"mode": "sometimes"}},
     ".mcp.json: mcpServers.crm.auth.mode: expected 'auto', 'oauth', 'client_credentials', "
     "'private_key_jwt', 'identity_assertion' or 'off'"),
    ({"url": "https://x/mcp", "auth": {"mode": "off", "tokenStore": 3}},
     ".mcp.json: mcpServers.crm.auth.tokenStore: expected 'disk' or 'memory'"),
    ({"command": "python", "auth": {"mode": "off"}},
     '.mcp.json: mcpServers.crm.auth: sign-in settings are for a server with "url"'),
    ({"url": "https://x/mcp", "auth": {"mode": "off"}, "oauth": {"clientId": "a"}},
     '.mcp.json: mcpServers.crm: has both "auth" and "oauth"; expected one of them'),
])
@pytest.mark.filterwarnings("ignore::nb_elicit._core.configs.filecheck.ConfigWarning")  # (CLIENT_SECRET)
def test_a_wrong_sign_in_setting_is_one_line_naming_its_key_and_never_the_secret(
        folder, entry, line):
    with pytest.raises(ConfigError) as caught:
        _servers(folder, entry)
    assert str(caught.value) == line
    assert SECRET not in str(caught.value) + repr(caught.value)


def test_a_server_connected_by_name_signs_in_with_its_files_settings(folder, tmp_path,
                                                                      monkeypatch):
    """The demo's service client from the file (its secret in the environment, named there):
    no card, a token, a call; a keyword given to connect() wins over the file."""
    monkeypatch.setenv("NB_ELICIT_DEMO_CLIENT_SECRET", "the-right-secret-123")  # (the server's)
    with served([sys.executable, "-m", "nb_elicit.demo", "--auth", "--http"],
                tmp_path / "demo-auth.log") as url:
        path = folder / ".mcp.json"
        path.write_text(json.dumps({"mcpServers": {"svc": {"url": url, "auth": {
            "mode": "client_credentials", "clientId": "nb-elicit-demo-service",
            "clientSecretEnv": "SVC_SECRET", "tokenStore": "memory"}}}}), encoding="utf-8")

        async def scenario():
            monkeypatch.setenv("SVC_SECRET", "a-wrong-secret-456")
            with pytest.raises(nb_elicit.SignInError) as caught:
                await nb_elicit.connect("svc", trust=True)
            assert caught.value.step == "token" and "a-wrong-secret-456" not in str(caught.value)
            conn = await nb_elicit.connect("svc", trust=True,
                                           client_secret_env="NB_ELICIT_DEMO_CLIENT_SECRET")
            try:
                assert conn.sign_in.config.mode == "client_credentials"
                assert (await conn.call_tool("hello", {"name": "file"})).text == "Hello, file!"
            finally:
                await conn.close()

        asyncio.run(scenario())
