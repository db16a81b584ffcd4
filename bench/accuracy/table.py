"""The table of bench/accuracy/accuracy_budget.sh: one row per chip and budget (none = the
latency-optimal plan), from the plan JSON files `hetcim partition --json` wrote and, when present,
the test-set runs `hetcim execute --json` wrote (exec_<chip>_<budget>.json), and the plans'
held-out evaluation (`hetcim partition --eval-samples`, the plan JSON's accuracy.heldout)."""
import glob
import json
import os
import sys

out, chips = sys.argv[1], sys.argv[2:]
test = bool(glob.glob(os.path.join(out, "exec_*.json")))
head = ["chip", "budget", "latency (us)", "energy (uJ)", "on chip", "solves", "predicted drop",
        "calibration drop [95 % interval]", "verified (upper end <= budget)"]
heldout = any("heldout" in json.load(open(f)).get("accuracy", {})
              for f in glob.glob(os.path.join(out, "plan_*.json")))
if heldout:
    head += ["held-out drop [95 % interval]", "held-out upper end <= budget"]
if test:
    head.append("test drop [95 % interval]")
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
pts = lambda x: f"{100 * x:+.2f}"
for chip in chips:
    files = glob.glob(os.path.join(out, f"plan_{chip}_*.json"))
    def key(f):
        b = f.rsplit("_", 1)[1][:-5]
        return -1.0 if b == "none" else float(b.rstrip("%"))
    for f in sorted(files, key=key):
        p = json.load(open(f))
        a = p["accuracy"]
        b = a["budget"]
        v = a.get("verification")
        solves = "-" if v is None else str(v["iterations"])
        ok = "-" if b is None else ("yes" if v and v["verified"] else "NO")
        row = [chip, "none" if b is None else f"{100 * b:g} %", f"{p['latency_s'] * 1e6:.1f}",
               f"{p['energy_j']['total'] * 1e6:.1f}", str(len(a["analog_operators"])), solves,
               pts(a["predicted_drop"]),
               f"{pts(a['measured_drop'])} [{pts(a['measured_lo'])}, {pts(a['measured_hi'])}]", ok]
        if heldout:
            h = a.get("heldout")
            if h is None:
                row += ["-", "-"]
            else:
                row.append(f"{pts(h['measured_drop'])} [{pts(h['measured_lo'])}, {pts(h['measured_hi'])}]")
                row.append("-" if b is None else ("yes" if h["hi_within_budget"] else "NO"))
        if test:
            e = os.path.join(out, os.path.basename(f).replace("plan_", "exec_", 1))
            if os.path.exists(e):
                t = json.load(open(e))["accuracy"]
                row.append(f"{pts(t['drop'])} [{pts(t['drop_lo'])}, {pts(t['drop_hi'])}]")
            else:
                row.append("-")
        print("| " + " | ".join(row) + " |")
