"""``python -m benchmarks``: the same as ``python benchmarks/run.py``."""

import sys

from .cli import main

sys.exit(main())
