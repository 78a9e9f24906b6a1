#!/usr/bin/env bash
# The build cost of bench/compile_probe.cpp (the translation unit bench/compile_time.sh times) as
# the number of instructions the compiler executes, counted by valgrind (cachegrind, no cache
# simulation): the driver, the compiler proper and the assembler together. Unlike seconds, the
# count does not move with the host's load, so two versions of the headers compare exactly.
# Needs valgrind (Debian: apt-get install valgrind); takes about 50x the build time.
# Usage: bench/compile_instructions.sh [compiler]
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${1:-${CXX:-c++}}
command -v valgrind > /dev/null || { echo "compile_instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
valgrind --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file="$out/cg.%p" \
  "$cxx" -std=c++20 -O2 -Iinclude -c bench/compile_probe.cpp -o "$out/probe.o" 2> "$out/log"
awk -v cxx="$cxx" '/I *refs:/ { gsub(",", "", $4); total += $4 }
  END { printf "instructions to build bench/compile_probe.cpp with %s -O2: %.2f billion\n", cxx, total / 1e9 }' "$out/log"
