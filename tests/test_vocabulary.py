"""One vocabulary: each concept named once, in one table, and the bare literals gone.

The tables (JSON-RPC codes, the methods an app may send) are checked against what uses them
and against the SDK; an ``ast`` scan of the package fails if a bare literal comes back.
"""

from __future__ import annotations

import mcp_types

from nb_elicit._core import jsonrpc
from nb_elicit._core.apps import APP_METHODS, NOTIFICATIONS, REQUESTS
from nb_elicit._core.tasks import TaskShape
from nb_elicit._mcp import Era
from nb_elicit._runtime import apps as runtime_apps


def test_the_codes_the_sdk_names_have_its_values():
    named = [name for name in jsonrpc.__all__ if hasattr(mcp_types, name)]
    assert {"INTERNAL_ERROR", "INVALID_PARAMS", "METHOD_NOT_FOUND", "REQUEST_TIMEOUT",
            "URL_ELICITATION_REQUIRED", "MISSING_REQUIRED_CLIENT_CAPABILITY"} <= set(named)
    assert {name: getattr(jsonrpc, name) for name in named} == {
        name: getattr(mcp_types, name) for name in named}


def test_every_app_method_has_a_handler_and_no_other():
    assert set(runtime_apps._HANDLERS) == set(APP_METHODS)
    assert set(APP_METHODS) == REQUESTS | NOTIFICATIONS and not REQUESTS & NOTIFICATIONS


def test_each_task_shape_names_the_era_that_speaks_it():
    assert {shape: Era(shape.era) for shape in TaskShape} == {
        TaskShape.V2025: Era.HANDSHAKE, TaskShape.EXTENSION: Era.V2026}
    assert all(shape.label.startswith("task (") for shape in TaskShape)
    assert f"{TaskShape.V2025}" == str(TaskShape.V2025) == "2025-11-25"
