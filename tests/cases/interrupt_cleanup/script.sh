#!/usr/bin/env bash
# An interrupted check (SIGTERM from a CI job's cancel or `timeout`, SIGINT from Ctrl-C) takes
# its tools along and removes its temporary folder: tools run in process groups of their own,
# which the signal never reaches, so a killed check used to leave ptxas (or nvcc,
# compute-sanitizer) running and ptxgate.XXXXXX behind in $TMPDIR. The check dies of the
# signal (exit 128 + n) and writes no report.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
# A background job of a script starts with SIGINT ignored (and ptxgate keeps a signal ignored
# on entry, as for nohup): the default disposition is restored for it, as in a terminal.
default_signals() {
  exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
for sig in TERM INT; do
  mark="$OUT/started.$sig" tmp="$OUT/tmp.$sig"
  mkdir -p "$tmp"
  TMPDIR="$tmp" PTXGATE_PTXAS="$CASE/fake_ptxas.sh" FAKE_PTXAS_MARK="$mark" default_signals \
    "$BIN" check --no-gpu --quiet --output "$OUT/r.$sig" "$ROOT/tests/cases/offline_noop/m.json" \
    >"$OUT.$sig.log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do [ -e "$mark" ] && break; sleep 0.1; done
  check "SIG$sig: the tool is running" [ -e "$mark" ]
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  check "SIG$sig: check dies of the signal (exit $want, got $rc)" [ "$rc" -eq "$want" ]
  sleep 0.3
  for p in $(cat "$mark" 2>/dev/null); do
    # Gone, or dead and waiting to be reaped (a zombie: an init that does not reap keeps it).
    check "SIG$sig: no process of the tool is left (pid $p)" \
      bash -c 'state=$(ps -o stat= -p "$1"); [ -z "$state" ] || [ "${state:0:1}" = Z ]' _ "$p"
    kill -KILL "$p" 2>/dev/null
  done
  check "SIG$sig: the temporary folder is removed" bash -c '[ -z "$(ls -A "$1")" ]' _ "$tmp"
  check "SIG$sig: no report" [ ! -e "$OUT/r.$sig/results.json" ]
done
exit $fail
