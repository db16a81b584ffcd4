#!/usr/bin/env bash
# `hetcim partition` of two builds on the same command lines (issue 33: one partitioning stack,
# same answers): each line of CASES (the arguments after `partition`) is run by BEFORE and AFTER
# with --json, and the two documents must be equal once the provenance (command line, date,
# commit), the labels of the inputs (model, hardware, platform, host source: names a build may
# spell otherwise) and the measured solve seconds are set aside: the status, bound, latency,
# energy, every operator's device or engine, option, start and finish, the transfers and orders
# are compared. Prints one line per case (the keys that differ) and the count.
#   bench/partition/cli_compare.sh BEFORE_BIN AFTER_BIN [CASES_FILE]   (default: cli_compare_cases.txt beside it)
set -euo pipefail
before="$1" after="$2" cases="${3:-$(dirname "$0")/cli_compare_cases.txt}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
n=0 same=0
while IFS= read -r line; do
  [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$before" partition $line --quiet --json "$tmp/b.json" >/dev/null
  # shellcheck disable=SC2086
  "$after" partition $line --quiet --json "$tmp/a.json" >/dev/null
  if /usr/bin/python3 - "$tmp/b.json" "$tmp/a.json" <<'PY'
import json, sys
# What names the inputs (labels a build may spell differently) and what is measured, aside.
ASIDE = ("provenance", "hardware", "platform", "host", "model", "solve_seconds")
def norm(path):
    d = json.load(open(path))
    for k in ASIDE:
        d.pop(k, None)
    if isinstance(d.get("solver"), dict):
        d["solver"].pop("seconds", None)
    return d
b, a = norm(sys.argv[1]), norm(sys.argv[2])
if b != a:
    print("  keys that differ:", sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k)))
sys.exit(0 if b == a else 1)
PY
  then same=$((same + 1)); echo "same     $line"; else echo "DIFFERS  $line"; fi
done < "$cases"
echo "$same of $n cases give the same JSON (provenance and solve seconds aside)"
[ "$same" -eq "$n" ]
