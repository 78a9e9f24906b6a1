#!/bin/sh
# The cross build's CMAKE_CROSSCOMPILING_EMULATOR: runs a Windows program under wine64, with its
# arguments and exit status passed through. Without a WINEPREFIX of the caller's it uses one beside
# the build (~/.wine is left alone).
#
# Address randomization is off for the Wine process (setarch -R, inherited by the processes it
# starts). Debian 12's wine64 has no preloader: it is linked at 0x7d000000, and Linux starts its
# brk heap at a random page up to 1 GiB past it. About once in 1,000 starts that heap covers
# 0x7ffe0000, where Wine must map Windows' shared user data, and the process ends at once with
# status 1 and "wine: failed to map the shared user data: c0000018" (docs/windows.md). Without
# randomization the heap starts right after wine64, 50 MB below that address. Where setarch may not
# change the personality (a container's seccomp policy), a run that ends with that message runs once
# more, and says so on standard error and in $DMLREF_WINE_NOTES (a file, when set).
#
# Wine's own messages: without a WINEDEBUG of the caller's, Wine's error channel is on (fixmes off)
# and its lines are shown only when the program fails, so that a passing test's output is the
# program's. A failure with no output of the program's also gets a line saying how it ended.
#
# The program's output goes through files, not straight to the caller's pipes: the first Wine
# process that opens the desktop starts explorer.exe, which inherits that process's standard
# streams and lives on after it (until the desktop is idle). Holding a pipe of ctest's or of a
# Python harness, it kept a finished test waiting for minutes; a file it may hold harms nothing.
: "${WINEPREFIX:=${TMPDIR:-/tmp}/dmlref-wineprefix-$(id -u)}"
filter_wine=0
if [ -z "${WINEDEBUG+set}" ]; then WINEDEBUG=fixme-all; filter_wine=1; fi
: "${WINEDLLOVERRIDES:=mscoree,mshtml=}"
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
# Debian installs the 64-bit loader off PATH (/usr/lib/wine/wine64); `wine` finds it too.
if command -v wine64 >/dev/null 2>&1; then wine=wine64
elif [ -x /usr/lib/wine/wine64 ]; then wine=/usr/lib/wine/wine64
else wine=wine
fi
fixed_layout=
if setarch "$(uname -m)" -R true 2>/dev/null; then fixed_layout="setarch $(uname -m) -R"; fi
out=$(mktemp "${TMPDIR:-/tmp}/dmlref-wine-out.XXXXXX")
err=$(mktemp "${TMPDIR:-/tmp}/dmlref-wine-err.XXXXXX")
trap 'rm -f "$out" "$err"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Wine's lines: "0024:err:module:...", "err:virtual:..." (before a thread has an id), "wine: ...".
wine_line='^([0-9a-f]{4}:)?(err|fixme|warn|trace):|^wine: '
run() {
  status=0
  started=$(date +%s%N)
  $fixed_layout "$wine" "$@" > "$out" 2> "$err" || status=$?
  ended=$(date +%s%N)
}
run "$@"
if [ "$status" -ne 0 ] && [ -z "$fixed_layout" ] && grep -q 'failed to map the shared user data' "$err"; then
  note="wine64-run: note: $1 ended with status $status: Wine could not map its shared user data at 0x7ffe0000 (the heap's random start took it; docs/windows.md); running it once more"
  echo "$note" >&2
  if [ -n "${DMLREF_WINE_NOTES:-}" ]; then echo "$note" >> "$DMLREF_WINE_NOTES"; fi
  run "$@"
fi
cat "$out"
if [ "$status" -eq 0 ] && [ "$filter_wine" -eq 1 ]; then
  grep -Ev "$wine_line" "$err" >&2
else
  cat "$err" >&2
fi
if [ "$status" -ne 0 ] && [ ! -s "$out" ] && ! grep -Eqv "$wine_line" "$err"; then
  echo "wine64-run: $1 ended with status $status after $(( (ended - started) / 1000000 )) ms with no output of its own;" \
       "Wine processes then: $(ps -eo pid=,etimes=,args= | grep -iE 'wine|\.exe' | grep -v grep | cut -c1-120 | tr '\n' ';')" >&2
fi
exit "$status"
