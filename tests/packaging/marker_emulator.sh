#!/bin/sh
# For packaging.toolchain: a stand-in CMAKE_CROSSCOMPILING_EMULATOR. Runs the program and passes
# only where it was built with marker_toolchain.cmake (the consumer says so).
out=$("$@") || { echo "$out"; exit 1; }
echo "$out"
case "$out" in
*"built with the test toolchain file"*) echo "packaging: the consumer ran through the emulator" ;;
*) echo "packaging: the consumer was not built with the toolchain file" >&2; exit 1 ;;
esac
