"""A client for the official MCP conformance suite, built on nb_elicit's public API.

The suite runs ``CMD <server-url>`` with ``MCP_CONFORMANCE_SCENARIO`` set to the scenario's name;
this client connects with ``nb_elicit.connect``, lists the tools and calls the ones the scenario's
server offers, then exits 0 (or 1, saying why, when something it saw was wrong).

Elicitations are answered one of two ways, chosen by ``--answer`` (or
``NB_ELICIT_CONFORMANCE_ANSWER``):

- ``person`` (the default): a scripted person presses Submit on the ElicitationForm as it is
  shown, defaults prefilled and nothing typed;
- ``policy``: nobody is there, and the respond policy ``accept {}`` answers.

    MCP_CONFORMANCE_SCENARIO=tools_call python tests/conformance/client.py http://localhost:PORT/mcp
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

# The scripted person lives with the other test helpers, in tests/helpers.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.person import Person  # noqa: E402

import nb_elicit  # noqa: E402

ANSWERS = ("person", "policy")

#: Per scenario: the calls to make, as (tool, arguments, what the result's text must contain).
CALLS: dict[str, list[tuple[str, dict, str]]] = {
    "initialize": [],
    "tools_call": [("add_numbers", {"a": 5, "b": 3}, "is 8")],
    "elicitation-sep1034-client-defaults": [
        ("test_client_elicitation_defaults", {}, "Elicitation completed")],
    "sse-retry": [("test_reconnection", {}, "Reconnection test completed successfully")],
}

#: Per scenario: how many forms the person must have been shown.
FORMS = {"elicitation-sep1034-client-defaults": 1}


class Failed(Exception):
    """What the client saw that it did not expect."""


async def run(scenario: str, url: str, answer: str) -> None:
    if scenario not in CALLS:
        raise Failed(f"unknown scenario {scenario!r}; this client knows {', '.join(CALLS)}")
    person = Person()
    robot = None
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
        robot = asyncio.create_task(person.run())
    conn = await nb_elicit.connect("conformance", url=url)
    try:
        tools = {tool["name"] for tool in await conn.list_tools()}
        for tool, arguments, expected in CALLS[scenario]:
            if tool not in tools:
                raise Failed(f"the server offers no tool {tool!r} (it offers {sorted(tools)})")
            result = await conn.call_tool(tool, arguments)
            print(f"{tool}: {result.text}")
            if result.is_error or expected not in (result.text or ""):
                raise Failed(f"{tool} answered {result.text!r}; expected {expected!r} in it")
    finally:
        if robot is not None:
            robot.cancel()
        await conn.close()
    shown = len(person.seen)
    wanted = FORMS.get(scenario, 0) if answer == "person" else 0
    if shown != wanted:
        raise Failed(f"the person was shown {shown} form(s); expected {wanted}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the scenario server's URL (the suite appends it)")
    parser.add_argument("--answer", choices=ANSWERS,
                        default=os.environ.get("NB_ELICIT_CONFORMANCE_ANSWER", "person"),
                        help="who answers elicitations: a person pressing Submit on the form "
                             "as shown, or the respond policy accept {}")
    args = parser.parse_args(argv)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        asyncio.run(asyncio.wait_for(run(scenario, args.url, args.answer), timeout=60))
    except Failed as error:
        print(f"conformance client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
