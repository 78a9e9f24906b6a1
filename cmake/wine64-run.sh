#!/bin/sh
# The cross build's CMAKE_CROSSCOMPILING_EMULATOR: runs a Windows program under wine64, with its
# arguments and exit status passed through. Without a WINEPREFIX of the caller's it uses one beside
# the build (~/.wine is left alone), and without WINEDEBUG it silences Wine's own messages, so that
# a test's output is the program's.
#
# The program's output goes through files, not straight to the caller's pipes: the first Wine
# process that opens the desktop starts explorer.exe, which inherits that process's standard
# streams and lives on after it (until the desktop is idle). Holding a pipe of ctest's or of a
# Python harness, it kept a finished test waiting for minutes; a file it may hold harms nothing.
: "${WINEPREFIX:=${TMPDIR:-/tmp}/dmlref-wineprefix-$(id -u)}"
: "${WINEDEBUG:=-all}"
: "${WINEDLLOVERRIDES:=mscoree,mshtml=}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
# Debian installs the 64-bit loader off PATH (/usr/lib/wine/wine64); `wine` finds it too.
if command -v wine64 >/dev/null 2>&1; then wine=wine64
elif [ -x /usr/lib/wine/wine64 ]; then wine=/usr/lib/wine/wine64
else wine=wine
fi
out=$(mktemp "${TMPDIR:-/tmp}/dmlref-wine-out.XXXXXX")
err=$(mktemp "${TMPDIR:-/tmp}/dmlref-wine-err.XXXXXX")
trap 'rm -f "$out" "$err"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
status=0
"$wine" "$@" > "$out" 2> "$err" || status=$?
cat "$out"
cat "$err" >&2
exit "$status"
