"""Every MCP session in the kernel gets the form: sessions made without an elicitation hook.

openai-agents, llama-index's MCP tools, agent-framework and smolagents (through mcpadapt) build an
``mcp.ClientSession`` with no elicitation callback, so a server that asks gets "Elicitation not
supported" and the person never sees the question. While :func:`turn` has it on, every
``ClientSession`` made *without* a callback of its own gets nb_elicit's (a callback a framework
passes is never replaced), and in the 2026-07-28 era such a session's ``call_tool`` that gets an
``input_required`` result is completed with the person's answers, the retries the SDK's
``Client`` drives itself, so its caller sees a plain result, as it would have in the handshake
era. Sessions made before it was turned on, and nb_elicit's own, are left as they are.

The SDK offers no hook for either: ``ClientSession.__init__`` and ``ClientSession.call_tool`` are
wrapped once, and do what they did while it is off. The retry driver is the SDK's own
(``mcp.client._input_required``), the one its ``Client`` uses.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import inspect
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the SDK is imported only once a session is made: see _WrapOnImport)
    from importlib.machinery import ModuleSpec

    import mcp_types
    from mcp.client.session import ClientSession, ElicitationFnT
    from mcp.shared.dispatcher import ProgressFnT
    from typing_extensions import TypedDict, Unpack

    CallResult = mcp_types.CallToolResult | mcp_types.InputRequiredResult

    class CallOptions(TypedDict, total=False):
        """The keywords of the SDK's ``ClientSession.call_tool``, passed on as given."""

        input_responses: mcp_types.InputResponses | None
        request_state: str | None
        meta: mcp_types.RequestParamsMeta | None
        allow_input_required: bool
        allow_claimed: bool

from .._core.kernel import process_part

__all__ = ["given", "turn"]

#: The SDK module whose ClientSession is wrapped.
SESSION_MODULE = "mcp.client.session"


class _EverySession:
    """Whether sessions without a hook get a callback now (:attr:`callback`, a function that
    returns it: nb_elicit's hooks are imported only when a session needs one), and which
    sessions got it. A part of the process (:func:`~nb_elicit._core.kernel.process_part`), as
    the wrap of the SDK's class is: ``%load_ext`` turns it on and ``%unload_ext`` off."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.callback: Callable[[], ElicitationFnT] | None = None
        self.given: weakref.WeakSet[ClientSession] = weakref.WeakSet()
        self.wrapped = False

    def wrap(self, module: ModuleType) -> None:
        """Wrap ``module.ClientSession`` once (the SDK's module, just imported or earlier)."""
        with self.lock:
            if self.wrapped:
                return
            self.wrapped = True
        session_type: type[ClientSession] = module.ClientSession
        # (both wrapped as they are, whatever they are given: the wrappers pass it all on)
        made: Callable[..., None] = session_type.__init__
        call: Callable[..., Awaitable[CallResult]] = session_type.call_tool
        signature = inspect.signature(made)
        owner = self

        def __init__(session: ClientSession, *args: object, **kwargs: object) -> None:
            callback = owner.callback
            if callback is not None:
                bound = signature.bind_partial(session, *args, **kwargs)
                if bound.arguments.get("elicitation_callback") is None:
                    bound.arguments["elicitation_callback"] = callback()
                    made(*bound.args, **bound.kwargs)
                    owner.given.add(session)
                    return
            made(session, *args, **kwargs)

        async def call_tool(session: ClientSession, name: str,
                            arguments: dict[str, object] | None = None,
                            read_timeout_seconds: float | None = None,
                            progress_callback: ProgressFnT | None = None,
                            **options: Unpack[CallOptions]) -> CallResult:
            if session not in owner.given or options.get("allow_input_required"):
                return await call(session, name, arguments, read_timeout_seconds,
                                  progress_callback, **options)
            from mcp.client._input_required import run_input_required_driver
            from mcp.types import InputRequiredResult

            async def retry(responses: mcp_types.InputResponses | None,
                            state: str | None) -> CallResult:
                return await call(session, name, arguments, read_timeout_seconds,
                                  progress_callback, **{**options, "input_responses": responses,
                                                        "request_state": state,
                                                        "allow_input_required": True})

            first = await retry(options.get("input_responses"), options.get("request_state"))
            if not isinstance(first, InputRequiredResult):
                return first

            async def dispatch(key: str, request: mcp_types.InputRequest,
                               ) -> mcp_types.InputResponse | mcp_types.ErrorData:
                params = getattr(request, "params", None)
                context = module.ClientRequestContext(session=session, request_id=key,
                                                      meta=getattr(params, "meta", None))
                return await session.dispatch_input_request(context, request)

            return await run_input_required_driver(first, dispatch=dispatch, retry=retry)

        # (the SDK has no hook for either: its class's own methods are replaced, once, by
        # wrappers that take what they take and pass it on)
        wrapped_init = functools.wraps(made)(__init__)
        wrapped_call = functools.wraps(call)(call_tool)
        session_type.__init__ = wrapped_init  # type: ignore[method-assign, assignment]
        session_type.call_tool = wrapped_call  # type: ignore[method-assign, assignment]


def _every() -> _EverySession:
    return process_part(_EverySession)


class _WrapOnImport(importlib.abc.MetaPathFinder):
    """Wraps the SDK's ClientSession as its module is imported (so that turning this on costs
    no import of the SDK), then leaves ``sys.meta_path``. It holds nothing: one is made for
    the whole process (:data:`_FINDER`), so that ``sys.meta_path`` has it at most once."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != SESSION_MODULE:
            return None
        with _every().lock:
            if self in sys.meta_path:
                sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _every().wrap(module)

        loader.exec_module = exec_module
        return spec


_FINDER = _WrapOnImport()


def turn(callback: Callable[[], ElicitationFnT] | None) -> None:
    """From now on, sessions made without an elicitation callback get ``callback()`` (None: they
    get none again, as the SDK makes them). Does not import the SDK."""
    with _every().lock:
        _every().callback = callback
        if callback is None or _every().wrapped:
            return
        module = sys.modules.get(SESSION_MODULE)
        if module is not None and hasattr(module, "ClientSession"):
            _every().wrap(module)
        elif _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


def given(session: object) -> bool:
    """Whether ``session`` got nb_elicit's callback because it was made without one."""
    return session in _every().given
