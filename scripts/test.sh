#!/usr/bin/env bash
# Quick start 2: install what is missing, build everything, and run the whole test suite with ctest:
# the C++ suites, the GoogleTest ones, and the Python module's pytest suite (-DDMLREF_PYTHON=ON,
# which also installs the module with pip into a fresh venv and runs the suite against that).
#   scripts/test.sh [extra cmake arguments...]      (BUILD_DIR=... picks the build folder; arguments
#   come after -DDMLREF_PYTHON=ON, so -DDMLREF_PYTHON=OFF leaves the module out; DMLREF_CTEST_ARGS
#   adds ctest arguments, e.g. "-LE packaging")
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
bash scripts/install-deps.sh all
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLREF_WERROR=ON -DDMLREF_PYTHON=ON "$@"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" ${DMLREF_CTEST_ARGS:-}
