#!/usr/bin/env bash
# Set up and launch JupyterLab, rooted at the repository, on notebooks/quickstart.ipynb (the same
# path as on Binder: lab/tree/notebooks/quickstart.ipynb). Extra arguments go to `jupyter lab`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh lab
venv="${NB_ELICIT_VENV:-.venv}"
args=(--ServerApp.root_dir="$PWD")
# Root is the default user in Docker, Codespaces and many clouds; Jupyter refuses it unless told.
if [ "$(id -u)" = 0 ]; then
    args+=(--allow-root)
fi
echo "Starting JupyterLab on notebooks/quickstart.ipynb (stop it with Ctrl+C)"
exec "$venv/bin/jupyter" lab "${args[@]}" notebooks/quickstart.ipynb "$@"
