#!/usr/bin/env bash
# A pull request can commit its output folder as a symbolic link to a folder outside the run.
# From a simulated checkout (the current folder), a linked --output, or a link on the way to it,
# is exit 2 naming it for check, report, merge, compare and baseline refresh's --baselines, and
# the folder it points to is left exactly as it was; the same for a linked --junit-copy folder
# and a link at the --junit-copy file. --follow-output-link without an explicit --output is a
# usage error; with --output naming the link, the reports are written through it.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m="$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json"
q=(--no-gpu --quiet --instructions off)
mkdir -p "$OUT/elsewhere" "$OUT/checkout"
printf 'kept\n' >"$OUT/elsewhere/keep.txt"
printf 'secret\n' >"$OUT/victim"
cp "$OUT/victim" "$OUT/victim.orig"
listing() { (cd "$OUT/elsewhere" && find . | sort && cat keep.txt); }
listing >"$OUT/elsewhere.before"
untouched() { listing | cmp -s - "$OUT/elsewhere.before" && cmp -s "$OUT/victim" "$OUT/victim.orig"; }

"$BIN" check "${q[@]}" --output "$OUT/good" "$m" >"$OUT/good.log" 2>&1
check "a plain run passes (exit 0)" [ $? -eq 0 ]
cd "$OUT/checkout" || exit 1
ln -s ../elsewhere reports # the default output folder of check, merge and compare
ln -s "$OUT/elsewhere" linked
mkdir real
ln -s "$OUT/victim" real/junit-copy.xml

refused() { # refused WHAT LOG RC TEXT
  check "$1: exits 2" [ "$3" -eq 2 ]
  check "$1: says '$4'" grep -qF -- "$4" "$2"
  check "$1: the folder the link points to is unchanged" untouched
}
link_msg="field '--output': is a symbolic link; ptxgate does not write through links"
"$BIN" check "${q[@]}" "$m" >"$OUT/c1.log" 2>&1
refused "check into the default (linked) reports" "$OUT/c1.log" $? "reports: $link_msg"
"$BIN" check "${q[@]}" --output linked "$m" >"$OUT/c2.log" 2>&1
refused "check --output linked" "$OUT/c2.log" $? "linked: $link_msg"
"$BIN" check "${q[@]}" --output ./linked/ "$m" >"$OUT/c3.log" 2>&1
refused "check --output ./linked/" "$OUT/c3.log" $? "./linked/: $link_msg"
"$BIN" check "${q[@]}" --output linked/sub "$m" >"$OUT/c4.log" 2>&1
refused "check --output linked/sub (a link on the way)" "$OUT/c4.log" $? \
  "linked/sub: field '--output': 'linked' on the way is a symbolic link"
"$BIN" check "${q[@]}" --output "$OUT/checkout/linked" "$m" >"$OUT/c5.log" 2>&1
refused "check --output with the link's absolute path" "$OUT/c5.log" $? "$OUT/checkout/linked: $link_msg"
"$BIN" check "${q[@]}" --follow-output-link "$m" >"$OUT/c6.log" 2>&1
refused "--follow-output-link without --output" "$OUT/c6.log" $? \
  "ptxgate check: --follow-output-link: follows a symbolic link only where --output names it"
"$BIN" report --output linked "$OUT/good/results.json" >"$OUT/r1.log" 2>&1
refused "report --output linked" "$OUT/r1.log" $? "linked: $link_msg"
cp -r "$OUT/good" real/run
ln -s real/run run-link
"$BIN" report run-link/results.json >"$OUT/r2.log" 2>&1
refused "report into the linked folder of its results" "$OUT/r2.log" $? "run-link: $link_msg"
"$BIN" merge --output linked "$OUT/good/results.json" >"$OUT/m1.log" 2>&1
refused "merge --output linked" "$OUT/m1.log" $? "linked: $link_msg"
"$BIN" compare "$OUT/good/results.json" "$OUT/good/results.json" >"$OUT/p1.log" 2>&1
refused "compare into the default (linked) reports" "$OUT/p1.log" $? "reports: $link_msg"
"$BIN" baseline refresh --baselines linked >"$OUT/b1.log" 2>&1
refused "baseline refresh --baselines linked (before any GPU is needed)" "$OUT/b1.log" $? \
  "linked: field '--baselines': is a symbolic link"

# The JUnit copy: a link at the file, or a linked folder on the way.
"$BIN" check "${q[@]}" --output out1 --junit-copy real/junit-copy.xml "$m" >"$OUT/j1.log" 2>&1
refused "check --junit-copy at a link" "$OUT/j1.log" $? \
  "real/junit-copy.xml: is a symbolic link, not a regular file; ptxgate never writes through or replaces it"
check "and no report was written" [ -z "$(ls -A out1 2>/dev/null)" ]
"$BIN" report --output out2 --junit-copy linked/j.xml "$OUT/good/results.json" >"$OUT/j2.log" 2>&1
refused "report --junit-copy into a linked folder" "$OUT/j2.log" $? \
  "linked: field '--junit-copy': is a symbolic link"

"$BIN" report --output out3 --junit-copy out3/summary.md "$OUT/good/results.json" >"$OUT/j3.log" 2>&1
check "--junit-copy naming another report of the set: exit 2" [ $? -eq 2 ]
check "and says so" grep -qF "out3/summary.md: field '--junit-copy': is out3/summary.md, another report this command writes" "$OUT/j3.log"

# Asked for explicitly: written through the link.
"$BIN" check "${q[@]}" --output linked --follow-output-link --junit-copy linked/junit/copy.xml "$m" >"$OUT/f1.log" 2>&1
check "--output linked --follow-output-link: exit 0" [ $? -eq 0 ]
check "the reports are in the link's folder" \
  bash -c '[ -f "$1/results.json" ] && [ -f "$1/junit.xml" ] && [ -f "$1/summary.md" ]' _ "$OUT/elsewhere"
check "so is the JUnit copy, byte for byte junit.xml" cmp -s "$OUT/elsewhere/junit/copy.xml" "$OUT/elsewhere/junit.xml"
check "the link is still a link" [ -L linked ]
check "the earlier file there is kept" grep -qx kept "$OUT/elsewhere/keep.txt"
check "the victim is unchanged" cmp -s "$OUT/victim" "$OUT/victim.orig"
exit $fail
