#!/usr/bin/env bash
# Set up and launch JupyterLab on the main notebook. Extra arguments go to `jupyter lab`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh lab
exec .venv/bin/jupyter lab notebooks/quickstart.ipynb "$@"
