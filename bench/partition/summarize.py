"""Summary of a `hetcim dse --milp` CSV per model: exact solver vs CBC on the paper's MILP."""
import collections
import csv
import statistics
import sys

# dse.csv starts with "# key: value" provenance lines.
rows = list(csv.DictReader(line for line in open(sys.argv[1]) if not line.startswith("#")))
by_model = collections.defaultdict(list)
for r in rows:
    by_model[r["model"]].append(r)
print("| model | ops | MILP vars / cons (Table I counting) | exact: proven optimal | exact: median / max s "
      "| CBC: optimal / time limit with incumbent / none | CBC: median s | CBC gap (mean, with incumbent) "
      "| CBC incumbent above optimum (mean) | disagreements |")
print("|---|---|---|---|---|---|---|---|---|---|")
for model, rs in by_model.items():
    exact = [float(r["solve_s"]) for r in rs]
    cbc = [float(r["milp_s"]) for r in rs]
    status = collections.Counter(r["milp_status"] for r in rs)
    inc = [r for r in rs if r["milp_status"] in ("optimal", "time-limit")]
    gaps = [float(r["milp_gap"]) * 100 for r in inc]
    above = [(float(r["milp_objective_s"]) / float(r["latency_s"]) - 1) * 100 for r in inc]
    # CBC proving a different optimum, or a CBC incumbent better than our proven optimum, is a bug.
    bad = [r for r in inc if float(r["milp_objective_s"]) < float(r["latency_s"]) * (1 - 1e-6)
           or (r["milp_status"] == "optimal"
               and abs(float(r["milp_objective_s"]) / float(r["latency_s"]) - 1) > 1e-6)]
    proven = sum(r["status"] == "optimal" for r in rs)
    print(f"| {model} | {rs[0]['operators']} | {rs[0]['milp_binaries']} / {rs[0]['milp_constraints']} "
          f"| {proven}/{len(rs)} | {statistics.median(exact):.4f} / {max(exact):.3f} "
          f"| {status['optimal']} / {status['time-limit']} / {status['no-solution']} "
          f"| {statistics.median(cbc):.2f} | {statistics.mean(gaps) if gaps else float('nan'):.2f} % "
          f"| {statistics.mean(above) if above else float('nan'):.2f} % | {len(bad)} |")
