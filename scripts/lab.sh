#!/usr/bin/env bash
# Set up and launch JupyterLab on notebooks/quickstart.ipynb (the same path as on Binder:
# lab/tree/notebooks/quickstart.ipynb), in the work folder lab-work/: copies of the example
# notebooks, made the first time, so that running the demos leaves the checkout unchanged.
# `--fresh` first replaces the copies; other arguments go to `jupyter lab`.
set -euo pipefail
cd "$(dirname "$0")/.."
fresh=()
if [ "${1:-}" = --fresh ]; then
    fresh=(--fresh)
    shift
fi
# What every bundled notebook needs, as on Binder (binder/postBuild): JupyterLab, and the agent
# frameworks of notebooks/agents.ipynb (pydantic-ai and google-adk need Python 3.11).
bash scripts/setup.sh lab,agents
venv="${NB_ELICIT_VENV:-.venv}"
if ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "lab.sh: this Python is older than 3.11: notebooks/agents.ipynb's pydantic-ai cells" \
         "will not run (every other notebook does)"
fi
work="$PWD/lab-work"
"$venv/bin/python" scripts/lab_workdir.py "$work" ${fresh[@]+"${fresh[@]}"}
args=(--ServerApp.root_dir="$work")
# Root is the default user in Docker, Codespaces and many clouds; Jupyter refuses it unless told.
if [ "$(id -u)" = 0 ]; then
    args+=(--allow-root)
fi
echo "Starting JupyterLab on lab-work/notebooks/quickstart.ipynb (stop it with Ctrl+C)"
exec "$venv/bin/jupyter" lab "${args[@]}" "$work/notebooks/quickstart.ipynb" "$@"
