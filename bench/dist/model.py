#!/usr/bin/env python3
"""Summary of bench/dist/scaling.sh and a model of runs on more ranks.

Measured: the wall time of each run (1 process, 2 MPI ranks), medians over rounds.
Modelled: the per-point solve times measured in the 1-process runs (median per point over the
rounds) handed out as dist::run_queue does (costliest first by the DSE's estimate, operators x
(1 + parallel pairs), ties by grid order) to W workers, each taking the next point when it is free
(list scheduling). Not modelled: message latency (a round trip per point), rank 0 building every
problem once to read the cache keys, differing CPUs.  usage: model.py OUT_DIR
"""
import csv
import glob
import heapq
import os
import statistics
import sys


def read_points(path):
    rows = [r for r in open(path) if not r.startswith("#")]
    return list(csv.DictReader(rows))


def makespan(times_in_order, workers):
    free = [0.0] * workers
    heapq.heapify(free)
    for t in times_in_order:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free)


def main(out):
    runs = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
    wall = {n: statistics.median(float(r["wall_s"]) for r in runs if r["ranks"] == n) for n in ("1", "2")}
    loads = [float(r["load1_before"]) for r in runs]
    print(f"rounds: {len(runs) // 2}; load average (1 min) before the runs: "
          f"{min(loads):.1f} to {max(loads):.1f}")
    print("| ranks | wall s (median) | speedup | efficiency |")
    print("|---|---|---|---|")
    for n in ("1", "2"):
        s = wall["1"] / wall[n]
        print(f"| {n} | {wall[n]:.2f} | {s:.2f} | {s / int(n):.2f} |")

    per_point = {}
    for path in sorted(glob.glob(os.path.join(out, "np1-*", "dse.csv"))):
        for i, p in enumerate(read_points(path)):
            per_point.setdefault(i, {"p": p, "t": []})["t"].append(float(p["solve_s"]))
    points = [(i, v["p"], statistics.median(v["t"])) for i, v in sorted(per_point.items())]
    total = sum(t for _, _, t in points)
    by_model = {}
    for _, p, t in points:
        by_model.setdefault(p["model"], []).append(t)
    print()
    print("per-point solve time (s, median over rounds), 1 process:")
    print("| model | points | median | max | sum |")
    print("|---|---|---|---|---|")
    for m, ts in by_model.items():
        print(f"| {m} | {len(ts)} | {statistics.median(ts):.4f} | {max(ts):.4f} | {sum(ts):.3f} |")
    serial = wall["1"] - total
    print(f"\nsum of solve times {total:.2f} s; the rest of the 1-process wall time "
          f"({serial:.2f} s: loading and lowering the models, building problems, writing) is "
          f"taken as the serial part of every run")

    def order(pts):
        est = lambda p: int(p["operators"]) * (1 + int(p["parallel_pairs"]))
        return [t for _, p, t in sorted(pts, key=lambda x: (-est(x[1]), x[0]))]

    warm = list(csv.DictReader(open(os.path.join(out, "warm.csv"))))
    w128 = statistics.median(float(r["wall_s"]) for r in warm if r["points"] == "128")
    w4 = statistics.median(float(r["wall_s"]) for r in warm if r["points"] == "4")
    per_point_root = max(0.0, (w128 - w4) / 124)
    print(f"rank 0's own work per point (build the problem for its key, read the cache), from "
          f"runs on a warm cache: {per_point_root * 1e3:.2f} ms (128 points {w128:.3f} s, "
          f"4 points {w4:.3f} s); added to the serial part for every point beyond 128")

    grids = [("128-point grid (measured times)", points, serial)]
    big = [(i * 32 + k, p, t) for i, p, t in points for k in range(32)]
    grids.append(("4096-point grid (each measured point 32 times)", big,
                  serial + per_point_root * (len(big) - len(points))))
    for name, pts, serial in grids:
        times = order(pts)
        tot = sum(times)
        print(f"\nmodel, {name}: W workers, solve phase and whole run (serial part "
              f"{serial:.2f} s added)")
        print("| W | solve makespan s | solve efficiency | modelled run s | run efficiency "
              "| solve efficiency, true times known (LPT) |")
        print("|---|---|---|---|---|---|")
        t1 = serial + makespan(times, 1)
        lpt = sorted(times, reverse=True)
        for w in (1, 2, 8, 16, 32, 64):
            ms = makespan(times, w)
            run = serial + ms
            print(f"| {w} | {ms:.3f} | {tot / (w * ms):.2f} | {run:.2f} | {t1 / (w * run):.2f} "
                  f"| {tot / (w * makespan(lpt, w)):.2f} |")
        print(f"(lower bound on any schedule: the longest point, {max(times):.3f} s)")


if __name__ == "__main__":
    main(sys.argv[1])
