#!/usr/bin/env bash
# K-engine exact solver (hetcim partition MODEL --platform P) on seed 001's cluster with 1, 2 and 4
# IMA crossbars and on the 4-engine examples/my_soc.yaml: the solver's own wall time (the JSON's
# solve_seconds, model loading excluded), median of RUNS runs, with the status and the latency.
# Usage: bench/partition/platform_bench.sh BUILD_DIR   (env: RUNS=5 TIME_LIMIT=60s)
set -euo pipefail
BIN="${1:-build/dev}/bin/hetcim"
RUNS="${RUNS:-5}"
TIME_LIMIT="${TIME_LIMIT:-60s}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ) $(uname -n) load average: $(cut -d' ' -f1-3 /proc/loadavg) runs=$RUNS"
printf '%-12s %-26s %-10s %12s %12s\n' model platform status latency_ms median_s
for model in mobilenetv2 yolov5n; do
  for platform in "seed001-cluster --imas 1" "seed001-cluster --imas 2" "seed001-cluster --imas 4" \
                  "examples/my_soc.yaml"; do
    times=()
    for _ in $(seq "$RUNS"); do
      # shellcheck disable=SC2086
      "$BIN" partition "$model" --platform $platform --time-limit "$TIME_LIMIT" --quiet \
        --json "$tmp/r.json"
      times+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["solve_seconds"])' "$tmp/r.json")")
    done
    read -r status latency < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["status"], j["latency_s"]*1e3)' "$tmp/r.json")
    median="$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    printf '%-12s %-26s %-10s %12.3f %12.4f\n' "$model" "$platform" "$status" "$latency" "$median"
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
