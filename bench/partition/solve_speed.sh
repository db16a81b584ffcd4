#!/usr/bin/env bash
# Issue 15 item 2: the two-device exact solver's hardest cases, this build next to a peer build
# (another commit of hetcim), alternating runs so that load hits both alike. Reports the median
# over RUNS of the process's CPU seconds (user + sys; steadier than wall time on a shared
# machine) and of its wall seconds, with the load average before and after.
#   HETCIM=path/to/hetcim  PEER=path/to/other/hetcim  RUNS=5  bench/partition/solve_speed.sh
# The 128-point grid is timed as wall seconds of `dse` (2 threads), which is what its goal names.
# CASES=regex keeps the cases whose name matches (e.g. CASES='^front$|^front-full$' for the two
# fronts without replicas; a PEER without `--front` fails the front-full cases: leave PEER empty
# then). The three replicas cases at 100 crossbars cost tens of CPU seconds each (bench/README.md,
# session 9): CASES='^(grid|serial|front$|front-full$)' leaves them out. limited-replicas is the grid's
# one point no solve finishes within 600 s (200 crossbars, 500 ns) cut at a fixed amount of work
# (--node-limit 3000000: the same nodes in both builds if their search paths agree).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
PEER="${PEER:-}"
RUNS="${RUNS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cases=(
  "grid-point|partition yolov5n --preset seed000-x86 --crossbars 50 --t-mvm 500ns --quiet"
  "front|partition yolov5n --preset seed000-x86 --crossbars 100 --t-mvm 500ns --pareto $work/f.json --quiet"
  "front-full|partition yolov5n --preset seed000-x86 --crossbars 100 --t-mvm 500ns --pareto $work/ff.json --front full --quiet"
  "serial-replicas|partition yolov5n --preset seed000-x86 --bus-model serial --replicas 4 --transfers per-tensor --quiet"
  "point-replicas|partition yolov5n --preset seed000-x86 --crossbars 100 --t-mvm 500ns --replicas 4 --quiet"
  "limited-replicas|partition yolov5n --preset seed000-x86 --crossbars 200 --t-mvm 500ns --replicas 4 --node-limit 3000000 --quiet"
  "front-replicas|partition yolov5n --preset seed000-x86 --crossbars 100 --t-mvm 500ns --replicas 4 --pareto $work/fr.json --quiet"
  "front-full-replicas|partition yolov5n --preset seed000-x86 --crossbars 100 --t-mvm 500ns --replicas 4 --pareto $work/ffr.json --front full --quiet"
  "grid-parallel|dse --no-cache --no-figures --bus-model parallel --out $work/gp"
  "grid-serial|dse --no-cache --no-figures --bus-model serial --out $work/gs"
)
median() { /usr/bin/python3 -c "import sys,statistics; print(round(statistics.median(float(x) for x in sys.argv[1:]), 3))" "$@"; }
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg) runs=$RUNS"
printf '%-20s %-8s %10s %10s\n' case build cpu_s wall_s
for c in "${cases[@]}"; do
  name="${c%%|*}"
  args="${c#*|}"
  [[ "$name" =~ ${CASES:-.} ]] || continue
  declare -A cpu=() wall=()
  builds=(this)
  [ -n "$PEER" ] && builds+=(peer)
  for ((i = 0; i < RUNS; ++i)); do
    for b in "${builds[@]}"; do
      bin=$([ "$b" = this ] && echo "$HETCIM" || echo "$PEER")
      # shellcheck disable=SC2086
      /usr/bin/time -f '%U %S %e' -o "$work/t" "$bin" $args >/dev/null 2>&1
      read -r u s e <"$work/t"
      cpu[$b]+="$(/usr/bin/python3 -c "print($u + $s)") "
      wall[$b]+="$e "
    done
  done
  for b in "${builds[@]}"; do
    # shellcheck disable=SC2086
    printf '%-20s %-8s %10s %10s\n' "$name" "$b" "$(median ${cpu[$b]})" "$(median ${wall[$b]})"
  done
  unset cpu wall
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
