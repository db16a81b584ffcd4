#!/usr/bin/env bash
# hetcim host engine vs ONNX Runtime (npm onnxruntime-node, all graph optimisations) on the same
# ONNX files: the zoo models exported by `hetcim export` (fp32) and `hetcim export --int8` (QDQ,
# calibrated, per-channel int8 weights). For every model x precision x thread count it alternates
# ROUNDS times between one hetcim process and one ORT process (each: WARMUP runs, then RUNS timed
# runs of batch 1), and prints per engine the median of the per-round wall-time medians, the
# minimum over all runs, and the median of the per-round CPU-time medians (process CPU time per
# run, all threads), with the ratios hetcim / ORT (<= 1.0: hetcim at least as fast). On a machine
# shared with other jobs, wall time includes waiting for a core; for 1-thread rows the CPU time
# does not, which makes it the steadier comparison there.
#
# Both engines get the same input file (a seeded .npy) and write their first output; a row's
# ratio is reported only when the outputs agree (fp32: max |hetcim - ORT| / max |ORT| <= 1e-4 and
# the same top-1; int8: within 2 output steps on >= 99.9 % of the elements, the step being the
# smallest gap between ORT's output values), otherwise the row says MISMATCH.
#
#   bench/exec/ort_compare.sh [BUILD_DIR]        (default build/release; needs bin/hetcim)
#   env CORPUS=DIR: the files of a real-exporter corpus (tests/corpus/make_corpus.py, manifest.tsv;
#        e.g. build/dev/corpus) instead of the zoo exports; each file runs at its own precision on
#        the first of its seeded inputs (NAME.in.npy). MODELS then filters corpus names.
#   env: MODELS="resnet18 resnet50 mobilenetv2 yolov5n" PRECISIONS="fp32 int8" THREADS="1 2"
#        ROUNDS=5 WARMUP=10 RUNS=30 OUT=bench/exec/results
#        SPIN=1: both thread pools spin-wait between parallel regions (each engine's default);
#        SPIN=0: neither does (hetcim: OMP_WAIT_POLICY=PASSIVE for libgomp, which oneDNN uses;
#        ORT: session.intra_op.allow_spinning=0). On a machine shared with other jobs, spinning
#        threads that wait for a descheduled peer waste whole time slices: use SPIN=0 there.
#        HETCIM_FLAGS="--no-fuse": extra flags of every `hetcim run` (the unfused baseline).
#        TIME_MISMATCH=1: time a row whose outputs disagree anyway (its MISMATCH line stays in the
#        table, above its timing row): ORT's int8 kernels saturate int16 pair sums on CPUs without
#        VNNI, so there every int8 corpus row mismatches while hetcim is exact (issue 37).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
hetcim="$build/bin/hetcim"
[ -x "$hetcim" ] || { echo "ort_compare: $hetcim not found (build the hetcim target first)" >&2; exit 1; }
CORPUS="${CORPUS:-}"
# (the manifest's `probe` rows are tests of ORT's arithmetic, not networks: left out)
if [ -n "$CORPUS" ]; then MODELS="${MODELS:-$(awk -F'\t' '$5 != "probe" {print $1}' "$CORPUS/manifest.tsv" | tr '\n' ' ')}"; fi
MODELS="${MODELS:-resnet18 resnet50 mobilenetv2 yolov5n}"
PRECISIONS="${PRECISIONS:-fp32 int8}"
THREADS="${THREADS:-1 2}"
ROUNDS="${ROUNDS:-5}"
WARMUP="${WARMUP:-10}"
RUNS="${RUNS:-30}"
SPIN="${SPIN:-1}"
if [ "$SPIN" = "0" ]; then hetcim_env=(env OMP_WAIT_POLICY=PASSIVE); else hetcim_env=(env); fi
read -r -a hetcim_flags <<< "${HETCIM_FLAGS:-}"
OUT="${OUT:-$here/results}"
mkdir -p "$OUT"

# ONNX Runtime from npm; its install script only fetches GPU extras, which ONNXRUNTIME_NODE_INSTALL=skip turns off.
if [ ! -d "$here/node_modules/onnxruntime-node" ]; then
  (cd "$here" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent)
fi

shape_of() {
  "$hetcim" models | awk -v m="$1" '$1 == m { print $2 }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

results="$OUT/ratios.spin$SPIN.tsv"
printf 'model\tprecision\tthreads\thetcim_ms\tort_ms\tratio\thetcim_min_ms\tort_min_ms\tratio_min\thetcim_cpu_ms\tort_cpu_ms\tratio_cpu\n' > "$results"
# Same-input output check of one row: prints "ok" or a reason.
check_outputs() {  # hetcim.npy ort.npy precision
  /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import sys
import numpy as np
h, o, precision = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64), sys.argv[3]
if h.size != o.size:
    print("MISMATCH: %d vs %d output elements" % (h.size, o.size)); sys.exit()
h, o = h.ravel(), o.ravel()
top1 = int(h.argmax()) == int(o.argmax())
if precision == "fp32":
    rel = float(np.abs(h - o).max() / max(np.abs(o).max(), 1e-30))
    print("ok" if rel <= 1e-4 and top1 else "MISMATCH: max rel %.3g, top-1 %s" % (rel, "same" if top1 else "differs"))
else:
    u = np.unique(o)
    step = float(np.diff(u).min()) if u.size > 1 else 1.0
    within = float((np.abs(h - o) <= 2 * step * (1 + 1e-6)).mean())
    print("ok" if within >= 0.999 and top1 else "MISMATCH: %.4f within 2 steps, top-1 %s" % (within, "same" if top1 else "differs"))
PY
}

for model in $MODELS; do
  if [ -n "$CORPUS" ]; then
    row="$(awk -F'\t' -v m="$model" '$1 == m' "$CORPUS/manifest.tsv")"
    [ -n "$row" ] || { echo "ort_compare: $model is not in $CORPUS/manifest.tsv" >&2; exit 1; }
    shape="$(cut -f4 <<< "$row")"
    precisions="$(cut -f5 <<< "$row")"
    cp "$CORPUS/$(cut -f2 <<< "$row")" "$OUT/$model.$precisions.onnx"
    /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:1])" \
      "$CORPUS/$(cut -f6 <<< "$row")" "$OUT/$model.input.npy"
  else
    shape="$(shape_of "$model")"
    precisions="$PRECISIONS"
    "$hetcim" export "$model" --onnx "$OUT/$model.fp32.onnx" > /dev/null
    "$hetcim" export "$model" --int8 --onnx "$OUT/$model.int8.onnx" > /dev/null
    /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(12345).uniform(-1, 1, [int(d) for d in sys.argv[2].split('x')]).astype(np.float32))" \
      "$OUT/$model.input.npy" "$shape"
  fi
  for precision in $precisions; do
    file="$OUT/$model.$precision.onnx"
    "${hetcim_env[@]}" "$hetcim" run "$file" "${hetcim_flags[@]}" --precision "$precision" --threads 1 --warmup 0 --runs 1 \
      --input "$OUT/$model.input.npy" --output "$OUT/$model.$precision.hetcim.npy" > /dev/null
    node "$here/ort_bench.js" "$file" 1 0 1 "$shape" "$SPIN" "$OUT/$model.input.npy" \
      "$OUT/$model.$precision.ort.npy" > /dev/null
    verdict="$(check_outputs "$OUT/$model.$precision.hetcim.npy" "$OUT/$model.$precision.ort.npy" "$precision")"
    if [ "$verdict" != "ok" ]; then
      printf '%s\t%s\t-\t%s\n' "$model" "$precision" "$verdict" | tee -a "$results"
      [ "${TIME_MISMATCH:-0}" = "1" ] || continue
    fi
    for t in $THREADS; do
      base="$OUT/$model.$precision.t$t"
      for f in h_med h_min h_cpu o_med o_min o_cpu; do : > "$base.$f"; done
      for ((r = 0; r < ROUNDS; ++r)); do
        out="$("${hetcim_env[@]}" "$hetcim" run "$file" "${hetcim_flags[@]}" --precision "$precision" --threads "$t" --warmup "$WARMUP" --runs "$RUNS" --input "$OUT/$model.input.npy")"
        sed -n 's/^latency: median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$base.h_med"
        sed -n 's/^latency: median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\2/p' <<< "$out" >> "$base.h_min"
        sed -n 's/^cpu time: median \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$base.h_cpu"
        out="$(node "$here/ort_bench.js" "$file" "$t" "$WARMUP" "$RUNS" "$shape" "$SPIN" "$OUT/$model.input.npy")"
        sed -n 's/.*"median_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_med"
        sed -n 's/.*"min_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_min"
        sed -n 's/.*"cpu_median_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_cpu"
      done
      h="$(median < "$base.h_med")"; o="$(median < "$base.o_med")"
      hm="$(sort -g "$base.h_min" | head -1)"; om="$(sort -g "$base.o_min" | head -1)"
      hc="$(median < "$base.h_cpu")"; oc="$(median < "$base.o_cpu")"
      awk -v m="$model" -v p="$precision" -v t="$t" -v h="$h" -v o="$o" -v hm="$hm" -v om="$om" -v hc="$hc" -v oc="$oc" \
        'BEGIN { printf "%s\t%s\t%s\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.2f\n", m, p, t, h, o, h / o, hm, om, hm / om, hc, oc, hc / oc }' \
        | tee -a "$results"
    done
  done
done
echo "ort_compare: wrote $results"
