#!/usr/bin/env python3
"""Turns dmlref_bench's JSON output into a markdown table of throughput ratios to memcpy.

Usage: bench/ratios.py result.json [more.json ...] > table.md

Each benchmark is named <workload>/<implementation> and carries the counter x_memcpy: memcpy's
time for the workload's output bytes over the implementation's time, both measured in the same
iterations (higher is better; 1.00 = as fast as memcpy). With --benchmark_repetitions the
median over the repetitions is used. Several files (separate runs of the binary) give the
median across runs, and the table says how many went in. Workloads are listed in the order the
binary registers them, also for runs with --benchmark_enable_random_interleaving.
"""
import json
import statistics
import sys
from collections import OrderedDict

IMPLS = ["dmlref", "dmlref_2threads", "dmlref_2threads_split", "dmlref_memcpy_2pairs", "naive", "eigen", "xtensor", "rows_by_hand", "rows_by_hand_prefetch"]


def load(path):
    """{workload: {impl: ratio}} of one run: median over its repetitions."""
    with open(path) as f:
        data = json.load(f)
    samples, order = {}, {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" or b.get("error_occurred") or "x_memcpy" not in b:
            continue
        name = b.get("run_name", b["name"]).removesuffix("/manual_time")
        workload, _, impl = name.rpartition("/")
        samples.setdefault(workload, {}).setdefault(impl, []).append(b["x_memcpy"])
        rank = b.get("family_index", len(order))
        order[workload] = min(order.get(workload, rank), rank)
    return OrderedDict((w, {i: statistics.median(v) for i, v in samples[w].items()})
                       for w in sorted(samples, key=lambda w: order[w]))


def main(paths):
    runs = [load(p) for p in paths]
    workloads = OrderedDict((w, True) for run in runs for w in run)
    impls = [i for i in IMPLS if any(i in run.get(w, {}) for run in runs for w in workloads)]
    print(f"Throughput relative to memcpy of the same output bytes, timed in the same iterations; "
          f"median over the runs that include the workload ({len(runs)} given). Higher is better; 1.00 = memcpy.\n")
    print("| workload | runs | " + " | ".join(impls) + " |")
    print("|---|---:|" + "---:|" * len(impls))
    for w in workloads:
        cells = []
        for impl in impls:
            values = [run[w][impl] for run in runs if impl in run.get(w, {})]
            cells.append(f"{statistics.median(values):.2f}" if values else "-")
        count = sum(1 for run in runs if w in run)
        print(f"| {w} | {count} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
