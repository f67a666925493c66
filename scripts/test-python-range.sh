#!/usr/bin/env bash
# Run the suite (all but the browser, Binder and old-kernel tests, which do not depend on the
# Python version) on the oldest and the newest supported Python, each in its own venv.
# On 3.10 the newest ipykernel is 6.x (7.4 needs 3.11), which cannot serve a blocking cell:
# the real-kernel, throttle and notebook tests, which wait in their cells (and measure what
# ipykernel 7.4 does), run from 3.11 on; the
# non-blocking style on ipykernel 6 is covered by tests/test_old_kernel.py.
#   bash scripts/test-python-range.sh [python3.10 python3.13]
set -euo pipefail
cd "$(dirname "$0")/.."
pythons=("$@")
[ ${#pythons[@]} -gt 0 ] || pythons=(python3.10 python3.13)
# A pyenv shim only runs the versions pyenv is told to use; find the interpreter itself.
find_python() {
    if "$1" --version >/dev/null 2>&1; then command -v "$1"; return; fi
    local root
    root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
    for candidate in "$root"/versions/*/bin/"$1"; do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    echo "no $1 on this machine" >&2
    return 1
}
for python in "${pythons[@]}"; do
    venv=".cache/venv-$python"
    if [ ! -x "$venv/bin/python" ]; then
        "$(find_python "$python")" -m venv "$venv"
    fi
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet -e ".[test]"
    echo "== $("$venv/bin/python" --version) =="
    extra=()
    if ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        extra=(--ignore=tests/test_kernel.py --ignore=tests/test_kernel_hostile.py
               --ignore=tests/test_notebooks.py --ignore=tests/test_frontend_throttle.py)
    fi
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --ignore=tests/browser \
        --ignore=tests/test_binder.py --ignore=tests/test_old_kernel.py "${extra[@]}"
done
