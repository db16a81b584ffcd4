#!/usr/bin/env bash
# K-engine solvers (hetcim partition MODEL --platform P) on seed 001's cluster with 1, 2 and 4 IMA
# crossbars and on the 4-engine examples/my_soc.yaml: the exact solver's own wall time (the JSON's
# solve_seconds, model loading excluded), median of RUNS runs, with its status and latency; beside
# it the K-engine MILP on CBC (--solver milp, one thread, deterministic: one run) with its status,
# objective (latency), gap and CBC's wall time under MILP_TIME_LIMIT. The latency is the last
# exact run's (its incumbent when that run hit the limit).
# Usage: bench/partition/platform_bench.sh BUILD_DIR   (env: RUNS=5 TIME_LIMIT=60s MILP_TIME_LIMIT=60s)
set -euo pipefail
BIN="${1:-build/dev}/bin/hetcim"
RUNS="${RUNS:-5}"
TIME_LIMIT="${TIME_LIMIT:-60s}"
MILP_TIME_LIMIT="${MILP_TIME_LIMIT:-60s}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
field() {  # field FILE KEY [SCALE]: a JSON number (times SCALE), "-" when null
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; s=float(sys.argv[3]); print("-" if v is None else "%.6g" % (v*s))' "$1" "$2" "${3:-1}"
}
echo "# $(date -u +%FT%TZ) $(uname -n) load average: $(cut -d' ' -f1-3 /proc/loadavg) runs=$RUNS" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') milp_time_limit=$MILP_TIME_LIMIT"
printf '%-12s %-26s | %-10s %12s %10s | %-11s %12s %9s %9s\n' model platform exact latency_ms \
  median_s milp objective_ms gap_% cbc_s
for model in mobilenetv2 yolov5n; do
  for platform in "seed001-cluster --imas 1" "seed001-cluster --imas 2" "seed001-cluster --imas 4" \
                  "examples/my_soc.yaml"; do
    times=()
    optimal=0
    for _ in $(seq "$RUNS"); do
      # shellcheck disable=SC2086
      "$BIN" partition "$model" --platform $platform --time-limit "$TIME_LIMIT" --quiet \
        --json "$tmp/r.json"
      times+=("$(field "$tmp/r.json" solve_seconds)")
      s="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/r.json")"
      [ "$s" = optimal ] && optimal=$((optimal + 1))
    done
    # "optimal" when every run proved optimality, else "optimal K/RUNS" (the others hit the limit).
    status=optimal
    [ "$optimal" -lt "$RUNS" ] && status="optimal $optimal/$RUNS"
    latency="$(field "$tmp/r.json" latency_s 1e3)"
    median="$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    # shellcheck disable=SC2086
    "$BIN" partition "$model" --platform $platform --solver milp --time-limit "$MILP_TIME_LIMIT" \
      --quiet --json "$tmp/m.json"
    mstatus="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/m.json")"
    printf '%-12s %-26s | %-10s %12s %10s | %-11s %12s %9s %9s\n' "$model" "$platform" "$status" \
      "$latency" "$median" "$mstatus" "$(field "$tmp/m.json" latency_s 1e3)" \
      "$(field "$tmp/m.json" gap 100)" "$(field "$tmp/m.json" solve_seconds)"
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
