#!/usr/bin/env bash
# Build times at -O2, in seconds, of two user files, each header-only (the default) and in the
# compiled mode (-DDMLREF_COMPILED: what a file linked to dmlref::compiled compiles; the library
# itself is built once):
#   desc   bench/compile_probe.cpp: <dmlref/dmlref.hpp> and one call of the desc-level execute
#   typed  bench/compile_probe_typed.cpp: <dmlref/dmlref.hpp> and one typed op (slice of floats)
# Where Eigen is installed (libeigen3-dev), each run also builds bench/compile_reference.cpp (Eigen's
# Tensor module included, nothing else), and every build's time is also given over the reference's
# of the same run: on hosts whose speed changes from one minute to the next, that ratio moves far
# less than either time. With a baseline include folder (e.g. the headers of an older commit:
#   git --work-tree=/tmp/old checkout <commit> -- include), the two probes are also built
# header-only against it, in the same runs. The builds alternate within each run.
# Usage: bench/compile_time.sh [runs] [compiler] [baseline-include-dir]     (runs: default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cxx=${2:-${CXX:-c++}}
baseline=${3:-}
eigen=/usr/include/eigen3
[[ -f $eigen/unsupported/Eigen/CXX11/Tensor ]] || eigen=
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build_seconds() { # seconds to compile $1 at -O2, to the millisecond, with the flags after it
  local source=$1 start end
  shift
  start=$(date +%s%N)
  "$cxx" -std=c++20 -O2 "$@" -c "$source" -o "$out/probe.o"
  end=$(date +%s%N)
  awk -v ms=$(((end - start) / 1000000)) 'BEGIN { printf "%.3f", ms / 1000 }'
}
median() { printf '%s\n' "$@" | sort -n | awk '{t[NR] = $1} END { printf "%.2f", t[int((NR + 1) / 2)] }'; }
sorted() { printf '%s\n' "$@" | sort -n | awk '{printf "%s%.2f", (NR > 1 ? ", " : ""), $1}'; }

names=(desc.header-only desc.compiled typed.header-only typed.compiled)
sources=(bench/compile_probe.cpp bench/compile_probe.cpp bench/compile_probe_typed.cpp bench/compile_probe_typed.cpp)
flags=("-Iinclude" "-Iinclude -DDMLREF_COMPILED" "-Iinclude" "-Iinclude -DDMLREF_COMPILED")
if [[ -n $baseline ]]; then
  names+=(desc.baseline typed.baseline)
  sources+=(bench/compile_probe.cpp bench/compile_probe_typed.cpp)
  flags+=("-I$baseline" "-I$baseline")
fi
declare -A times ratios
for ((i = 0; i < runs; ++i)); do
  declare -A this=()
  for k in "${!names[@]}"; do
    # shellcheck disable=SC2086 # the flags are words
    this[${names[k]}]=$(build_seconds "${sources[k]}" ${flags[k]})
  done
  reference=
  [[ -n $eigen ]] && reference=$(build_seconds bench/compile_reference.cpp -I"$eigen")
  for name in "${names[@]}"; do
    times[$name]+="${this[$name]} "
    [[ -n $reference ]] &&
      ratios[$name]+="$(awk -v p="${this[$name]}" -v r="$reference" 'BEGIN { printf "%.3f", p / r }') "
  done
  times[eigen]+="$reference "
done

echo "compile times with $cxx -O2, $runs runs each, alternating (median; every run, sorted):"
for name in "${names[@]}"; do
  # shellcheck disable=SC2086
  line="  $name: $(median ${times[$name]}) s ($(sorted ${times[$name]}))"
  # shellcheck disable=SC2086
  [[ -n $eigen ]] && line+="; over Eigen's Tensor include: median $(median ${ratios[$name]})x ($(sorted ${ratios[$name]}))"
  echo "$line"
done
# shellcheck disable=SC2086
[[ -n $eigen ]] && echo "  reference (Eigen's Tensor module alone): $(median ${times[eigen]}) s ($(sorted ${times[eigen]}))"
exit 0
