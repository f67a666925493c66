#!/usr/bin/env bash
# Set up and run the whole test suite: lint, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,lab
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
.venv/bin/python -m pytest "$@"
# The oldest and newest supported Python, when the whole suite was asked for.
if [ $# -eq 0 ]; then
    bash scripts/test-python-range.sh
fi
