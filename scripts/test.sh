#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,lab,agents
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
if [ $# -gt 0 ]; then
    exec .venv/bin/python -m pytest "$@"
fi

# The whole suite: on this Python, and on the oldest and the newest supported Python
# (scripts/test-python-range.sh). Most of a test's time is spent waiting for kernels, servers
# and the browser, so the range run goes on beside this one, at a lower CPU priority (nice),
# with its output in a log that is shown once this run is done.
mkdir -p .cache
range_log="$PWD/.cache/python-range.log"
setsid nice -n 10 bash scripts/test-python-range.sh >"$range_log" 2>&1 &
range=$!
# Stopped (with its kernels and servers) if this script ends first.
trap 'kill -- "-$range" 2>/dev/null || true' EXIT
status=0
# (--durations: the slowest tests, where to look when the suite grows slow)
.venv/bin/python -m pytest --durations=40 || status=$?
range_status=0
wait "$range" || range_status=$?
trap - EXIT
echo "== the Python range run (its log: $range_log) =="
cat "$range_log"
if [ "$range_status" -ne 0 ]; then
    echo "the Python range run failed (exit $range_status)" >&2
fi
if [ "$status" -ne 0 ]; then
    exit "$status"
fi
exit "$range_status"
