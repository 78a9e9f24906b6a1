#!/usr/bin/env bash
# The D3D12 suites and the DirectML parity run on a machine with a real GPU and its Vulkan driver,
# in one short run.
#
#   scripts/gpu.sh prepare   (here, Debian 12: builds the D3D12 tests, the tool and the example
#                             into build-gpu, and gathers them with the Debian .deb files they load
#                             into .gpu/; then, where the DirectML stage's DLL can be had, a trimmed
#                             Wine, Xvfb, dmlref.exe and DirectML.dll into .gpu/dml.tar.xz.
#                             .gpu/ travels to the GPU machine)
#   scripts/gpu.sh run OUT   (there, as root, in the repository's root: unpacks the .deb files,
#                             points the Vulkan loader at the GPU's driver, runs every D3D12 suite,
#                             then DirectML under Wine against dmlref; logs go to OUT)
#   scripts/gpu.sh run-directml OUT   (the DirectML part alone, on the Vulkan driver the loader finds)
#
# The GPU machine needs no network and no build tools: the binaries are built here. vkd3d then
# runs the same DXBC kernels through the GPU vendor's Vulkan driver instead of lavapipe, and
# DirectML runs on Wine's d3d12 over that driver.
#
# The trimmed Wine (docs/directml.md, "On a real GPU"): Debian 12's libwine is 100 MB packed and
# 667 MB installed, too large to travel. `prepare` runs a short parity run and the DirectML
# backend's tests here with WINEDEBUG=+loaddll, keeps the PE modules they load and their Unix
# sides (debug sections stripped), and the shared libraries Wine, Xvfb and xkbcomp
# link or open that are not glibc's, libstdc++'s or the .deb files above. There, the Wine prefix
# is built by hand (registry files from a prefix made here, system32 links to the kept modules,
# updates disabled), so no wineboot --init runs.
# Environment, for run: DMLREF_GPU_PARITY_COUNT (12000), DMLREF_GPU_PARITY_VALID (4000), the sizes
# of the CI stage's run.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Vulkan loader and GL vendor-neutral dispatch (NVIDIA's Vulkan driver is libGLX_nvidia, which
# loads libGLdispatch), unpacked to /; vkd3d and fmt, unpacked aside.
system_debs=(libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2)
debs=("${system_debs[@]}" libvkd3d1 libvkd3d-utils1 libvkd3d-shader1 vkd3d-compiler libfmt9 libonnx1 libprotobuf32)
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
  prepare_directml
  echo "dmlref: .gpu/ ready ($(du -sh .gpu | cut -f1)); carry it and run: bash scripts/gpu.sh run \$OUT"
}

# The Debian files that hold each shared library a program links or opens (ldd's view), less glibc,
# the GCC runtime, GL dispatch and the Vulkan loader (those come from .gpu/deb or the GPU machine).
host_libs() {
  ldd "$@" 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*|libgcc_s|libstdc\+\+|libGL[A-Za-z_]*|libEGL[A-Za-z_]*|libOpenGL|libvulkan)\.so' || true
}

prepare_directml() {
  local build=build-windows status=0 env_lines
  env_lines=$(bash scripts/directml-env.sh "$build") || status=$?
  if ((status != 0)); then
    echo "dmlref: no DirectML part in .gpu/ (scripts/directml-env.sh: ${env_lines:-status $status})"
    return 0
  fi
  eval "$env_lines"
  cmake -S . -B "$build" -G Ninja --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release -DDMLREF_WERROR=ON -DDMLREF_D3D12=ON \
        --toolchain cmake/mingw-w64-x86_64.cmake > /dev/null
  cmake --build "$build" --target dmlref_cli test_directml

  local stage=$PWD/build-gpu/dml wine_lib=/usr/lib/x86_64-linux-gnu/wine
  rm -rf "$stage" && mkdir -p "$stage"/{bin,lib,wine/usr/lib/wine,wine/usr/share/wine,x/usr/bin,x/usr/share/X11,reg}
  # Which PE modules a run loads: a short parity run and the backend's tests, here, under Xvfb.
  local probe=$stage/probe && mkdir -p "$probe"
  (
    n=90; while [[ -e /tmp/.X$n-lock ]]; do n=$((n + 1)); done
    Xvfb :$n -screen 0 1024x768x24 -nolisten tcp > /dev/null 2>&1 &
    xvfb=$!
    export DISPLAY=:$n
    export WINEPREFIX WINEDLLOVERRIDES="mscoree,mshtml="
    WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/dmlref-wine-gpu.XXXXXX")
    trap 'wineserver -k 2> /dev/null || true; wineserver -w 2> /dev/null || true; rm -rf "$WINEPREFIX"; kill $xvfb' EXIT
    cmake/wine64-run.sh wineboot --init > /dev/null 2>&1
    wineserver -w # the registry files are written when the server ends
    cp "$WINEPREFIX"/{system.reg,user.reg,userdef.reg} "$stage/reg/"
    export DMLREF_DIRECTML_DLL WINEDEBUG=+loaddll
    (cd "$probe" && "$OLDPWD/cmake/wine64-run.sh" "$OLDPWD/$build/bin/dmlref.exe" directml-parity --count 60 --valid 30 \
       --seed 1 > parity.txt 2> loaddll-1.txt) || true
    cmake/wine64-run.sh "$build/bin/test_directml.exe" > "$probe/tests.txt" 2> "$probe/loaddll-2.txt" || true
  )
  local modules
  # ntdll.dll and apisetschema.dll (which resolves the api-ms-win-* imports) are mapped before the
  # loader traces anything.
  modules=$( (echo ntdll.dll apisetschema.dll; grep -ohE 'Loaded L"C:\\\\windows\\\\system32\\\\[^"]+"' "$probe"/loaddll-*.txt | sed 's/.*\\\\//; s/"$//') | sort -u)
  [[ $(wc -w <<< "$modules") -gt 20 ]] || { echo "dmlref: the +loaddll probe found too few modules: $modules" >&2; exit 1; }
  mkdir -p "$stage/wine$wine_lib/x86_64-windows" "$stage/wine$wine_lib/x86_64-unix"
  local m
  for m in $modules; do cp "$wine_lib/x86_64-windows/$m" "$stage/wine$wine_lib/x86_64-windows/"; done
  x86_64-w64-mingw32-strip --strip-debug "$stage/wine$wine_lib/x86_64-windows/"*
  # The Unix side of each kept module (ntdll.so for ntdll.dll, winex11.so for winex11.drv, ...).
  local unix_side=("$wine_lib"/x86_64-unix/libwine.so*)
  for m in $modules; do [[ ! -f $wine_lib/x86_64-unix/${m%.*}.so ]] || unix_side+=("$wine_lib/x86_64-unix/${m%.*}.so"); done
  cp -P "${unix_side[@]}" "$stage/wine$wine_lib/x86_64-unix/"
  strip --strip-debug "$stage/wine$wine_lib"/x86_64-unix/*.so 2> /dev/null || true
  cp /usr/lib/wine/wine64 /usr/lib/wine/wineserver64 "$stage/wine/usr/lib/wine/"
  cp -r /usr/share/wine/nls /usr/share/wine/wine.inf "$stage/wine/usr/share/wine/"
  # Xvfb, and xkbcomp with the keyboard data it compiles at the server's start.
  cp /usr/bin/Xvfb /usr/bin/xkbcomp "$stage/x/usr/bin/"
  cp -r /usr/share/X11/xkb "$stage/x/usr/share/X11/"
  # Shared libraries: linked by Wine's Unix side, Xvfb and xkbcomp, and the X extensions winex11
  # and win32u open at run time.
  local l
  for l in $(host_libs "${unix_side[@]}" /usr/bin/Xvfb /usr/bin/xkbcomp) \
           /usr/lib/x86_64-linux-gnu/lib{Xcursor.so.1,Xi.so.6,Xrandr.so.2,Xrender.so.1,Xinerama.so.1,Xcomposite.so.1,Xxf86vm.so.1,Xfixes.so.3,X11-xcb.so.1,freetype.so.6}; do
    cp -L "$l" "$stage/lib/"
  done
  for l in $(host_libs "$stage"/lib/*.so*); do [[ -e $stage/lib/$(basename "$l") ]] || cp -L "$l" "$stage/lib/"; done
  cp "$build/bin/dmlref.exe" "$build/bin/test_directml.exe" "$stage/bin/"
  cp "$DMLREF_DIRECTML_DLL" "$stage/bin/DirectML.dll"
  grep -h 'directml-parity:' "$probe/parity.txt" | sed 's/^/dmlref: probe run here: /' || true
  echo "dmlref: DirectML part: $(wc -w <<< "$modules") PE modules, $(ls "$stage/lib" | wc -l) libraries, $(du -sh "$stage" | cut -f1) unpacked"
  rm -rf "$probe"
  tar -C "$stage" -cf - . | xz -T0 -6 > .gpu/dml.tar.xz
}

# There: the .deb files unpacked, the loader pointed at the GPU's Vulkan driver.
setup() {
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
}

run() {
  local out=$1
  setup "$out"

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

  if [[ -f .gpu/dml.tar.xz ]]; then
    run_directml "$out" || failed=1
  else
    echo "dmlref: DirectML part skipped: .gpu/dml.tar.xz was not prepared"
  fi
  return $failed
}

run_directml() {
  local out=$1 d=/tmp/dmlref-gpu-dml start=$SECONDS
  mkdir -p "$out"
  rm -rf "$d" && mkdir -p "$d" && xz -dc .gpu/dml.tar.xz | tar -C "$d" -xf -
  local wine_lib=$d/wine/usr/lib/x86_64-linux-gnu/wine
  # Xvfb runs xkbcomp from its compiled-in /usr/bin.
  [[ -e /usr/bin/xkbcomp ]] || ln -s "$d/x/usr/bin/xkbcomp" /usr/bin/xkbcomp
  # The prefix, by hand: the registry made by wineboot on the preparing machine, system32 links to
  # the kept modules, updates disabled (no wineboot --init).
  export WINEPREFIX=$d/prefix
  mkdir -p "$WINEPREFIX"/dosdevices "$WINEPREFIX"/drive_c/windows/{system32,temp} "$WINEPREFIX"/drive_c/users/root/Temp
  cp "$d"/reg/*.reg "$WINEPREFIX/"
  echo disable > "$WINEPREFIX/.update-timestamp"
  ln -s ../drive_c "$WINEPREFIX/dosdevices/c:"
  ln -s / "$WINEPREFIX/dosdevices/z:"
  ln -s "$wine_lib"/x86_64-windows/* "$WINEPREFIX/drive_c/windows/system32/"
  export PATH="$d/wine/usr/lib/wine:$PATH" WINESERVER=$d/wine/usr/lib/wine/wineserver64
  export LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # wined3d's Vulkan renderer makes the DXGI adapter the Vulkan device, so vkd3d matches it by UUID
  # (its GL renderer would need GLX on the X server).
  export WINEDLLOVERRIDES="mscoree,mshtml,winemenubuilder.exe=" WINE_D3D_CONFIG=renderer=vulkan
  export DMLREF_DIRECTML_DLL=$d/bin/DirectML.dll DISPLAY=:97
  "$d/x/usr/bin/Xvfb" :97 -screen 0 1024x768x24 -nolisten tcp -xkbdir "$d/x/usr/share/X11/xkb" > "$out/xvfb.log" 2>&1 &
  local xvfb=$! i
  for i in $(seq 50); do [[ -e /tmp/.X11-unix/X97 ]] && break; sleep 0.1; done
  [[ -e /tmp/.X11-unix/X97 ]] || echo "dmlref: Xvfb has not opened display :97 after 5 s ($(cat "$out/xvfb.log"))"
  local failed=0
  echo "== DirectML $(basename "$d")/bin/DirectML.dll under Wine ($(wine64 --version 2>/dev/null || echo '?')) on the GPU"
  # vkd3d's trace names the Vulkan device DirectML's D3D12 device runs on.
  # Straight through wine64, so that the log streams even if the step is cut off.
  WINEDEBUG=trace+vkd3d,+loaddll,+process timeout 120 setarch "$(uname -m)" -R wine64 "$d/bin/test_directml.exe" \
    "directml: the device reports*" -s > "$out/directml_device.log" 2>&1 || failed=1
  ps -eo pid,etimes,args | grep -iE 'wine|\.exe|Xvfb' | grep -v grep | cut -c1-150 > "$out/processes.txt" || true
  { grep -E 'Device name|Driver version' "$out/directml_device.log" | head -2; grep -m1 'feature level' "$out/directml_device.log"; } |
    sed 's/^/DirectML: /' | tee -a "$out/device.txt" || true
  echo "-- [$((SECONDS - start)) s] the DirectML backend's tests"
  timeout 300 cmake/wine64-run.sh "$d/bin/test_directml.exe" > "$out/test_directml.log" 2>&1 || failed=1
  tail -3 "$out/test_directml.log"
  local count=${DMLREF_GPU_PARITY_COUNT:-12000} valid=${DMLREF_GPU_PARITY_VALID:-4000}
  echo "-- [$((SECONDS - start)) s] directml-parity: $count boundary and $valid valid descs (seed 1) against DirectML on the GPU"
  local known="Z:${PWD//\//\\}\\tests\\directml\\known-divergences.json"
  (cd "$out" && timeout 900 "$OLDPWD/cmake/wine64-run.sh" "$d/bin/dmlref.exe" directml-parity --count "$count" --valid "$valid" \
     --seed 1 --known "$known" > parity.txt 2>&1) || failed=1
  grep -E '^(all|directml-parity)' "$out/parity.txt" || tail -5 "$out/parity.txt"
  echo "-- [$((SECONDS - start)) s] done"
  kill "$xvfb" 2> /dev/null || true
  echo "dmlref: DirectML on the GPU: $([[ $failed == 0 ]] && echo passed || echo FAILED)"
  return $failed
}

case ${1:-} in
  prepare) prepare ;;
  run) run "${2:?usage: scripts/gpu.sh run OUT}" ;;
  run-directml) setup "${2:?usage: scripts/gpu.sh run-directml OUT}"; run_directml "$2" ;; # the DirectML part alone
  *) echo "usage: scripts/gpu.sh prepare | run OUT" >&2; exit 2 ;;
esac
