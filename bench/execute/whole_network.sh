#!/usr/bin/env bash
# Whole-network evaluation of seed 002's CNN (zoo race_cnn_mnist, 1x28x28, seeded weights: the
# timing does not depend on training) on the Fashion-MNIST test set with every Conv and Gemm on
# chip A3, against its peer in the same script: the same network all on the host (oneDNN) through
# the same command and the same batches. Both are `hetcim execute` runs of a plan derived from
# `hetcim partition race_cnn_mnist --json`: every Conv/Gemm on the CIM accelerator, or none.
# The timed figure is the JSON's wall_time.simulator_s (the batches; the engine build, chip
# programming and data loading excluded, reported separately). Rounds alternate the two runs;
# the medians over ROUNDS are printed with their ratio. Goal: ratio <= 2.
#   HETCIM=path/to/hetcim ROUNDS=5 LIMIT=0 BATCH=100 THREADS=1 OUT=dir bench/execute/whole_network.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
HETCIM="${HETCIM:-$root/build/release/bin/hetcim}"
ROUNDS="${ROUNDS:-5}"
LIMIT="${LIMIT:-0}"
BATCH="${BATCH:-100}"
THREADS="${THREADS:-1}"
CHIP="${CHIP:-$root/data/chips.yaml:A3}"
OUT="${OUT:-$(mktemp -d)}"
"$HETCIM" partition race_cnn_mnist --json "$OUT/plan.json" --quiet
/usr/bin/python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
plan = json.load(open(f"{out}/plan.json"))
for name, on_chip in (("all_cim", True), ("all_host", False)):
    p = dict(plan)
    p.pop("host_order", None)
    p.pop("bus_order", None)
    ops = []
    for o in plan["operators"]:
        cim = on_chip and (o["name"].startswith("features.") or o["name"].startswith("classifier.")) \
            and "/" not in o["name"] and o["t_acc_s"] is not None
        ops.append({"name": o["name"], "mode": 0 if cim else -1})
    p["operators"] = ops
    json.dump(p, open(f"{out}/{name}.json", "w"), indent=1)
PY
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "hetcim: $HETCIM ($("$HETCIM" --version 2>/dev/null | head -1))"
for r in $(seq 1 "$ROUNDS"); do
  for plan in all_cim all_host; do
    "$HETCIM" execute race_cnn_mnist --plan "$OUT/$plan.json" --chip "$CHIP" \
      --dataset fashion-mnist --limit "$LIMIT" --batch "$BATCH" --threads "$THREADS" \
      --json "$OUT/${plan}_$r.json" --quiet
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def runs(plan):
    return [json.load(open(f"{out}/{plan}_{r}.json")) for r in range(1, rounds + 1)]
cim, host = runs("all_cim"), runs("all_host")
c = statistics.median(j["wall_time"]["simulator_s"] for j in cim)
h = statistics.median(j["wall_time"]["simulator_s"] for j in host)
d = statistics.median(j["wall_time"]["digital_s"] for j in cim)
j = cim[0]
print(f"images {j['images']}, batch {j['batch']}, threads {j['threads']}, CIM operators "
      f"{', '.join(j['cim_operators'])} on {j['chip']}")
print(f"accuracy on the chip {100 * j['accuracy']['plan']:.2f} %, all digital "
      f"{100 * j['accuracy']['digital']:.2f} % (weights: {j['weights']})")
print(f"median over {rounds} rounds: with the chip {c:.3f} s, all host (peer) {h:.3f} s, "
      f"ratio {c / h:.2f}; the digital run inside the chip's process {d:.3f} s (ratio {c / d:.2f})")
cc = statistics.median(j["wall_time"]["simulator_cpu_s"] for j in cim)
hc = statistics.median(j["wall_time"]["simulator_cpu_s"] for j in host)
print(f"process CPU time, median: with the chip {cc:.3f} s, all host {hc:.3f} s, ratio {cc / hc:.2f}")
print("per round (chip s, host s): " + ", ".join(
    f"({a['wall_time']['simulator_s']:.3f}, {b['wall_time']['simulator_s']:.3f})"
    for a, b in zip(cim, host)))
PY
