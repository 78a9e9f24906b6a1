"""The Python module's cost against two baselines measured in the same run:

1. Call overhead on small tensors: a dmlref call against a numpy basic slice of the same array
   (x[a:b:s] makes a view and copies nothing) and against that slice copied (what dmlref returns);
   also dmlref.pad and depth_to_space against numpy's own forms.
2. 64 MiB float32 workloads: dmlref's Python call (into a preallocated out=, and allocating its
   result) against the C++ engine on the same arrays, dmlref::execute timed in a C++ loop with no
   Python between its runs (dmlref._dmlref._engine_seconds).

Every variant runs interleaved with its baseline, repeats times; the tables give medians and
best runs, and ratios: the median over repeats of the variant's time over its baseline's in the
same repeat (higher is slower: 1.00 is the baseline's time).

    PYTHONPATH=build/python python3 bench/python_bench.py [--repeats 15] [--mib 64]
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import dmlref


def per_call(function, calls):
    start = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - start) / calls


def interleaved(variants, repeats, calls):
    """{name: [seconds per call, one per repeat]}, the variants taking turns within each repeat."""
    times = {name: [] for name in variants}
    for _ in range(repeats):
        for name, function in variants.items():
            times[name].append(per_call(function, calls))
    return times


def small_calls(repeats):
    x = np.arange(64, dtype=np.float32).reshape(1, 4, 4, 4)
    offsets, sizes, strides = (0, 0, 1, 0), (1, 4, 2, 4), (1, 1, 1, 2)
    p = np.arange(16, dtype=np.float32).reshape(4, 4)
    d = np.arange(64, dtype=np.float32).reshape(1, 16, 2, 2)
    variants = {
        "numpy x[:, :, 1:3, ::2] (a view)": lambda: x[:, :, 1:3, ::2],
        "numpy x[:, :, 1:3, ::2].copy()": lambda: x[:, :, 1:3, ::2].copy(),
        "dmlref.slice(x, ...)": lambda: dmlref.slice(x, offsets, sizes, strides),
        "numpy np.pad(p, 1, 'reflect')": lambda: np.pad(p, 1, "reflect"),
        "dmlref.pad(p, 1, 1, 'reflect')": lambda: dmlref.pad(p, 1, 1, "reflect"),
        "numpy reshape/transpose/reshape": lambda: d.reshape(1, 4, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 4, 4, 4),
        "dmlref.depth_to_space(d, 2, 'crd')": lambda: dmlref.depth_to_space(d, 2, "crd"),
    }
    times = interleaved(variants, repeats, 20000)

    def ratio(name, baseline):
        """The median over repeats of name's time over baseline's in the same repeat."""
        return statistics.median(a / b for a, b in zip(times[name], times[baseline]))

    view, copy = "numpy x[:, :, 1:3, ::2] (a view)", "numpy x[:, :, 1:3, ::2].copy()"
    print("\n## Call overhead, small float32 tensors (ns per call; ratios: medians of each repeat's ratio)\n")
    print("| call | median ns | best ns | / numpy slice view | / numpy slice copy |")
    print("|---|---:|---:|---:|---:|")
    for name, t in times.items():
        print(f"| {name} | {statistics.median(t) * 1e9:.0f} | {min(t) * 1e9:.0f} | {ratio(name, view):.2f} | "
              f"{ratio(name, copy):.2f} |")
    pad = ratio("dmlref.pad(p, 1, 1, 'reflect')", "numpy np.pad(p, 1, 'reflect')")
    d2s = ratio("dmlref.depth_to_space(d, 2, 'crd')", "numpy reshape/transpose/reshape")
    print(f"\ndmlref.pad / np.pad: {pad:.2f}; dmlref.depth_to_space / numpy's reshape-transpose-reshape: {d2s:.2f}")


def f32(sizes):
    return dmlref.BufferTensorDesc("FLOAT32", list(sizes))


def large_workloads(mib, repeats):
    n = mib * 2**20 // 4  # float32 elements
    w = 512
    rng = np.random.default_rng(0)

    def array(shape):
        return rng.random(shape, dtype=np.float32)

    c = n // (w * w)
    cases = []
    x = array((1, c, w, w))
    cases.append(("depth_to_space B=2 CRD", x, dmlref.DepthToSpace1Desc(f32(x.shape), f32((1, c // 4, 2 * w, 2 * w)), 2,
                                                                         "COLUMN_ROW_DEPTH"),
                  lambda x, out: dmlref.depth_to_space(x, 2, "crd", out=out),
                  lambda x: dmlref.depth_to_space(x, 2, "crd"),
                  lambda x: x.reshape(1, c // 4, 2, 2, w, w).transpose(0, 1, 4, 2, 5, 3).reshape(1, c // 4, 2 * w, 2 * w)))
    cases.append(("space_to_depth B=2 DCR", x, dmlref.SpaceToDepth1Desc(f32(x.shape), f32((1, 4 * c, w // 2, w // 2)), 2,
                                                                         "DEPTH_COLUMN_ROW"),
                  lambda x, out: dmlref.space_to_depth(x, 2, "dcr", out=out),
                  lambda x: dmlref.space_to_depth(x, 2, "dcr"),
                  lambda x: np.ascontiguousarray(x.reshape(1, c, w // 2, 2, w // 2, 2).transpose(0, 3, 5, 1, 2, 4)).reshape(
                      1, 4 * c, w // 2, w // 2)))
    cases.append(("SLICE1 stride -1 on W", x, dmlref.Slice1Desc(f32(x.shape), f32(x.shape), [0, 0, 0, 0], list(x.shape),
                                                                 [1, 1, 1, -1]),
                  lambda x, out: dmlref.slice(x, 0, x.shape, (1, 1, 1, -1), out=out),
                  lambda x: dmlref.slice(x, 0, x.shape, (1, 1, 1, -1)),
                  lambda x: x[..., ::-1].copy()))
    p = array((1, c, w - 6, w - 6))
    cases.append(("PADDING1 reflect {0,0,3,3}", p, dmlref.Padding1Desc(f32(p.shape), f32((1, c, w, w)), "REFLECTION",
                                                                        "FLOAT32", 0, [0, 0, 3, 3], [0, 0, 3, 3]),
                  lambda x, out: dmlref.pad(x, (0, 0, 3, 3), (0, 0, 3, 3), "reflect", out=out),
                  lambda x: dmlref.pad(x, (0, 0, 3, 3), (0, 0, 3, 3), "reflect"),
                  lambda x: np.pad(x, [(0, 0), (0, 0), (3, 3), (3, 3)], "reflect")))
    print(f"\n## {mib} MiB float32 workloads (ms per call, medians; ratios to the C++ engine's, medians of each round's)\n")
    print("| workload | C++ engine ms | Python, out= ms | ratio | Python, new result ms | ratio | numpy ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for name, x, desc, into, fresh, numpy_form in cases:
        out = np.empty(desc.output_tensor.sizes, np.float32)
        reference = dmlref.execute(desc, x)
        into(x, out)
        assert np.array_equal(out.view(np.uint32), reference.view(np.uint32)), name
        assert np.array_equal(np.ascontiguousarray(numpy_form(x)).view(np.uint32), reference.view(np.uint32)), name
        engine, python, allocating, numpy = [], [], [], []
        for _ in range(repeats):  # interleaved, one run of each a round
            engine.append(dmlref._dmlref._engine_seconds(desc, x, out, 1)[0])
            python.append(per_call(lambda: into(x, out), 1))
            allocating.append(per_call(lambda: fresh(x), 1))
            numpy.append(per_call(lambda: numpy_form(x), 1))
        e = statistics.median(engine)
        row = [statistics.median(t) for t in (python, allocating, numpy)]
        ratios = [statistics.median(a / b for a, b in zip(t, engine)) for t in (python, allocating, numpy)]
        worst = max(worst, ratios[0])
        print(f"| {name} | {e * 1e3:.2f} | {row[0] * 1e3:.2f} | {ratios[0]:.3f} | {row[1] * 1e3:.2f} | {ratios[1]:.2f} | "
              f"{row[2] * 1e3:.2f} | {ratios[2]:.2f} |")
    print(f"\nlargest Python (out=) / C++ engine ratio: {worst:.3f}")


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return (f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; Python {platform.python_version()}, "
            f"numpy {np.__version__}, dmlref {dmlref.__version__} ({dmlref._dmlref.__file__}); "
            f"load average {load[0]:.2f} at the start; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--skip-small", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    print(f"# dmlref's Python module: {machine()}")
    if not args.skip_small:
        small_calls(args.repeats)
    if not args.skip_large:
        large_workloads(args.mib, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
