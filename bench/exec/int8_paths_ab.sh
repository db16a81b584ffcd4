#!/usr/bin/env bash
# A/B of hetcim's two exact int8 paths on a CPU without VNNI, one binary: HETCIM_INT8_HALVES=1
# (two oneDNN kernels over weight halves) against hetcim's one-pass kernels (exec/int8_gemm.h).
# Per corpus file: ROUNDS alternating rounds of `hetcim run FILE --precision int8 --threads 1
# --warmup 3 --runs 10` on the file's first seeded input, OMP_WAIT_POLICY=PASSIVE; prints the median
# CPU ms per run of each path, the speedup, the wall medians, and whether the outputs are
# byte-identical (both paths are exact, so they must be).
#
#   bench/exec/int8_paths_ab.sh BUILD_DIR CORPUS_DIR NAME...   (env ROUNDS=3)
#   e.g. bench/exec/int8_paths_ab.sh build/dev build/dev/corpus resnet18_int8_eager_onednn
set -euo pipefail
bin="$1/bin/hetcim"
corpus="$2"
shift 2
rounds="${ROUNDS:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
med() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for m in "$@"; do
  /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:1])" \
    "$corpus/$m.in.npy" "$tmp/in.npy"
  for ((r = 0; r < rounds; ++r)); do
    for h in 1 0; do
      out="$(HETCIM_INT8_HALVES=$h OMP_WAIT_POLICY=PASSIVE "$bin" run "$corpus/$m.onnx" --precision int8 \
        --threads 1 --warmup 3 --runs 10 --input "$tmp/in.npy" --output "$tmp/out.$h.npy")"
      sed -n 's/^cpu time: median \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$tmp/$m.$h.cpu"
      sed -n 's/^latency: median \([0-9.]*\) ms.*/\1/p' <<< "$out" >> "$tmp/$m.$h.wall"
    done
  done
  same="$(cmp -s "$tmp/out.1.npy" "$tmp/out.0.npy" && echo identical || echo DIFFER)"
  awk -v m="$m" -v hc="$(med < "$tmp/$m.1.cpu")" -v nc="$(med < "$tmp/$m.0.cpu")" \
    -v hw="$(med < "$tmp/$m.1.wall")" -v nw="$(med < "$tmp/$m.0.wall")" -v s="$same" \
    'BEGIN { printf "%s\thalves cpu %.1f ms\tone-pass cpu %.1f ms\tspeedup %.2f\t(wall %.1f / %.1f)\toutputs %s\n", m, hc, nc, hc / nc, hw, nw, s }'
done
