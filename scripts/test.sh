#!/usr/bin/env bash
# Builds the dev preset (warnings are errors) and runs the whole test suite.
# Tests labelled `slow` run too unless HETCIM_SKIP_SLOW=1.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset dev -DHETCIM_SKIP_MODULES= >/dev/null  # every module, whatever the cache says
cmake --build --preset dev -j "$(nproc)"
if [ "${HETCIM_SKIP_SLOW:-0}" = "1" ]; then
  ctest --preset dev -j "$(nproc)" -LE slow
else
  ctest --preset dev -j "$(nproc)"
fi
