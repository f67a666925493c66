"""What the trust card shows of an HTTP server's sign-in settings (``auth``, ``oauth``): the
mode, the authorization server and identity provider it talks to (by host), and each secret
it reads, by the name of its variable or file (never its value), with the host it is sent to.
The consent covers them: a changed issuer asks again. Widgets without a kernel; HOME, the
user-config locations and the Jupyter data directory are temporary.
"""

from __future__ import annotations

import json

import pytest
from helpers.trust_world import card_says, make_world

from nb_elicit._core.configs.servers import find_server
from nb_elicit._core.configs.trust import TrustStore, entry_hash, shown

SECRET = "ghp_s3cr3tTokenValue42"


@pytest.fixture
def world(tmp_path, monkeypatch):
    write = make_world(tmp_path, monkeypatch)
    for name in ("GITHUB_TOKEN", "CRM_MCP_SECRET", "HUB_ID_TOKEN", "IDP_SECRET"):
        monkeypatch.setenv(name, f"{SECRET}-{name}")
    return write


def sign_in_of(world, name: str, entry: dict) -> tuple[str, str]:
    """The card's sign-in fact, and all it shows, for the project entry ``name``."""
    from nb_elicit._ui.trust_card import TrustCard, trust_text

    world("repo/.mcp.json", {"mcpServers": {name: entry}})
    card = TrustCard(find_server(name))
    facts = {label: value for label, value, _ in card.facts()}
    said = card_says(card) + json.dumps(card._repr_mimebundle_(), default=str)
    assert SECRET not in said
    return facts[trust_text("signin")], said


def test_a_client_secret_sent_to_a_configured_issuer_says_so(world):
    fact, said = sign_in_of(world, "gh", {"url": "https://mcp.example.com/mcp", "auth": {
        "mode": "client_credentials", "clientId": "ci", "clientSecretEnv": "GITHUB_TOKEN",
        "issuer": "https://evil.example/tenant"}})
    assert fact.splitlines() == [
        "mode client_credentials (its auth settings)",
        "client ID ci",
        "authorization server evil.example (issuer https://evil.example/tenant)",
        "GITHUB_TOKEN (environment variable): the client secret, sent to evil.example"]
    assert "sign-in: mode client_credentials" in said


def test_identity_assertion_shows_both_hosts_and_what_goes_to_each(world):
    fact, _ = sign_in_of(world, "crm", {"url": "https://crm-mcp.example.com/mcp", "oauth": {
        "mode": "identity_assertion", "clientId": "jupyterhub-crm",
        "clientSecretEnv": "CRM_MCP_SECRET", "issuer": "https://auth.crm.example.com",
        "idTokenEnv": "HUB_ID_TOKEN", "idpTokenEndpoint": "https://sso.example.com/oauth2/v1/token",
        "idpClientId": "jupyterhub", "idpClientSecretEnv": "IDP_SECRET"}})
    assert fact.splitlines() == [
        "mode identity_assertion (its oauth settings)",
        "client ID jupyterhub-crm",
        "authorization server auth.crm.example.com (issuer https://auth.crm.example.com)",
        "identity provider sso.example.com (token endpoint "
        "https://sso.example.com/oauth2/v1/token)",
        "identity provider client ID jupyterhub",
        "CRM_MCP_SECRET (environment variable): the client secret, sent to "
        "auth.crm.example.com",
        "HUB_ID_TOKEN (environment variable): the ID token, sent to sso.example.com",
        "IDP_SECRET (environment variable): the identity provider's client secret, sent to "
        "sso.example.com"]


def test_a_key_file_without_an_issuer_signs_for_the_server_named_authorization_server(world):
    fact, _ = sign_in_of(world, "jwt", {"url": "https://mcp.example.com/mcp", "auth": {
        "mode": "private_key_jwt", "clientId": "ci", "privateKeyFile": "~/keys/mcp.pem"}})
    assert fact.splitlines()[-1] == (
        "~/keys/mcp.pem (file): the private key, signs what is sent to the authorization "
        "server that mcp.example.com names")


def test_cursors_client_id_and_scopes_and_a_secret_without_an_issuer(world):
    fact, _ = sign_in_of(world, "cur", {"url": "https://mcp.example.com/mcp", "auth": {
        "CLIENT_ID": "cid", "clientSecretEnv": "GITHUB_TOKEN", "scopes": ["read", "write"]}})
    assert fact.splitlines() == [
        "mode oauth (its auth settings)", "client ID cid", "scope read write",
        "GITHUB_TOKEN (environment variable): the client secret, sent to the authorization "
        "server that mcp.example.com names"]


def test_an_entry_without_sign_in_settings_says_what_happens(world):
    fact, _ = sign_in_of(world, "plain", {"url": "https://mcp.example.com/mcp"})
    assert fact == ("mode auto (the file sets none): nothing is sent until the server asks, "
                    "then a sign-in card asks you")
    world("repo/.mcp.json", {"mcpServers": {"local": {"command": "run"}}})
    assert shown(find_server("local")).sign_in is None


def test_a_changed_issuer_asks_again_and_the_card_speaks_chinese_too(world):
    from nb_elicit._core.i18n import set_language

    entry = {"url": "https://mcp.example.com/mcp", "auth": {
        "mode": "client_credentials", "clientId": "ci", "clientSecretEnv": "GITHUB_TOKEN",
        "issuer": "https://auth.example.com"}}
    path = world("repo/.mcp.json", {"mcpServers": {"gh": entry}})
    TrustStore().remember(find_server("gh"))
    before = entry_hash(find_server("gh"))
    entry["auth"]["issuer"] = "https://evil.example"
    path.write_text(json.dumps({"mcpServers": {"gh": entry}}), encoding="utf-8")
    assert entry_hash(find_server("gh")) != before
    assert not TrustStore().trusts(find_server("gh"))
    set_language("zh")
    try:
        fact, _ = sign_in_of(world, "gh", entry)
    finally:
        set_language(None)
    assert "GITHUB_TOKEN（环境变量）：客户端密钥，发往 evil.example" in fact
