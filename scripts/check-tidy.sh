#!/usr/bin/env bash
# Runs the curated clang-tidy checks of .clang-tidy over every translation unit under src/, using
# the compile commands of a configured build (default build/dev, as scripts/test.sh leaves it).
#   scripts/check-tidy.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
[ -f "$build/compile_commands.json" ] || { echo "check-tidy: $build/compile_commands.json missing (configure first)" >&2; exit 1; }
count="$(git ls-files 'src/*.cpp' | wc -l)"
# -quiet: only findings; run-clang-tidy exits non-zero when any check (all are errors) fires. The
# compile commands are GCC's: clang must not turn GCC-only or its own extra warnings into errors.
run-clang-tidy -quiet -p "$build" -j "$(nproc)" \
  -extra-arg=-Wno-unknown-warning-option -extra-arg=-Wno-error \
  "^$PWD/src/.*\.cpp\$" > "$build/clang-tidy.log" 2>&1 || {
  grep -E "error:|warning:" "$build/clang-tidy.log" | sort -u | head -100 >&2
  echo "check-tidy: findings above (full log: $build/clang-tidy.log)" >&2
  exit 1
}
echo "check-tidy: $count translation units under src/ clean"
