#!/usr/bin/env bash
# `ptxgate check --help` byte for byte (expected.txt): the text comes from the option table
# (gate/pipeline/settings.c), so a change to a row's help, name, argument or order shows here.
# To accept a deliberate change: "$BIN" check --help > tests/cases/help_check_exact/expected.txt
set -uo pipefail
mkdir -p "$OUT"
"$BIN" check --help >"$OUT/help.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
if ! diff -u "$CASE/expected.txt" "$OUT/help.txt"; then
  echo "FAIL: check --help differs from expected.txt"; exit 1
fi
echo "ok: check --help as expected ($(wc -l <"$OUT/help.txt") lines)"
