#!/usr/bin/env bash
# Build time of a translation unit that includes <dmlref/dmlref.hpp> and calls the desc-level
# execute (bench/compile_probe.cpp), at -O2: the median of N runs (default 3), in seconds.
# Usage: bench/compile_time.sh [runs] [compiler]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cxx=${2:-${CXX:-c++}}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
times=()
for ((i = 0; i < runs; ++i)); do
  start=$(date +%s%N)
  "$cxx" -std=c++20 -O2 -Iinclude -c bench/compile_probe.cpp -o "$out/probe.o"
  end=$(date +%s%N)
  times+=("$(( (end - start) / 1000000 ))")
done
printf '%s\n' "${times[@]}" | sort -n | awk -v cxx="$cxx" '{t[NR] = $1 / 1000} END {
  printf "compile time of bench/compile_probe.cpp with %s -O2: median %.2f s of %d runs (", cxx, t[int((NR + 1) / 2)], NR
  for (i = 1; i <= NR; ++i) printf "%s%.2f", (i > 1 ? ", " : ""), t[i]
  print ")"
}'
