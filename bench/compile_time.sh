#!/usr/bin/env bash
# Build time of a translation unit that includes <dmlref/dmlref.hpp> and calls the desc-level
# execute (bench/compile_probe.cpp), at -O2: the median of N runs (default 3), in seconds.
# Where Eigen is installed (libeigen3-dev), each run also builds bench/compile_reference.cpp (Eigen's
# Tensor module included, nothing else) right after the probe, and the script prints the median of
# the probe's time over the reference's too: on hosts whose speed changes from one minute to the
# next, that ratio moves far less than either time.
# Usage: bench/compile_time.sh [runs] [compiler]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cxx=${2:-${CXX:-c++}}
eigen=/usr/include/eigen3
[[ -f $eigen/unsupported/Eigen/CXX11/Tensor ]] || eigen=
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build_seconds() { # seconds to compile $1 at -O2, to the millisecond, with the include directories after it
  local source=$1 start end
  shift
  start=$(date +%s%N)
  "$cxx" -std=c++20 -O2 "$@" -c "$source" -o "$out/probe.o"
  end=$(date +%s%N)
  awk -v ms=$(((end - start) / 1000000)) 'BEGIN { printf "%.3f", ms / 1000 }'
}
summary() { # label, then values: the median and every value, sorted
  local label=$1
  shift
  printf '%s\n' "$@" | sort -n | awk -v label="$label" '{t[NR] = $1} END {
    printf "%s: median %.2f of %d runs (", label, t[int((NR + 1) / 2)], NR
    for (i = 1; i <= NR; ++i) printf "%s%.2f", (i > 1 ? ", " : ""), t[i]
    print ")"
  }'
}
times=() references=() ratios=()
for ((i = 0; i < runs; ++i)); do
  probe=$(build_seconds bench/compile_probe.cpp -Iinclude)
  times+=("$probe")
  if [[ -n $eigen ]]; then
    reference=$(build_seconds bench/compile_reference.cpp -I"$eigen")
    references+=("$reference")
    ratios+=("$(awk -v p="$probe" -v r="$reference" 'BEGIN { printf "%.3f", p / r }')")
  fi
done
summary "compile time of bench/compile_probe.cpp with $cxx -O2, seconds" "${times[@]}"
if [[ -n $eigen ]]; then
  summary "the reference (Eigen's Tensor module alone), seconds" "${references[@]}"
  summary "the probe over the reference, run by run" "${ratios[@]}"
fi
