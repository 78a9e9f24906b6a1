#!/usr/bin/env bash
# Installs onnxruntime-node (the version tests/onnx/package-lock.json pins) from npm's registry into
# DIR/node_modules, with npm's cache in DIR/npm-cache; scripts are not run (the CPU library ships
# inside the package). Nothing happens when that version is there already.
#   scripts/ort-install.sh DIR WHAT  exit 0: installed; 3: the registry cannot be reached, after
#                                     printing "skipped: ...; nothing was WHAT"; anything else: npm failed
# A caller stops quietly on 3:  bash scripts/ort-install.sh DIR checked || { s=$?; [[ $s == 3 ]] && exit 0; exit $s; }
# Shared by scripts/test-onnxruntime.sh and scripts/bench-onnxruntime.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1 what=$2
version=$(node -p "require('$root/tests/onnx/package-lock.json').packages['node_modules/onnxruntime-node'].version")
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export npm_config_cache="$dir/npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
installed=$(node -p "try { require('$dir/node_modules/onnxruntime-node/package.json').version } catch { '' }" 2>/dev/null || true)
[[ "$installed" == "$version" ]] && exit 0
if ! timeout 30 npm view "onnxruntime-node@$version" version --fetch-retries=0 > /dev/null 2>&1; then
  echo "skipped: npm's registry cannot be reached (npm view onnxruntime-node@$version failed or timed out), so ONNX Runtime cannot be installed; nothing was $what"
  exit 3
fi
echo "-- installing onnxruntime-node $version into $dir (npm ci, --ignore-scripts)"
cp "$root/tests/onnx/package.json" "$root/tests/onnx/package-lock.json" "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-progress --loglevel=error)
