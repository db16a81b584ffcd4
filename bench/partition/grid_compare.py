"""Two runs of seed 000's grid side by side: `hetcim dse --threads 1 --out DIR` of two builds.

Per run: points proven optimal, the slowest points' solve seconds, the grid's summed solve seconds
and the points over 0.5 s (issue 15's goal). Then, point by point: where both are optimal their
latencies must be equal (an exact solver has one optimum), and the plans' host / CIM operator
counts, crossbars used and energy are compared (equal optima may still differ in the plan).
  python3 bench/partition/grid_compare.py BEFORE_DIR AFTER_DIR
Exits 1 when an optimum differs.
"""
import csv
import sys


def load(directory):
    # dse.csv starts with "# key: value" provenance lines.
    with open(f"{directory}/dse.csv") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def summary(name, rows):
    times = sorted(float(r["solve_s"]) for r in rows)
    optimal = sum(r["status"] == "optimal" for r in rows)
    slowest = " ".join(f"{t:.3f}" for t in times[-3:])
    over = sum(t > 0.5 for t in times)
    print(f"{name}: {optimal}/{len(rows)} optimal, slowest {slowest} s, sum {sum(times):.2f} s, "
          f"{over} over 0.5 s")


before, after = load(sys.argv[1]), load(sys.argv[2])
summary("before", before)
summary("after ", after)
key = ("model", "host", "crossbars", "t_mvm_s")
if [[r[k] for k in key] for r in before] != [[r[k] for k in key] for r in after]:
    sys.exit("the two runs are not the same grid")
differ = plans = 0
for b, a in zip(before, after):
    if b["status"] == a["status"] == "optimal" and b["latency_s"] != a["latency_s"]:
        differ += 1
        print("optimum differs:", *[b[k] for k in key], b["latency_s"], a["latency_s"])
    plan = ("host_ops", "cim_ops", "crossbars_used", "energy_j")
    plans += [b[k] for k in plan] != [a[k] for k in plan]
print(f"optima differing: {differ} of {len(before)}; plans differing (counts, crossbars, energy): "
      f"{plans}")
sys.exit(1 if differ else 0)
