#!/usr/bin/env bash
# Quick start 2: install what is missing, build everything, and run the whole test suite with ctest.
#   scripts/test.sh [extra cmake arguments...]      (BUILD_DIR=... picks the build folder)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
bash scripts/install-deps.sh all
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLREF_WERROR=ON "$@"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
