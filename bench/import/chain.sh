#!/bin/sh
# Import time of a chain of N Relu nodes (issue 35 item 5: graph algorithms linear in nodes and
# edges; goal: 100,000 nodes in under 5 s), through `hetcim inspect` and `hetcim run` (which also
# plans and runs the engine). Prints one line per size and command: N, command, wall seconds and
# user CPU seconds (of the round with the least wall time, best of ROUNDS), peak RSS in MB. On a
# shared machine the user CPU time is the steadier figure.
#   bench/import/chain.sh build/dev            # SIZES="1000 10000 100000" ROUNDS=3
set -eu
build=${1:-build/dev}
hetcim="$build/bin/hetcim"
sizes=${SIZES:-"1000 10000 100000"}
rounds=${ROUNDS:-3}
python=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(dirname "$0")
echo "# $(date -u +%FT%TZ) commit $(git -C "$here" rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cpus"
printf '%-8s %-8s %10s %10s %10s\n' nodes command wall_s user_s peak_MB
for n in $sizes; do
  "$python" "$here/make_chain.py" "$n" "$dir/chain$n.onnx"
  for cmd in inspect run; do
    case $cmd in
      inspect) args="inspect $dir/chain$n.onnx --quiet --json $dir/out.json" ;;
      run) args="run $dir/chain$n.onnx --precision fp32 --runs 1 --warmup 0" ;;
    esac
    best=""
    user=""
    mb=""
    r=0
    while [ "$r" -lt "$rounds" ]; do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %U %M' -o "$dir/time" "$hetcim" $args >/dev/null
      read -r s u kb <"$dir/time"
      if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" -eq 1 ]; then
        best=$s
        user=$u
        mb=$((kb / 1024))
      fi
      r=$((r + 1))
    done
    printf '%-8s %-8s %10s %10s %10s\n' "$n" "$cmd" "$best" "$user" "$mb"
  done
done
