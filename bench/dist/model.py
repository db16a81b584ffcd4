#!/usr/bin/env python3
"""Summary of bench/dist/scaling.sh and a model of runs on more ranks.

Measured: the wall time of each run (1 process, 2 MPI ranks), medians over rounds.
Modelled: the per-point solve times measured in the 1-process runs (median per point over the
rounds) handed out as dist::run_queue does (costliest first by the DSE's estimate, operators x
(1 + parallel pairs), ties by grid order) to W workers, each taking the next point when it is free
(list scheduling). Not modelled: message latency (a round trip per point), rank 0 building every
problem once to read the cache keys, differing CPUs.  usage: model.py OUT_DIR
`model.py study OUT_DIR` does the same for `hetcim analog study` (bench/dist/study_tasks.sh).
"""
import csv
import glob
import heapq
import os
import re
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
        efficiency_table(name, order(pts), serial, "point")


def efficiency_table(name, times, serial, unit, workers=(1, 2, 8, 16, 32, 64)):
    """The model: `times` (seconds, in the queue's hand-out order) list-scheduled on W workers,
    plus the serial part; beside it the same with the true times known (LPT order)."""
    tot = sum(times)
    print(f"\nmodel, {name}: W workers, work phase and whole run (serial part "
          f"{serial:.2f} s added)")
    print("| W | work makespan s | work efficiency | modelled run s | run efficiency "
          "| work efficiency, true times known (LPT) |")
    print("|---|---|---|---|---|---|")
    t1 = serial + makespan(times, 1)
    lpt = sorted(times, reverse=True)
    for w in workers:
        ms = makespan(times, w)
        run = serial + ms
        print(f"| {w} | {ms:.3f} | {tot / (w * ms):.2f} | {run:.2f} | {t1 / (w * run):.2f} "
              f"| {tot / (w * makespan(lpt, w)):.2f} |")
    print(f"(lower bound on any schedule: the longest {unit}, {max(times):.3f} s)")


TASK_LINE = re.compile(r"simulated (\S+) on (\d+) (test|calibration) images "
                       r"\(task (\d+), model (\d+)\): ([0-9.]+) s wall")


def study(out):
    """bench/dist/study_tasks.sh: the per-simulation wall times of `hetcim analog study` (the
    stderr lines of its 1-process runs, median per task over the rounds) through the same model,
    ordered as api_torch/pool.cpp hands them out (estimate images x 4 for a chip, x 1 for the
    digital model; costliest first, ties by task id)."""
    runs = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
    wall = statistics.median(float(r["wall_s"]) for r in runs)
    loads = [float(r["load1_before"]) for r in runs]
    print(f"rounds: {len(runs)}; 1-process wall {wall:.2f} s (median); load average (1 min) "
          f"before the runs: {min(loads):.1f} to {max(loads):.1f}")
    per_task = {}
    for path in sorted(glob.glob(os.path.join(out, "np1-*", "stderr"))):
        for line in open(path):
            m = TASK_LINE.search(line)
            if m:
                unit, images, part, task, model, sec = m.groups()
                per_task.setdefault(int(task), {"unit": unit, "images": int(images),
                                                "part": part, "model": int(model), "t": []})
                per_task[int(task)]["t"].append(float(sec))
    tasks = [(i, v, statistics.median(v["t"])) for i, v in sorted(per_task.items())]
    est = lambda v: v["images"] * (1 if v["unit"] == "digital" else 4)
    total = sum(t for _, _, t in tasks)
    print("\nper-task wall time (s, median over rounds), 1 process:")
    print("| simulation | tasks | images each | median s | max s | sum s |")
    print("|---|---|---|---|---|---|")
    kinds = {}
    for _, v, t in tasks:
        kind = ("digital" if v["unit"] == "digital" else "chip") + " " + v["part"]
        kinds.setdefault(kind, {"images": v["images"], "t": []})["t"].append(t)
    for k, d in kinds.items():
        print(f"| {k} | {len(d['t'])} | {d['images']} | {statistics.median(d['t']):.3f} | "
              f"{max(d['t']):.3f} | {sum(d['t']):.2f} |")
    serial = wall - total
    print(f"\nsum of task times {total:.2f} s; the rest of the 1-process wall time ({serial:.2f} s: "
          f"libtorch, models and data loaded, protocol replayed, outputs written) is taken as "
          f"serial")
    ordered = [t for _, v, t in sorted(tasks, key=lambda x: (-est(x[1]), x[0]))]
    efficiency_table(f"{len(tasks)} simulations (measured times)", ordered, serial, "task")

    # The paper's size: 5 models x (digital + A0..A5) x (10,000 held-out + 10,000 test images),
    # each task's time from a line a + b x images fitted per kind (digital, chip) to the measured
    # tasks (least squares over both sizes); serial part as measured (a lower bound: 5 models and
    # 20,000 images load and replay longer).
    fit = {}
    for chip in (False, True):
        pts = [(v["images"], t) for _, v, t in tasks if (v["unit"] != "digital") == chip]
        n = len(pts)
        mx = sum(x for x, _ in pts) / n
        my = sum(y for _, y in pts) / n
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        b = sum((x - mx) * (y - my) for x, y in pts) / sxx
        fit[chip] = (my - b * mx, b)
        print(f"fit, {'chip' if chip else 'digital'} task: {fit[chip][0]:.3f} s + "
              f"{fit[chip][1] * 1e3:.3f} ms per image")
    big = []
    for model in range(5):
        for unit in range(7):  # digital + 6 chips
            for images in (10000, 10000):
                a, b = fit[unit > 0]
                big.append((len(big), images * (4 if unit else 1), a + b * images))
    times = [t for _, e, t in sorted(big, key=lambda x: (-x[1], x[0]))]
    efficiency_table("70 simulations of the paper's size (5 models x 7 units x 10,000 + 10,000 "
                     "images; times from the fit)", times, serial, "task",
                     workers=(1, 2, 8, 16, 32, 64))


if __name__ == "__main__":
    if sys.argv[1] == "study":
        study(sys.argv[2])
    else:
        main(sys.argv[1])
