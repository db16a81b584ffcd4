#!/usr/bin/env bash
# `mpirun -np 2 hetcim analog select` against one process: a tiny model trained here, a two-chip
# pool (3 simulations: the digital model and two chips, on the first 500 test images), with
# a logit cache. The JSON, stdout and every cache entry rank 0 wrote are the same bytes (the
# simulations are seeded per unit; SOURCE_DATE_EPOCH fixes the provenance date), and rank 1 ran
# some of the simulations. Needs Fashion-MNIST (Debian's dataset-fashion-mnist): skipped without
# it, failed without it when HETCIM_REQUIRE_DATA=1.
# usage: mpi_select_test.sh HETCIM MPIEXEC
set -euo pipefail
hetcim=$1
mpiexec=$2
if [ ! -f /usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz ]; then
  if [ "${HETCIM_REQUIRE_DATA:-0}" = 1 ]; then echo "FAIL: Fashion-MNIST missing" >&2; exit 1; fi
  echo "SKIP: Fashion-MNIST missing (dataset-fashion-mnist)"
  exit 77
fi
# --bind-to none: Open MPI binds each of 2 ranks to one core by default, and libtorch's float
# results (the digital model's convolutions) depend on the CPUs a process may use: bound, they
# differ from an unbound run in the last bits (seen here: 1e-9 relative). The one-process run is
# unbound, so the ranks are too.
mpi=("$mpiexec" --oversubscribe --bind-to none)
if [ "$(id -u)" = 0 ]; then mpi+=(--allow-run-as-root); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000
fail() { echo "FAIL: $*" >&2; exit 1; }

"$hetcim" train race-cnn --dataset fashion-mnist --epochs 1 --train-limit 1000 --batch-size 64 \
  --eval-limit 128 --seed 5 --quiet --out "$work/tiny.onnx"
args=(analog select "$work/tiny.onnx" --chips "$(dirname "$0")/../../data/chips.yaml"
      --pool A0,A5 --calibration test --limit 500 --hardware 150 --policy 150 --certificate 150
      --test 50 --split-seed 3 --seed 11 --read-seed 4 --threads 1 --cache cache --json select.json)
mkdir -p "$work/one" "$work/two"
(cd "$work/one" && "$hetcim" "${args[@]}" > stdout 2> stderr)
# --output-filename: each rank's stdout and stderr in ranks/1/rank.N/, whole lines (--tag-output
# prefixes each chunk Open MPI forwards, so under load a long line could be split by a tag: this
# test failed that way now and then).
(cd "$work/two" && "${mpi[@]}" --output-filename ranks -np 2 "$hetcim" "${args[@]}" > /dev/null 2>&1) ||
  { cat "$work"/two/ranks/1/rank.*/stderr; fail "2 ranks"; }
r0=$work/two/ranks/1/rank.0
r1=$work/two/ranks/1/rank.1
cp "$r0/stdout" "$work/two/stdout"
[ -s "$r1/stdout" ] && fail "rank 1 wrote to stdout"
grep -q '^simulating' "$r1/stderr" || fail "rank 1 simulated nothing"
[ "$(cat "$r0/stderr" "$r1/stderr" | grep -c "^simulating")" = 3 ] || fail "expected 3 simulations"
cmp "$work/one/select.json" "$work/two/select.json" || fail "select.json differs"
cmp "$work/one/stdout" "$work/two/stdout" || { diff "$work/one/stdout" "$work/two/stdout"; fail "stdout differs"; }
[ "$(ls "$work/one/cache" | wc -l)" = 3 ] || fail "expected 3 cache entries"
diff -r "$work/one/cache" "$work/two/cache" || fail "the cache entries differ"
echo "PASS: select.json, stdout and 3 cache entries identical; rank 1: $(grep -c '^simulating' "$r1/stderr") simulations"
