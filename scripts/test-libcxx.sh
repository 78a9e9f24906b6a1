#!/usr/bin/env bash
# The whole suite built with clang and LLVM's libc++, on the library's plain C++ path
# (DMLREF_PORTABLE: no compiler extension, the path MSVC takes), warnings as errors. It catches what
# depends on libstdc++ (unspecified library behaviour, missing or differently declared functions)
# and keeps the fallback of every extension tested. The tests, tools and examples link the compiled
# library (DMLREF_TEST_COMPILED): the other whole-suite stages run header-only, so both modes run.
#   scripts/test-libcxx.sh [extra cmake arguments...]     (BUILD_DIR=... picks the build folder)
# fmt is used header-only: Debian's compiled libfmt is built against libstdc++.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-libcxx}
bash scripts/install-deps.sh libcxx
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS=-stdlib=libc++ -DDMLREF_FMT_HEADER_ONLY=ON -DDMLREF_PORTABLE=ON -DDMLREF_WERROR=ON \
  -DDMLREF_D3D12=OFF -DDMLREF_TEST_COMPILED=ON "$@"
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
