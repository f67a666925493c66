"""A test server for the MCP Python SDK 1.x (FastMCP), run from a virtualenv with ``mcp<2``."""

from typing import Optional

from mcp.server.fastmcp import Context, FastMCP
from pydantic import BaseModel

server = FastMCP("sdk1-test")


class Profile(BaseModel):
    name: str
    age: int


class Optionals(BaseModel):
    name: str
    age: Optional[int] = None  # noqa: UP045 - what SDK 1.x servers write
    nickname: Optional[str] = None  # noqa: UP045


@server.tool()
async def ask_profile(ctx: Context) -> str:
    result = await ctx.elicit(message="SDK 1.x asks: your profile?", schema=Profile)
    if result.action == "accept":
        return f"accept:{result.data.name}:{result.data.age}"
    return result.action


@server.tool()
async def ask_optionals(ctx: Context) -> str:
    result = await ctx.elicit(message="SDK 1.x asks with optional fields", schema=Optionals)
    if result.action == "accept":
        return f"accept:{result.data.model_dump()}"
    return result.action


if __name__ == "__main__":
    server.run("stdio")
