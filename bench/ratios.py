#!/usr/bin/env python3
"""Turns dmlref_bench's JSON output into a markdown table of throughput ratios to memcpy.

Usage: bench/ratios.py result.json [more.json ...] > table.md

Each benchmark is named <workload>/<implementation>. With --benchmark_repetitions the median
aggregate is used, otherwise the single run. A ratio is the implementation's bytes per second
divided by memcpy's for the same workload in the same run (higher is better; 1.00 = memcpy).
Several files (separate runs) give one column per run and the median across them.
"""
import json
import statistics
import sys
from collections import OrderedDict

IMPLS = ["dmlref", "dmlref_2threads", "naive", "eigen", "xtensor"]


def load(path):
    with open(path) as f:
        data = json.load(f)
    medians, singles = {}, {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"]).removesuffix("/real_time")
        if "bytes_per_second" not in b or b.get("error_occurred"):
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b["bytes_per_second"]
        else:
            singles.setdefault(name, []).append(b["bytes_per_second"])
    speed = {name: statistics.median(v) for name, v in singles.items()}
    speed.update(medians)
    ratios = OrderedDict()
    for name, bps in speed.items():
        workload, _, impl = name.rpartition("/")
        base = speed.get(workload + "/memcpy")
        if impl == "memcpy" or not base:
            continue
        ratios.setdefault(workload, {})[impl] = bps / base
    return data.get("context", {}), ratios


def main(paths):
    runs = [load(p) for p in paths]
    workloads = OrderedDict()
    for _, ratios in runs:
        for w in ratios:
            workloads[w] = True
    impls = [i for i in IMPLS if any(i in r.get(w, {}) for _, r in runs for w in workloads)]
    print(f"Throughput / memcpy throughput of the same output bytes, same run; median of {len(runs)} run(s)"
          " (each itself a median over repetitions). Higher is better.\n")
    print("| workload | " + " | ".join(impls) + " |")
    print("|---|" + "---:|" * len(impls))
    for w in workloads:
        cells = []
        for impl in impls:
            values = [r[w][impl] for _, r in runs if impl in r.get(w, {})]
            cells.append(f"{statistics.median(values):.2f}" if values else "-")
        print(f"| {w} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
