"""One vocabulary: each concept named once, in one table, and the bare literals gone.

The tables (JSON-RPC codes, the methods an app may send) are checked against what uses them
and against the SDK; an ``ast`` scan of the package fails if a bare literal comes back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mcp_types
import pytest
from helpers.source import parse as parse_source

import nb_elicit
from nb_elicit._core import jsonrpc
from nb_elicit._core.apps import APP_METHODS, NOTIFICATIONS, REQUESTS
from nb_elicit._core.notices import NoticeKind
from nb_elicit._core.outcome import AnsweredBy, Consent, Refusal
from nb_elicit._core.tasks.model import TaskShape
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
    assert all(shape.label.startswith("MCP ") and shape.label.endswith(("tasks", "(2026-07-28)"))
               for shape in TaskShape)
    assert f"{TaskShape.V2025}" == str(TaskShape.V2025) == "2025-11-25"


# -- the bare literals stay gone --------------------------------------------------------------

PACKAGE = Path(nb_elicit.__file__).parent
#: Each vocabulary's module: the one place its literals are written.
HOMES = {"answered_by": "_core/outcome.py", "code": "_core/jsonrpc.py", "shape": "_core/tasks/model.py",
         "notice_kind": "_core/notices.py"}
ANSWERED_BY = {member.value for member in AnsweredBy}
SHAPES = {member.value for member in TaskShape}
#: Where a value says who answered: these calls' arguments, and names assigned or compared.
ANSWERING_CALLS = {"Outcome", "Asked", "dismiss", "abandon", "withdraw",
                   "_end_unanswered", "_answer_without_content"}
ANSWERING_NAMES = {"answered_by", "_answered_by", "how"}
NOTICE_KINDS = {member.value for member in NoticeKind}
#: Where a value says how a notice reads: these calls' arguments after the text...
NOTICE_CALLS = {"Outcome", "notice", "note", "say", "count_notice", "Notice", "notice_html"}
#: ... these keywords, and these parameters' defaults.
NOTICE_NAMES = {"kind", "notice_kind"}
#: Calls whose first argument says which counted notice (a way of answering: AnsweredBy).
COUNTED_CALLS = {"count_notice", "forget_notice", "Counted"}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _mentions_answered_by(node: ast.AST) -> bool:
    return any(_name(n) in ANSWERING_NAMES for n in ast.walk(node))


def _answering_constants(tree: ast.AST):
    """String constants in places that say who answered a request."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            if _name(node.func) in ANSWERING_CALLS or any(_name(a) in ANSWERING_CALLS
                                                          for a in node.args):
                yield from args
            yield from (k.value for k in node.keywords if k.arg in ANSWERING_NAMES)
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults,
                          strict=True),
                     *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
            yield from (default for arg, default in pairs if arg.arg in ANSWERING_NAMES)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_mentions_answered_by(side) for side in sides):
                yield from sides
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    yield from (value for name, value in zip(target.elts, node.value.elts, strict=False)
                                if _name(name) in ANSWERING_NAMES)
                elif _name(target) in ANSWERING_NAMES and node.value is not None:
                    yield node.value


def _notice_kind_constants(tree: ast.AST):
    """String constants in places that say how a notice reads, or which counted notice."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in NOTICE_CALLS:
                yield from (("notice kind", arg) for arg in node.args[1:])
                yield from (("notice kind", k.value) for k in node.keywords
                            if k.arg in NOTICE_NAMES)
            if name in COUNTED_CALLS and node.args:
                yield "counted notice", node.args[0]
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults,
                          strict=True),
                     *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
            yield from (("notice kind", default) for arg, default in pairs
                        if arg.arg in NOTICE_NAMES)


#: Names whose values come from one small vocabulary: how a request nb_elicit cannot show is
#: answered (Refusal), and what a consent card asks for (Consent).
NAMED_VOCABULARIES = {"refuse_with": {m.value for m in Refusal},
                      "consent": {m.value for m in Consent}}
#: Calls whose last positional argument is a consent.
CONSENT_CALLS = {"ask_consent", "_consent"}


def _named_constants(tree: ast.AST):
    """(name, node) for each value given to a name of :data:`NAMED_VOCABULARIES`: assigned,
    compared, passed as a keyword or as a consent call's fifth argument, or a default."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield from ((k.arg, k.value) for k in node.keywords if k.arg in NAMED_VOCABULARIES)
            if _name(node.func) in CONSENT_CALLS and len(node.args) >= 5:
                yield "consent", node.args[4]
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults,
                          strict=True),
                     *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
            yield from ((arg.arg, default) for arg, default in pairs
                        if arg.arg in NAMED_VOCABULARIES)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                if _name(side) in NAMED_VOCABULARIES:
                    yield from ((_name(side), other) for other in sides if other is not side)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from ((_name(target), node.value) for target in targets
                        if _name(target) in NAMED_VOCABULARIES and node.value is not None)


def _is_code(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -32768 <= value <= -32000


def _is_code_literal(node: ast.AST) -> bool:
    """A number in JSON-RPC's reserved range of error codes, as code writes it (``-32601``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and _is_code(-node.operand.value)
    return isinstance(node, ast.Constant) and _is_code(node.value)


def bare_literals(source: str, module: str) -> list[str]:
    """The literals of the vocabularies written outside their homes in ``source`` (the text
    of ``module``, a path under the package): who answered, JSON-RPC codes, task shapes, how
    a notice reads and which counted notice (a way of answering), how a refusal is answered and
    what a consent asks for. Docstrings and comments may name them."""
    tree = parse_source(source)
    found = []
    if module != HOMES["answered_by"]:
        found += [f"answered_by {node.value!r} (line {node.lineno})"
                  for node in _answering_constants(tree)
                  if isinstance(node, ast.Constant) and node.value in ANSWERED_BY]
    if module != HOMES["notice_kind"]:
        found += [f"{what} {node.value!r} (line {node.lineno})"
                  for what, node in _notice_kind_constants(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and (what == "counted notice" or node.value in NOTICE_KINDS)]
    found += [f"{name} {node.value!r} (line {node.lineno})"
              for name, node in _named_constants(tree)
              if isinstance(node, ast.Constant) and node.value in NAMED_VOCABULARIES[name]]
    for node in ast.walk(tree):
        if module != HOMES["code"] and _is_code_literal(node):
            found.append(f"JSON-RPC code (line {node.lineno})")
        if module != HOMES["shape"] and isinstance(node, ast.Constant) and node.value in SHAPES:
            found.append(f"task shape {node.value!r} (line {node.lineno})")
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "demo" not in p.relative_to(PACKAGE).parts)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_bare_literal_of_a_vocabulary(path):
    module = path.relative_to(PACKAGE).as_posix()
    assert bare_literals(path.read_text(encoding="utf-8"), module) == []


@pytest.mark.parametrize("snippet", [
    'Outcome(Answer("cancel"), "no frontend")',
    'prompt.dismiss(answered_by="interrupt")',
    'loop.call_later(1, prompt.dismiss, "no frontend")',
    'def abandon(self, reason, answered_by="closed"): pass',
    'ok = prompt.answered_by == "person"',
    'how, line = "refused", t("x")',
    'self._answered_by = "withdrawn"',
    'raise ServerError(-32601, "no")',
    'UNKNOWN = (-32602, -32002)',
    'shape = "2025-11-25"',
    'if shape == "io.modelcontextprotocol/tasks": pass',
    'Outcome(Answer("cancel"), AnsweredBy.FAILED, notice_kind="error")',
    'view.notice(text, "warning")',
    'app.say(t("app_link_refused"), "warning")',
    'def say(self, text, kind="info"): pass',
    'Counted("muted", lambda n: str(n))',
    'guard.forget_notice("limited")',
    'guard.count_notice("full", view, text)',
    'refuse_with = "cancel"',
    'await ask(context, request, refuse_with="cancel")',
    'suffix = "_cancel" if refuse_with == "cancel" else ""',
    'async def ask(context, request, *, refuse_with="error"): pass',
    'await apps.ask_consent(message, saved.name, make, view, consent="file")',
    'await apps.ask_consent(message, saved.name, make, view, "permission")',
    'def ask_consent(self, message, target, make_card, view, consent="url"): pass',
])
def test_the_literal_check_sees_a_bare_literal(snippet):
    assert bare_literals(snippet, "_runtime/x.py")


def test_the_literal_check_leaves_texts_and_other_values_alone():
    source = '''"""Who answered: "person"; -32601 is METHOD_NOT_FOUND; shape 2025-11-25."""
# "no frontend", -32000
STATUS = "failed"
t("disconnected", server=name)
timeout = -1
t("notice_" + kind)
view.notice(t("n_failed"), NoticeKind.ERROR)
'''
    assert bare_literals(source, "_runtime/x.py") == []
    assert bare_literals('CODE = -32601', "_core/jsonrpc.py") == []
