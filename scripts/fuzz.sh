#!/usr/bin/env bash
# Builds the libFuzzer fuzzers of tests/fuzz (clang++, ASan + UBSan), seeds each from the
# conformance models and runs it for SECONDS (default 60). A finding (crash, sanitizer report,
# leak, timeout of 10 s, more than 2 GiB) fails the run and prints the input that caused it.
#   scripts/fuzz.sh [SECONDS] [fuzz_npy|fuzz_ops|fuzz_model ...]     (BUILD_DIR=... picks the build folder)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
fuzzers=("$@")
((${#fuzzers[@]})) || fuzzers=(fuzz_npy fuzz_ops fuzz_model)
build=${BUILD_DIR:-build-fuzz}

bash scripts/install-deps.sh fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DDMLREF_FUZZ=ON > /dev/null
cmake --build "$build" -j "$(nproc)" --target "${fuzzers[@]}"

seeds="$build/seeds"
rm -rf "$seeds" "$build/findings"
python3 tests/fuzz/make_corpus.py tests/data/conformance "$seeds"
mkdir -p "$build/findings"

declare -A corpus=([fuzz_npy]=npy [fuzz_ops]=ops [fuzz_model]=model)
declare -A options=([fuzz_npy]="-max_len=4096 -dict=tests/fuzz/npy.dict"
                    [fuzz_ops]="-max_len=512"
                    [fuzz_model]="-max_len=65536 -dict=tests/fuzz/model.dict")
failed=()
for fuzzer in "${fuzzers[@]}"; do
  work="$build/corpus/$fuzzer" # seeds plus what earlier runs in this build folder found
  mkdir -p "$work"
  log="$build/findings/$fuzzer.log"
  echo "== $fuzzer for ${seconds} s"
  # shellcheck disable=SC2086
  if "$build/bin/$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$build/findings/$fuzzer-" ${options[$fuzzer]} "$work" "$seeds/${corpus[$fuzzer]}" > "$log" 2>&1; then
    grep -E "DONE|^stat::(number_of_executed_units|peak_rss_mb)" "$log"
  else
    failed+=("$fuzzer")
    echo "!! $fuzzer found a failing input; the end of its log:"
    tail -n 60 "$log"
    for input in "$build/findings/$fuzzer"-*; do
      [[ -f "$input" ]] || continue
      echo "!! input $input ($(stat -c %s "$input") bytes), base64:"
      base64 -w 100 "$input" | head -c 20000
      echo
      echo "!! reproduce: $build/bin/$fuzzer $input"
    done
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} of ${#fuzzers[@]} fuzzers found failing inputs: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#fuzzers[@]} fuzzers ran ${seconds} s each with no finding"
