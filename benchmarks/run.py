"""Run nb_elicit's benchmark suite: ``python benchmarks/run.py [--quick] [--only ...]
[--skip ...] [--code REV]`` (``--help`` lists every option). The suite is the ``benchmarks``
package next to this file; ``python -m benchmarks`` runs the same."""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:
    # Run as a script: import the package from the repository root, not this folder's modules
    # as top-level ones.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from benchmarks.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
