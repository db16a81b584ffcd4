#!/usr/bin/env bash
# Builds the libFuzzer target with the `fuzz` preset and fuzzes the ONNX importer.
#
#   fuzz/run.sh [SECONDS]        default 180
#
# The committed seed corpus (fuzz/corpus/onnx_import) is read, never written: inputs the fuzzer
# finds go to a scratch directory, and crashing inputs to $BUILD/fuzz-artifacts/. Add a crash input
# to the corpus as a regression file (tests/onnxio/corpus_test.cpp imports every corpus file).
# Environment: HETCIM_FUZZ_BUILD_DIR (default build/fuzz), HETCIM_FUZZ_WORK_DIR (keep the inputs
# found in this directory across runs instead of a scratch directory), JOBS (default 2).
set -euo pipefail
seconds=${1:-180}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${HETCIM_FUZZ_BUILD_DIR:-$root/build/fuzz}

cd "$root"
cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target fuzz_onnx_import -j"${JOBS:-2}"

if [[ -n "${HETCIM_FUZZ_WORK_DIR:-}" ]]; then
  scratch=$HETCIM_FUZZ_WORK_DIR
  mkdir -p "$scratch"
else
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/hetcim-fuzz-XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$build/fuzz-artifacts"
"$build/fuzz/fuzz_onnx_import" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/fuzz/onnx.dict" -print_final_stats=1 \
  -artifact_prefix="$build/fuzz-artifacts/" \
  "$scratch" "$root/fuzz/corpus/onnx_import"
