#!/usr/bin/env bash
# Issue 37 scope 2: seed 000's YOLOv5n grid points with `--replicas 4` (the points of the grid
# that took over 0.5 s with replicas; the other models' points take milliseconds), each solved by
# one `hetcim partition` run, as `hetcim dse --replicas 4` solves them: status, latency, bound,
# solve seconds and assignment nodes from the JSON, CPU seconds of the process.
#   HETCIM=path/to/hetcim BUS=parallel|serial LIMIT=10s HOSTS='x86 arm' \
#     CROSSBARS='25 50 100 200' TMVM='50ns 100ns 500ns 1000ns' bench/partition/replicas_points.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
BUS="${BUS:-parallel}"
LIMIT="${LIMIT:-10s}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg) bus=$BUS limit=$LIMIT"
printf '%-4s %5s %7s %-8s %10s %10s %8s %9s %7s\n' host xbars t_mvm status latency_ms bound_ms solve_s nodes cpu_s
for host in ${HOSTS:-x86 arm}; do
  for c in ${CROSSBARS:-25 50 100 200}; do
    for t in ${TMVM:-50ns 100ns 500ns 1000ns}; do
      /usr/bin/time -f '%U %S' -o "$work/t" "$HETCIM" partition yolov5n --preset "seed000-$host" \
        --crossbars "$c" --t-mvm "$t" --replicas 4 --bus-model "$BUS" --time-limit "$LIMIT" \
        --json "$work/p.json" --quiet >/dev/null
      read -r u s <"$work/t"
      /usr/bin/python3 - "$work/p.json" "$host" "$c" "$t" "$u" "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["solver"]
print(f"{sys.argv[2]:<4} {sys.argv[3]:>5} {sys.argv[4]:>7} {s['status']:<8} {d['latency_s'] * 1e3:10.4f} "
      f"{s['bound_s'] * 1e3:10.4f} {s['seconds']:8.3f} {s['nodes']:9d} {float(sys.argv[5]) + float(sys.argv[6]):7.2f}")
PY
    done
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
