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
# Both engines read the same input file ($OUT/MODEL.input.npy: float32, uniform in [-1, 1) from a
# fixed seed) and write their first output; before any ratio is printed for a row the script
# checks that the two outputs agree: largest absolute difference <= TOL x the largest |ORT output|
# (TOL_FP32, default 1e-3; TOL_INT8, default 0.05: int8 kernels may round an intermediate value
# one quantisation step differently). A row whose outputs differ stops the script.
#
#   bench/exec/ort_compare.sh [BUILD_DIR]        (default build/release; needs bin/hetcim)
#   env: MODELS="resnet18 resnet50 mobilenetv2 yolov5n" PRECISIONS="fp32 int8" THREADS="1 2"
#        ROUNDS=5 WARMUP=10 RUNS=30 OUT=bench/exec/results TOL_FP32=1e-3 TOL_INT8=0.05
#        SPIN=1: both thread pools spin-wait between parallel regions (each engine's default);
#        SPIN=0: neither does (hetcim: OMP_WAIT_POLICY=PASSIVE for libgomp, which oneDNN uses;
#        ORT: session.intra_op.allow_spinning=0). On a machine shared with other jobs, spinning
#        threads that wait for a descheduled peer waste whole time slices: use SPIN=0 there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
hetcim="$build/bin/hetcim"
[ -x "$hetcim" ] || { echo "ort_compare: $hetcim not found (build the hetcim target first)" >&2; exit 1; }
MODELS="${MODELS:-resnet18 resnet50 mobilenetv2 yolov5n}"
PRECISIONS="${PRECISIONS:-fp32 int8}"
THREADS="${THREADS:-1 2}"
ROUNDS="${ROUNDS:-5}"
WARMUP="${WARMUP:-10}"
RUNS="${RUNS:-30}"
SPIN="${SPIN:-1}"
TOL_FP32="${TOL_FP32:-1e-3}"
TOL_INT8="${TOL_INT8:-0.05}"
if [ "$SPIN" = "0" ]; then hetcim_env=(env OMP_WAIT_POLICY=PASSIVE); else hetcim_env=(env); fi
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
for model in $MODELS; do
  shape="$(shape_of "$model")"
  "$hetcim" export "$model" --onnx "$OUT/$model.fp32.onnx" > /dev/null
  "$hetcim" export "$model" --int8 --onnx "$OUT/$model.int8.onnx" > /dev/null
  input="$OUT/$model.input.npy"
  node "$here/ort_bench.js" --make-input "$shape" 12345 "$input"
  for precision in $PRECISIONS; do
    file="$OUT/$model.$precision.onnx"
    if [ "$precision" = "int8" ]; then tol="$TOL_INT8"; else tol="$TOL_FP32"; fi
    for t in $THREADS; do
      base="$OUT/$model.$precision.t$t"
      for f in h_med h_min h_cpu o_med o_min o_cpu; do : > "$base.$f"; done
      for ((r = 0; r < ROUNDS; ++r)); do
        out="$("${hetcim_env[@]}" "$hetcim" run "$file" --precision "$precision" --threads "$t" --warmup "$WARMUP" --runs "$RUNS" --input "$input" --output "$base.hetcim.npy")"
        sed -n 's/^latency: median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$base.h_med"
        sed -n 's/^latency: median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\2/p' <<< "$out" >> "$base.h_min"
        sed -n 's/^cpu time: median \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$base.h_cpu"
        out="$(node "$here/ort_bench.js" "$file" "$t" "$WARMUP" "$RUNS" "$input" "$base.ort.npy" "$SPIN")"
        sed -n 's/.*"median_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_med"
        sed -n 's/.*"min_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_min"
        sed -n 's/.*"cpu_median_ms":\([0-9.e+-]*\).*/\1/p' <<< "$out" >> "$base.o_cpu"
      done
      # Same input, same answer (within tolerance), or no ratio.
      if ! check="$(node "$here/ort_bench.js" --compare "$base.hetcim.npy" "$base.ort.npy" "$tol")"; then
        echo "ort_compare: $model $precision $t threads: outputs differ: $check" >&2
        exit 1
      fi
      echo "ort_compare: $model $precision $t threads: outputs agree: $check" >&2
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
