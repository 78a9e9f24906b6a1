#!/usr/bin/env bash
# Fetches and caches what the DirectML comparison under Wine needs, and prints `export` lines:
#   status=0; env=$(bash scripts/directml-env.sh [BUILD]) || status=$?   (BUILD: build-windows)
#   [[ $status -eq 0 ]] && eval "$env"     # 3: skipped ("skipped: <why>" on stdout); else failed
# - Microsoft's DirectML.dll, from the npm packages onnxruntime-node 1.30.0 (DirectML 1.15.4) and
#   1.18.0 (DirectML 1.14.1), pinned by tests/directml/npm/<version>/package-lock.json, installed
#   with `npm ci --ignore-scripts` into BUILD/directml/npm-<version>/ and copied to
#   BUILD/directml/dml-<DirectML version>/DirectML.dll. The DLLs are never committed.
# - Mesa 25's lavapipe (mesa-vulkan-drivers from Debian's bookworm-backports suite): Debian 12's
#   Mesa 22 lacks VK_EXT_descriptor_indexing, without which Wine's vkd3d silently drops the
#   descriptor tables DirectML binds its tensors through. The package is fetched with apt-get on a
#   private sources list, lists folder, state and cache (BUILD/directml/apt/; the system's apt
#   lists, cache, locks and update hooks are left alone, nothing is installed), unpacked with
#   dpkg-deb -x into BUILD/directml/mesa/, and BUILD/directml/lvp_icd.json points the Vulkan
#   loader at it. The mirror is the machine's own Debian mirror, read from its apt configuration.
# Each part is fetched only when BUILD/directml/ lacks it; a cached run needs no network.
# stdout, on success (exit 0), exactly: export DMLREF_DIRECTML_DLL=..., DMLREF_DIRECTML_DLL_1_14=...,
# VK_ICD_FILENAMES=... and DMLREF_MESA_VERSION=... (one line each). When npm's registry or the
# backports suite cannot be reached: one line "skipped: <why>" and exit 3. Failures exit 1.
# Progress goes to stderr.
# Environment: DMLREF_BACKPORTS_MIRROR (the Debian mirror's URI; default: the first Debian
# bookworm source in the machine's apt configuration), DMLREF_FETCH_TIMEOUT (seconds each
# reachability check may take, 30); npm reads its own npm_config_* (npm_config_cache is set to
# BUILD/directml/npm-cache).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build-windows}
[[ "$build" == /* ]] || build=$root/$build
dir=$build/directml
fetch_timeout=${DMLREF_FETCH_TIMEOUT:-30}
suite=bookworm-backports

exec 3>&1 1>&2 # stdout is for the export lines (fd 3); everything else goes to stderr
say() { echo "directml-env: $*"; }
skip() { echo "skipped: $*" >&3; exit 3; }
fail() { echo "directml-env: FAILED: $*"; exit 1; }

for tool in node npm apt-get apt-config dpkg-deb ldd flock timeout; do
  command -v "$tool" > /dev/null || fail "'$tool' is not installed (node and npm: Debian's nodejs and npm)"
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
exec 9> "$dir/.lock" # one run at a time per build folder
flock 9

# ---- DirectML.dll through npm -------------------------------------------------------------------
export npm_config_cache="$dir/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
ort_versions=(1.30.0 1.18.0)                    # onnxruntime-node
dml_versions=(1.15.4 1.14.1)                    # the DirectML each one carries
dll_paths=(bin/napi-v6/win32/x64/DirectML.dll bin/napi-v3/win32/x64/DirectML.dll)
npm_checked=
for i in "${!ort_versions[@]}"; do
  ort=${ort_versions[$i]} dml=${dml_versions[$i]}
  lock=$root/tests/directml/npm/$ort
  prefix=$dir/npm-$ort
  dll=$prefix/node_modules/onnxruntime-node/${dll_paths[$i]}
  installed=$(node -p "try { require('$prefix/node_modules/onnxruntime-node/package.json').version } catch { '' }" 2> /dev/null || true)
  if [[ "$installed" != "$ort" || ! -f "$dll" ]] || ! cmp -s "$lock/package-lock.json" "$prefix/package-lock.json"; then
    if [[ -z "$npm_checked" ]]; then
      timeout "$fetch_timeout" npm view "onnxruntime-node@$ort" version --fetch-retries=0 > /dev/null 2>&1 ||
        skip "npm's registry cannot be reached (npm view onnxruntime-node@$ort failed or timed out), so DirectML.dll cannot be fetched"
      npm_checked=1
    fi
    say "installing onnxruntime-node $ort into $prefix (npm ci, --ignore-scripts)"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    cp "$lock/package.json" "$lock/package-lock.json" "$prefix/"
    (cd "$prefix" && npm ci --ignore-scripts --no-progress --loglevel=error) || fail "npm ci of onnxruntime-node $ort failed"
    [[ -f "$dll" ]] || fail "onnxruntime-node $ort has no ${dll_paths[$i]}"
  fi
  target=$dir/dml-$dml/DirectML.dll
  if ! cmp -s "$dll" "$target"; then
    # The DLL's version resource (UTF-16) names the DirectML release, e.g. "1.15.4+241025-...".
    node -e 'const [f, v] = process.argv.slice(1);
             process.exit(require("fs").readFileSync(f).includes(Buffer.from(v + "+", "utf16le")) ? 0 : 1)' "$dll" "$dml" ||
      fail "$dll is not DirectML $dml (no version $dml+ in its version resource)"
    mkdir -p "$dir/dml-$dml"
    cp "$dll" "$target.tmp"
    mv "$target.tmp" "$target"
    say "DirectML $dml: $target"
  fi
done

# ---- Mesa 25's lavapipe from bookworm-backports -------------------------------------------------
mesa=$dir/mesa
lvp_library() { local f; for f in "$mesa"/usr/lib/*/libvulkan_lvp.so; do [[ -f "$f" ]] && { echo "$f"; return 0; }; done; return 0; }
lvp=$(lvp_library)
mesa_version=$(cat "$dir/mesa-version" 2> /dev/null || true)
if [[ -z "$lvp" || "$mesa_version" != 25* ]]; then
  # The mirror: DMLREF_BACKPORTS_MIRROR, else the first bookworm (or -updates/-backports) source of
  # the machine's apt configuration (deb822 .sources files and one-line .list files), with its keyring.
  mirror=${DMLREF_BACKPORTS_MIRROR:-} keyring=
  if [[ -z "$mirror" ]]; then
    sourcelist='' sourceparts=''
    eval "$(apt-config shell sourcelist Dir::Etc::sourcelist/f sourceparts Dir::Etc::sourceparts/d)"
    files=()
    for f in "$sourceparts"*.sources "$sourcelist" "$sourceparts"*.list; do
      if [[ -f "$f" ]]; then files+=("$f"); fi
    done
    found=
    if [[ ${#files[@]} -gt 0 ]]; then
      found=$(awk '
        function debian(s) { return s ~ /(^|[ \t])bookworm(-updates|-backports)?([ \t]|$)/ }
        function flush() {
          if (!done && uri != "" && enabled && types ~ /(^|[ \t])deb([ \t]|$)/ && debian(suites)) { print uri "\t" key; done = 1 }
          uri = ""; suites = ""; types = ""; key = ""; enabled = 1
        }
        FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
        /^[ \t]*#/ { next }
        deb822 && /^[ \t]*$/ { flush(); next }
        deb822 && /^[^ \t]/ {
          field = tolower($1); value = $0; sub(/^[^:]*:[ \t]*/, "", value)
          if (field == "uris:") { split(value, u, /[ \t]+/); uri = u[1] }
          else if (field == "suites:") suites = value
          else if (field == "types:") types = value
          else if (field == "enabled:") enabled = tolower(value) !~ /^no/
          else if (field == "signed-by:" && value ~ /^\//) key = value
          next
        }
        !deb822 && $1 == "deb" {
          n = 2; opts = ""
          if ($2 ~ /^\[/) { while (n <= NF) { opts = opts " " $n; if ($n ~ /\]$/) break; n++ }; n++ }
          if (n + 1 <= NF && debian($(n + 1))) {
            key = ""
            if (match(opts, /signed-by=[^] \t]+/)) key = substr(opts, RSTART + 10, RLENGTH - 10)
            uri = $n; suites = $(n + 1); types = "deb"; enabled = 1; flush()
          }
        }
        END { flush() }' "${files[@]}")
    fi
    [[ -n "$found" ]] || fail "no Debian bookworm source in the machine's apt configuration; set DMLREF_BACKPORTS_MIRROR to a Debian mirror's URI"
    mirror=${found%%$'\t'*} keyring=${found#*$'\t'}
  fi
  [[ -n "$keyring" || ! -f /usr/share/keyrings/debian-archive-keyring.gpg ]] || keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  apt=$dir/apt
  rm -rf "$apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/state" "$apt/debs"
  : > "$apt/state/status"
  echo "deb ${keyring:+[signed-by=$keyring] }$mirror $suite main" > "$apt/sources.list"
  # Read after the machine's configuration (proxies and the like still apply): no update hooks.
  printf '%s\n' '#clear APT::Update::Pre-Invoke;' '#clear APT::Update::Post-Invoke;' \
    '#clear APT::Update::Post-Invoke-Success;' '#clear DPkg::Pre-Invoke;' '#clear DPkg::Post-Invoke;' > "$apt/apt.conf"
  apt_opts=(-c "$apt/apt.conf" -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts=-
            -o Dir::State="$apt/state" -o Dir::State::status="$apt/state/status" -o Dir::State::Lists="$apt/lists"
            -o Dir::Cache="$apt/cache" -o Acquire::Retries=0 -o APT::Sandbox::User="$(id -un)"
            -o Acquire::http::Timeout="$fetch_timeout" -o Acquire::https::Timeout="$fetch_timeout")
  say "fetching the $suite index from $mirror (private lists in $apt)"
  timeout "$((2 * fetch_timeout))" apt-get "${apt_opts[@]}" -q update --error-on=any ||
    skip "Debian's $suite suite cannot be reached at $mirror (apt-get update failed or timed out), so Mesa 25's lavapipe cannot be fetched"
  (cd "$apt/debs" && timeout 600 apt-get "${apt_opts[@]}" -q download "mesa-vulkan-drivers/$suite") ||
    fail "apt-get download mesa-vulkan-drivers/$suite failed"
  debs=("$apt"/debs/mesa-vulkan-drivers_*.deb)
  [[ -f "${debs[0]}" ]] || fail "apt-get download left no mesa-vulkan-drivers package in $apt/debs"
  mesa_version=$(dpkg-deb -f "${debs[0]}" Version)
  [[ "$mesa_version" == 25* ]] || fail "$suite offers mesa-vulkan-drivers $mesa_version, not Mesa 25"
  say "unpacking mesa-vulkan-drivers $mesa_version into $mesa"
  rm -rf "$mesa" "$mesa.tmp" "$dir/mesa-version"
  dpkg-deb -x "${debs[0]}" "$mesa.tmp"
  mv "$mesa.tmp" "$mesa"
  rm -rf "$apt/debs" "$apt/cache"
  lvp=$(lvp_library)
  [[ -n "$lvp" ]] || fail "mesa-vulkan-drivers $mesa_version has no libvulkan_lvp.so"
  # It must load with the system's libraries (libLLVM-15 and the rest come from Debian 12 itself:
  # the system's own mesa-vulkan-drivers depends on them), without LD_LIBRARY_PATH.
  linked=$(ldd -r "$lvp" 2>&1) || fail "ldd -r $lvp failed: $linked"
  if [[ "$linked" == *"not found"* || "$linked" == *"undefined symbol"* ]]; then
    echo "$linked"
    fail "$lvp needs libraries or symbols this system lacks (above); install Debian 12's mesa-vulkan-drivers, which pulls in its dependencies (libllvm15 and others)"
  fi
  echo "$mesa_version" > "$dir/mesa-version"
fi

# The ICD file: the package's own lavapipe manifest (api_version, format), pointing at the unpacked
# library by its absolute path. Written each run: cheap, and right if the build folder has moved.
manifests=("$mesa"/usr/share/vulkan/icd.d/lvp_icd*.json)
[[ -f "${manifests[0]}" ]] || fail "$mesa has no usr/share/vulkan/icd.d/lvp_icd*.json"
node -e 'const fs = require("fs"); const [src, lib, out] = process.argv.slice(1);
         const icd = JSON.parse(fs.readFileSync(src, "utf8")); icd.ICD.library_path = lib;
         fs.writeFileSync(out + ".tmp", JSON.stringify(icd, null, 4) + "\n"); fs.renameSync(out + ".tmp", out)' \
  "${manifests[0]}" "$lvp" "$dir/lvp_icd.json"

printf 'export DMLREF_DIRECTML_DLL=%q\n' "$dir/dml-1.15.4/DirectML.dll" >&3
printf 'export DMLREF_DIRECTML_DLL_1_14=%q\n' "$dir/dml-1.14.1/DirectML.dll" >&3
printf 'export VK_ICD_FILENAMES=%q\n' "$dir/lvp_icd.json" >&3
printf 'export DMLREF_MESA_VERSION=%q\n' "$mesa_version" >&3
