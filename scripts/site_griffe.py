"""A griffe extension for the site's API reference (mkdocs.yml, docs/reference.md).

- ``nb_elicit`` imports its widgets and runtime on first use (a module ``__getattr__``), which
  griffe, reading the source, cannot follow: each public name that the package's source does
  not define is added to it as an alias of where it is defined, found by importing it, so that
  ``::: nb_elicit.ElicitationForm`` documents the class under its public name.
- A module attribute is documented by the ``#:`` comment above it (Sphinx's convention, which
  the source follows); griffe reads only strings, so the comment becomes its docstring, and an
  attribute that holds an object of a documented class (``elicitation_callback``) adds that
  class's docstring.
- The docstrings cross-reference in Sphinx's roles (``:func:`parse_schema```), which Markdown
  would show as they are: on the site they read as code (``parse_schema``).

The source's docstrings are not changed.
"""

from __future__ import annotations

import importlib
import inspect
import re

import griffe

_ROLE = re.compile(r":(?:py:)?[a-z]+:`(~?)([^`]+)`")

#: The public names that no line of the source defines (a module ``__getattr__`` computes them
#: on each read), each with what the reference says of it.
COMPUTED = {
    "connections": "The live connections by name (a dict), as made by `connect` and `%mcp "
                   "connect`. It is read anew each time: unloading the extension replaces it.",
}


class PublicNames(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        if pkg.name != "nb_elicit":
            return
        package = importlib.import_module("nb_elicit")
        for name in package.__all__:
            if name in COMPUTED:  # (before the import a type checker reads, which names no line)
                pkg.set_member(name, griffe.Attribute(
                    name, lineno=None, docstring=griffe.Docstring(COMPUTED[name])))
                continue
            if name in pkg.members:
                continue
            value = getattr(package, name)
            if inspect.isclass(value) or inspect.isroutine(value):
                path = f"{value.__module__}.{value.__qualname__}"
            else:  # (an object made in the module of its class)
                path = f"{type(value).__module__}.{name}"
            pkg.set_member(name, griffe.Alias(name, path))

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.is_attribute and obj.docstring is None and obj.lineno and obj.parent:
            comment = _comment_above(obj)
            if comment:
                obj.docstring = griffe.Docstring(comment, parent=obj)
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_as_code, obj.docstring.value)

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        """An attribute holding an object of a class of the package adds the class's
        docstring to its own (the class is documented nowhere else on the site)."""
        if not obj.is_attribute or obj.docstring is None or obj.value is None:
            return
        called = re.fullmatch(r"([A-Za-z_]\w*)\(\)", str(obj.value))
        if not called:
            return
        cls = obj.parent.members.get(called.group(1)) if obj.parent else None
        if cls is not None and not cls.is_alias and cls.docstring is not None:
            obj.docstring.value += f"\n\nAn instance of `{cls.name}`: {cls.docstring.value}"


def _comment_above(obj: griffe.Object) -> str:
    """The ``#:`` comment lines right above an attribute's first line, without their marks."""
    lines = obj.parent.lines if obj.parent else []
    found = []
    index = obj.lineno - 2
    while 0 <= index < len(lines) and lines[index].lstrip().startswith("#:"):
        found.insert(0, lines[index].lstrip()[2:].strip())
        index -= 1
    return "\n".join(found)


def _as_code(match: re.Match) -> str:
    """A Sphinx role as Markdown code: ``:class:`~a.B``` reads `B`, ``:func:`a.b``` `a.b`."""
    short, name = match.groups()
    return f"`{name.rsplit('.', 1)[-1] if short else name}`"
