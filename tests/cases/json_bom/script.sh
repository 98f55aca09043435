#!/usr/bin/env bash
# A UTF-8 byte-order mark at the start of a JSON file ptxgate reads (some Windows editors write
# one) is accepted: a task, a manifest, a stored baseline and a results file (report, merge)
# with one give what the same file without one gives. A file in UTF-16 (it starts with a UTF-16
# byte-order mark) is named plainly: exit 2, "save it as UTF-8", no report.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
bom() { printf '\xef\xbb\xbf' > "$2"; cat "$1" >> "$2"; }
mkdir -p "$OUT/cases/m" "$OUT/tasks"
# Task and manifest, each with a mark (the manifest's source is found relative to it).
cp -r "$ROOT/tasks/gemm_bf16_nt" "$OUT/tasks/"
bom "$ROOT/tasks/gemm_bf16_nt/task.json" "$OUT/tasks/gemm_bf16_nt/task.json"
cp "$ROOT/tests/data/e2e/noop.ptx" "$OUT/cases/noop.ptx"
sed 's#"../../data/e2e/noop.ptx"#"../noop.ptx"#' "$ROOT/tests/cases/offline_noop/m.json" > "$OUT/cases/m/plain.json"
bom "$OUT/cases/m/plain.json" "$OUT/cases/m/bom.json"
for v in plain bom; do
  "$BIN" check --no-gpu --quiet --tasks "$OUT/tasks" --output "$OUT/r_$v" "$OUT/cases/m/$v.json" \
    >"$OUT/$v.out" 2>&1
  echo $? > "$OUT/$v.rc"
done
check "a manifest and a task with a byte-order mark are read (exit $(cat "$OUT/bom.rc"))" \
  [ "$(cat "$OUT/bom.rc")" = "$(cat "$OUT/plain.rc")" ]
check "and give the same verdicts" python3 - "$OUT" <<'PY'
import json, sys
o = sys.argv[1]
def table(k):
    rows = []
    for s in json.load(open(f"{o}/r_{k}/results.json"))["submissions"]:
        rows.append((s["verdict"], [(x["stage"], x["status"]) for x in s["stages"]]))
        rows += [(w["name"], w["verdict"]) for w in s["workloads"]]
    return rows
v = [table("plain"), table("bom")]
sys.exit(0 if v[0] == v[1] else 1)
PY
# A results file with a mark: report regenerates the same reports.
bom "$OUT/r_plain/results.json" "$OUT/results_bom.json"
"$BIN" report --output "$OUT/rep" "$OUT/results_bom.json" >"$OUT/rep.out" 2>&1
check "report reads a results file with a byte-order mark (exit $?)" cmp -s "$OUT/rep/summary.md" "$OUT/r_plain/summary.md"
# Shards with a mark: merge reads them.
for i in 1 2; do
  "$BIN" check --no-gpu --quiet --shard $i/2 --tasks "$OUT/tasks" --output "$OUT/s$i" \
    "$OUT/cases/m/plain.json" "$OUT/cases/m/bom.json" >/dev/null 2>&1
  bom "$OUT/s$i/results.json" "$OUT/s$i.json"
done
"$BIN" merge --output "$OUT/merged" "$OUT/s1.json" "$OUT/s2.json" >"$OUT/merge.out" 2>&1
rc=$?
check "merge reads shards with a byte-order mark (exit $rc)" [ -e "$OUT/merged/results.json" ]
# A stored baseline with a mark: baseline show reads it.
mkdir -p "$OUT/bl"
cp -r "$ROOT/tests/data/baselines/." "$OUT/bl/"
"$BIN" baseline show --baselines "$OUT/bl" > "$OUT/show_plain.out" 2>&1
rc_plain=$?
for f in $(find "$OUT/bl" -name '*.json'); do bom "$f" "$f.tmp" && mv "$f.tmp" "$f"; done
"$BIN" baseline show --baselines "$OUT/bl" > "$OUT/show_bom.out" 2>&1
rc_bom=$?
check "baseline show reads stored baselines with a byte-order mark (exit $rc_bom)" \
  bash -c '[ "$1" = "$2" ] && cmp -s "$3" "$4"' _ "$rc_plain" "$rc_bom" "$OUT/show_plain.out" "$OUT/show_bom.out"
# UTF-16: named plainly.
python3 -c 'import sys; t = open(sys.argv[1], encoding="utf-8").read(); open(sys.argv[2], "wb").write(t.encode("utf-16"))' \
  "$OUT/cases/m/plain.json" "$OUT/cases/m/utf16.json"
"$BIN" check --no-gpu --tasks "$OUT/tasks" --output "$OUT/r_utf16" "$OUT/cases/m/utf16.json" >/dev/null 2>"$OUT/utf16.err"
rc=$?
cat "$OUT/utf16.err"
check "a UTF-16 manifest: exit 2 (got $rc)" [ $rc = 2 ]
check "named plainly" grep -qF "utf16.json:1: the file is UTF-16 (it starts with a UTF-16 byte-order mark); JSON files are read as UTF-8: save it as UTF-8" "$OUT/utf16.err"
check "no report" bash -c '[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ]' _ "$OUT/r_utf16"
exit $fail
