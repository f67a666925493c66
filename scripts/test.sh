#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,lab
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
# The oldest and newest supported Python, when the whole suite was asked for.
if [ $# -eq 0 ]; then
    bash scripts/test-python-range.sh
fi
