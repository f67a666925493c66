"""The bundled demo MCP server: ``python -m nb_elicit.demo [--http PORT] [--journal FILE]``."""
