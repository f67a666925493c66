"""Kernel-wide state has one owner (``nb_elicit._runtime.state.KernelState``, in the slot of
``nb_elicit._core.kernel``): no module keeps a registry of its own.

A module-level registry is found with ``ast``: a module-level name bound to a container
(a dict, list or set, written out or made by a comprehension or a call of ``dict``, ``list``,
``set``, ``deque``, ``defaultdict``, ``OrderedDict``, ``WeakSet``, ``WeakKeyDictionary``,
``WeakValueDictionary``) that the package changes anywhere (an item set or deleted, a
changing method called, ``+=``), to an instance of a class of the package that keeps
attributes of its own (its methods assign to ``self``, or it is a dataclass that is not
frozen), to a ``threading.local()``, or a name
rebound through ``global``. Constants (frozensets, tuples, compiled patterns, lookup tables
never changed) are not registries. The demo server (``nb_elicit/demo``), a server process of
its own and no part of the kernel's side, is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.source import parse as parse_source

import nb_elicit

PACKAGE = Path(nb_elicit.__file__).parent

#: The registries left, each with why it stays (at most three).
LEFT = {
    # the owner's own slot, and the process's parts beside it (see nb_elicit/_core/kernel.py)
    "nb_elicit._core.kernel._SLOTS",
    # the public hooks (nb_elicit.elicitation_callback, ...): their one attribute, the label
    # (None), is set when they are made and never changed (.named(label) makes a new hook)
    "nb_elicit._runtime.hooks.elicitation_callback",
    "nb_elicit._runtime.hooks.elicitation_handler",
}

CONTAINER_CALLS = {"dict", "list", "set", "deque", "defaultdict", "OrderedDict", "WeakSet",
                   "WeakKeyDictionary", "WeakValueDictionary", "Counter"}
CHANGING = {"append", "add", "update", "pop", "popitem", "clear", "setdefault", "remove",
            "discard", "extend", "insert", "appendleft", "extendleft", "sort", "reverse",
            "difference_update", "intersection_update", "symmetric_difference_update"}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "demo" not in p.relative_to(PACKAGE).parts)


def dotted(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return None


def stateful_classes(trees: dict[str, ast.Module]) -> set[str]:
    """The package's classes whose methods (or whose bases', by name) assign to ``self``, the
    dataclasses that are not frozen, and those that subclass a container."""
    classes: dict[str, ast.ClassDef] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = node

    def own_state(cls: ast.ClassDef) -> bool:
        for decorator in cls.decorator_list:  # (a dataclass that is not frozen: its fields)
            made = decorator.func if isinstance(decorator, ast.Call) else decorator
            frozen = isinstance(decorator, ast.Call) and any(
                k.arg == "frozen" and getattr(k.value, "value", False) for k in decorator.keywords)
            if getattr(made, "id", getattr(made, "attr", None)) == "dataclass" and not frozen \
                    and any(isinstance(node, ast.AnnAssign) for node in cls.body):
                return True
        for node in ast.walk(cls):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign)
                       else [])
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) \
                            and part.value.id == "self":
                        return True
        return any(isinstance(b, ast.Name) and b.id in CONTAINER_CALLS
                   or isinstance(b, ast.Attribute) and b.attr in CONTAINER_CALLS
                   for b in cls.bases)

    def stateful(name: str, seen: frozenset = frozenset()) -> bool:
        cls = classes.get(name)
        if cls is None or name in seen:
            return False
        return own_state(cls) or any(
            stateful(b.id if isinstance(b, ast.Name) else getattr(b, "attr", ""),
                     seen | {name}) for b in cls.bases)

    return {name for name in classes if stateful(name)}


def changed_names(tree: ast.Module) -> set[str]:
    """The names a module changes in place (items set or deleted, a changing method, +=)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) \
                else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    found.add(target.value.id)
                if isinstance(node, ast.AugAssign) and isinstance(target, ast.Name):
                    found.add(target.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in CHANGING and isinstance(node.func.value, ast.Name):
            found.add(node.func.value.id)
    return found


def registries(paths: list[Path], package: Path = PACKAGE) -> set[str]:
    """Every module-level registry of ``paths`` (see the module's docstring), dotted."""
    trees = {dotted(p, package): parse_source(p.read_text(encoding="utf-8")) for p in paths}
    stateful = stateful_classes(trees)
    found = set()
    for module, tree in trees.items():
        changed = changed_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.update(f"{module}.{name}" for name in node.names)
        for node in tree.body:
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                if not isinstance(target, ast.Name) or target.id == "__all__":
                    continue
                name = target.id
                container = isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp
                                       | ast.ListComp | ast.SetComp) \
                    or called_name(value) in CONTAINER_CALLS
                if container and name in changed \
                        or called_name(value) in stateful \
                        or called_name(value) == "local":
                    found.add(f"{module}.{name}")
    return found


def test_at_most_three_module_level_registries_are_left_and_each_is_known():
    found = registries(modules())
    assert len(LEFT) <= 3
    assert found == LEFT


def test_the_check_finds_each_kind_of_registry(tmp_path):
    package = tmp_path / "nb_elicit_sample"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kinds.py").write_text(
        "import threading\nfrom collections import deque\n"
        "class Box:\n    def __init__(self):\n        self.items = []\n"
        "class Plain:\n    def get(self):\n        return 1\n"
        "class Kept(Box):\n    pass\n"
        "from dataclasses import dataclass\n"
        "@dataclass\nclass Rows:\n    rows: list\n"
        "@dataclass(frozen=True)\nclass Fixed:\n    at: int\n"
        "SEEN = {}\nLOG = deque()\nBOX = Kept()\nLOCAL = threading.local()\n"
        "TABLE = {'a': 1}\nNAMES = ('a',)\nPLAIN = Plain()\n_chosen = None\n"
        "ROWS = Rows([])\nFIXED = Fixed(1)\n"
        "def note(k):\n    SEEN[k] = 1\n    LOG.append(k)\n    return TABLE[k]\n"
        "def choose(x):\n    global _chosen\n    _chosen = x\n")
    paths = sorted(package.rglob("*.py"))
    trees = {p.stem: parse_source(p.read_text()) for p in paths}
    assert stateful_classes(trees) == {"Box", "Kept", "Rows"}
    assert registries(paths, package) == {f"nb_elicit_sample.kinds.{n}"
                     for n in ("SEEN", "LOG", "BOX", "LOCAL", "_chosen", "ROWS")}


def test_what_the_pure_model_kept_before_the_runtime_s_owner_was_made_is_kept_by_it():
    from nb_elicit._core.i18n import language, set_language
    from nb_elicit._core.kernel import part
    from nb_elicit._core.records.history import History
    from nb_elicit._runtime.state import KernelState, kernel_state

    set_language("zh")
    part(History).add("demo", "Who?", "decline", None, "person")
    owner = kernel_state()
    assert isinstance(owner, KernelState) and kernel_state() is owner
    assert language() == "zh" and len(owner.history.entries) == 1
    assert owner.history is part(History)


def test_closing_the_owner_closes_its_forms_and_the_next_use_starts_a_new_one():
    from nb_elicit._runtime.state import close_kernel_state, kernel_state
    from nb_elicit._ui.form import ElicitationForm

    owner = kernel_state()
    owner.history.add("demo", "Who?", "decline", None, "person")
    owner.policies.set(owner.policies.for_anyone(), "demo")
    form = ElicitationForm("Who?", {"type": "object", "properties": {}}, server="demo")
    with owner.pending.track(form, object(), None):
        close_kernel_state("nb_elicit was unloaded.")
        assert form.answer.done() and form.answer.result().action == "cancel"
    again = kernel_state()
    assert again is not owner
    assert again.history.entries == [] and again.policies.per_connection == {}
    assert len(again.pending) == 0 and again.connections == {}
