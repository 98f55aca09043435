#!/usr/bin/env bash
# Golden reports: every command that renders reports from results files, run on every fixture,
# gives byte for byte the committed output (README.md says how to regenerate it and why a diff
# means behaviour changed): `report` on each tests/data/results fixture (against the unit
# tests' goldens, tests/data/results/expected), `compare` on the tests/data/compare pairs,
# `merge` of the tests/data/merge shards and `history` over both sets; their exit codes and
# standard output too. A fixture without its golden output, or a golden file no fixture makes,
# fails.
set -uo pipefail
fail=0
got="$OUT/got"
mkdir -p "$got"
# Run from a copy of the fixture folder with relative names: reports quote the paths given.
run() { # NAME DIR ARGS...: ptxgate ARGS in DIR; exit code and stdout into $got/NAME.out
  local name="$1" dir="$2"; shift 2
  local rc=0
  (cd "$dir" && "$BIN" "$@") >"$got/$name.stdout" 2>"$got/$name.stderr" || rc=$?
  { echo "exit $rc"; sed "s#$OUT#@OUT@#g" "$got/$name.stdout"; } >"$got/$name.out"
  [[ -s "$got/$name.stderr" ]] && { echo "stderr:"; sed "s#$OUT#@OUT@#g" "$got/$name.stderr"; } >>"$got/$name.out"
  rm -f "$got/$name.stdout" "$got/$name.stderr"
}
for set in results compare merge; do
  mkdir -p "$OUT/in/$set" && cp "$ROOT/tests/data/$set/"*.json "$OUT/in/$set/"
done

# report: every results fixture.
n=0
for f in "$OUT"/in/results/*.json; do
  name=$(basename "$f" .json)
  run "report.$name" "$OUT/in/results" report --output "$OUT/report/$name" "$name.json"
  for pair in "junit.xml:$name.junit.xml" "summary.md:$name.md"; do
    out="$OUT/report/$name/${pair%%:*}" want="$ROOT/tests/data/results/expected/${pair#*:}"
    if [[ ! -f "$want" ]]; then
      echo "FAIL: report $name: no golden ${want#"$ROOT/"}"; fail=1
    elif ! cmp -s "$want" "$out"; then
      echo "FAIL: report $name: ${pair%%:*} differs from ${want#"$ROOT/"}"
      diff -u "$want" "$out" | head -40; fail=1
    fi
  done
  n=$((n + 1))
done
((n >= 12)) || { echo "FAIL: only $n results fixtures found"; fail=1; }
for want in "$ROOT"/tests/data/results/expected/*.{junit.xml,md}; do
  base=$(basename "$want"); name=${base%.junit.xml}; name=${name%.md}
  [[ -f "$ROOT/tests/data/results/$name.json" ]] || { echo "FAIL: golden $base has no fixture"; fail=1; }
done

# compare: the degraded model, the uniformly slower run, and the way back (fixes).
for pair in old:new old:slower new:old new:slower; do
  a=${pair%%:*} b=${pair#*:}
  run "compare.$a-$b" "$OUT/in/compare" compare --output "$got/compare.$a-$b" "$a.json" "$b.json"
done
# merge: the shards in either order give one run.
run merge "$OUT/in/merge" merge --output "$got/merge" shard1.json shard2.json
run merge.reversed "$OUT/in/merge" merge --output "$got/merge.reversed" shard2.json shard1.json
# history: the compare runs in the order given, and every results fixture.
run history.compare "$OUT/in/compare" history --by input --output "$got/history.compare" \
  old.json new.json slower.json
run history.results "$OUT/in/results" history --by input --output "$got/history.results" \
  $(cd "$OUT/in/results" && ls *.json)

if [[ "${PG_UPDATE_GOLDEN:-}" == 1 ]]; then
  rm -rf "$CASE/expected" && cp -r "$got" "$CASE/expected"
  echo "rewrote $CASE/expected ($(find "$CASE/expected" -type f | wc -l) files): review the diff"
  exit $fail
fi
files=$(find "$CASE/expected" -type f 2>/dev/null | wc -l)
((files >= 20)) || { echo "FAIL: $CASE/expected holds $files files"; fail=1; }
if ! diff -r "$CASE/expected" "$got" >"$OUT/diff.txt"; then
  echo "FAIL: output differs from $CASE/expected (behaviour changed; README.md):"
  head -80 "$OUT/diff.txt"; fail=1
fi
((fail)) || echo "ok: $n report fixtures, 4 compares, 2 merges, 2 histories byte-identical ($files golden files)"
exit $fail
