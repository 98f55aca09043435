#!/usr/bin/env bash
# Reports that cannot be written leave the earlier ones whole: with a folder where junit.xml (or
# compare.md) goes, check, report, merge and compare exit 2 naming that file, and the earlier
# run's results.json and summary.md (compare.json) are byte for byte as they were, with no
# temporary or kept file left; likewise for an output folder that is not writable. A run that
# fails on its input (exit 2 before any report) still removes the earlier reports, so they are
# not taken for its own.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m=tasks/gemm_bf16_nt/examples/naive.json
r="$OUT/r"
mkdir -p "$OUT/keep"
"$BIN" check --no-gpu --quiet --instructions off --output "$r" "$m" >"$OUT.first" 2>&1
check "the first run writes its reports (exit 0)" [ $? -eq 0 ]
cp "$r/results.json" "$r/summary.md" "$OUT/keep/"
unchanged() { # the earlier results.json and summary.md are byte for byte as they were
  cmp -s "$r/results.json" "$OUT/keep/results.json" && cmp -s "$r/summary.md" "$OUT/keep/summary.md"
}
nothing_left() { [ -z "$(find "$1" -name '*.tmp.*' -o -name '*.old.*')" ]; }

rm "$r/junit.xml" && mkdir "$r/junit.xml"
"$BIN" check --no-gpu --quiet --instructions off --workloads m257_n513_k1000 --output "$r" "$m" >"$OUT.dir" 2>&1
check "check with a folder in junit.xml's place exits 2" [ $? -eq 2 ]
check "and names the file" grep -qF "$r/junit.xml: is a folder" "$OUT.dir"
check "the earlier results.json and summary.md are untouched" unchanged
check "no temporary or kept file is left" nothing_left "$r"

"$BIN" report --output "$r" "$r/results.json" >"$OUT.report" 2>&1
check "report into that folder exits 2 naming junit.xml" \
  bash -c '[ $1 -eq 2 ] && grep -qF "$2/junit.xml: is a folder" "$3"' _ $? "$r" "$OUT.report"
check "summary.md is untouched" unchanged

for i in 1 2; do
  "$BIN" check --no-gpu --quiet --instructions off --shard $i/2 --output "$OUT/s$i" "$m" >/dev/null 2>&1
done
"$BIN" merge --output "$r" "$OUT/s1/results.json" "$OUT/s2/results.json" >"$OUT.merge" 2>&1
check "merge into that folder exits 2 naming junit.xml" \
  bash -c '[ $1 -eq 2 ] && grep -qF "$2/junit.xml: is a folder" "$3"' _ $? "$r" "$OUT.merge"
check "the earlier results.json and summary.md are untouched" unchanged
check "no temporary or kept file is left" nothing_left "$r"

c="$OUT/c"
"$BIN" compare --output "$c" "$r/results.json" "$r/results.json" >/dev/null 2>&1
cp "$c/compare.json" "$OUT/keep/compare.json"
rm "$c/compare.md" && mkdir "$c/compare.md"
"$BIN" compare --output "$c" "$r/results.json" "$OUT/s1/results.json" >"$OUT.compare" 2>&1
check "compare with a folder in compare.md's place exits 2 naming it" \
  bash -c '[ $1 -eq 2 ] && grep -qF "$2/compare.md: is a folder" "$3"' _ $? "$c" "$OUT.compare"
check "the earlier compare.json is untouched" cmp -s "$c/compare.json" "$OUT/keep/compare.json"

rmdir "$r/junit.xml"
if [[ $(id -u) -ne 0 ]]; then
  chmod a-w "$r"
  "$BIN" check --no-gpu --quiet --instructions off --output "$r" "$m" >"$OUT.ro" 2>&1
  rc=$?
  chmod u+w "$r"
  check "an output folder that is not writable exits 2" [ $rc -eq 2 ]
  check "and says so" grep -qF "the output folder is not writable" "$OUT.ro"
  check "the earlier reports are untouched" unchanged
else
  echo "note: running as root, which may write anywhere: the read-only folder is not checked"
fi

# An input error is not a write failure: the earlier reports go, none are written.
"$BIN" check --no-gpu --quiet --output "$r" "$ROOT/tests/cases/bad_unknown_task/m.json" >"$OUT.bad" 2>&1
check "a run with an input error exits 2" [ $? -eq 2 ]
check "and leaves no report of an earlier run" \
  bash -c '[ ! -e "$1/results.json" ] && [ ! -e "$1/summary.md" ]' _ "$r"
exit $fail
