"""A tiny stdio MCP server that reports its environment, for connect-by-name tests.

``getenv(name)`` returns the variable's value (for values that are not secret); ``digest(name)``
returns the SHA-256 of the value, so a test can check a secret arrived without it being shown.
"""

import hashlib
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("nb-elicit-env")


@server.tool()
def getenv(name: str) -> str:
    return os.environ.get(name, "<unset>")


@server.tool()
def digest(name: str) -> str:
    value = os.environ.get(name)
    return "<unset>" if value is None else hashlib.sha256(value.encode()).hexdigest()


@server.tool()
def cwd() -> str:
    return os.getcwd()


if __name__ == "__main__":
    server.run("stdio")
