#!/usr/bin/env bash
# compare counts right (docs/compare.md): stages that did not run are "not judged" (no rate, no
# transition, counted), fast_p is n/a without judged speeds, a file compared with itself has no
# transition and no chart of zero bars; two kernels of one name with different sources are
# paired and the difference noted; settings that differ (--instructions warn vs require) are
# listed and mark the transitions they explain; nothing paired is exit 2 with the reason and
# no reports; absurd speedups print as bounded numbers.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT"
gate() { # OUT-NAME MANIFEST [OPTIONS...]
  local o="$OUT/$1" m="$2"; shift 2
  "$BIN" check --no-gpu --quiet --accepted-kernel none --workloads m257_n513_k1000 "$@" \
    --output "$o" "$m" >"$o.stdout" 2>&1
}
gate v1 "$CASE/v1/naive.json"                       # instructions fail (require): exit 1
gate v1warn "$CASE/v1/naive.json" --instructions warn  # the same kernel passes under warn
gate v2 "$CASE/v2/naive.json"                       # another source, the same name
gate other "$CASE/other/tiled.json"                 # another name
for r in v1 v1warn v2 other; do
  check "$r ran" test -f "$OUT/$r/results.json"
done
js() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# 1. A no-GPU run whose offline stages pass, compared with itself: performance never ran on
# either side (v1 would not do: its failed instructions stage blocks performance, a judged fail).
"$BIN" compare --output "$OUT/self" "$OUT/v1warn/results.json" "$OUT/v1warn/results.json" >"$OUT/self.stdout" 2>&1
check "self: exit 0" [ $? -eq 0 ]
perf="[s for s in m['stages'] if s['stage']=='performance'][0]"
check "self: performance not judged on the pair" [ "$(js "$OUT/self/compare.json" "$perf['not_judged']")" == 1 ]
check "self: no transition counted" [ "$(js "$OUT/self/compare.json" "sum(s['regressions']+s['fixes']+s['not_comparable'] for s in m['stages'])")" == 0 ]
check "self: performance rate null" [ "$(js "$OUT/self/compare.json" "$perf['old']['pass_rate']")" == None ]
check "self: fast_p null, nothing judged" [ "$(js "$OUT/self/compare.json" "[(f['old'], f['old_judged']) for f in m['fast_p']][0]")" == "(None, 0)" ]
check "self: markdown n/a, never 0 %" grep -q '| performance | n/a (all skipped) | n/a (all skipped) | 0 | 0 | 0 | 1 |' "$OUT/self/compare.md"
check "self: fast_p n/a in markdown" grep -q '| 0.5 | n/a (none judged) | n/a (none judged) |' "$OUT/self/compare.md"
check "self: no 0.0 % anywhere" bash -c "! grep -Eq '(^|[^0-9])0\.0 %' '$OUT/self/compare.md'"
check "self: no chart of zero bars" bash -c "! grep -q xychart-beta '$OUT/self/compare.md'"
check "self: source same" [ "$(js "$OUT/self/compare.json" "m['submissions'][0]['source']")" == same ]

# 2. The same name, another kernel: paired, hashes reported, the difference noted.
"$BIN" compare --output "$OUT/names" "$OUT/v1/results.json" "$OUT/v2/results.json" >"$OUT/names.stdout" 2>&1
check "same name: exit 0" [ $? -eq 0 ]
check "same name: paired" [ "$(js "$OUT/names/compare.json" "m['paired_workloads']")" == 1 ]
check "same name: source differs" [ "$(js "$OUT/names/compare.json" "m['submissions'][0]['source']")" == differs ]
check "same name: both hashes" [ "$(js "$OUT/names/compare.json" "all(len(m['submissions'][0][s]['source_sha256'])==64 for s in ('old','new'))")" == True ]
check "same name: the workload says so" [ "$(js "$OUT/names/compare.json" "m['workloads'][0]['source']")" == differs ]
check "same name: noted in markdown" grep -q '1 of 1 paired submissions have the same name but a different source' "$OUT/names/compare.md"

# 3. Settings that differ: --instructions warn turns the instructions failure into a pass.
"$BIN" compare --output "$OUT/warn" "$OUT/v1/results.json" "$OUT/v1warn/results.json" >"$OUT/warn.stdout" 2>&1
check "settings: exit 0 (a fix)" [ $? -eq 0 ]
check "settings: instructions policy listed" [ "$(js "$OUT/warn/compare.json" "[(e['setting'], e['old'], e['new'], e['scope']) for e in m['settings_differences']]")" == "[('instructions policy', 'require', 'warn', 'pairs')]" ]
check "settings: the fix is explained" [ "$(js "$OUT/warn/compare.json" "[(c['stage'], c['kind'], c['explained_by']) for c in m['workloads'][0]['changes']]")" == "[('instructions', 'fix', ['instructions policy'])]" ]
check "settings: counted per stage" [ "$(js "$OUT/warn/compare.json" "[s['explained_by_settings'] for s in m['stages'] if s['stage']=='instructions'][0]")" == 1 ]
check "settings: listed at the top of the markdown" grep -q '^- instructions policy: require → warn (1 paired workload; the first shown)' "$OUT/warn/compare.md"
check "settings: marked in the table" grep -q 'instructions fail → pass (fix) (settings differ: instructions policy)' "$OUT/warn/compare.md"
# The reverse is a regression the settings explain; it still fails --fail-on regression.
"$BIN" compare --fail-on regression --output "$OUT/warn2" "$OUT/v1warn/results.json" "$OUT/v1/results.json" >"$OUT/warn2.stdout" 2>&1
check "settings reversed: exit 1" [ $? -eq 1 ]
check "settings reversed: the reason says a setting can explain it" grep -q 'a settings difference can explain some' "$OUT/warn2.stdout"

# 4. Nothing paired: exit 2, the reason, no reports (an earlier comparison's removed).
cp -r "$OUT/self" "$OUT/none"
"$BIN" compare --output "$OUT/none" "$OUT/v1/results.json" "$OUT/other/results.json" >"$OUT/none.stdout" 2>&1
check "nothing paired: exit 2" [ $? -eq 2 ]
check "nothing paired: the reason" grep -q 'nothing to compare: no submission of .* has the task and name of one in' "$OUT/none.stdout"
check "nothing paired: no reports" [ ! -e "$OUT/none/compare.json" ] && [ ! -e "$OUT/none/compare.md" ]
python3 - "$OUT/v1/results.json" "$OUT/v1w.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["submissions"]:
    for w in s["workloads"]:
        w["name"] = "renamed"
json.dump(r, open(sys.argv[2], "w"))
PY
"$BIN" compare --output "$OUT/none2" "$OUT/v1/results.json" "$OUT/v1w.json" >"$OUT/none2.stdout" 2>&1
check "no workload paired: exit 2" [ $? -eq 2 ]
check "no workload paired: the reason" grep -q 'submissions pair by task and name, but no workload name' "$OUT/none2.stdout"

# 5. Absurd speedups print as bounded numbers.
python3 - "$ROOT/tests/data/compare/old.json" "$OUT/huge.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["submissions"]:
    for w in s["workloads"]:
        if w.get("speedup_factor"):
            w["speedup_factor"] = 1e300
json.dump(r, open(sys.argv[2], "w"))
PY
"$BIN" compare --fail-on never --output "$OUT/huge" "$ROOT/tests/data/compare/old.json" "$OUT/huge.json" >"$OUT/huge.stdout" 2>&1
check "huge: exit 0" [ $? -eq 0 ]
check "huge: no number longer than 15 digits" bash -c "! grep -Eq '[0-9]{16}' '$OUT/huge/compare.md'"
check "huge: the speedup as 1e+300" grep -q '1e+300×' "$OUT/huge/compare.md"
exit $fail
