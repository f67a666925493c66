#!/usr/bin/env bash
# Run the suite on the oldest and the newest supported Python, each in its own venv. Tests marked
# `once` (browser, Binder, old kernel, lab.sh, the npm conformance and interop suites, the hostile
# task servers, the notebooks run end to end, the docs, the keyboard script in Node: they do not
# depend on the Python version; docs/testing.md says why each) are left out. bash scripts/test.sh
# runs this beside its own runs of the whole suite.
# Tests marked `blocking_kernel` skip themselves below Python 3.11, where the newest ipykernel is
# 6.x and cannot serve a cell that waits (see tests/conftest.py).
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
mkdir -p .cache
# Every Python is run, also after one failed; the script fails if any did.
failed=()
for python in "${pythons[@]}"; do
    venv=".cache/venv-$python"
    if [ ! -x "$venv/bin/python" ]; then
        "$(find_python "$python")" -m venv "$venv"
    fi
    log="$PWD/.cache/setup-$python.log"
    echo "setup: $python: install nb_elicit with its test and agents extras (pip's output: $log)"
    if ! { "$venv/bin/python" -m pip install --quiet --upgrade pip &&
           "$venv/bin/python" -m pip install --quiet -e ".[test,agents]"; } >"$log" 2>&1; then
        echo "setup failed for $python; the full output is in $log:" >&2
        tail -n 15 "$log" >&2
        exit 1
    fi
    echo "== $("$venv/bin/python" --version) =="
    started=$SECONDS
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not once" || failed+=("$python")
    echo "== $python took $((SECONDS - started)) s =="
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "the run failed on: ${failed[*]}" >&2
    exit 1
fi
