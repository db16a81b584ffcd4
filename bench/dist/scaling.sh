#!/usr/bin/env bash
# `hetcim dse` on 1 process against `mpirun -np 2 hetcim dse` (1 solver thread per rank) on seed
# 000's 128-point grid (exact solver, no cache, no figures), alternating, ROUNDS times each; the
# load average is recorded before every run (the machine is shared). Then the model of larger runs:
# bench/dist/model.py replays the measured per-point solve times of the 1-process runs through the
# queue's hand-out order on W workers.
#   HETCIM=path/to/hetcim ROUNDS=5 OUT=dir bench/dist/scaling.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
ROUNDS="${ROUNDS:-5}"
OUT="${OUT:-$(mktemp -d)}"
MPIEXEC="${MPIEXEC:-mpirun}"
mpi=("$MPIEXEC" --oversubscribe)
if [ "$(id -u)" = 0 ]; then mpi+=(--allow-run-as-root); fi
args=(dse --no-cache --no-figures --quiet --threads 1)
echo "ranks,round,wall_s,load1_before" > "$OUT/runs.csv"
now() { date +%s.%N; }
for r in $(seq 1 "$ROUNDS"); do
  for n in 1 2; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    dir="$OUT/np$n-$r"
    start=$(now)
    if [ "$n" = 1 ]; then
      "$HETCIM" "${args[@]}" --out "$dir" > "$dir.stdout"
    else
      "${mpi[@]}" -np "$n" "$HETCIM" "${args[@]}" --out "$dir" > "$dir.stdout"
    fi
    end=$(now)
    echo "$n,$r,$(python3 -c "print(round($end - $start, 3))"),$load" >> "$OUT/runs.csv"
  done
done
# Rank 0's own work per point (building each problem for its cache key, reading the cache):
# runs of the whole grid and of 4 points, all read from a warm cache, in one process.
echo "points,wall_s" > "$OUT/warm.csv"
"$HETCIM" dse --no-figures --quiet --threads 1 --out "$OUT/warm" > /dev/null
"$HETCIM" dse --no-figures --quiet --threads 1 --crossbars 25 --t-mvm 50ns --hosts arm \
  --out "$OUT/warm" > /dev/null
for r in $(seq 1 "$ROUNDS"); do
  for grid in 128 4; do
    extra=()
    if [ "$grid" = 4 ]; then extra=(--crossbars 25 --t-mvm 50ns --hosts arm); fi
    start=$(now)
    "$HETCIM" dse --no-figures --quiet --threads 1 "${extra[@]}" --out "$OUT/warm" > /dev/null
    end=$(now)
    echo "$grid,$(python3 -c "print(round($end - $start, 3))")" >> "$OUT/warm.csv"
  done
done
# A run of MPI's startup alone (hetcim --version is not an MPI program; `true` on 2 ranks).
start=$(now); "${mpi[@]}" -np 2 true; end=$(now)
echo "mpirun -np 2 true: $(python3 -c "print(round($end - $start, 3))") s"
python3 "$here/model.py" "$OUT"
