#!/usr/bin/env bash
# Build and test cost of a clean clone (issue 37 scope 3). Clones COMMIT (default HEAD) of this
# repository into a temporary directory, configures it as the `dev` preset does, and prints:
#   - the build's step counts: compile steps, link steps, test executables, ctest tests by label
#     (with STEPS_ONLY=1 only the counts that need no build: steps and executables);
#   - the edges a new commit rebuilds: the sources that include the generated hetcim/version.h and
#     the link steps that take libhetcim_util.a (every static link of the commit string);
#   - the clean build's wall time and CPU seconds (user + sys of every compile and link step,
#     logged per step through CMAKE_CXX_COMPILER_LAUNCHER / CMAKE_CXX_LINKER_LAUNCHER), then
#     `ctest -L quick` and, unless QUICK_ONLY=1, the whole suite (the README's test command).
# Every figure is printed with `uptime` before and after it: on a shared machine wall times move
# with the load, CPU seconds much less.
#   bench/buildtime/measure.sh [COMMIT]    env: JOBS (default nproc), NICE (default 0), KEEP=1 keeps
#                                      the clone (printed), STEPS_ONLY=1, QUICK_ONLY=1
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
commit=${1:-HEAD}
jobs=${JOBS:-$(nproc)}
nice=${NICE:-0}
work=$(mktemp -d /tmp/hetcim-measure.XXXXXX)
[ "${KEEP:-0}" = "1" ] || trap 'rm -rf "$work"' EXIT
load() { printf '# %s  %s\n' "$(date -u +%FT%TZ)" "$(uptime | sed 's/.*load/load/')"; }

git clone -q "$repo" "$work/src"
git -C "$work/src" checkout -q "$commit"
echo "# commit $(git -C "$work/src" rev-parse --short=12 HEAD), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') x $(nproc), jobs $jobs, nice $nice"
cpulog=$work/steps.cpu
cat > "$work/step.sh" <<'EOF'
#!/bin/bash
# launcher: appends "user sys output" of one compile or link step to the log in $1
log=$1; shift
out=unknown; prev=
for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
exec /usr/bin/time -f "%U %S $out" -a -o "$log" "$@"
EOF
chmod +x "$work/step.sh"
b=$work/src/build/dev
cmake -S "$work/src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DHETCIM_WERROR=ON -DHETCIM_SKIP_MODULES= \
      "-DCMAKE_CXX_COMPILER_LAUNCHER=$work/step.sh;$cpulog" "-DCMAKE_CXX_LINKER_LAUNCHER=$work/step.sh;$cpulog" >/dev/null

edges=$(ninja -C "$b" -t commands | wc -l)
compiles=$(grep -c '^build [^:]*\.o: CXX_COMPILER' "$b/build.ninja")
links=$(grep -c '^build [^:]*: CXX_\(EXECUTABLE\|SHARED_LIBRARY\|MODULE_LIBRARY\)_LINKER' "$b/build.ninja")
tests=$(grep -c '^build tests/[^:]*: CXX_EXECUTABLE_LINKER' "$b/build.ninja")
echo "steps: $edges commands, $compiles compiles, $links links (executables and shared objects), $tests test executables"
version_users=$(cd "$work/src" && grep -rl '#include "hetcim/version.h"' src tests | tr '\n' ' ')
util_links=$(grep '^build [^:]*: CXX_\(EXECUTABLE\|SHARED_LIBRARY\|MODULE_LIBRARY\)_LINKER' "$b/build.ninja" | grep -c 'src/util/libhetcim_util\.a')
echo "a new commit recompiles: $version_users"
echo "a new commit relinks: $util_links link steps that take libhetcim_util.a"
[ "${STEPS_ONLY:-0}" = "1" ] && exit 0

load
start=$(date +%s)
nice -n "$nice" cmake --build "$b" -j "$jobs" >"$work/build.log"
wall=$(($(date +%s) - start))
load
awk -v w="$wall" '{ if ($3 ~ /\.o$/) c += $1 + $2; else l += $1 + $2 }
  END { printf "clean build: %d s wall, %.0f CPU s (compiles %.0f, links %.0f)\n", w, c + l, c, l }' "$cpulog"
awk '$3 ~ /^tests\// { if ($3 ~ /\.o$/) c += $1 + $2; else l += $1 + $2 }
  END { printf "  of which tests/: compiles %.0f CPU s, links %.0f CPU s\n", c, l }' "$cpulog"
for label in quick slow corpus browser mpi; do
  printf 'ctest -L %s: %s tests\n' "$label" "$(ctest --test-dir "$b" -N -L "^$label\$" | sed -n 's/^Total Tests: //p')"
done
printf 'ctest: %s tests\n' "$(ctest --test-dir "$b" -N | sed -n 's/^Total Tests: //p')"

load
start=$(date +%s)
ctest --test-dir "$b" -j "$jobs" -L quick --output-on-failure >"$work/quick.log" || echo "quick: FAILURES (see $work/quick.log)"
echo "ctest -L quick -j $jobs: $(($(date +%s) - start)) s wall ($(tail -1 "$work/quick.log"))"
load
[ "${QUICK_ONLY:-0}" = "1" ] && exit 0
start=$(date +%s)
ctest --test-dir "$b" -j "$jobs" --output-on-failure >"$work/all.log" || echo "suite: FAILURES (see $work/all.log)"
echo "ctest -j $jobs (the whole suite): $(($(date +%s) - start)) s wall ($(grep 'tests passed' "$work/all.log"))"
load
