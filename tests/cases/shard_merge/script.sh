#!/usr/bin/env bash
# check --shard i/n and ptxgate merge --output without a GPU: two shards of the bundled examples
# merged give the unsharded run's verdict table, counts and exit code (the older form with
# OUT_DIR first gives the same); each shard holds only its own
# items (the others are absent, not skipped); the merged report regenerates byte for byte and
# its JUnit validates; incomplete, repeated, foreign or different shards are refused with exit 2
# and leave no report; an empty shard passes. (Holm over merged performance comparisons needs a
# GPU run: tests/unit/test_merge.c and test_holm_family.c cover it with synthetic shards.)
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
m=(tasks/*/examples)
"$BIN" check --no-gpu --quiet --output "$OUT/full" "${m[@]}" >"$OUT.full" 2>&1
full_rc=$?
for i in 1 2; do
  "$BIN" check --no-gpu --quiet --shard $i/2 --output "$OUT/s$i" "${m[@]}" >"$OUT.s$i" 2>&1
  check "shard $i/2 exits like the full run ($full_rc)" [ $? -eq $full_rc ]
  check "shard $i/2 says how many items it ran" grep -q "^shard $i/2: [0-9]* of [0-9]* work items" "$OUT.s$i"
done
"$BIN" merge --output "$OUT/merged" "$OUT/s2/results.json" "$OUT/s1/results.json" >"$OUT.merge" 2>&1
check "merge exits like the full run" [ $? -eq $full_rc ]
check "merge --help documents --output" bash -c '"$1" merge --help | grep -q -- "--output DIR"' _ "$BIN"
# The older form, OUT_DIR first, still works (with a note pointing at --output) and gives the
# same report; a results file given first is a shard, not a folder.
"$BIN" merge "$OUT/merged_old_form" "$OUT/s2/results.json" "$OUT/s1/results.json" >"$OUT.merge_old" 2>&1
check "merge OUT_DIR SHARD... (older form) exits like the full run" [ $? -eq $full_rc ]
check "and points at --output" grep -qF "use --output $OUT/merged_old_form" "$OUT.merge_old"
check "and writes the same results" cmp -s "$OUT/merged/results.json" "$OUT/merged_old_form/results.json"
(cd "$OUT" && "$BIN" merge s1/results.json s2/results.json >"$OUT.merge_default" 2>&1)
check "without --output, into reports/ (exit like the full run)" [ $? -eq $full_rc ]
check "reports/results.json is the merged run (shard paths aside)" python3 - "$OUT" <<'PY'
import json, sys
a, b = (json.load(open(f"{sys.argv[1]}/{d}/results.json")) for d in ("merged", "reports"))
for r in (a, b):
    r.pop("merged_from")
sys.exit(0 if a == b else 1)
PY
check "the merged table equals the unsharded one" python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
def table(r):
    # Workloads a manifest declines ("supports") are listed once, by the shard of the
    # submission's first workload, after its own records: merged, in the same places.
    rows = []
    for s in r["submissions"]:
        rows.append((s["task"], s["name"], s["verdict"], [(x["stage"], x["status"]) for x in s["stages"]]))
        for w in s["workloads"]:
            rows.append((s["task"], s["name"], w["name"], w["verdict"], w["status"],
                         [(x["stage"], x["status"], x.get("message") if w["status"] == "NOT_APPLICABLE" else None)
                          for x in w["stages"]]))
    return rows, r["verdict"], r["exit_code"], r["counts"], r["holm"]["m_planned"], r["holm"]["m"]
full = json.load(open(f"{out}/full/results.json"))
merged = json.load(open(f"{out}/merged/results.json"))
ok = table(full) == table(merged) and "shard" not in merged and len(merged["merged_from"]) == 2
shards = [json.load(open(f"{out}/s{i}/results.json")) for i in (1, 2)]
keys = [set((it["submission_index"], it["workload_index"]) for it in s["shard"]["items"]) for s in shards]
total = sum(len(s["workloads"]) for s in full["submissions"])
declined = sum(1 for s in full["submissions"] for w in s["workloads"] if w["status"] == "NOT_APPLICABLE")
ok &= declined > 0  # the bundled examples include a manifest with "supports"
ok &= sum(1 for s in shards for x in s["submissions"] for w in x["workloads"] if w["status"] == "NOT_APPLICABLE") == declined
ok &= not (keys[0] & keys[1]) and len(keys[0] | keys[1]) == total
ok &= all(s["shard"]["items_total"] == total for s in shards)
# The GPU work is balanced: the run items (declined records aside) differ by at most one.
na = {(i, j) for i, x in enumerate(full["submissions"]) for j, w in enumerate(x["workloads"])
      if w["status"] == "NOT_APPLICABLE"}
ok &= abs(len(keys[0] - na) - len(keys[1] - na)) <= 1
# Absent, not skipped: a shard's workloads are exactly its items.
for s, k in zip(shards, keys):
    ok &= sum(len(x["workloads"]) for x in s["submissions"]) == len(k)
    ok &= s["holm"]["m_planned"] == full["holm"]["m_planned"]
print("rows", len(table(full)[0]), "items", [len(k) for k in keys], "total", total)
sys.exit(0 if ok else 1)
PY
"$BIN" report --output "$OUT/rep" "$OUT/merged/results.json" >/dev/null 2>&1
check "ptxgate report reproduces the merged junit.xml" cmp -s "$OUT/merged/junit.xml" "$OUT/rep/junit.xml"
check "... and summary.md" cmp -s "$OUT/merged/summary.md" "$OUT/rep/summary.md"
if command -v xmllint >/dev/null; then
  check "the merged JUnit validates" xmllint --noout --schema "$ROOT/schemas/junit.xsd" "$OUT/merged/junit.xml"
fi

refuse() { # what, expected text, merge arguments...
  local what="$1" text="$2"; shift 2
  "$BIN" merge --output "$OUT/refused" "$@" >"$OUT.refused" 2>&1
  local rc=$?
  check "$what: exit 2" [ $rc -eq 2 ]
  check "$what: says '$text'" grep -q -- "$text" "$OUT.refused"
  check "$what: no report left" [ ! -e "$OUT/refused/results.json" ]
}
mkdir -p "$OUT/refused" && echo stale >"$OUT/refused/results.json"
refuse "an incomplete run" "missing shard 2/2" "$OUT/s1/results.json"
refuse "a repeated shard" "given twice" "$OUT/s1/results.json" "$OUT/s1/results.json"
refuse "an unsharded results file" "not the results of a shard" "$OUT/s1/results.json" "$OUT/full/results.json"
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); r['environment']['ptxas_version']='12.8.93'
json.dump(r, open(sys.argv[2],'w'))" "$OUT/s2/results.json" "$OUT/other_ptxas.json"
refuse "another ptxas" "environment.ptxas_version" "$OUT/s1/results.json" "$OUT/other_ptxas.json"
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); r['settings']['seed']=1
json.dump(r, open(sys.argv[2],'w'))" "$OUT/s2/results.json" "$OUT/other_seed.json"
refuse "other settings" "settings.seed" "$OUT/s1/results.json" "$OUT/other_seed.json"

"$BIN" check --no-gpu --quiet --shard 999/999 --output "$OUT/empty" "${m[@]}" >"$OUT.empty" 2>&1
check "an empty shard passes" [ $? -eq 0 ]
check "and says so" grep -q "no work item fell in this shard" "$OUT.empty"
"$BIN" check --no-gpu --shard 3/2 --output "$OUT/bad" "${m[@]}" >"$OUT.bad" 2>&1
check "--shard 3/2 exits 2" [ $? -eq 2 ]
check "naming --shard" grep -q -- "--shard" "$OUT.bad"
exit $fail
