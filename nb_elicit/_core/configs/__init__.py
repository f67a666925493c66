"""The MCP server configs people already have, and which of their servers the
person said Start to."""
