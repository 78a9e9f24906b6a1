#!/bin/sh
# The cross build's CMAKE_CROSSCOMPILING_EMULATOR: runs a Windows program under wine64, with
# its arguments, exit status and standard streams passed through. Without a WINEPREFIX of the
# caller's it uses one beside the build (~/.wine is left alone), and without WINEDEBUG it silences
# Wine's own messages, so that a test's output is the program's.
: "${WINEPREFIX:=${TMPDIR:-/tmp}/dmlref-wineprefix-$(id -u)}"
: "${WINEDEBUG:=-all}"
: "${WINEDLLOVERRIDES:=mscoree,mshtml=}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
# Debian installs the 64-bit loader off PATH (/usr/lib/wine/wine64); `wine` finds it too.
if command -v wine64 >/dev/null 2>&1; then exec wine64 "$@"; fi
if [ -x /usr/lib/wine/wine64 ]; then exec /usr/lib/wine/wine64 "$@"; fi
exec wine "$@"
