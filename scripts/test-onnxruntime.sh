#!/usr/bin/env bash
# Judges ONNX Runtime's CPU execution provider with dmlref's ONNX node tests (docs/onnx.md).
#   scripts/test-onnxruntime.sh
# Builds the tool (Release, build-ort/), installs onnxruntime-node 1.30.0 from npm's registry
# into build-ort/ort/ (the CPU library ships inside the package; scripts are not run), exports
# the suite with `dmlref vectors --format both`, and runs every case through ONNX Runtime with one
# thread (tests/onnx/ort_check.mjs): each output must equal output_0.pb bit for bit or match a
# class of tests/onnx/ort-known-divergences.json, every class must still show on its reproducer
# (tests/onnx/reproducers/), and the suite must cover the op x type table the file asks for.
# Last, a planted difference (one element of one output_0.pb changed) must make the check fail,
# naming the case and printing dmlref's compare report.
# Without the registry (and no earlier install) it prints "skipped: ..." and exits 0.
# Environment: BUILD_DIR (build-ort: ONNX Runtime, the cases, the reports, and the tool unless
# DMLREF_TOOL names one built already, as CI does with the test stage's), ORT_COUNT (cases drawn, 12000 over the fourteen operators the cycle draws: about 5,700 have an
# exact ONNX form and are exported, and ONNX Runtime loads and runs about 4,700 of those), ORT_INDEXED_COUNT
# (1500: REVERSE_SUBSEQUENCES and GATHER_ELEMENTS, which `dmlref vectors` draws by --ops only, exported
# beside them into build-ort/ort-cases-indexed: about 1,350), ORT_GATHERS_COUNT (3000: GATHER, GATHER_ND,
# GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT, also by --ops only, into build-ort/ort-cases-gathers:
# every one exported; 8 to 40 s more, measured), ORT_SEED (1); ORT_SUITE=DIR checks
# the node tests already in DIR instead of exporting.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-build-ort}
count=${ORT_COUNT:-12000}
indexed_count=${ORT_INDEXED_COUNT:-1500}
gathers_count=${ORT_GATHERS_COUNT:-3000}
seed=${ORT_SEED:-1}
start=$SECONDS
step() { echo "-- [$((SECONDS - start)) s] $*"; }

bash scripts/install-deps.sh onnx

bash scripts/ort-install.sh "$build/ort" checked || { s=$?; [[ $s == 3 ]] && exit 0; exit $s; }

if [[ -n "${DMLREF_TOOL:-}" ]]; then
  dmlref=$(realpath "$DMLREF_TOOL")
  step "the tool: $dmlref (built already)"
else
  step "building the tool (Release, $build)"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDMLREF_BUILD_TESTS=OFF -DDMLREF_BUILD_EXAMPLES=OFF > /dev/null
  cmake --build "$build" --target dmlref_cli -j "$(nproc)"
  dmlref=$root/$build/bin/dmlref
fi
help=$("$dmlref" vectors --help) # into a variable: grep -q closing a pipe early fails it under pipefail
if [[ -z "${ORT_SUITE:-}" && "$help" != *--format* ]]; then
  echo "FAILED: $dmlref has no 'vectors --format onnx|both' (was it built without ONNX support? see docs/onnx.md)" >&2
  exit 1
fi

cases=${ORT_SUITE:-$build/ort-cases} report=$build/ort-report
indexed=()
rm -rf "$report" "$build/ort-planted" "$build/ort-planted-report"
if [[ -z "${ORT_SUITE:-}" ]]; then
  step "exporting $count cases (seed $seed) to $cases"
  rm -rf "$cases"
  "$dmlref" vectors --format both --count "$count" --seed "$seed" --out "$cases"
  step "exporting $indexed_count REVERSE_SUBSEQUENCES and GATHER_ELEMENTS cases (seed $seed) to $cases-indexed"
  rm -rf "$cases-indexed"
  "$dmlref" vectors --format both --ops reverse_subsequences,gather_elements --count "$indexed_count" --seed "$seed" \
    --out "$cases-indexed"
  step "exporting $gathers_count GATHER, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT cases (seed $seed) to $cases-gathers"
  rm -rf "$cases-gathers"
  "$dmlref" vectors --format both --ops gather,gather_nd,gather_nd1,scatter_elements,scatter_nd,one_hot --count "$gathers_count" \
    --seed "$seed" --out "$cases-gathers"
  indexed=("$cases-indexed" "$cases-gathers")
fi

step "running them through ONNX Runtime's CPU provider (reproducers of differences: $report)"
node tests/onnx/ort_check.mjs --dmlref "$dmlref" --out "$report" --modules "$build/ort/node_modules" --coverage \
  --reproducers tests/onnx/reproducers "$cases" "${indexed[@]}"

step "a planted difference must fail the check"
# The exported float32 slice with the largest output (a case ONNX Runtime runs bit-exactly), else
# the first case; its middle element changes.
# (awk reads to the end: head would close the pipe early, and pipefail would stop the stage.)
planted=$(find "$cases" -mindepth 3 -maxdepth 3 -path '*_SLICE*_FLOAT32/test_data_set_0/output_0.pb' -printf '%s %h\n' |
          sort -k1,1nr -k2 | awk 'NR == 1 { print $2 }')
planted=${planted%/test_data_set_0}
if [[ -z "$planted" ]]; then planted=$(find "$cases" -mindepth 2 -maxdepth 2 -name model.onnx -printf '%h\n' | sort | awk 'NR == 1'); fi
name=$(basename "$planted")
mkdir -p "$build/ort-planted"
cp -r "$planted" "$build/ort-planted/$name"
node tests/onnx/plant_difference.mjs "$build/ort-planted/$name" middle
set +e
node tests/onnx/ort_check.mjs --dmlref "$dmlref" --out "$build/ort-planted-report" --modules "$build/ort/node_modules" \
  --quiet "$build/ort-planted/$name" > "$build/ort-planted.log" 2>&1
status=$?
set -e
cat "$build/ort-planted.log"
if [[ $status -ne 1 ]] || ! grep -q "UNEXPLAINED $name" "$build/ort-planted.log" ||
   ! grep -q "1 of [0-9]* elements differ" "$build/ort-planted.log" ||
   ! grep -q "^\$ dmlref compare .*$name" "$build/ort-planted.log"; then
  echo "FAILED: the check did not fail on the planted difference in $name with the case named and dmlref's report (exit $status)" >&2
  exit 1
fi
step "the planted difference in $name failed the check, as it must"
step "ONNX Runtime stage passed"
