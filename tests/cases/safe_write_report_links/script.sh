#!/usr/bin/env bash
# A pull request can commit symbolic links and FIFOs into the folder the reports go to. A link at
# any report name (results.json, junit.xml, summary.md; report's, merge's and compare's too) is
# exit 2 naming it, before any work; the file it points to, outside the run, is byte for byte as
# it was and the link stays a link. The earlier writer's attack, links at "<name>.tmp.<pid>" and
# "<name>.old.<pid>" for the very pid ptxgate runs as (bash's exec keeps the pid), no longer
# works: the run passes, the reports are regular files, the target is untouched. A FIFO at a
# report name is exit 2 at once (never opened, so nothing blocks).
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m=tasks/gemm_bf16_nt/examples/handwritten.json
mkdir -p "$OUT"
v="$OUT/victim"
printf 'the runner owner'"'"'s file\n' >"$v"
cp "$v" "$OUT/victim.orig"
untouched() { cmp -s "$v" "$OUT/victim.orig"; }
q=(--no-gpu --quiet --instructions off)

# A good run to have results for report, merge and compare.
"$BIN" check "${q[@]}" --output "$OUT/good" "$m" >"$OUT/good.log" 2>&1
check "a plain run passes (exit 0)" [ $? -eq 0 ]
for i in 1 2; do
  "$BIN" check "${q[@]}" --shard $i/2 --output "$OUT/s$i" "$m" >/dev/null 2>&1
done

r="$OUT/r"
refused() { # refused WHAT NAME LOG RC
  check "$1: a link at $2 exits 2" [ "$4" -eq 2 ]
  check "$1: the message names it" grep -qF "$r/$2: is a symbolic link, not a regular file; ptxgate never writes through or replaces it" "$3"
  check "$1: the linked file is unchanged" untouched
  check "$1: the link is still the link" [ "$(readlink "$r/$2")" = "$v" ]
}
for name in results.json junit.xml summary.md; do
  rm -rf "$r" && mkdir -p "$r" && ln -s "$v" "$r/$name"
  "$BIN" check "${q[@]}" --output "$r" "$m" >"$OUT/check.$name.log" 2>&1
  refused check "$name" "$OUT/check.$name.log" $?
  rm -rf "$r" && mkdir -p "$r" && ln -s "$v" "$r/$name"
  "$BIN" merge --output "$r" "$OUT/s1/results.json" "$OUT/s2/results.json" >"$OUT/merge.$name.log" 2>&1
  refused merge "$name" "$OUT/merge.$name.log" $?
done
for name in junit.xml summary.md; do
  rm -rf "$r" && mkdir -p "$r" && cp "$OUT/good/results.json" "$r/" && ln -s "$v" "$r/$name"
  "$BIN" report "$r/results.json" >"$OUT/report.$name.log" 2>&1
  refused report "$name" "$OUT/report.$name.log" $?
done
for name in compare.json compare-junit.xml compare.md; do
  rm -rf "$r" && mkdir -p "$r" && ln -s "$v" "$r/$name"
  "$BIN" compare --output "$r" "$OUT/good/results.json" "$OUT/good/results.json" >"$OUT/compare.$name.log" 2>&1
  refused compare "$name" "$OUT/compare.$name.log" $?
done

# The old attack: links at the predictable temporary and kept names for the pid ptxgate gets.
plant_and_exec() { # plant_and_exec NAMES... -- PTXGATE ARGS...: links for this very pid, then exec
  bash -c 'r="$1" v="$2"; shift 2
    while [[ "$1" != -- ]]; do ln -s "$v" "$r/$1.tmp.$$"; ln -s "$v" "$r/$1.old.$$"; shift; done
    shift; exec "$@"' _ "$r" "$v" "$@"
}
regular_reports() { local f; for f in "$@"; do [[ -f "$r/$f" && ! -L "$r/$f" ]] || return 1; done; }
links_kept() { [ "$(find "$r" -maxdepth 1 -type l | wc -l)" -eq "$1" ]; }
no_private_left() { [ -z "$(find "$r" -maxdepth 1 -name '.*.tmp.*' -o -maxdepth 1 -name '.*.old.*')" ]; }

rm -rf "$r" && mkdir -p "$r"
echo earlier >"$r/summary.md" # an earlier report, so a kept ".old" file is made too
plant_and_exec results.json junit.xml summary.md -- \
  "$BIN" check "${q[@]}" --output "$r" "$m" >"$OUT/tmp_attack.check.log" 2>&1
check "check with links at <name>.tmp.<its pid>: passes (exit 0)" [ $? -eq 0 ]
check "check: the linked file is unchanged" untouched
check "check: the reports are regular files" regular_reports results.json junit.xml summary.md
check "check: the reports are this run's" grep -qF handwritten "$r/summary.md"
check "check: the planted links are left alone" links_kept 6
check "check: no temporary or kept file is left" no_private_left

plant_and_exec junit.xml summary.md -- "$BIN" report "$r/results.json" >"$OUT/tmp_attack.report.log" 2>&1
check "report with links at <name>.tmp.<its pid>: exit 0" [ $? -eq 0 ]
check "report: the linked file is unchanged" untouched
check "report: the reports are regular files" regular_reports junit.xml summary.md

plant_and_exec results.json junit.xml summary.md -- \
  "$BIN" merge --output "$r" "$OUT/s1/results.json" "$OUT/s2/results.json" >"$OUT/tmp_attack.merge.log" 2>&1
check "merge with links at <name>.tmp.<its pid>: exit 0" [ $? -eq 0 ]
check "merge: the linked file is unchanged" untouched
check "merge: the reports are regular files" regular_reports results.json junit.xml summary.md

plant_and_exec compare.json compare-junit.xml compare.md -- \
  "$BIN" compare --output "$r" "$OUT/good/results.json" "$OUT/good/results.json" >"$OUT/tmp_attack.compare.log" 2>&1
check "compare with links at <name>.tmp.<its pid>: exit 0" [ $? -eq 0 ]
check "compare: the linked file is unchanged" untouched
check "compare: the reports are regular files" regular_reports compare.json compare-junit.xml compare.md
check "no temporary or kept file is left" no_private_left

# A FIFO at a report name: refused at once, left as it was.
rm -rf "$r" && mkdir -p "$r" && mkfifo "$r/summary.md"
timeout 60 "$BIN" check "${q[@]}" --output "$r" "$m" >"$OUT/fifo.log" 2>&1
check "a FIFO at summary.md exits 2 (not blocked)" [ $? -eq 2 ]
check "and is named" grep -qF "$r/summary.md: is a FIFO, not a regular file" "$OUT/fifo.log"
check "the FIFO is still a FIFO, nothing else written" bash -c '[ -p "$1/summary.md" ] && [ "$(ls -A "$1")" = summary.md ]' _ "$r"
exit $fail
