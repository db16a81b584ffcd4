"""A notebook-style tour of RACE-AIMC (noisy analog accelerators, Yousuf and Lueker-Boden 2026) from Python:
hetcim.analog's calls are the `hetcim train` / `hetcim analog ...` commands' calls.

    PYTHONPATH=build/dev/python python3 examples/python/analog.py [OUT_DIR]

Needs Fashion-MNIST (/usr/share/datasets/fashion-mnist); one small training and a few
simulations. Every accuracy printed is measured on hetcim's crossbar simulator (the profiles of
data/chips.yaml); energies are the policy's model, drift figures the profiles' assumptions.
"""
import json
import os
import sys

import hetcim

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CHIPS = os.path.join(ROOT, "data", "chips.yaml")
out = sys.argv[1] if len(sys.argv) > 1 else "analog_tour"
os.makedirs(out, exist_ok=True)

# 1. A model: RACE-AIMC's CNN trained for one epoch on 2000 images, 1000 training images held
#    out as the calibration pool (`hetcim train race-cnn`). libtorch loads here, not at import.
cnn = os.path.join(out, "cnn.onnx")
t = hetcim.analog.train(cnn, preset="fast", epochs=1, train_limit=2000, holdout=1000,
                        eval_limit=200, batch_size=64, seed=6, threads=1)
print(f"trained {t['model']}: {t['eval_set']} {t['eval_accuracy']:.2%}, "
      f"clean test accuracy {t['test_accuracy']:.2%}")

# 2. Its classifier on a simulated chip (`hetcim analog eval`): the digital model, then chip A3.
m = hetcim.load_model(cnn)
acc = hetcim.analog.evaluate(m, dataset="fashion-mnist", chip=CHIPS + ":A3", layers="classifier",
                             seed=7, digital=True, limit=1000)
for run in acc["runs"]:
    print(f"{run['chip']:8s} {run['accuracy']:.2%} on {run['images']} test images")

# 3. RACE-AIMC over a pool (`hetcim analog select`): thresholds, the selected chip and its
#    certificate (loose risk targets for a one-epoch model).
selection, policy = hetcim.analog.select(cnn, chips=CHIPS, pool="A0,A1", hardware_rows=200,
                                         policy_rows=300, certificate_rows=400, test_rows=300,
                                         design_risk=0.25, risk=0.3, threads=1)
print("selected:", selection["selected"], "| certified upper bound on the selective risk:",
      selection["certificate"]["upper_bound"])
policy_file = os.path.join(out, "policy.json")
with open(policy_file, "w") as f:
    json.dump(policy, f, indent=1)

# 4. The frozen policy served query by query (`hetcim analog serve`), decisions as arrays.
if selection["selected"] is not None:
    summary, decisions = hetcim.analog.serve(policy_file, dataset="fashion-mnist", limit=300)
    print(f"served {summary['queries']} queries: coverage {summary['coverage']:.2%}, "
          f"{summary['energy_uJ_per_query']:.3f} uJ per query (modelled)")
    print("first routes:", decisions["route"][:5], decisions["label"][:5])


# 5. The chip read over time (`hetcim analog drift`).
def pct(x):
    return "-" if x is None else f"{x:.2%}"


d = hetcim.analog.drift(cnn, chip=CHIPS + ":A3", times="1h,1y", limit=500)
for p in d["points"]:
    print(f"t={p['label']:>4s}: {pct(p['accuracy'])}, compensated {pct(p['accuracy_compensated'])}")

# 6. Bad input is a hetcim.UserError with the command line's message.
try:
    hetcim.analog.evaluate(cnn, chip=CHIPS + ":A9")
except hetcim.UserError as e:
    print("error:", e)
