"""Enterprise-managed authorization (SEP-990), leg 1: the ID token for an ID-JAG at the IdP.

The SDK's :class:`~mcp.client.auth.extensions.identity_assertion.IdentityAssertionOAuthProvider`
does leg 2 (the JWT-bearer grant at the MCP server's authorization server, its discovery from
the configured issuer, the tokens) and asks its caller for the ID-JAG: "obtaining the ID-JAG
(... the leg-1 token exchange against it) is deployment-specific and out of scope for the SDK".
This module is that caller's part: one RFC 8693 token exchange at the identity provider's token
endpoint, the person's ID token in, the ID-JAG (audience: the MCP server's authorization server,
resource: the MCP server) out.

Nothing secret shows: the ID token, the IdP client's secret and the ID-JAG are remembered as
secrets, and a refusal is one line with the IdP's ``error`` code and status only.
"""

from __future__ import annotations

import json

import httpx2

from .._core.secrets.masking import remember
from .._core.signin.auth import AuthConfig, sign_in_error
from .._core.text import shorten

__all__ = ["ID_JAG", "ID_TOKEN", "TOKEN_EXCHANGE", "exchange_id_token"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
#: Seconds the identity provider has to answer.
TIMEOUT = 30.0


async def exchange_id_token(name: str, config: AuthConfig, audience: str, resource: str) -> str:
    """The ID-JAG for connection ``name``: the ID token exchanged at ``config.idp_token_endpoint``
    for a grant to ``audience`` (the authorization server's issuer) and ``resource``."""
    id_token = await config.identity_token(name)
    data = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG,
            "subject_token": id_token, "subject_token_type": ID_TOKEN,
            "audience": audience, "resource": resource}
    if config.scope:
        data["scope"] = config.scope
    secret = config.idp_secret(name)
    basic = None
    if secret is None:
        data["client_id"] = str(config.idp_client_id)  # (a public client at the IdP)
    else:
        basic = httpx2.BasicAuth(str(config.idp_client_id), secret)
    endpoint = str(config.idp_token_endpoint)
    try:
        async with httpx2.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
            response = await client.post(endpoint, data=data, auth=basic,
                                         headers={"Accept": "application/json"})
    except httpx2.HTTPError as error:
        raise sign_in_error(name, "identity", f"cannot reach {endpoint}: "
                            f"{type(error).__name__}") from None
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        body = None
    if response.status_code != 200:
        code = body.get("error") if isinstance(body, dict) else None
        detail = f"{response.status_code} {code}" if isinstance(code, str) else \
            str(response.status_code)
        raise sign_in_error(name, "identity", shorten(detail, 120, one_line=True))
    grant = body.get("access_token") if isinstance(body, dict) else None
    issued = body.get("issued_token_type") if isinstance(body, dict) else None
    if not isinstance(grant, str) or not grant:
        raise sign_in_error(name, "identity", "its answer has no access_token")
    remember([grant])
    if issued not in (None, ID_JAG):
        raise sign_in_error(name, "identity", "it issued another kind of token than an ID-JAG "
                            f"({shorten(str(issued), 80, one_line=True)})")
    return grant
