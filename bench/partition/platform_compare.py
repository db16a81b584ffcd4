"""Platform DSE runs side by side (issue 33: one partitioning stack, same answers).

Two runs of `hetcim dse --platform P --sweep ... --threads 1 --out DIR` (two builds):
  python3 bench/partition/platform_compare.py BEFORE_DIR AFTER_DIR
point by point: where both are optimal their latencies must be equal (an exact solver has one
optimum); the plans (operators and crossbars per engine, energy) are compared and counted.

A platform run of seed 000's machine against the two-device grid of `hetcim dse` on the same
points (`--platform seed000-arm --sweep crossbars=... [--sweep t_mvm=...]` against `--hosts arm
--crossbars ... --t-mvm ...`, the same models; a serial axis is matched to a two-device run of
that bus with --serial):
  python3 bench/partition/platform_compare.py --two-device DSE_DIR --host arm [--serial false] PLATFORM_DIR
the latencies must be equal (to the 9 significant digits dse.csv prints) and the plans are compared: host_ops / cim_ops / crossbars_used of
the two-device run against ops_host / ops_cim / crossbars_cim of the platform run.
Exits 1 when an optimum differs.
"""
import argparse
import csv
import sys


def rows(path):
    # Both CSV files start with "# key: value" provenance lines.
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def summary(name, rs):
    optimal = sum(r["status"] == "optimal" for r in rs)
    times = sorted(float(r.get("solve_seconds") or r.get("solve_s")) for r in rs)
    print(f"{name}: {optimal}/{len(rs)} optimal, solve seconds summed {sum(times):.3f}, "
          f"slowest {' '.join(f'{t:.3f}' for t in times[-3:])}")


def seconds(text):
    # A sweep value such as "50ns" or "1us" (the platform's t_mvm axis).
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


def close(a, b):
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def platform_vs_platform(before_dir, after_dir):
    before = rows(f"{before_dir}/platform_dse.csv")
    after = rows(f"{after_dir}/platform_dse.csv")
    summary("before", before)
    summary("after ", after)
    fixed = ("objective", "bound", "solve_seconds", "nodes", "cached", "status", "latency_s")
    key = [k for k in before[0] if k not in fixed and not k.startswith(("ops_", "crossbars_"))
           and k not in ("energy_j",)]
    if [[r[k] for k in key] for r in before] != [[r[k] for k in key] for r in after]:
        sys.exit("the two runs are not the same grid")
    plan = [k for k in before[0] if k.startswith(("ops_", "crossbars_"))] + ["energy_j"]
    differ = plans = 0
    for b, a in zip(before, after):
        if b["status"] == a["status"] == "optimal" and float(b["latency_s"]) != float(a["latency_s"]):
            differ += 1
            print("optimum differs:", *[b[k] for k in key], b["latency_s"], a["latency_s"])
        plans += [b[k] for k in plan] != [a[k] for k in plan]
    print(f"optima differing: {differ} of {len(before)}; plans differing ({', '.join(plan)}): "
          f"{plans}")
    return differ


def platform_vs_two_device(dse_dir, host, serial, platform_dir):
    two = [r for r in rows(f"{dse_dir}/dse.csv") if r["host"] == host]
    pf = rows(f"{platform_dir}/platform_dse.csv")
    if serial is not None and "serial" in pf[0]:
        pf = [r for r in pf if r["serial"] == serial]
    summary("two-device", two)
    summary("platform  ", pf)
    differ = plans = compared = 0
    for p in pf:
        match = [t for t in two if t["model"] == p["model"] and t["crossbars"] == p["crossbars"]
                 and ("t_mvm" not in p or close(float(t["t_mvm_s"]), seconds(p["t_mvm"])))]
        if len(match) != 1:
            sys.exit(f"no single two-device point for {p['model']} crossbars {p['crossbars']} "
                     f"({len(match)} found: sweep t_mvm, or give the two-device run one t_mvm)")
        t = match[0]
        compared += 1
        # dse.csv prints 9 significant digits (%.9g), platform_dse.csv all 17.
        if t["status"] == p["status"] == "optimal" and float(t["latency_s"]) != float(
                f"{float(p['latency_s']):.9g}"):
            differ += 1
            print("optimum differs:", p["model"], p["crossbars"], t["latency_s"], p["latency_s"])
        same = (t["host_ops"], t["cim_ops"], t["crossbars_used"]) == (
            p["ops_host"], p["ops_cim"], p["crossbars_cim"])
        if not same:
            print("plan differs:", p["model"], p["crossbars"],
                  (t["host_ops"], t["cim_ops"], t["crossbars_used"]),
                  (p["ops_host"], p["ops_cim"], p["crossbars_cim"]))
        plans += not same
    print(f"points compared: {compared}; optima differing: {differ}; plans differing "
          f"(host / cim operators, crossbars used): {plans}")
    return differ


ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
ap.add_argument("--two-device", metavar="DSE_DIR")
ap.add_argument("--host", default="arm")
ap.add_argument("--serial", choices=["true", "false"])
ap.add_argument("dirs", nargs="+")
args = ap.parse_args()
if args.two_device:
    if len(args.dirs) != 1:
        sys.exit("--two-device takes one platform run")
    bad = platform_vs_two_device(args.two_device, args.host, args.serial, args.dirs[0])
else:
    if len(args.dirs) != 2:
        sys.exit("give two platform runs")
    bad = platform_vs_platform(*args.dirs)
sys.exit(1 if bad else 0)
