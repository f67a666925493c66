#!/usr/bin/env bash
# Create .venv (if needed) and install nb_elicit into it, editable, with the given extras.
#   bash scripts/setup.sh test,lab
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-test,lab}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[${extras}]"
