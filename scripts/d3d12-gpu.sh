#!/usr/bin/env bash
# The D3D12 suites on a machine with a real GPU and its Vulkan driver, in one short run.
#
#   scripts/d3d12-gpu.sh prepare   (here, Debian 12: builds the D3D12 tests, the tool and the
#                                   example into build-gpu, and gathers them with the Debian .deb
#                                   files they load into .gpu/, which travels to the GPU machine)
#   scripts/d3d12-gpu.sh run OUT   (there, as root, in the repository's root: unpacks the .deb
#                                   files, points the Vulkan loader at the GPU's driver, and runs
#                                   every D3D12 suite; logs go to OUT)
#
# The GPU machine needs no network and no build tools: the binaries are built here. vkd3d then
# runs the same DXBC kernels through the GPU vendor's Vulkan driver instead of lavapipe.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Vulkan loader and GL vendor-neutral dispatch (NVIDIA's Vulkan driver is libGLX_nvidia, which
# loads libGLdispatch), unpacked to /; vkd3d and fmt, unpacked aside.
system_debs=(libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2)
debs=("${system_debs[@]}" libvkd3d1 libvkd3d-utils1 libvkd3d-shader1 vkd3d-compiler libfmt9)
tests=(test_d3d12_dxbc test_d3d12_basic test_d3d12_random test_d3d12_verify)

prepare() {
  bash scripts/install-deps.sh all
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLREF_D3D12=ON > /dev/null
  cmake --build build-gpu --target "${tests[@]}" dmlref_cli d3d12_verify
  rm -rf .gpu && mkdir -p .gpu/deb .gpu/bin
  cp build-gpu/bin/* .gpu/bin/
  (cd .gpu/deb && apt-get download "${debs[@]}" 2>&1 | grep -v unsandboxed || true)
  # The tests hold absolute paths of this checkout (the conformance models, vkd3d-compiler).
  echo "$PWD" > .gpu/source_dir
  echo "dmlref: .gpu/ ready ($(du -sh .gpu | cut -f1)); carry it and run: bash scripts/d3d12-gpu.sh run \$OUT"
}

run() {
  local out=$1 root=/tmp/dmlref-gpu-deb
  mkdir -p "$out" "$root"
  local f p
  for f in .gpu/deb/*.deb; do
    p=$(dpkg-deb -f "$f" Package)
    if [[ " ${system_debs[*]} " == *" $p "* ]]; then dpkg -x "$f" /; else dpkg -x "$f" "$root"; fi
  done
  ldconfig
  export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PATH="$root/usr/bin:$PATH"
  [[ -e /usr/bin/vkd3d-compiler ]] || ln -s "$root/usr/bin/vkd3d-compiler" /usr/bin/vkd3d-compiler
  local src; src=$(cat .gpu/source_dir)
  if [[ ! -e "$src" ]]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi
  # The NVIDIA driver's ICD file, where the GPU machine mounts the driver (else the loader's search).
  local icd
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
             /usr/share/vulkan/icd.d/nvidia_icd.json ""; do [[ -f $icd ]] && break; done
  if [[ -n $icd ]]; then export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd; fi

  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
    # vkd3d names the Vulkan device it picked only in its trace output.
    VK_LOADER_DEBUG=error,warn VKD3D_DEBUG=trace .gpu/bin/test_d3d12_basic 2>&1 | grep -m8 -E 'Device name|Driver version|ERROR|WARNING' || true
  } | tee "$out/device.txt"

  local failed=0
  for t in "${tests[@]}"; do
    echo "== $t"
    .gpu/bin/$t > "$out/$t.log" 2>&1 || failed=1
    tail -3 "$out/$t.log"
  done
  echo "== d3d12_verify --bench"
  .gpu/bin/d3d12_verify --bench > "$out/d3d12_verify.log" 2>&1 || failed=1
  tail -5 "$out/d3d12_verify.log"
  echo "== dmlref vectors models through dmlref run --backend d3d12"
  python3 tests/cli/test_cli.py "$PWD/.gpu/bin/dmlref" "$PWD/tests/data/conformance" roundtrip_d3d12 520 \
    > "$out/roundtrip_d3d12.log" 2>&1 || failed=1
  tail -3 "$out/roundtrip_d3d12.log"
  echo "dmlref: D3D12 suites on the GPU: $([[ $failed == 0 ]] && echo passed || echo FAILED)"
  return $failed
}

case ${1:-} in
  prepare) prepare ;;
  run) run "${2:?usage: scripts/d3d12-gpu.sh run OUT}" ;;
  *) echo "usage: scripts/d3d12-gpu.sh prepare | run OUT" >&2; exit 2 ;;
esac
