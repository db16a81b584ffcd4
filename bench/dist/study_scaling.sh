#!/usr/bin/env bash
# `hetcim analog study` as one process against `mpirun -np 2` (libtorch 1 thread per rank): the
# chip Monte-Carlo of 2 models x (digital + 4 chips A0..A3) x (calibration, test part) = 20
# simulations on 2000 held-out + 500 test Fashion-MNIST images, in one queue. The models are
# trained once beforehand and copied into every run's --out (so each run is the Monte-Carlo and
# the protocol replay, no training, no cache), alternating 1 and 2 ranks, ROUNDS times each, with
# the load average before every run (the machine is shared). The outputs of the two are compared.
#   HETCIM=path/to/hetcim ROUNDS=3 OUT=dir bench/dist/study_scaling.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$(mktemp -d)}"
MPIEXEC="${MPIEXEC:-mpirun}"
mpi=("$MPIEXEC" --oversubscribe --bind-to none)
if [ "$(id -u)" = 0 ]; then mpi+=(--allow-run-as-root); fi
export SOURCE_DATE_EPOCH=1700000000
args=(analog study --chips "$here/../../data/chips.yaml" --pool A0,A1,A2,A3 --models 2
      --preset fast --epochs 1 --train-limit 2000 --holdout 2000 --hardware 500 --policy 500
      --certificate 1000 --test 500 --availability 1 --seed 1 --split-seed 1 --threads 1 --quiet)
# The models, trained once (this run's simulations are discarded).
mkdir -p "$OUT/trained"
(cd "$OUT/trained" && "$HETCIM" "${args[@]}" --out out > /dev/null)
echo "ranks,round,wall_s,load1_before" > "$OUT/runs.csv"
now() { date +%s.%N; }
for r in $(seq 1 "$ROUNDS"); do
  for n in 1 2; do
    dir="$OUT/np$n-$r"  # every run writes to the relative --out "out", so the files can match
    mkdir -p "$dir/out"
    cp -r "$OUT/trained/out/models" "$dir/out/models"
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(now)
    if [ "$n" = 1 ]; then
      (cd "$dir" && "$HETCIM" "${args[@]}" --out out > stdout)
    else
      (cd "$dir" && "${mpi[@]}" -np "$n" "$HETCIM" "${args[@]}" --out out > stdout)
    fi
    end=$(now)
    echo "$n,$r,$(python3 -c "print(round($end - $start, 3))"),$load" >> "$OUT/runs.csv"
    for f in study.json study.txt stdout; do
      [ "$f" = stdout ] && a="$OUT/np1-1/stdout" b="$dir/stdout" || a="$OUT/np1-1/out/$f" b="$dir/out/$f"
      cmp "$a" "$b" || echo "WARNING: $b differs from the first 1-process run" >&2
    done
  done
done
python3 - "$OUT/runs.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {n: statistics.median(float(r["wall_s"]) for r in rows if r["ranks"] == n) for n in ("1", "2")}
loads = [float(r["load1_before"]) for r in rows]
print(f"load average before the runs: {min(loads)} to {max(loads)}")
for n in ("1", "2"):
    print(f"{n} rank(s): median wall {med[n]:.2f} s, speedup {med['1'] / med[n]:.2f}, "
          f"efficiency {med['1'] / med[n] / int(n):.2f}")
PY
