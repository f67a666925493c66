"""A client for the official MCP conformance suite, built on nb_elicit's public API.

The suite runs ``CMD <server-url>`` with ``MCP_CONFORMANCE_SCENARIO`` set to the scenario's name;
this client connects with ``nb_elicit.connect``, lists the tools and calls the ones the scenario's
server offers, then exits 0 (or 1, saying why, when something it saw was wrong).

Elicitations are answered one of two ways, chosen by ``--answer`` (or
``NB_ELICIT_CONFORMANCE_ANSWER``):

- ``person`` (the default): a scripted person presses Submit on the ElicitationForm as it is
  shown, defaults prefilled and nothing typed;
- ``policy``: nobody is there, and the respond policy ``accept {}`` answers.

In the ``auth/*`` scenarios the person clicks **Sign in** on each sign-in card, and then
"follows the link": the client GETs the authorization URL shown on the card without following
redirects and takes the ``Location`` the authorization server sends the browser to, to the
loopback callback (``--deliver loopback``, the default) or pasted into the card's box
(``--deliver paste``). ``auth/pre-registration`` passes its client ID, and the secret by the
name of an environment variable, from ``MCP_CONFORMANCE_CONTEXT``.

The headless scenarios sign in with no person and no card, their credentials from the context
put into environment variables (nb_elicit is given only the variables' names):
``auth/client-credentials-basic`` (a client secret), ``auth/client-credentials-jwt`` (a private
key: ``private_key_jwt``) and ``auth/cross-app-access-complete-flow`` (the IdP's ID token:
``identity_assertion``; the MCP server's authorization server, which nb_elicit must be told, is
read here from the server's protected resource metadata, as an administrator would look it up).

    MCP_CONFORMANCE_SCENARIO=tools_call python tests/conformance/client.py http://localhost:PORT/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

# The scripted person lives with the other test helpers, in tests/helpers.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx2  # noqa: E402
from helpers.person import Person  # noqa: E402

import nb_elicit  # noqa: E402

ANSWERS = ("person", "policy")
DELIVERIES = ("loopback", "paste")
#: The client ID the suite expects where the authorization server supports Client ID
#: Metadata Documents (nb_elicit's own document is docs/client-metadata.json).
CIMD_URL = "https://conformance-test.local/client-metadata.json"
SECRET_ENV = "NB_ELICIT_CONFORMANCE_CLIENT_SECRET"
KEY_ENV = "NB_ELICIT_CONFORMANCE_PRIVATE_KEY"
ID_TOKEN_ENV = "NB_ELICIT_CONFORMANCE_ID_TOKEN"

#: The dated auth scenarios: each signs in, lists the tools and calls "test-tool".
AUTH = ("metadata-default", "metadata-var1", "metadata-var2", "metadata-var3", "basic-cimd",
        "scope-from-www-authenticate", "scope-from-scopes-supported",
        "scope-omitted-when-undefined", "scope-step-up", "scope-retry-limit",
        "token-endpoint-auth-basic", "token-endpoint-auth-post", "token-endpoint-auth-none",
        "pre-registration", "2025-03-26-oauth-metadata-backcompat",
        "2025-03-26-oauth-endpoint-fallback", "client-credentials-basic",
        # the draft ones, and the extensions without a person
        "resource-mismatch", "offline-access-scope", "offline-access-not-supported",
        "client-credentials-jwt", "cross-app-access-complete-flow")
#: The scenarios without a person: no card, no sign-in page.
HEADLESS = ("auth/client-credentials-basic", "auth/client-credentials-jwt",
            "auth/cross-app-access-complete-flow")
#: Per auth scenario: the sign-ins the person must have been asked for (default 1).
SIGN_INS = {"auth/scope-step-up": 2, "auth/resource-mismatch": 0,
            **{scenario: 0 for scenario in HEADLESS}}
#: Auth scenarios whose server never lets the client through: the step the sign-in must fail at.
MUST_FAIL = {"auth/scope-retry-limit": "scope", "auth/resource-mismatch": "resource"}

#: Per scenario: the calls to make, as (tool, arguments, what the result's text must contain).
CALLS: dict[str, list[tuple[str, dict, str]]] = {
    "initialize": [],
    "tools_call": [("add_numbers", {"a": 5, "b": 3}, "is 8")],
    "elicitation-sep1034-client-defaults": [
        ("test_client_elicitation_defaults", {}, "Elicitation completed")],
    "sse-retry": [("test_reconnection", {}, "Reconnection test completed successfully")],
    **{f"auth/{name}": [("test-tool", {}, "test")] for name in AUTH},
}

#: Per scenario: how many forms the person must have been shown.
FORMS = {"elicitation-sep1034-client-defaults": 1}


class Failed(Exception):
    """What the client saw that it did not expect."""


async def follow_links(person: Person, deliver: str, followed: list) -> None:
    """What the person's browser does after Sign in: it opens the page; the authorization
    server redirects it to the loopback (or the person pastes where it landed)."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as browser:
        while True:
            for card in list(person.seen):
                if (getattr(card, "paste_box", None) is None or card in followed
                        or card.final_answer() is None):
                    continue
                followed.append(card)
                page = await browser.get(card.url.url)
                landed = page.headers.get("location")
                if not landed:
                    raise Failed(f"the authorization server did not redirect ({page.status_code})")
                if deliver == "paste":
                    card.paste_text.value = landed
                    card.paste_button.click()
                else:
                    await browser.get(landed)
            await asyncio.sleep(0.01)


async def auth_options(scenario: str, url: str) -> dict:
    if not scenario.startswith("auth/"):
        return {}
    options = {"client_metadata_url": CIMD_URL, "token_store": "memory"}
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if context.get("client_id"):
        options = {"client_id": context["client_id"], "token_store": "memory"}
        if "client_secret" in context:
            os.environ[SECRET_ENV] = context["client_secret"]
            options["client_secret_env"] = SECRET_ENV
    if scenario == "auth/client-credentials-basic":
        options["auth"] = "client_credentials"
    elif scenario == "auth/client-credentials-jwt":
        os.environ[KEY_ENV] = context["private_key_pem"]
        options.update(auth="private_key_jwt", private_key_env=KEY_ENV,
                       signing_algorithm=context.get("signing_algorithm", "RS256"))
    elif scenario == "auth/cross-app-access-complete-flow":
        os.environ[ID_TOKEN_ENV] = context["idp_id_token"]
        options.update(auth="identity_assertion", id_token_env=ID_TOKEN_ENV,
                       idp_token_endpoint=context["idp_token_endpoint"],
                       idp_client_id=context["idp_client_id"],
                       issuer=await authorization_server(url))
    return options


async def authorization_server(url: str) -> str:
    """The first authorization server the MCP server's protected resource metadata names (what
    an administrator configures: nb_elicit never asks the server which one to trust)."""
    parts = httpx2.URL(url)
    async with httpx2.AsyncClient(timeout=10) as client:
        for path in (f"/.well-known/oauth-protected-resource{parts.path}",
                     "/.well-known/oauth-protected-resource"):
            found = await client.get(str(parts.copy_with(path=path, query=None)))
            if found.status_code == 200:
                return found.json()["authorization_servers"][0]
    raise Failed("the server has no protected resource metadata")


async def run(scenario: str, url: str, answer: str, deliver: str = "loopback") -> None:
    if scenario not in CALLS:
        raise Failed(f"unknown scenario {scenario!r}; this client knows {', '.join(CALLS)}")
    person = Person()
    robot = follower = None
    followed: list = []
    if answer == "policy":
        nb_elicit.respond("accept", {})
    else:
        nb_elicit.respond("ask")
        # Outside a kernel no frontend is attached, so a form waits this long for the person
        # before nb_elicit answers cancel; the person answers within milliseconds.
        os.environ.setdefault("NB_ELICIT_HEADLESS_WAIT", "60")
        # Every form that appears: Submit pressed as shown (nothing filled in).
        for _ in range(FORMS.get(scenario, 0)):
            person.will("accept", {})
    if scenario.startswith("auth/"):
        for _ in range(SIGN_INS.get(scenario, 1)):
            person.will("accept")  # Sign in
        follower = asyncio.create_task(follow_links(person, deliver, followed))
    if person.script:
        robot = asyncio.create_task(person.run())
    conn = None
    try:
        options = await auth_options(scenario, url)
        conn = await nb_elicit.connect("conformance", url=url, **options)
        tools = {tool["name"] for tool in await conn.list_tools()}
        for tool, arguments, expected in CALLS[scenario]:
            if tool not in tools:
                raise Failed(f"the server offers no tool {tool!r} (it offers {sorted(tools)})")
            result = await conn.call_tool(tool, arguments)
            print(f"{tool}: {result.text}")
            if result.is_error or expected not in (result.text or ""):
                raise Failed(f"{tool} answered {result.text!r}; expected {expected!r} in it")
    except nb_elicit.SignInError as error:
        if MUST_FAIL.get(scenario) != error.step:
            raise Failed(f"sign-in failed: {error}") from None
        print(f"as expected: {error}")
    else:
        if scenario in MUST_FAIL:
            raise Failed("the server let the client through; it should not have")
    finally:
        for task in (robot, follower):
            if task is not None:
                task.cancel()
        if follower is not None and follower.done() and not follower.cancelled():
            follower.result()  # (what went wrong while following a link)
        if conn is not None:
            await conn.close()
    shown = len(person.seen)
    wanted = FORMS.get(scenario, 0) if answer == "person" else 0
    if scenario.startswith("auth/"):
        wanted = SIGN_INS.get(scenario, 1)
    if shown != wanted:
        raise Failed(f"the person was shown {shown} form(s) or card(s); expected {wanted}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the scenario server's URL (the suite appends it)")
    parser.add_argument("--answer", choices=ANSWERS,
                        default=os.environ.get("NB_ELICIT_CONFORMANCE_ANSWER", "person"),
                        help="who answers elicitations: a person pressing Submit on the form "
                             "as shown, or the respond policy accept {}")
    parser.add_argument("--deliver", choices=DELIVERIES,
                        default=os.environ.get("NB_ELICIT_CONFORMANCE_DELIVER", "loopback"),
                        help="how the sign-in answer comes back: the browser reaches the "
                             "loopback callback, or the person pastes the address")
    args = parser.parse_args(argv)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        asyncio.run(asyncio.wait_for(run(scenario, args.url, args.answer, args.deliver),
                                     timeout=60))
    except Failed as error:
        print(f"conformance client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
