#!/usr/bin/env bash
# Beyond seed 000 on its 128-point grid: the serial bus (one transfer at a time) next to the
# paper's parallel bus, at the paper's bandwidths and at a narrow 1 GB/s bus, solved by the exact
# solver; the exact solver next to CBC on the serial-bus MILP for the three CNNs; and the
# latency-energy front of every model on both hosts. Prints the tables of bench/README.md.
#   HETCIM=path/to/hetcim  OUT=dir  bench/partition/bus_energy.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
HETCIM="${HETCIM:-$here/../../build/release/bin/hetcim}"
OUT="${OUT:-$(mktemp -d)}"
for bus in default 1GB/s; do
  tag=$([ "$bus" = default ] && echo paper || echo 1gbs)
  extra=$([ "$bus" = default ] && echo "" || echo "--bus $bus")
  for model in parallel serial; do
    start=$(date +%s.%N)
    "$HETCIM" dse --no-cache --no-figures --bus-model "$model" $extra --out "$OUT/$tag-$model" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$tag $model $(/usr/bin/python3 -c "print(round($end - $start, 2))")" >> "$OUT/walls.txt"
  done
done
for m in resnet18 resnet50 mobilenetv2; do
  for solver in exact milp; do
    "$HETCIM" partition "$m" --preset seed000-x86 --crossbars 100 --t-mvm 50ns --bus-model serial \
      --solver "$solver" --time-limit 120s --json "$OUT/serial-$m-$solver.json" --quiet
  done
done
for m in resnet18 resnet50 mobilenetv2 yolov5n; do
  for p in seed000-arm seed000-x86; do
    "$HETCIM" partition "$m" --preset "$p" --crossbars 100 --t-mvm 500ns --pareto "$OUT/front-$m-$p.json" --quiet
  done
done
/usr/bin/python3 - "$OUT" <<'PY'
import csv, json, statistics, sys
out = sys.argv[1]
walls = {tuple(l.split()[:2]): float(l.split()[2]) for l in open(f"{out}/walls.txt")}
print("| bus bandwidth | points slower on a serial bus | max slowdown | points with another allocation | exact solve median / max (serial) | grid wall, parallel / serial |")
print("|---|---|---|---|---|---|")
for tag, label in (("paper", "seed 000 (10.24 / 20.48 GB/s)"), ("1gbs", "1 GB/s")):
    rows = {}
    for model in ("parallel", "serial"):
        rows[model] = {(r["model"], r["host"], r["crossbars"], r["t_mvm_s"]): r
                       for r in csv.DictReader(l for l in open(f"{out}/{tag}-{model}/dse.csv")
                                               if not l.startswith("#"))}
    slower, worst, worst_at, moved, times = 0, 0.0, "", 0, []
    for k, a in rows["parallel"].items():
        b = rows["serial"][k]
        assert a["status"] == b["status"] == "optimal", k
        la, lb = float(a["latency_s"]), float(b["latency_s"])
        assert lb >= la * (1 - 1e-12), k
        if lb > la * (1 + 1e-9):
            slower += 1
            if lb / la - 1 > worst:
                worst, worst_at = lb / la - 1, "/".join(k[:3]) + f"/{float(k[3])*1e9:.0f}ns"
        if a["cim_ops"] != b["cim_ops"] or a["crossbars_used"] != b["crossbars_used"]:
            moved += 1
        times.append(float(b["solve_s"]))
    print(f"| {label} | {slower} / {len(rows['parallel'])} | {worst*100:.2f} % ({worst_at}) | {moved} | "
          f"{statistics.median(times)*1e3:.2f} ms / {max(times):.2f} s | {walls[(tag,'parallel')]:.1f} s / {walls[(tag,'serial')]:.1f} s |")
print()
print("| model (x86, 100 xbars, 50 ns, serial bus) | exact latency | exact s | CBC latency | CBC status | CBC s | bus pairs in the MILP |")
print("|---|---|---|---|---|---|---|")
for m in ("resnet18", "resnet50", "mobilenetv2"):
    e = json.load(open(f"{out}/serial-{m}-exact.json")); c = json.load(open(f"{out}/serial-{m}-milp.json"))
    print(f"| {m} | {e['latency_s']*1e3:.4f} ms | {e['solver']['seconds']:.4f} | {c['latency_s']*1e3:.4f} ms | "
          f"{c['solver']['status']} | {c['solver']['seconds']:.2f} | {c['milp'].get('bus_pairs', '')} |")
print()
print("| model | host | front points | exact solves | s | fastest: latency, energy | most frugal: latency, energy |")
print("|---|---|---|---|---|---|---|")
for m in ("resnet18", "resnet50", "mobilenetv2", "yolov5n"):
    for p in ("seed000-arm", "seed000-x86"):
        f = json.load(open(f"{out}/front-{m}-{p}.json"))
        a, b = f["points"][0], f["points"][-1]
        print(f"| {m} | {p[8:]} | {len(f['points'])} | {f['solves']} | {f['seconds']:.3f} | "
              f"{a['latency_s']*1e3:.2f} ms, {a['energy_j']['total']*1e3:.1f} mJ | {b['latency_s']*1e3:.2f} ms, {b['energy_j']['total']*1e3:.1f} mJ |")
PY
