#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,lab
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
