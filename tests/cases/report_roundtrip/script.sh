#!/usr/bin/env bash
# `ptxgate report` reproduces check's junit.xml and summary.md byte for byte; JUnit validates
# against the project's schema and, when present, the strict Jenkins junit-10 schema (without the
# testcases' file and line attributes, which junit-10 lacks: schemas/junit.xsd says why).
set -euo pipefail
validate() { # validate XSD FILE
  if [[ "$1" == "$ROOT/schemas/junit.xsd" ]]; then
    xmllint --noout --schema "$1" "$2"
  else
    sed -E '/<testcase /s/ (file|line)="[^"]*"//g' "$2" | xmllint --noout --schema "$1" -
  fi
}
# exit 1: the no-op kernel fails the instructions stage (its failure is part of the round trip)
rc=0
"$BIN" check --no-gpu --quiet --output "$OUT/check" "$CASE/../offline_noop/m.json" >/dev/null || rc=$?
[[ $rc == 1 ]] || { echo "FAIL: check exited $rc, expected 1"; exit 1; }
grep -q '"stage": "instructions"' "$OUT/check/results.json"
"$BIN" report --output "$OUT/report" "$OUT/check/results.json" >/dev/null
cmp "$OUT/check/junit.xml" "$OUT/report/junit.xml"
cmp "$OUT/check/summary.md" "$OUT/report/summary.md"
echo "byte-identical: junit.xml, summary.md"
schemas=("$ROOT/schemas/junit.xsd")
if [[ -f "${PTXGATE_JUNIT10_XSD:-}" ]]; then
  schemas+=("$PTXGATE_JUNIT10_XSD")
else
  echo "note: PTXGATE_JUNIT10_XSD (Jenkins' junit-10.xsd) not set; validating against schemas/junit.xsd only"
fi
for xsd in "${schemas[@]}"; do
  validate "$xsd" "$OUT/check/junit.xml"
done
# Every recorded results fixture renders deterministically and validates.
for f in "$ROOT"/tests/data/results/*.json; do
  name=$(basename "$f" .json)
  cp "$f" "$OUT/$name.json"
  "$BIN" report --output "$OUT/$name-1" "$OUT/$name.json" >/dev/null
  "$BIN" report --output "$OUT/$name-2" "$OUT/$name.json" >/dev/null
  cmp "$OUT/$name-1/junit.xml" "$OUT/$name-2/junit.xml"
  cmp "$OUT/$name-1/summary.md" "$OUT/$name-2/summary.md"
  for xsd in "${schemas[@]}"; do
    validate "$xsd" "$OUT/$name-1/junit.xml"
  done
done
