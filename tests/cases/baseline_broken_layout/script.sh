#!/usr/bin/env bash
# A stored baseline that is there but cannot be read is never taken for a missing one: a
# symbolic link loop or a link to nothing in a baseline's place, a folder or a FIFO named
# <task>.json, or a file in the place of the GPU key's folder make `check --gpu-key` and
# `baseline show` exit 2 naming the path (they used to run as "no stored baseline", and show
# skipped such entries with exit 0), and check leaves no report. A GPU key folder that is
# simply absent is still "missing" (exit as without baselines).
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m="$ROOT/tests/cases/offline_noop/m.json"
good="$ROOT/baselines/h200-sxm/gemm_bf16_nt.json"
layout() { # name: a fresh baselines folder with an empty h200-sxm key folder; prints its path
  rm -rf "$OUT/$1" && mkdir -p "$OUT/$1/h200-sxm" && echo "$OUT/$1"
}
refused() { # what, baselines folder, expected text (in both commands' stderr)
  local what="$1" dir="$2" text="$3"
  rm -rf "$OUT/r"
  "$BIN" check --no-gpu --quiet --gpu-key h200-sxm --baselines "$dir" --output "$OUT/r" "$m" >"$OUT.log" 2>&1
  check "check, $what: exit 2" [ $? -eq 2 ]
  check "check, $what: names it" grep -qF "$text" "$OUT.log"
  check "check, $what: no report" bash -c '[ -z "$(ls -A "$1" 2>/dev/null)" ]' _ "$OUT/r"
  "$BIN" baseline show --baselines "$dir" >"$OUT.log" 2>&1
  check "show, $what: exit 2" [ $? -eq 2 ]
  check "show, $what: names it" grep -qF "$text" "$OUT.log"
}
d=$(layout loop); ln -s gemm_bf16_nt.json "$d/h200-sxm/gemm_bf16_nt.json"
refused "a symbolic link loop" "$d" "$d/h200-sxm/gemm_bf16_nt.json: cannot read the stored baseline: Too many levels of symbolic links"
d=$(layout dangling); ln -s "$OUT/nothing.json" "$d/h200-sxm/gemm_bf16_nt.json"
refused "a link to nothing" "$d" "$d/h200-sxm/gemm_bf16_nt.json: is a symbolic link to nothing"
d=$(layout folder); mkdir "$d/h200-sxm/gemm_bf16_nt.json"
refused "a folder named like a baseline" "$d" "$d/h200-sxm/gemm_bf16_nt.json: expected a stored baseline (a JSON file), found a folder"
d=$(layout fifo); mkfifo "$d/h200-sxm/gemm_bf16_nt.json"
refused "a FIFO named like a baseline" "$d" "found something that is not a file"

# A file in the place of the GPU key's folder: check refuses it (show lists folders only).
rm -rf "$OUT/keyfile" && mkdir -p "$OUT/keyfile" && cp "$good" "$OUT/keyfile/h200-sxm"
"$BIN" check --no-gpu --quiet --gpu-key h200-sxm --baselines "$OUT/keyfile" --output "$OUT/r2" "$m" >"$OUT.log" 2>&1
check "check, a file as the GPU key's folder: exit 2" [ $? -eq 2 ]
check "check, a file as the GPU key's folder: names it" grep -qF "$OUT/keyfile/h200-sxm: is not a folder" "$OUT.log"

# No folder for the GPU key at all: missing, as before.
rm -rf "$OUT/r3" && mkdir -p "$OUT/empty"
"$BIN" check --no-gpu --quiet --gpu-key h200-sxm --baselines "$OUT/empty" --output "$OUT/r3" "$m" >"$OUT.log" 2>&1
rc=$?
check "an absent GPU key folder is not an input error (exit $rc)" [ $rc -ne 2 ]
check "and the run has its reports" [ -f "$OUT/r3/results.json" ]
check "with the baseline recorded as missing" grep -q '"missing"' "$OUT/r3/results.json"
exit $fail
