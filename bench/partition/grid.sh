#!/usr/bin/env bash
# Seed 000's 128-instance grid (4 models x 4 crossbar budgets x 4 MVM latencies x 2 hosts):
# hetcim's exact solver next to CBC on the paper's MILP, both in one run of `hetcim dse`, one grid
# point at a time so that solver times are not skewed by parallel points. Prints the summary table
# of bench/README.md.
#   HETCIM=path/to/hetcim  MILP_LIMIT=60s  OUT=dir  bench/partition/grid.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
MILP_LIMIT="${MILP_LIMIT:-60s}"
OUT="${OUT:-$(mktemp -d)}"
start=$(date +%s.%N)
"$HETCIM" dse --milp --milp-time-limit "$MILP_LIMIT" --threads 1 --no-cache --no-figures --out "$OUT" >/dev/null
end=$(date +%s.%N)
echo "grid wall time (exact + CBC, one point at a time): $(/usr/bin/python3 -c "print(round($end - $start, 2))") s"
# The exact solver alone over the whole grid, problems built from scratch, 2 threads:
start=$(date +%s.%N)
"$HETCIM" dse --no-cache --no-figures --out "$OUT/exact-only" >/dev/null
end=$(date +%s.%N)
echo "grid wall time (exact only, incl. building the problems): $(/usr/bin/python3 -c "print(round($end - $start, 2))") s"
/usr/bin/python3 "$here/summarize.py" "$OUT/dse.csv"
