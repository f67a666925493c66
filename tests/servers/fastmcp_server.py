"""A FastMCP server (run in its own virtualenv with a pinned ``fastmcp``) over stdio: one tool
per kind of ``ctx.elicit`` response type.

Each tool returns, as JSON text, the action and what ``ctx.elicit`` handed the tool, described
with its Python types: ``{"action": ..., "data": {"type": "int", "value": 3}}``. A test can then
tell a typed ``3`` from ``"3"``, a list from a string, an Enum member from its value.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any, Literal

from fastmcp import Context, FastMCP
from pydantic import BaseModel, Field

server = FastMCP("fastmcp-interop")


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclasses.dataclass
class Member:
    name: str
    age: int
    active: bool = False


class Order(BaseModel):
    customer: str = Field(description="Who orders")
    item: str = "tea"
    quantity: int = Field(default=2, gt=0, le=10, description="How many cups")
    strength: float = Field(default=0.5, multiple_of=0.25, ge=0, le=1)
    size: Literal["S", "M", "L"] = "M"
    milk: bool = True


def describe(value: Any) -> dict:
    """``value`` as JSON, each part with the name of its Python type."""
    if isinstance(value, enum.Enum):
        return {"type": type(value).__name__, "member": value.name, "value": value.value}
    if dataclasses.is_dataclass(value):
        fields = {f.name: describe(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": type(value).__name__, "dataclass": True, "fields": fields}
    if isinstance(value, BaseModel):
        fields = {name: describe(getattr(value, name)) for name in type(value).model_fields}
        return {"type": type(value).__name__, "model": True, "fields": fields}
    if isinstance(value, list):
        return {"type": "list", "items": [describe(item) for item in value]}
    return {"type": type(value).__name__, "value": value}


async def ask(ctx: Context, message: str, response_type: Any) -> str:
    result = await ctx.elicit(message, response_type=response_type)
    data = describe(result.data) if result.action == "accept" else None
    return json.dumps({"action": result.action, "data": data})


@server.tool
async def ask_str(ctx: Context) -> str:
    return await ask(ctx, "Your nickname?", str)


@server.tool
async def ask_int(ctx: Context) -> str:
    return await ask(ctx, "How many?", int)


@server.tool
async def ask_bool(ctx: Context) -> str:
    return await ask(ctx, "Go ahead?", bool)


@server.tool
async def ask_literal(ctx: Context) -> str:
    return await ask(ctx, "Pick one.", Literal["a", "b"])


@server.tool
async def ask_choice(ctx: Context) -> str:
    return await ask(ctx, "Priority?", ["low", "high"])


@server.tool
async def ask_multi(ctx: Context) -> str:
    return await ask(ctx, "Pick any.", [["a", "b", "c"]])


@server.tool
async def ask_titled(ctx: Context) -> str:
    return await ask(ctx, "Priority?", {"low": {"title": "Low"}, "high": {"title": "High"}})


@server.tool
async def ask_enum(ctx: Context) -> str:
    return await ask(ctx, "Colour?", Color)


@server.tool
async def ask_dataclass(ctx: Context) -> str:
    return await ask(ctx, "Who are you?", Member)


@server.tool
async def ask_model(ctx: Context) -> str:
    return await ask(ctx, "Your order?", Order)


if __name__ == "__main__":
    server.run("stdio", show_banner=False)
