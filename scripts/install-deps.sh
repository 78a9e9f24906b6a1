#!/usr/bin/env bash
# Installs, from Debian's packages, what dmlref's build needs and is missing.
#   scripts/install-deps.sh [core|all|python|fuzz|libcxx|windows|onnx]
#   core: compiler, CMake, fmt, Catch2, nlohmann-json, CLI11 (library, tests, tools, examples)
#   all:  core + the D3D12 backend's (vkd3d, Vulkan loader, Mesa lavapipe, glslang), the
#         benchmarks' (Google Benchmark, Eigen, xtensor), the tool's ONNX node tests' (ONNX's
#         protobuf classes and libprotobuf; python3-onnx for their tests), the Python module's
#         (below) and GoogleTest with GoogleMock for <dmlref/gtest.hpp>'s tests
#   python: core + the Python module's: Python's headers, pybind11, numpy, pytest, and pip,
#         setuptools, wheel and venv for `pip install --no-build-isolation ./python` (docs/python.md)
#   fuzz: core + clang and its runtime libraries (libFuzzer, ASan, UBSan) for tests/fuzz
#   libcxx: core + clang and LLVM's libc++ (scripts/test-libcxx.sh)
#   windows: core + the Windows stage's (scripts/test-windows.sh): mingw-w64 GCC (posix threads),
#         Wine 64-bit (its d3d12.dll carries vkd3d), Xvfb and xauth for xvfb-run, lavapipe and the
#         Vulkan loader, and the host's vkd3d-compiler that judges the cross-built DXBC
#   onnx: core + the ONNX export's (libonnx-dev, libprotobuf-dev, protobuf-compiler, python3-onnx)
#         and, where node or npm is missing, Debian's nodejs and npm for the ONNX Runtime stage
#         (scripts/test-onnxruntime.sh)
set -euo pipefail

core=(g++ cmake ninja-build pkg-config python3 libfmt-dev catch2 nlohmann-json3-dev libcli11-dev)
extra=(libvkd3d-dev libvulkan-dev mesa-vulkan-drivers vkd3d-compiler glslang-tools spirv-tools
       libbenchmark-dev libeigen3-dev libxtensor-dev
       libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx)
python=(python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest python3-setuptools python3-pip
        python3-wheel python3-venv)
gtest=(googletest libgtest-dev libgmock-dev)

fuzz=(clang libclang-rt-14-dev)
libcxx=(clang libc++-dev libc++abi-dev)
onnx=(libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx)
windows=(g++-mingw-w64-x86-64-posix wine64 wine xvfb xauth mesa-vulkan-drivers libvulkan1 vkd3d-compiler)

want=("${core[@]}")
if [[ "${1:-core}" == all ]]; then want+=("${extra[@]}" "${python[@]}" "${gtest[@]}"); fi
if [[ "${1:-core}" == python ]]; then want+=("${python[@]}"); fi
if [[ "${1:-core}" == fuzz ]]; then want+=("${fuzz[@]}"); fi
if [[ "${1:-core}" == libcxx ]]; then want+=("${libcxx[@]}"); fi
if [[ "${1:-core}" == windows ]]; then want+=("${windows[@]}"); fi
if [[ "${1:-core}" == onnx ]]; then
  want+=("${onnx[@]}")
  command -v node > /dev/null || want+=(nodejs)
  command -v npm > /dev/null || want+=(npm)
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then exit 0; fi

echo "dmlref: installing ${missing[*]}"
run_as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "dmlref: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  run_as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -q
"${run_as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
