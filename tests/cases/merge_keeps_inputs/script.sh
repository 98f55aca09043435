#!/usr/bin/env bash
# merge never destroys its inputs: a shard's folder given where its results.json was meant (the
# older OUT_DIR-first form takes it for the output folder), --output naming a shard's folder,
# or --output holding a file given as input, is refused with exit 2 naming the file, before
# anything is written or removed (an input error would otherwise remove the "earlier reports",
# which are the shard's own results). compare and check refuse an input that is one of their
# own reports.
# Merging into a folder that holds an earlier merge still replaces it.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m=tasks/gemm_bf16_nt/examples/naive.json
for i in 1 2; do
  "$BIN" check --no-gpu --quiet --instructions off --shard $i/2 --output "$OUT/s$i" "$m" >/dev/null 2>&1
  mkdir -p "$OUT/keep$i" && cp "$OUT/s$i/"* "$OUT/keep$i/"
done
intact() { # both shards' reports are byte for byte as check wrote them
  for i in 1 2; do
    for f in results.json junit.xml summary.md; do
      cmp -s "$OUT/s$i/$f" "$OUT/keep$i/$f" || return 1
    done
  done
}
refused() { # what, expected text, merge arguments...
  local what="$1" text="$2"; shift 2
  "$BIN" "$@" >"$OUT.log" 2>&1
  local rc=$?
  check "$what: exit 2" [ $rc -eq 2 ]
  check "$what: names the file" grep -qF "$text" "$OUT.log"
  check "$what: the shards' reports are intact" intact
}
refused "merge SHARD_DIR SHARD (older form)" "$OUT/s1/results.json: field '--output': holds the results of shard 1/2" \
  merge "$OUT/s1" "$OUT/s2/results.json"
refused "merge SHARD_DIR SHARD_DIR (older form)" "holds the results of shard 1/2" \
  merge "$OUT/s1" "$OUT/s2"
refused "merge --output SHARD_DIR with the other shard" "$OUT/s1/results.json: field '--output': holds the results of shard 1/2" \
  merge --output "$OUT/s1" "$OUT/s2/results.json"
refused "merge --output SHARD_DIR with both shards" "$OUT/s1/results.json: field '--output': is $OUT/s1/results.json, a file this command writes" \
  merge --output "$OUT/s1" "$OUT/s1/results.json" "$OUT/s2/results.json"
refused "merge OUT_DIR with its own results.json among the shards (older form)" "field '--output': is $OUT/s2/results.json" \
  merge "$OUT/s2" "$OUT/s1/results.json" "$OUT/s2/results.json"
# A folder given as a shard says what to give instead.
"$BIN" merge --output "$OUT/m" "$OUT/s1" "$OUT/s2/results.json" >"$OUT.log" 2>&1
check "a shard's folder given as a shard: exit 2" [ $? -eq 2 ]
check "and points at its results.json" grep -qF "$OUT/s1: is a folder; give the results file in it" "$OUT.log"
check "the shards' reports are intact" intact

# An earlier merge in the output folder is replaced as before.
"$BIN" merge --output "$OUT/m" "$OUT/s1/results.json" "$OUT/s2/results.json" >/dev/null 2>&1
rc=$?
"$BIN" merge --output "$OUT/m" "$OUT/s2/results.json" "$OUT/s1/results.json" >/dev/null 2>&1
check "merging again into the same folder works (exit $rc)" [ $? -eq $rc ]
# ... and a merged results file given as input next to its own output is refused.
cp "$OUT/m/results.json" "$OUT/keep_m.json"
"$BIN" merge --output "$OUT/m" "$OUT/m/results.json" >"$OUT.log" 2>&1
check "merge --output DIR DIR/results.json: exit 2" [ $? -eq 2 ]
check "the merged results are intact" cmp -s "$OUT/m/results.json" "$OUT/keep_m.json"

# compare: an input that is one of compare's own reports.
cp "$OUT/s1/results.json" "$OUT/m/compare.json"
"$BIN" compare --output "$OUT/m" "$OUT/m/compare.json" "$OUT/s2/results.json" >"$OUT.log" 2>&1
check "compare --output DIR DIR/compare.json NEW: exit 2" [ $? -eq 2 ]
check "and names the input" grep -qF "$OUT/m/compare.json: field '--output': is $OUT/m/compare.json" "$OUT.log"
check "the input is intact" cmp -s "$OUT/m/compare.json" "$OUT/s1/results.json"

# check: a manifest given as input that is one of check's reports.
mkdir -p "$OUT/k" && cp "$m" "$OUT/k/summary.md"
"$BIN" check --no-gpu --quiet --output "$OUT/k" "$OUT/k/summary.md" >"$OUT.log" 2>&1
check "check --output DIR DIR/summary.md: exit 2" [ $? -eq 2 ]
check "and names the input" grep -qF "$OUT/k/summary.md: field '--output': is $OUT/k/summary.md" "$OUT.log"
check "the input is intact" cmp -s "$OUT/k/summary.md" "$m"
exit $fail
