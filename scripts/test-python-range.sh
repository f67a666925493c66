#!/usr/bin/env bash
# Run the suite on the oldest and the newest supported Python, each in its own venv. Tests marked
# `once` (browser, Binder, old kernel, lab.sh, the npm conformance and interop suites, the hostile
# task servers, the notebooks run end to end, the docs, the keyboard script in Node: they do not
# depend on the Python version; docs/testing.md says why each) are left out. bash scripts/test.sh
# runs this beside its own runs of the whole suite.
# Tests marked `blocking_kernel` (real kernels driven by the scripted frontend) are left out
# too: below Python 3.11 the newest ipykernel is 6.x and cannot serve a cell that waits, and on
# the newest Python they would run the same ipykernel 7.4 as the run on 3.11; nb_elicit's code
# in them runs in-process on every version (test_connection, test_freeze, test_hooks...).
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
# One Python's run: its venv, then the tests, into .cache/range-pythonX.log.
run_one() {
    local python=$1 venv=".cache/venv-$1" setup_log="$PWD/.cache/setup-$1.log"
    if [ ! -x "$venv/bin/python" ]; then
        "$(find_python "$python")" -m venv "$venv" || return 1
    fi
    echo "setup: $python: install nb_elicit with its test and agents extras (pip's output: $setup_log)"
    if ! { "$venv/bin/python" -m pip install --quiet --upgrade pip &&
           "$venv/bin/python" -m pip install --quiet -e ".[test,agents]"; } >"$setup_log" 2>&1; then
        echo "setup failed for $python; the full output is in $setup_log:"
        tail -n 15 "$setup_log"
        return 1
    fi
    echo "== $("$venv/bin/python" --version) =="
    local started=$SECONDS status=0
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not once and not blocking_kernel" \
        || status=$?
    echo "== $python took $((SECONDS - started)) s =="
    return "$status"
}
# The Pythons run side by side: each leaves most of a core idle, waiting for its servers.
# Every Python is run, also after one failed; the script fails if any did.
pids=()
for python in "${pythons[@]}"; do
    run_one "$python" >"$PWD/.cache/range-$python.log" 2>&1 &
    pids+=($!)
done
failed=()
for i in "${!pythons[@]}"; do
    wait "${pids[$i]}" || failed+=("${pythons[$i]}")
    cat "$PWD/.cache/range-${pythons[$i]}.log"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "the run failed on: ${failed[*]}" >&2
    exit 1
fi
