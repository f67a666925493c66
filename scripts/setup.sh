#!/usr/bin/env bash
# Create .venv (if needed) and install nb_elicit into it, editable, with the given extras.
#   bash scripts/setup.sh test,lab
# One line per step; pip's own output goes to .cache/setup.log, which a failure names.
# NB_ELICIT_VENV=PATH uses the virtual environment at PATH instead of .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-test,lab}"
python="${PYTHON:-python3}"
venv="$(cd "$(dirname "${NB_ELICIT_VENV:-.venv}")" 2>/dev/null && pwd)/$(basename "${NB_ELICIT_VENV:-.venv}")"
mkdir -p .cache
log="$PWD/.cache/setup.log"
: >"$log"

step() {  # step "what it does" command...
    local what="$1"
    shift
    echo "setup: $what"
    if ! "$@" >>"$log" 2>&1; then
        echo "setup failed while it tried to $what; the full output is in $log:" >&2
        tail -n 15 "$log" >&2
        exit 1
    fi
}

# Whether nb_elicit is already importable from this checkout, with every extra's requirements.
ready() {
    # (run from / so that the checkout is not on sys.path by accident)
    (cd / && "$venv/bin/python" - "$extras" "$OLDPWD" <<'PY' >>"$log" 2>&1
import importlib.metadata as md
import sys
from pathlib import Path

from pip._vendor.packaging.requirements import Requirement

extras, checkout = sys.argv[1].split(","), Path(sys.argv[2]).resolve()
import nb_elicit  # noqa: E402

if checkout not in Path(nb_elicit.__file__).resolve().parents:
    sys.exit(f"nb_elicit is imported from {nb_elicit.__file__}, not from {checkout}")
for line in md.requires("nb-elicit") or []:
    req = Requirement(line)
    if req.marker and not any(req.marker.evaluate({"extra": e}) for e in ["", *extras]):
        continue
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        sys.exit(f"{req.name} is not installed")
    if not req.specifier.contains(version, prereleases=True):
        sys.exit(f"{req.name} {version} does not satisfy {req}")
PY
    )
}

if [ ! -x "$venv/bin/python" ]; then
    step "create the virtual environment $venv" "$python" -m venv "$venv"
fi
if ready; then
    echo "setup: nb_elicit and its extras ($extras) are already installed in $venv"
else
    step "upgrade pip" "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --upgrade pip
    step "install nb_elicit with its extras ($extras); this takes a minute or two" \
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[${extras}]"
fi
