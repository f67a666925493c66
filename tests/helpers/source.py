"""Reading Python source into a syntax tree, for the tests that check the code's shape."""

from __future__ import annotations

import ast

__all__ = ["parse"]

#: How often a parse is tried before its error is believed.
_TRIES = 5


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, tried again when it fails with CPython's "AST constructor
    recursion depth mismatch": before 3.12.4 (python/cpython#106905) the depth it checks is
    shared by all threads, so a parse on another thread at the same moment (a test's leftover
    thread in this process) makes a correct source fail. Any other error is raised at once."""
    for attempt in range(_TRIES):
        try:
            return ast.parse(source)
        except SystemError as error:
            if "recursion depth mismatch" not in str(error) or attempt == _TRIES - 1:
                raise
    raise AssertionError("unreachable")
