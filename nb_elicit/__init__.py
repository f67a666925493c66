"""nb_elicit: answer MCP elicitation requests inline in Jupyter notebooks.

An MCP server may stop in the middle of a request and ask the person for structured input: a
message plus a small, flat JSON Schema. nb_elicit turns that schema into an ipywidgets form in
the cell that made the call, and answers with exactly what the person entered.

    >>> spec = nb_elicit.parse_schema(schema)          # or SchemaError, naming every problem
    >>> nb_elicit.validate_content(schema, {"age": 17})
    {'age': 'Enter a number of at least 18.'}
    >>> form = nb_elicit.ElicitationForm("Who are you?", schema, server="demo")
"""

import typing as _typing

from ._core.answer import Answer
from ._core.errors import (
    ArgumentTypeError,
    BlockingNotSupported,
    ConfigError,
    ConnectError,
    InvalidArgument,
    InvalidRequest,
    NbElicitError,
    SchemaError,
    ServerDisconnected,
    ServerError,
    SignInError,
    TaskCancelled,
    TaskDetached,
    UrlElicitationRequired,
)
from ._core.i18n import set_language
from ._core.limits import RateLimit
from ._core.policy import respond
from ._core.records.recording import record, replay
from ._core.schema.fields import (
    BooleanField,
    ChoiceField,
    Field,
    FormSpec,
    MultiChoiceField,
    NumberField,
    Option,
    TextField,
    parse_schema,
)
from ._core.types import ToolResult

__version__ = "0.1.0"

if _typing.TYPE_CHECKING:  # (what a type checker reads for the names loaded on first use, below)
    from ._core.configs.servers import configured_servers
    from ._core.schema.validate import validate_content
    from ._runtime.agent_hooks import answer_interrupt, claude_hooks
    from ._runtime.connection import Connection, ToolCall, connect, connections, logout
    from ._runtime.framework_apps import show_app
    from ._runtime.hooks import (
        answer_every_session,
        elicitation_callback,
        elicitation_handler,
    )
    from ._ui.form import ElicitationForm

# Widgets, the SDK and jsonschema are imported on first use: `import nb_elicit` and
# `%load_ext nb_elicit` stay quick, and the schema engine works without ipywidgets.
_LAZY = {
    "validate_content": "._core.schema.validate",
    "configured_servers": "._core.configs.servers",
    "ElicitationForm": "._ui.form",
    "Connection": "._runtime.connection",
    "ToolCall": "._runtime.connection",
    "connect": "._runtime.connection",
    "connections": "._runtime.connection",
    "logout": "._runtime.connection",
    "elicitation_callback": "._runtime.hooks",
    "elicitation_handler": "._runtime.hooks",
    "answer_every_session": "._runtime.hooks",
    "show_app": "._runtime.framework_apps",
    "claude_hooks": "._runtime.agent_hooks",
    "answer_interrupt": "._runtime.agent_hooks",
}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        if name != "connections":  # (the kernel's owner's, which unload replaces: read anew)
            globals()[name] = value
        return value
    raise AttributeError(f"module 'nb_elicit' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "Answer",
    "ArgumentTypeError",
    "BlockingNotSupported",
    "BooleanField",
    "ChoiceField",
    "ConfigError",
    "ConnectError",
    "Connection",
    "ElicitationForm",
    "Field",
    "FormSpec",
    "InvalidArgument",
    "InvalidRequest",
    "MultiChoiceField",
    "NbElicitError",
    "NumberField",
    "Option",
    "RateLimit",
    "SchemaError",
    "ServerDisconnected",
    "ServerError",
    "SignInError",
    "TaskCancelled",
    "TaskDetached",
    "TextField",
    "ToolCall",
    "ToolResult",
    "UrlElicitationRequired",
    "answer_every_session",
    "answer_interrupt",
    "claude_hooks",
    "configured_servers",
    "connect",
    "connections",
    "elicitation_callback",
    "elicitation_handler",
    "logout",
    "parse_schema",
    "record",
    "replay",
    "respond",
    "set_language",
    "show_app",
    "validate_content",
]


def load_ipython_extension(ip) -> None:
    """``%load_ext nb_elicit``: register the ``%mcp`` magic."""
    from ._magics import load

    load(ip)


def unload_ipython_extension(ip) -> None:
    """``%unload_ext nb_elicit``: close connections and waiting forms."""
    from ._magics import unload

    unload(ip)
