#!/usr/bin/env bash
# The Windows stage: cross-build dmlref for Windows x86-64 (mingw-w64 GCC, Release, -Werror) and
# run its tests under Wine, the D3D12 ones on Wine's d3d12.dll (vkd3d) over lavapipe, under Xvfb.
#   scripts/test-windows.sh                (BUILD_DIR=... picks the build folder; build-windows)
# Runs the Catch2 suites, the examples, the D3D12 suites, d3d12.dxbc.host_vkd3d and the CLI groups
# rejections, usage, compare, roundtrip, seeded and roundtrip_d3d12 against dmlref.exe; prints ctest's
# summary and exits non-zero on any failure. docs/windows.md says what is not covered and why.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-windows}
# Models the CLI round trips write and run back (40 to a Wine process; roundtrip_d3d12 needs >= 500).
cli_cases=${DMLREF_WINDOWS_CLI_CASES:-520}

if [[ -z "${DMLREF_WINDOWS_UNDER_XVFB:-}" ]]; then
  bash scripts/install-deps.sh windows
  # D3D12 under Wine needs an X server (without one D3D12CreateDevice fails with
  # DXGI_ERROR_UNSUPPORTED), so the rest of this script runs under a virtual one.
  exec env DMLREF_WINDOWS_UNDER_XVFB=1 xvfb-run -a -s "-screen 0 1024x768x24" bash "$0" "$@"
fi

start=$SECONDS
. scripts/wine-prefix.sh
wine_prefix_start dmlref-wine
echo "dmlref: Wine prefix ready in $((SECONDS - start)) s"

cmake -S . -B "$build" -G Ninja --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release -DDMLREF_WERROR=ON -DDMLREF_D3D12=ON \
      --toolchain cmake/mingw-w64-x86_64.cmake -DDMLREF_CLI_CASES="$cli_cases"
# Only what the stage runs.
targets=(dmlref_cli readme_example seed_examples d3d12_verify
         test_ops test_property test_property_portable test_seeded_random test_core test_validation
         test_validation_unchecked test_npy test_conformance test_compare test_cli_app test_matcher
         test_engine_paths test_allocation test_hostile_api test_textbook test_boundaries test_parity_cases test_directml_translate
         test_identity test_slice_grad test_tile test_upsample test_indexed test_join_split test_join_split_desc
         test_reverse_subsequences test_reverse_subsequences_desc test_gather_desc test_scatter_one_hot_desc
         test_d3d12_dxbc test_d3d12_basic test_d3d12_random test_d3d12_verify test_directml)
build_start=$SECONDS
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
echo "dmlref: cross build took $((SECONDS - build_start)) s"

# No header may come from vkd3d in this build: the _WIN32 path uses mingw-w64's <d3d12.h>. Ninja
# keeps the compiler's dependency lists in its own log (the .d files are consumed), so ask it.
deps=$(ninja -C "$build" -t deps)
if grep -q 'vkd3d' <<<"$deps"; then
  echo "dmlref: a vkd3d header reached the Windows build:" >&2
  grep 'vkd3d' <<<"$deps" | sort -u >&2
  exit 1
fi
for object in tests/d3d12/CMakeFiles/test_d3d12_basic.dir/test_gpu_basic.cpp.obj tools/CMakeFiles/dmlref_cli.dir/main.cpp.obj; do
  # (into a variable first: grep -q stops reading early, and pipefail would count ninja's SIGPIPE)
  object_deps=$(ninja -C "$build" -t deps "$object")
  grep -Eq 'mingw-w64/include/d3d12\.h$' <<<"$object_deps" ||
    { echo "dmlref: $object was not compiled against mingw-w64's <d3d12.h>" >&2; exit 1; }
done
echo "dmlref: the D3D12 code was compiled against mingw-w64's <d3d12.h>; no vkd3d header in the build"

# Warm-up: the first Wine process that creates a D3D12 device opens the desktop, which starts
# explorer.exe; doing it here keeps that start-up out of the tests' times. (explorer.exe inherits
# the standard streams of the process that starts it, and Wine may start it again later when the
# desktop has been idle: cmake/wine64-run.sh therefore hands Wine files, never the caller's pipes.)
cmake/wine64-run.sh "$build/bin/test_d3d12_basic.exe" "d3d12: 8-byte elements move as two words" > /dev/null 2>&1 || true

# Not here: the packaging tests (they build with the host's compiler), the HLSL checks (host
# glslang, the same as the native stage), and cli.fuzz and cli.hostile (Linux's /proc, rlimits and signals; fuzz is 70x slower under Wine).
exclude='^(packaging\.|d3d12\.hlsl\.|cli\.fuzz$|cli\.hostile$)'
test_start=$SECONDS
status=0
# (The DirectML backend's tests, label directml, need DirectML.dll: scripts/test-directml.sh runs them.)
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -E "$exclude" -LE directml --timeout 1500 || status=$?
echo "dmlref: tests under Wine took $((SECONDS - test_start)) s"
# ctest lists the tests that skipped themselves (a Catch2 WARN "skipped here: ..." where this Wine
# lacks what they check); name the reasons too, from ctest's full log.
awk '/^[0-9]+\/[0-9]+ Test: /{name=substr($0, index($0, "Test: ") + 6)}
     /skipped here: /{print "dmlref: skipped: " name ": " substr($0, index($0, "skipped here: ") + 14)}' \
    "$build/Testing/Temporary/LastTest.log"
wine_prefix_report
echo "dmlref: Windows stage took $((SECONDS - start)) s"
exit "$status"
