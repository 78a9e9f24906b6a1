#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the demo (every worked example of
# DirectML's pages through dmlref's desc-level API; exits non-zero if any output differs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh core
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target seed_examples
./build/bin/seed_examples
