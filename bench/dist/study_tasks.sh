#!/usr/bin/env bash
# The per-task cost distribution of `hetcim analog study` (issue 15 scope 5): the study of
# study_scaling.sh (2 models x (digital + A0..A3) x (2000 held-out calibration + 500 test images)
# = 20 simulations in one dist::run_queue) as one process, ROUNDS times, each simulation's wall
# time read from the stderr line it prints ("simulated ... (task I, model M): S s wall"), with the
# load average before every run; then `model.py study OUT` models W ranks from the medians.
#   HETCIM=path/to/hetcim ROUNDS=3 OUT=dir bench/dist/study_tasks.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-$(mktemp -d)}"
export SOURCE_DATE_EPOCH=1700000000
args=(analog study --chips "$here/../../data/chips.yaml" --pool A0,A1,A2,A3 --models 2
      --preset fast --epochs 1 --train-limit 2000 --holdout 2000 --hardware 500 --policy 500
      --certificate 1000 --test 500 --availability 1 --seed 1 --split-seed 1 --threads 1)
mkdir -p "$OUT/trained"
(cd "$OUT/trained" && "$HETCIM" "${args[@]}" --quiet --out out > /dev/null)
echo "ranks,round,wall_s,load1_before" > "$OUT/runs.csv"
now() { date +%s.%N; }
for r in $(seq 1 "$ROUNDS"); do
  dir="$OUT/np1-$r"
  mkdir -p "$dir/out"
  cp -r "$OUT/trained/out/models" "$dir/out/models"
  load=$(cut -d' ' -f1 /proc/loadavg)
  start=$(now)
  (cd "$dir" && "$HETCIM" "${args[@]}" --out out > stdout 2> stderr)
  end=$(now)
  echo "1,$r,$(python3 -c "print(round($end - $start, 3))"),$load" >> "$OUT/runs.csv"
done
python3 "$here/model.py" study "$OUT"
