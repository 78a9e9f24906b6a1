#!/bin/sh
# one_core.sh PROGRAM [ARGS...]: runs PROGRAM as on a machine with one hardware thread, by showing
# it, in a mount namespace of its own, a /sys/devices/system/cpu/online that lists CPU 0 alone
# (where std::thread::hardware_concurrency() reads the count on Linux). Needs root and unshare;
# without them it exits 77, which ctest reports as skipped.
online=$(mktemp) || exit 77
trap 'rm -f "$online"' EXIT
echo 0 > "$online"
unshare -m true 2>/dev/null || { echo "one_core.sh: cannot make a mount namespace (needs root); skipped"; exit 77; }
unshare -m sh -c 'mount --bind "$1" /sys/devices/system/cpu/online || exit 77; shift; exec "$@"' sh "$online" "$@"
