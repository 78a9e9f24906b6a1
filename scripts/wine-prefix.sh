# Sourced by the stages that run Windows programs under Wine (scripts/test-windows.sh,
# scripts/test-directml.sh): a Wine prefix of this run's own, one persistent wineserver for the
# whole run (each Wine process then starts in a fraction of a second), no Mono or Gecko installer
# prompts, and everything removed on exit. Wine's own error lines stay on: cmake/wine64-run.sh
# shows them only for a program that fails. $DMLREF_WINE_NOTES collects what the wrapper notes
# (a rerun after Wine could not start a process); wine_prefix_report prints it.
#   . scripts/wine-prefix.sh; wine_prefix_start dmlref-wine; ...; wine_prefix_report
wine_prefix_start() {
  WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  DMLREF_WINE_NOTES=$WINEPREFIX.notes
  : > "$DMLREF_WINE_NOTES"
  unset WINEDEBUG
  export WINEPREFIX WINEDLLOVERRIDES="mscoree,mshtml=" DMLREF_WINE_NOTES
  trap wine_prefix_cleanup EXIT
  wineserver -p
  cmake/wine64-run.sh wineboot --init > /dev/null 2>&1
}

wine_prefix_cleanup() {
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true # until its processes are gone, before their prefix is
  rm -rf "$WINEPREFIX" "$DMLREF_WINE_NOTES" || true
}

# The wrapper's notes of this run, if any (each is a process Wine could not start, run once more).
wine_prefix_report() {
  if [[ -s "$DMLREF_WINE_NOTES" ]]; then
    echo "dmlref: Wine could not start $(wc -l < "$DMLREF_WINE_NOTES") process(es) at the first try:"
    cat "$DMLREF_WINE_NOTES"
  else
    echo "dmlref: every Wine process started at the first try"
  fi
}
