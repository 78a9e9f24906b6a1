#!/usr/bin/env bash
# dmlref against ONNX Runtime's CPU provider on the same workloads, each against memcpy, in one run
# (bench/ort_bench.mjs says how it measures; bench/README.md keeps the results).
#   scripts/bench-onnxruntime.sh [ort_bench.mjs arguments: --repeats 15 --rounds 3 --mib 4,64 --only NAME]
# Builds dmlref_ort_time (Release, BUILD_DIR or build-bench/), installs onnxruntime-node as the
# ONNX Runtime test stage does (into build-ort/ort, shared with it), and runs the benchmark.
# Without npm's registry (and no earlier install) it prints "skipped: ..." and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-bench}
bash scripts/ort-install.sh build-ort/ort measured || { s=$?; [[ $s == 3 ]] && exit 0; exit $s; }
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLREF_BUILD_BENCH=ON -DDMLREF_BUILD_TESTS=OFF \
  -DDMLREF_BUILD_EXAMPLES=OFF > /dev/null
cmake --build "$build" --target dmlref_ort_time -j "$(nproc)"
node bench/ort_bench.mjs --modules build-ort/ort/node_modules --time "$build/bin/dmlref_ort_time" "$@"
