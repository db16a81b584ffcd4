#!/usr/bin/env bash
# Start-to-exit wall time of hetcim commands (median of RUNS, default 20) against the floor (a
# C++ program that links nothing), and `import hetcim` against `python3 -c pass`. The last hetcim
# row, hetcim-torch --version, loads libtorch: what every command paid before the split.
#   bench/startup/run.sh [BUILD_DIR]        (default build/dev; needs the targets hetcim,
#                                            startup_floor, startup_bench and hetcim_python)
set -euo pipefail
B="$(cd "${1:-build/dev}" && pwd)"
RUNS="${RUNS:-20}"
PY="${PYTHON:-/usr/bin/python3}"
echo "# $(date -u +%FT%TZ) on $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$B/bench/startup/startup_bench" "$RUNS" \
  "$B/bench/startup/startup_floor" \
  "$B/bin/hetcim --version" \
  "$B/bin/hetcim models" \
  "$B/bin/hetcim inspect resnet18" \
  "$B/bin/hetcim partition resnet18 --preset seed000-arm" \
  "$B/bin/hetcim-torch --version"
if [ -d "$B/python/hetcim" ]; then
  PYTHONPATH="$B/python" "$B/bench/startup/startup_bench" "$RUNS" \
    "$PY -c pass" \
    "$PY -c __import__('hetcim')"
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
