"""The table of bench/accuracy/accuracy_budget.sh: one row per chip and budget (none = the
latency-optimal plan), from the plan JSON files `hetcim partition --json` wrote."""
import glob
import json
import os
import sys

out, chips = sys.argv[1], sys.argv[2:]
print("| chip | budget | latency (us) | energy (uJ) | on chip | predicted drop | measured drop [interval] | within budget + margin |")
print("|---|---|---|---|---|---|---|---|")
for chip in chips:
    files = glob.glob(os.path.join(out, f"plan_{chip}_*.json"))
    def key(f):
        b = f.rsplit("_", 1)[1][:-5]
        return -1.0 if b == "none" else float(b.rstrip("%"))
    for f in sorted(files, key=key):
        p = json.load(open(f))
        a = p["accuracy"]
        b = a["budget"]
        pts = lambda x: f"{100 * x:+.2f}"
        ok = "-" if b is None else ("yes" if a["measured_drop"] <= b + (a["measured_hi"] - a["measured_drop"]) else "NO")
        print(f"| {chip} | {'none' if b is None else f'{100 * b:g} %'} | {p['latency_s'] * 1e6:.1f} | "
              f"{p['energy_j']['total'] * 1e6:.1f} | "
              f"{len(a['analog_operators'])} | {pts(a['predicted_drop'])} | {pts(a['measured_drop'])} "
              f"[{pts(a['measured_lo'])}, {pts(a['measured_hi'])}] | {ok} |")
