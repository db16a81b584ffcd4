#!/usr/bin/env bash
# Peak resident set (ru_maxrss of the finished process, via wait4) of hetcim against ONNX Runtime
# (npm onnxruntime-node, bench/exec/ort_bench.js) running the same ONNX file on the same input,
# and of `hetcim partition` on the seed-000 grid's largest problems (issue 15, item 4).
# Each row is the median over ROUNDS processes. A process's peak includes its runtime: the
# `baseline` rows are each engine with no model (`hetcim --version`; node with onnxruntime-node
# loaded), and the table gives the peak above that baseline as well as the whole peak.
#   bench/memory/peak_rss.sh [BUILD_DIR]        (default build/release; needs bin/hetcim)
#   env: MODELS="resnet18 resnet50 mobilenetv2 yolov5n" PRECISIONS="fp32 int8" ROUNDS=5 OUT=DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build/release}"
hetcim="$build/bin/hetcim"
[ -x "$hetcim" ] || { echo "peak_rss: $hetcim not found (build the hetcim target first)" >&2; exit 1; }
MODELS="${MODELS:-resnet18 resnet50 mobilenetv2 yolov5n}"
PRECISIONS="${PRECISIONS:-fp32 int8}"
ROUNDS="${ROUNDS:-5}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
exec_dir="$root/bench/exec"
if [ ! -d "$exec_dir/node_modules/onnxruntime-node" ]; then
  (cd "$exec_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund --silent)
fi

# Median peak RSS in MB of ROUNDS runs of a command (stdout and stderr discarded; a failing
# command fails the script).
peak_mb() {
  /usr/bin/python3 - "$ROUNDS" "$@" <<'PY'
import os, statistics, subprocess, sys
rounds, cmd = int(sys.argv[1]), sys.argv[2:]
peaks = []
for _ in range(rounds):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("peak_rss: failed: " + " ".join(cmd))
    peaks.append(usage.ru_maxrss / 1024.0)  # Linux: kilobytes
print("%.1f" % statistics.median(peaks))
PY
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), rounds $ROUNDS"
h0="$(peak_mb "$hetcim" --version)"
o0="$(peak_mb node -e "require('$exec_dir/node_modules/onnxruntime-node')")"
printf 'row\thetcim_mb\tort_mb\tratio\thetcim_above_base_mb\tort_above_base_mb\tratio_above_base\n'
printf 'baseline (no model)\t%s\t%s\t-\t0\t0\t-\n' "$h0" "$o0"
for model in $MODELS; do
  shape="$("$hetcim" models | awk -v m="$model" '$1 == m { print $2 }')"
  /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(12345).uniform(-1, 1, [int(d) for d in sys.argv[2].split('x')]).astype(np.float32))" \
    "$OUT/$model.input.npy" "$shape"
  for precision in $PRECISIONS; do
    file="$OUT/$model.$precision.onnx"
    if [ "$precision" = int8 ]; then
      "$hetcim" export "$model" --int8 --onnx "$file" > /dev/null
    else
      "$hetcim" export "$model" --onnx "$file" > /dev/null
    fi
    h="$(peak_mb "$hetcim" run "$file" --precision "$precision" --threads 1 --warmup 0 --runs 3 --input "$OUT/$model.input.npy")"
    o="$(peak_mb node "$exec_dir/ort_bench.js" "$file" 1 0 3 "$shape" 1 "$OUT/$model.input.npy" "$OUT/$model.ort.npy")"
    awk -v r="run $model $precision" -v h="$h" -v o="$o" -v h0="$h0" -v o0="$o0" \
      'BEGIN { printf "%s\t%s\t%s\t%.2f\t%.1f\t%.1f\t%.2f\n", r, h, o, h / o, h - h0, o - o0, (h - h0) / (o - o0) }'
  done
done
# The partition rows: no peer (the goal is an absolute 60 MB); the 128-point grid's costliest
# points (YOLOv5n, both hosts, the smallest and largest budget and MVM latency).
for host in seed000-arm seed000-x86; do
  for cfg in "50 50ns" "50 500ns" "200 500ns"; do
    set -- $cfg
    p="$(peak_mb "$hetcim" partition yolov5n --preset "$host" --crossbars "$1" --t-mvm "$2")"
    printf 'partition yolov5n %s C=%s T=%s\t%s\t-\t-\t%.1f\t-\t-\n' "$host" "$1" "$2" "$p" "$(awk -v p="$p" -v b="$h0" 'BEGIN { print p - b }')"
  done
done
