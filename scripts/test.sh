#!/usr/bin/env bash
# Runs every test on a fresh machine: installs what the end-to-end tests need (tmux, the Python
# and Node Pulumi SDKs into target/sdk-env), then runs the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq tmux >/dev/null
  else
    echo "tmux is required for the console's end-to-end tests: install it (apt-get install tmux)" >&2
    exit 1
  fi
fi
if [ -f .ci/install-sdks.sh ]; then
  bash .ci/install-sdks.sh
fi

cargo test --locked --all-targets "$@"
