#!/usr/bin/env bash
# `mpirun -np 2 hetcim dse` against `hetcim dse` in one process, on a small grid (two models, two
# hosts, 2 x 2 crossbar budgets and MVM latencies: 16 points) on this machine.
#  1. No cache to start with: dse.csv, dse.json and every cache entry rank 0 wrote are the same
#     bytes as the single process's once the measured solve times (solve_s in the CSV and JSON,
#     exact_solve_s_this_run, "seconds" in cache entries) are replaced by one mark: those differ
#     between any two runs, one process or several. Rank 1 must have solved some points.
#  2. The same cache (that of step 1, copied) in both runs: every file, figures and report.html
#     included, is the same bytes, but for the PDF figures' CreationDate (cairo 1.16, Debian 12's,
#     writes the wall clock and ignores SOURCE_DATE_EPOCH: two single-process runs differ there
#     too), which is masked.
#  3. A model file that is damaged on rank 1's "node" (its working directory): every rank ends,
#     exit 1, rank 0 names rank 1 and the file, and no output directory is left.
# usage: mpi_dse_test.sh HETCIM MPIEXEC
set -euo pipefail
hetcim=$1
mpiexec=$2
# As root (CI containers) Open MPI refuses to start without --allow-run-as-root; --oversubscribe
# allows 2 ranks on a machine with fewer free slots.
mpi=("$mpiexec" --oversubscribe)
if [ "$(id -u)" = 0 ]; then mpi+=(--allow-run-as-root); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000  # the provenance date of both runs
grid=(dse --models resnet18,mobilenetv2 --hosts arm,x86 --crossbars 25,100 --t-mvm 50ns,500ns
      --threads 1 --quiet --out out)
fail() { echo "FAIL: $*" >&2; exit 1; }

# The measured times replaced by T (CSV: the solve_s column, found by its header).
mask() {
  case "$1" in
    *.csv) awk -F, -v OFS=, '/^#/ {print; next}
             !c {for (i = 1; i <= NF; i++) if ($i == "solve_s") c = i; print; next}
             {$c = "T"; print}' "$1" ;;
    *) sed -E 's/"(solve_s|exact_solve_s_this_run|seconds)": ?[-0-9.eE+]+/"\1":T/g' "$1" ;;
  esac
}
same_masked() {  # same_masked A B
  cmp -s <(mask "$1") <(mask "$2") || { diff <(mask "$1") <(mask "$2") | head -20; fail "$1 != $2"; }
}

# The example Slurm script at least parses (there is no Slurm here to run it).
bash -n "$(dirname "$0")/../../examples/slurm/dse.sbatch" || fail "examples/slurm/dse.sbatch"

echo "== 1. cold: 1 process vs 2 ranks"
mkdir -p "$work/one" "$work/two"
(cd "$work/one" && "$hetcim" "${grid[@]}" --no-figures > stdout)
(cd "$work/two" && "${mpi[@]}" -np 2 "$hetcim" "${grid[@]}" --no-figures > stdout)
line=$(grep "solved on 2 MPI ranks" "$work/two/stdout") || fail "the 2-rank run did not run on 2 ranks"
echo "$line"
rank1=$(sed -E 's/.*points solved per rank: [0-9]+, ([0-9]+)\).*/\1/' <<<"$line")
[ "$rank1" -gt 0 ] || fail "rank 1 solved no point"
for f in dse.csv dse.json; do same_masked "$work/one/out/$f" "$work/two/out/$f"; done
grep -q '"solve_s"' "$work/one/out/dse.json" || fail "dse.json has no solve_s to mask"
[ "$(ls "$work/one/out/cache" | wc -l)" = 16 ] || fail "expected 16 cache entries"
[ "$(ls "$work/one/out/cache")" = "$(ls "$work/two/out/cache")" ] || fail "cache keys differ"
for f in "$work/one/out/cache"/*.json; do same_masked "$f" "$work/two/out/cache/$(basename "$f")"; done

echo "== 2. warm: the same cache in both runs, figures and report included"
mkdir -p "$work/three/out" "$work/four/out"
cp -r "$work/one/out/cache" "$work/three/out/"
cp -r "$work/one/out/cache" "$work/four/out/"
(cd "$work/three" && "$hetcim" "${grid[@]}" > stdout)
(cd "$work/four" && "${mpi[@]}" -np 2 "$hetcim" "${grid[@]}" > stdout)
grep -q "solved on 2 MPI ranks" "$work/four/stdout" || fail "the warm 2-rank run did not run on 2 ranks"
[ -f "$work/three/out/report.html" ] || fail "no report.html"
diff -r -x '*.pdf' "$work/three/out" "$work/four/out" || fail "the warm runs' files differ"
pdf_date() { perl -pe 's/CreationDate \(D:\d+Z\)/CreationDate (D:T)/' "$1"; }
for f in "$work/three/out/figures"/*.pdf; do
  cmp -s <(pdf_date "$f") <(pdf_date "$work/four/out/figures/$(basename "$f")") || fail "$f differs"
done
echo "identical: $(cd "$work/three/out" && find . -type f | wc -l) files"

echo "== 3. a model damaged on rank 1's node"
mkdir -p "$work/bad/n0" "$work/bad/n1"
"$hetcim" export resnet18 --onnx "$work/bad/n0/m.onnx" > /dev/null
head -c 1000 "$work/bad/n0/m.onnx" > "$work/bad/n1/m.onnx"
bad=(dse --models m.onnx --hosts arm --crossbars 25,100 --t-mvm 50ns --quiet --out "$work/bad/out")
set +e
(cd "$work/bad" && "${mpi[@]}" -np 1 --wdir n0 "$hetcim" "${bad[@]}" : -np 1 --wdir n1 "$hetcim" \
  "${bad[@]}" > stdout 2> stderr)
rc=$?
set -e
cat "$work/bad/stderr" | head -3
[ "$rc" -ne 0 ] || fail "exit 0 with a damaged model on rank 1"
grep -q "hetcim: error: rank 1: m.onnx: not a valid ONNX model" "$work/bad/stderr" ||
  fail "no clear error naming rank 1 and the file"
[ ! -e "$work/bad/out" ] || fail "an output directory was left"
echo PASS
