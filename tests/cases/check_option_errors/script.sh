#!/usr/bin/env bash
# Every kind of bad `ptxgate check` option, one at a time and a few together: the exact message
# on stderr and the exit code (expected.txt), all before any manifest is read (x.json does not
# exist). Covers the table's conversions (integer, real and choice ranges, empty values), the
# custom parsers (--devices, --arch, --shard, --watchdog, --sanitize), the rules between options,
# argv problems (unknown option, missing argument, a flag given one), --help winning over bad
# values and the first bad option in --help order winning when there are several.
set -uo pipefail
mkdir -p "$OUT"
m=x.json
run() {
  echo "args: $*"
  "$BIN" check "$@" 2>&1 >/dev/null
  echo "rc $?"
}
{
  run
  run --sets 0
  run --device x $m
  run --device -1 $m
  run --device 1025 $m
  run --devices 0,0 $m
  run --devices x $m
  run --device 1 --devices 0,1 $m
  run --devices 0,1 --no-isolation $m
  run --if-no-gpu maybe $m
  run --min-speedup 0 $m
  run --min-speedup abc $m
  run --confidence 1 $m
  run --timeout 0 $m
  run --sets 101 $m
  run --warmup -1 $m
  run --repetitions zero $m
  run --seed 2147483648 $m
  run --max-ptx-bytes 0 $m
  run --workloads "" $m
  run --accepted-kernel "" $m
  run --gpu-key "" $m
  run --watchdog "" $m
  run --mode hot $m
  run --arch sm_9 $m
  run --instructions maybe $m
  run --shard 3/2 $m
  run --on-missing-baseline x $m
  run --on-drift x $m
  run --drift-tolerance 1 $m
  run --watchdog foo=1 $m
  run --watchdog load=0 $m
  run --sanitize memcheck,memcheck $m
  run --follow-output-link $m
  run --junit-copy "" $m
  run --bogus $m
  run --quiet=1 $m
  run --sets
  run --sets 0 --help
  run --arch sm_90a --sets 0 $m
  run --confidence 0.3 --device x $m
} >"$OUT/actual.txt"
if ! diff -u "$CASE/expected.txt" "$OUT/actual.txt"; then
  echo "FAIL: messages differ from expected.txt"; exit 1
fi
echo "ok: $(grep -c '^args:' "$OUT/actual.txt") command lines, messages and exit codes as expected"
