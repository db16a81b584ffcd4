#!/bin/sh
# Accuracy-budgeted partitions (issue 13): for each chip, the sensitivity of MODEL (hetcim
# sensitivity), then the latency-optimal plan and the plans at each accuracy budget (hetcim
# partition --sensitivity --max-accuracy-drop), each re-evaluated on the chip's calibration images
# and, with a budget, tightened until the upper end of its measured drop's interval fits; with a
# data set, every plan is then run on the test images (hetcim execute); a table of latency,
# energy, predicted and measured drop (table.py).
#
# usage: bench/accuracy/accuracy_budget.sh BUILD_DIR MODEL OUT_DIR
# env:   DATASET (fashion-mnist | synthetic), SAMPLES (calibration images), COST (top1 | logit),
#        TEST_SAMPLES (test images for hetcim execute, 0 = all; data sets only), CHIPS
#        ("A0 A1 ..."), BUDGETS ("0.5% 1% ..."), PAIRS (pairwise checks, 0 = none), PRESET
#        (seed000-arm), JOBS (chips in parallel), EVAL_SAMPLES and EVAL_SEED (synthetic only: every
#        plan measured once more on EVAL_SAMPLES inputs of seed EVAL_SEED, none of which is a
#        calibration input: hetcim partition --eval-samples; 0 = none), INPUT_SEED (synthetic
#        calibration inputs, 1)
set -eu
build=$1
model=$2
out=$3
DATASET=${DATASET:-fashion-mnist}
SAMPLES=${SAMPLES:-1000}
CHIPS=${CHIPS:-"A0 A1 A2 A3 A4 A5"}
BUDGETS=${BUDGETS:-"0.5% 1% 2% 5%"}
PAIRS=${PAIRS:-0}
COST=${COST:-top1}
TEST_SAMPLES=${TEST_SAMPLES:-0}
PRESET=${PRESET:-seed000-arm}
JOBS=${JOBS:-1}
EVAL_SAMPLES=${EVAL_SAMPLES:-0}
EVAL_SEED=${EVAL_SEED:-2}
INPUT_SEED=${INPUT_SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
chips="$here/../../data/chips.yaml"
hetcim="$build/bin/hetcim"
mkdir -p "$out/cache"
uptime > "$out/load-start.txt"

one_chip() {
  chip=$1
  seed=""
  if [ "$DATASET" = synthetic ]; then seed="--input-seed $INPUT_SEED"; fi
  # shellcheck disable=SC2086
  "$hetcim" sensitivity "$model" --chip "$chips:$chip" --dataset "$DATASET" --samples "$SAMPLES" \
    $seed --max-pairs "$PAIRS" --cost "$COST" --cache "$out/cache" --quiet --out "$out/sens_$chip.json"
  eval=""
  if [ "$EVAL_SAMPLES" != 0 ]; then eval="--eval-samples $EVAL_SAMPLES --eval-seed $EVAL_SEED"; fi
  # shellcheck disable=SC2086
  "$hetcim" partition "$model" --preset "$PRESET" --chip "$chips:$chip" \
    --sensitivity "$out/sens_$chip.json" --cache "$out/cache" --quiet $eval --json "$out/plan_${chip}_none.json"
  for b in $BUDGETS; do
    # shellcheck disable=SC2086
    "$hetcim" partition "$model" --preset "$PRESET" --chip "$chips:$chip" \
      --sensitivity "$out/sens_$chip.json" --max-accuracy-drop "$b" --cache "$out/cache" --quiet \
      $eval --json "$out/plan_${chip}_$b.json"
  done
  if [ "$DATASET" != synthetic ]; then
    for b in none $BUDGETS; do
      "$hetcim" execute "$model" --plan "$out/plan_${chip}_$b.json" --chip "$chips:$chip" \
        --dataset "$DATASET" --split test --limit "$TEST_SAMPLES" --quiet \
        --json "$out/exec_${chip}_$b.json"
    done
  fi
}

running=0
for chip in $CHIPS; do
  one_chip "$chip" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait
    running=0
  fi
done
wait
uptime > "$out/load-end.txt"
python3 "$here/table.py" "$out" $CHIPS > "$out/table.md"
cat "$out/table.md"
