"""A test server in the common SDK 2.x style: tools that call ``ctx.elicit(schema=Model)``.

    python sdk2_server.py              # stdio
    python sdk2_server.py http PORT    # streamable HTTP on 127.0.0.1
"""

import os
import sys
from typing import Annotated

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, MCPServer, Resolve
from pydantic import BaseModel

server = MCPServer("sdk2-test", version="2.0.0")


class Person(BaseModel):
    name: str
    age: int


def described(result) -> str:
    if isinstance(result, AcceptedElicitation):
        return f"accept:{result.data.name}:{result.data.age}"
    return result.action


@server.tool()
async def ask_person(ctx: Context) -> str:
    return described(await ctx.elicit("Who are you?", schema=Person))


async def who(ctx: Context) -> Elicit[Person]:
    return Elicit("Resolver asks: who are you?", Person)


@server.tool()
async def ask_resolved(person: Annotated[Person, Resolve(who)]) -> str:
    return f"resolved:{person.name}:{person.age}"


@server.tool()
async def ask_url(ctx: Context) -> str:
    result = await ctx.elicit_url("Please sign in", url="https://example.com/login",
                                  elicitation_id="login-1")
    return f"url:{result.action}"


@server.tool()
async def ask_then_exit(ctx: Context, after: float = 0.5) -> str:
    async def exit_soon():
        await anyio.sleep(after)
        os._exit(3)

    async with anyio.create_task_group() as group:
        group.start_soon(exit_soon)
        await ctx.elicit("I will exit while you read this", schema=Person)
    return "unreachable"


@server.tool()
async def ask_forever(ctx: Context) -> str:
    """Elicit, and say on stderr what the person answered, or what ended the tool."""
    try:
        answer = described(await ctx.elicit("Take your time", schema=Person))
        print(f"ask_forever got {answer}", file=sys.stderr, flush=True)
        return answer
    except BaseException as error:
        print(f"ask_forever ended by {type(error).__name__}", file=sys.stderr, flush=True)
        raise


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
