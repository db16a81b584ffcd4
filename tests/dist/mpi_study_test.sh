#!/usr/bin/env bash
# `mpirun -np 2 hetcim analog study` against one process: two tiny models trained here (rank 0
# trains, the other rank waits), a two-chip pool, so 12 simulations (2 models x (digital, A0, A5)
# x (calibration, test part)) in one queue over both ranks. study.json, study.txt, report.html,
# the SVG figures, stdout, the models and every cache entry are the same bytes (seeded per model
# and unit; SOURCE_DATE_EPOCH fixes the provenance date), and rank 1 ran some of the simulations.
# Not compared: models/*.train.json (they record the training's wall time) and the PDF figures
# (gnuplot's PDF embeds its creation date). Needs Fashion-MNIST: skipped without it, failed
# without it when HETCIM_REQUIRE_DATA=1.
# usage: mpi_study_test.sh HETCIM MPIEXEC
set -euo pipefail
hetcim=$1
mpiexec=$2
if [ ! -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
  if [ "${HETCIM_REQUIRE_DATA:-0}" = 1 ]; then echo "FAIL: Fashion-MNIST missing" >&2; exit 1; fi
  echo "SKIP: Fashion-MNIST missing (dataset-fashion-mnist)"
  exit 77
fi
# --bind-to none: see mpi_select_test.sh (libtorch's float results depend on the CPUs a process
# may use; the one-process run is unbound, so the ranks are too).
mpi=("$mpiexec" --oversubscribe --bind-to none)
if [ "$(id -u)" = 0 ]; then mpi+=(--allow-run-as-root); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000
fail() { echo "FAIL: $*" >&2; exit 1; }

args=(analog study --chips "$(dirname "$0")/../../data/chips.yaml" --pool A0,A5 --models 2
      --preset fast --epochs 1 --train-limit 1000 --holdout 1000 --hardware 200 --policy 300
      --certificate 400 --test 100 --availability 1 --batch-size 64 --seed 3 --split-seed 2
      --threads 1 --out out)
mkdir -p "$work/one" "$work/two"
(cd "$work/one" && "$hetcim" "${args[@]}" > stdout 2> stderr) || { cat "$work/one/stderr"; fail "one process"; }
# --output-filename: each rank's stdout and stderr in ranks/1/rank.N/ (whole lines; --tag-output
# may split a long line of the table).
(cd "$work/two" && "${mpi[@]}" --output-filename ranks -np 2 "$hetcim" "${args[@]}" > /dev/null 2>&1) ||
  { cat "$work"/two/ranks/1/rank.*/stderr; fail "2 ranks"; }
r0=$work/two/ranks/1/rank.0
r1=$work/two/ranks/1/rank.1
cp "$r0/stdout" "$work/two/stdout"
[ -s "$r1/stdout" ] && fail "rank 1 wrote to stdout"
grep -q '^training' "$r1/stderr" && fail "rank 1 trained"
grep -q '^simulating' "$r1/stderr" || fail "rank 1 simulated nothing"
[ "$(cat "$r0/stderr" "$r1/stderr" | grep -c "^simulating")" = 12 ] || fail "expected 12 simulations"
[ "$(grep -c "^simulating" "$work/one/stderr")" = 12 ] || fail "expected 12 simulations (one process)"
cmp "$work/one/stdout" "$work/two/stdout" || { diff "$work/one/stdout" "$work/two/stdout"; fail "stdout differs"; }
for f in study.json study.txt report.html fig2a_certificates.svg fig2b_design_risk.svg \
         fig2c_availability.svg fig2d_fallback.svg fig2a_certificates.png models/run1.onnx models/run2.onnx; do
  cmp "$work/one/out/$f" "$work/two/out/$f" || fail "$f differs"
done
[ "$(ls "$work/one/out/cache" | wc -l)" = 12 ] || fail "expected 12 cache entries"
diff -r "$work/one/out/cache" "$work/two/out/cache" || fail "the cache entries differ"
grep -q '"logits": "simulated (hetcim xbar, classifier layers on chip) 12 now, 0 from' \
  "$work/two/out/study.json" || fail "study.json's provenance does not count 12 simulations"
echo "PASS: study.json, study.txt, report.html, figures, stdout, models and 12 cache entries identical; rank 1: $(grep -c '^simulating' "$r1/stderr") simulations"
