#!/usr/bin/env bash
# Issue 32 scope 4: transformers partitioned on seed 000's ARM machine. For each model of
# bench/partition/transformer_models.py (exported into MODELS_DIR if missing): Table-I-style counts
# from `hetcim inspect --json` (operators, offloadable, MACs with attention's activation x
# activation products, MACs of the offloadable operators, crossbars of 256x256, the paper-counted
# MILP size), then `hetcim partition --preset seed000-arm --crossbars XBARS` with the exact solver
# and with the paper's MILP on CBC (--solver milp), each timed as the process's CPU seconds
# (user + sys) and wall seconds, with the modelled latency, speedup and status of its JSON.
#   HETCIM=build/dev/bin/hetcim MODELS_DIR=/tmp/hetcim-transformers XBARS=400 TIME_LIMIT=600s \
#   MODELS='encoder2 vit_tiny vit_b_16_32 vit_b_16_224' SOLVERS='exact milp' \
#     bench/partition/transformer_partition.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/dev/bin/hetcim}"
MODELS_DIR="${MODELS_DIR:-/tmp/hetcim-transformers}"
MODELS="${MODELS:-encoder2 vit_tiny vit_b_16_32 vit_b_16_224}"
SOLVERS="${SOLVERS:-exact milp}"
XBARS="${XBARS:-400}"
TIME_LIMIT="${TIME_LIMIT:-600s}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for m in $MODELS; do
  [ -f "$MODELS_DIR/$m.onnx" ] || /usr/bin/python3 "$here/transformer_models.py" "$MODELS_DIR" "$m" >/dev/null 2>&1
done
echo "# $(date -u +%FT%TZ) $("$HETCIM" --version | head -1);$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# counts: hetcim inspect MODEL --crossbar 256x256 --json (int8 deployment, b_elem 1 B)"
printf '%-14s %6s %6s %14s %14s %6s %8s %10s\n' model ops offl MACs offl_MACs xbars MILP_var MILP_cons
for m in $MODELS; do
  "$HETCIM" inspect "$MODELS_DIR/$m.onnx" --crossbar 256x256 --json "$work/$m.inspect.json" >/dev/null
  /usr/bin/python3 - "$m" "$work/$m.inspect.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[2]))["totals"]
print("%-14s %6d %6d %14d %14d %6d %8d %10d" % (sys.argv[1], t["operators"], t["offloadable"], t["macs"],
      t["offloadable_macs"], t["crossbars"], t["milp_variables"], t["milp_constraints"]))
EOF
done
echo "# partition: hetcim partition MODEL --preset seed000-arm --crossbars $XBARS --time-limit $TIME_LIMIT [--solver milp]"
printf '%-14s %-6s %8s %8s %12s %12s %8s %5s %s\n' model solver cpu_s wall_s latency_ms bound_ms speedup cim 'status solve_s'
for m in $MODELS; do
  for s in $SOLVERS; do
    rc=0
    /usr/bin/time -f '%U %S %e' -o "$work/t" "$HETCIM" partition "$MODELS_DIR/$m.onnx" --preset seed000-arm \
      --crossbars "$XBARS" --solver "$s" --time-limit "$TIME_LIMIT" --quiet \
      --json "$work/$m.$s.json" --gantt "$work/$m.$s.svg" >"$work/out" 2>"$work/err" || rc=$?
    read -r u sy e < <(tail -1 "$work/t")
    cpu="$(/usr/bin/python3 -c "print(round($u + $sy, 2))")"
    if [ "$rc" != 0 ]; then
      printf '%-14s %-6s %8s %8s exit %s: %s\n' "$m" "$s" "$cpu" "$e" "$rc" "$(tail -1 "$work/err")"
      continue
    fi
    /usr/bin/python3 - "$m" "$s" "$cpu" "$e" "$work/$m.$s.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[5]))
s = j["solver"]
print("%-14s %-6s %8s %8s %12.3f %12.3f %8.2f %5d %s %.3f s" % (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
      j["latency_s"] * 1e3, s["bound_s"] * 1e3, j["speedup"], j["cim_ops"], s["status"], s["seconds"]))
EOF
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
