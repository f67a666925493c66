#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,lab,agents,frameworks,docs
# The browser tests (tests/browser) drive Debian's Chromium; fonts-noto-cjk draws the Chinese
# forms (without it their screenshots show empty boxes).
if ! command -v chromium >/dev/null || ! dpkg -s fonts-noto-cjk >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium fonts-noto-cjk
    else
        echo "The browser tests need Chromium and CJK fonts:" \
             "sudo apt-get install -y chromium fonts-noto-cjk" >&2
        exit 1
    fi
fi
.venv/bin/ruff check .
.venv/bin/mypy  # (the whole package under --strict: pyproject.toml's [tool.mypy])
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest "$@"
fi

# The whole suite, as four runs at once. Each run leaves most of a core idle much of the time
# (it waits for pages, kernels and servers: the tests not marked `once` keep 0.75 of a core
# busy on average); run side by side they fill the 2 cores:
#   - on this Python, the browser tests (tests/browser), in a log shown once they are done;
#   - on this Python, the other tests marked `once` (the npm suites, Binder, the notebooks run
#     end to end...), then the browser's run of the bundled notebooks from lab.sh, in a log of
#     their own;
#   - on this Python, every other test, here;
#   - the tests that depend on the Python version (see the script) on the oldest
#     and the newest supported Python (scripts/test-python-range.sh), at a lower CPU priority
#     (nice), in a log of its own.
mkdir -p .cache
browser_log="$PWD/.cache/browser.log"
once_log="$PWD/.cache/once.log"
range_log="$PWD/.cache/python-range.log"
started=$SECONDS
setsid nice -n 10 bash scripts/test-python-range.sh >"$range_log" 2>&1 &
range=$!
# (--durations: the slowest tests, where to look when the suite grows slow; one run keeps
# pytest's cache, the other does not write it at the same time)
# (The bundled notebooks run from lab.sh, a browser module of about 5 minutes, go after the
# other tests marked once, which end about 10 minutes before the browser's: the whole suite
# then waits less for its longest run.)
from_lab_sh=tests/browser/test_notebooks_from_lab_sh.py
setsid .venv/bin/python -m pytest -p no:cacheprovider --durations=25 tests/browser \
    --deselect "$from_lab_sh" >"$browser_log" 2>&1 &
browser=$!
setsid bash -c '.venv/bin/python -m pytest -p no:cacheprovider --durations=15 -m once \
    --ignore=tests/browser; first=$?; .venv/bin/python -m pytest -p no:cacheprovider "$0"; \
    second=$?; [ "$first" -eq 0 ] && [ "$second" -eq 0 ]' "$from_lab_sh" >"$once_log" 2>&1 &
once=$!
# All stopped (with their kernels, servers and browsers) if this script ends first.
trap 'kill -- "-$range" "-$browser" "-$once" 2>/dev/null || true' EXIT
status=0
.venv/bin/python -m pytest --durations=25 -m "not once" --ignore=tests/browser || status=$?
echo "== the other tests on this Python took $((SECONDS - started)) s =="
once_status=0
wait "$once" || once_status=$?
echo "== the tests marked once, but the browser's (their log: $once_log), done after" \
     "$((SECONDS - started)) s =="
cat "$once_log"
browser_status=0
wait "$browser" || browser_status=$?
echo "== the browser tests (their log: $browser_log), done after $((SECONDS - started)) s =="
cat "$browser_log"
range_status=0
wait "$range" || range_status=$?
trap - EXIT
echo "== the Python range run (its log: $range_log), done after $((SECONDS - started)) s =="
cat "$range_log"
failed=0
for run in "this Python:$status" "this Python, marked once:$once_status" \
           "this Python, in the browser:$browser_status" \
           "the Python range:$range_status"; do
    if [ "${run##*:}" -ne 0 ]; then
        echo "the run on ${run%:*} failed (exit ${run##*:})" >&2
        failed=1
    fi
done
echo "== the whole suite took $((SECONDS - started)) s =="
exit "$failed"
