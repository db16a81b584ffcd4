#!/usr/bin/env bash
# Crossbar reprogramming (issue 12 scope 3) on seed 001's cluster: MobileNetV2 (MODELS to change)
# with the IMA shrunk to 1, 2 and 4 crossbars (the unconstrained optimum holds more resident: the
# first row, --imas 4096, says how many), each without and with --reprogram (the IMA's PCM preset,
# platform/reprogramming.h). Per row: the exact solver's own wall time (the JSON's solve_seconds),
# median of RUNS runs, its status and latency, the IMA's operators reprogrammed and the
# endurance-limited lifetime; beside it the K-engine MILP on CBC (one thread, deterministic: one
# run) with its status, objective, gap and CBC's wall time.
# Usage: bench/partition/reprogram_bench.sh BUILD_DIR   (env: RUNS=5 TIME_LIMIT=60s
#        MILP_TIME_LIMIT=60s MODELS="mobilenetv2")
set -euo pipefail
BIN="${1:-build/dev}/bin/hetcim"
RUNS="${RUNS:-5}"
TIME_LIMIT="${TIME_LIMIT:-60s}"
MILP_TIME_LIMIT="${MILP_TIME_LIMIT:-60s}"
MODELS="${MODELS:-mobilenetv2}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
field() {  # field FILE KEY [SCALE]: a JSON number (times SCALE), "-" when null
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; s=float(sys.argv[3]); print("-" if v is None else "%.6g" % (v*s))' "$1" "$2" "${3:-1}"
}
wear() {  # wear FILE: "operators reprogrammed / lifetime" of the first reprogramming engine
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=j.get("reprogramming")
if not r: print("-")
else:
  x=r[0]; l=x["lifetime_inferences"]; print("%d / %s" % (x["operators_reprogrammed"], "-" if l is None else "%.3g" % l))' "$1"
}
status() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$1"; }
echo "# $(date -u +%FT%TZ) $(uname -n) load average: $(cut -d' ' -f1-3 /proc/loadavg) runs=$RUNS" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') milp_time_limit=$MILP_TIME_LIMIT"
printf '%-12s %-5s %-10s | %-10s %11s %9s %16s | %-9s %12s %6s %7s\n' model imas reprogram \
  exact latency_ms median_s "reprog / life" milp objective_ms gap_% cbc_s
for model in $MODELS; do
  for imas in 4096 1 2 4; do
    for rp in off on; do
      [ "$imas" = 4096 ] && [ "$rp" = on ] && continue
      flag=""
      [ "$rp" = on ] && flag="--reprogram"
      times=()
      optimal=0
      for _ in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        "$BIN" partition "$model" --platform seed001-cluster --imas "$imas" $flag \
          --time-limit "$TIME_LIMIT" --quiet --json "$tmp/r.json"
        times+=("$(field "$tmp/r.json" solve_seconds)")
        [ "$(status "$tmp/r.json")" = optimal ] && optimal=$((optimal + 1))
      done
      st=optimal
      [ "$optimal" -lt "$RUNS" ] && st="opt $optimal/$RUNS"
      median="$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
      # shellcheck disable=SC2086
      "$BIN" partition "$model" --platform seed001-cluster --imas "$imas" $flag --solver milp \
        --time-limit "$MILP_TIME_LIMIT" --quiet --json "$tmp/m.json"
      printf '%-12s %-5s %-10s | %-10s %11s %9s %16s | %-9s %12s %6s %7s\n' "$model" "$imas" "$rp" \
        "$st" "$(field "$tmp/r.json" latency_s 1e3)" "$median" "$(wear "$tmp/r.json")" \
        "$(status "$tmp/m.json")" "$(field "$tmp/m.json" latency_s 1e3)" \
        "$(field "$tmp/m.json" gap 100)" "$(field "$tmp/m.json" solve_seconds)"
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
