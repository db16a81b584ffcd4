"""A notebook-style tour of hetcim from Python: the jobs of the command line as calls.

    PYTHONPATH=build/dev/python python3 examples/python/partition.py
"""
import json

import numpy as np

import hetcim

print(hetcim.build_info())

# 1. What ResNet-18 asks of a 256x256 crossbar system (the dict `hetcim inspect --json` writes).
m = hetcim.load_model("resnet18")
totals = hetcim.inspect(m)["totals"]
print(f"{totals['operators']} operators, {totals['crossbars']} crossbars, {totals['macs']:,} MACs")

# 2. Klein et al. 2026's partitioning for a few crossbar budgets (host latencies modelled: the preset's
#    analytical Cortex-A72; pass host="this" to measure this CPU, or a profile file).
for c in (25, 50, 100, 200):
    plan = hetcim.partition(m, preset="cortex-a72-rram", crossbars=c, t_mvm="50ns")
    cim = sum(1 for d in hetcim.assignment(plan).values() if d == "cim")
    print(f"C={c:4d}: {plan.latency_s * 1e3:8.3f} ms, {cim:2d} operators on the crossbars, {plan.status}")
print("host latencies:", json.loads(plan.json)["host"], "| CIM latencies: modelled (Klein et al. 2026, eqs. 1-3)")
with open("resnet18_gantt.svg", "w") as f:
    f.write(plan.gantt_svg())

# 3. Run it on this CPU (oneDNN), int8, with an input of our own; outputs are NumPy arrays.
x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)
(logits,) = hetcim.run(m, x, precision="int8", warmup=1, runs=3).values()
print("top-5 classes (seeded weights, measured on this CPU):", np.argsort(logits[0])[::-1][:5])

# 4. Bad input is a hetcim.UserError with the command line's message.
try:
    hetcim.partition(m, crossbars=-1)
except hetcim.UserError as e:
    print("error:", e)
