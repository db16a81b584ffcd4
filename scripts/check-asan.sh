#!/usr/bin/env bash
# Builds the asan preset (address + undefined-behaviour sanitizers at -O1 with assertions on; at -O0
# the tests ran 3.1-3.2x longer, bench/README.md "build") and runs the tests under
# it, except the real-exporter corpus (label `corpus`: under the sanitizers it would regenerate the
# 27 PyTorch exports and run every model at Debug speed; the README's test command runs it).
#   scripts/check-asan.sh          every module and its tests (about 60-70 minutes on 2 cores)
#   scripts/check-asan.sh --core   the modules that hold the hand-written memory work and their tests
#                                  (what .ci/run runs): the graph and its ONNX parser, the passes, the
#                                  exact solvers, the host engine, the crossbar simulator, the readers;
#                                  not the `slow` tests (their Debug-speed brute forces took 7 of the
#                                  step's 27 minutes on a 2-core machine; the README's test command
#                                  runs them without the sanitizers)
set -euo pipefail
cd "$(dirname "$0")/.."
skip=""
exclude="corpus"
if [ "${1:-}" = "--core" ]; then
  exclude="corpus|slow"
  # Everything above the core layers (src/README.md's module table), and the tests that need it.
  skip="cluster;platform;dse;hybrid;train;select;accuracy;report;api;api_torch;cli;integration;corpus"
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/check-asan.sh [--core]" >&2
  exit 2
fi
cmake --preset asan -DHETCIM_SKIP_MODULES="$skip" >/dev/null
cmake --build --preset asan -j "$(nproc)"
ctest --preset asan -j "$(nproc)" -LE "$exclude"
du -sh build/asan
