#!/usr/bin/env bash
# Run by test_installed_commands.sh (copied out of the source tree first): every command path
# that needs no GPU, from the installed binary in PG_PREFIX, in a folder of PG_SCRATCH, with
# every PTXGATE_* variable unset. PG_HIDDEN=1: the source tree PG_SRC is hidden (empty).
set -uo pipefail
for v in $(compgen -e | grep '^PTXGATE_'); do unset "$v"; done
unset GITHUB_TOKEN GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_ACTIONS
export CUDA_VISIBLE_DEVICES= # no GPU even on a GPU machine: these are the offline paths
p="$PG_PREFIX" s="$PG_SCRATCH" bin="$PG_PREFIX/bin/ptxgate"
cd "$s/work" || exit 1
failures=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi; }
run() { # run NAME ARGS...: the installed binary, its exit code in NAME.rc
  "$bin" "${@:2}" >"$s/$1.stdout" 2>"$s/$1.stderr"
  echo $? >"$s/$1.rc"
}
rc() { cat "$s/$1.rc"; }
show() { echo "--- $1 (exit $(rc "$1"))"; tail -n 15 "$s/$1.stdout" "$s/$1.stderr"; }

if [[ "$PG_HIDDEN" = 1 ]]; then
  check "the source tree is hidden for these runs" [ -z "$(ls -A "$PG_SRC")" ]
fi
check "the installed binary holds no path of the source tree" bash -c "! grep -aqF '$PG_SRC' '$bin'"
check "the package holds no source-root file" [ ! -e "$p/bin/ptxgate-source-root" ]

run doctor doctor
check "doctor: exit 0" [ "$(rc doctor)" = 0 ]
for k in tasks arch metrics schemas baselines; do
  check "doctor: $k from the installed share/ptxgate" \
    grep -qE "^  $k +ok +$p/bin/../share/ptxgate/$k \(installed" "$s/doctor.stdout"
done
[[ "$(rc doctor)" = 0 ]] || show doctor

# check --no-gpu of the installed examples (exit 1 by design: most fail the instructions stage),
# as two shards, so that each example is assembled once and merge has real input.
ex=("$p"/share/ptxgate/tasks/*/examples)
run shard1 check --no-gpu --quiet --shard 1/2 --output "$s/s1" "${ex[@]}"
run shard2 check --no-gpu --quiet --shard 2/2 --output "$s/s2" "${ex[@]}"
check "check --no-gpu of the installed examples (two shards): exit 1 or 0 each" \
  bash -c "[[ '$(rc shard1)' =~ ^[01]$ && '$(rc shard2)' =~ ^[01]$ ]]"
[[ "$(rc shard1)" =~ ^[01]$ ]] || show shard1
run merge merge --output "$s/c1" "$s/s1/results.json" "$s/s2/results.json"
check "merge of the two shards: exit 1" [ "$(rc merge)" = 1 ]
check "merge: results.json, junit.xml, summary.md" \
  test -f "$s/c1/results.json" -a -f "$s/c1/junit.xml" -a -f "$s/c1/summary.md"
[[ "$(rc merge)" = 1 ]] || show merge
python3 - "$s/c1/results.json" "$p" <<'PY' || failures=$((failures + 1))
import json, sys
r = json.load(open(sys.argv[1])); prefix = sys.argv[2]
subs = r["submissions"]
bad = [s["name"] for s in subs
       for st in s["stages"] if st["stage"] == "assemble" and st["status"] != "pass"]
tables = {t.get("table") for s in subs for w in s["workloads"] for st in w["stages"]
          if st["stage"] == "instructions" for t in [st.get("details", {})] if t.get("table")}
ok = len(subs) >= 9 and not bad and tables and all(t.startswith(prefix + "/bin/../share/ptxgate/arch/") for t in tables)
print(("ok" if ok else "FAIL") + f": check: {len(subs)} installed examples assembled "
      f"(failures: {bad}), instruction tables {sorted(tables)}")
sys.exit(0 if ok else 1)
PY

run report report --output "$s/r1" "$s/c1/results.json"
check "report: exit 0" [ "$(rc report)" = 0 ]
check "report: junit.xml and summary.md byte-identical" \
  bash -c "cmp -s '$s/c1/junit.xml' '$s/r1/junit.xml' && cmp -s '$s/c1/summary.md' '$s/r1/summary.md'"

run compare compare --output "$s/cmp" "$s/c1/results.json" "$s/r1/../c1/results.json"
check "compare: exit 0 (nothing changed)" [ "$(rc compare)" = 0 ]
check "compare: compare.json, compare.md, compare-junit.xml" \
  test -f "$s/cmp/compare.json" -a -f "$s/cmp/compare.md" -a -f "$s/cmp/compare-junit.xml"
[[ "$(rc compare)" = 0 ]] || show compare

run show baseline show
check "baseline show: exit 0 with the shipped baselines" [ "$(rc show)" = 0 ]
check "baseline show: the H200 baselines are listed" grep -q "h200-sxm" "$s/show.stdout"
[[ "$(rc show)" = 0 ]] || show show

run refresh baseline refresh --baselines "$s/b" --workloads m2048_n2048_k2048 gemm_bf16_nt
check "baseline refresh: up to the GPU check (exit 3, needs a GPU)" [ "$(rc refresh)" = 3 ]
check "baseline refresh: says it needs a GPU" grep -q "baseline refresh needs a GPU" "$s/refresh.stderr"
check "baseline refresh: nothing written" [ -z "$(find "$s/b" -type f 2>/dev/null)" ]
[[ "$(rc refresh)" = 3 ]] || show refresh
PTXGATE_ARCH_DATA="$s/empty" run refresh2 baseline refresh --baselines "$s/b" gemm_bf16_nt
check "baseline refresh reads the tables PTXGATE_ARCH_DATA names (empty: exit 2)" \
  grep -q "no instruction table for sm_90a in '$s/empty'" "$s/refresh2.stderr"

# publish against the fake GitHub API (tests/fakes/github_api.py, copied out).
ROOT="$s/aux" OUT="$s/fake"
mkdir -p "$OUT"
source "$s/aux/tests/action/lib.sh"
sha=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
printf '{"tokens": {"ghs-INSTALLED-1": "ptxgate-app[bot]"}, "pulls": {"5": {"head_sha": "%s"}}}\n' \
  "$sha" >"$OUT/state.json"
fake_github "$OUT/state.json"
export PG_TOK=ghs-INSTALLED-1
run publish publish --repo o/r --comment update --pr 5 --check-name ptxgate --sha "$sha" \
  --token-env PG_TOK --api-url "$FAKE_URL" --summary-file "$s/pub-summary.md" \
  --output-file "$s/pub-output" --fail-on-publish-error "$s/c1/results.json"
check "publish: exit 0" [ "$(rc publish)" = 0 ]
check "publish: the sticky comment created on #5" grep -q "created comment [0-9]* on #5" "$s/publish.stdout"
check "publish: a check run" grep -q "check-run: check run" "$s/publish.stdout"
check "publish: the job summary" grep -q "^## ptxgate" "$s/pub-summary.md"
[[ "$(rc publish)" = 0 ]] || show publish

# The action's install step with binary-path.
: >"$s/gh-output"
PG_BINARY_PATH="$bin" PG_WORK_DIR="$s/action-work" GITHUB_OUTPUT="$s/gh-output" \
  bash "$s/aux/action/install.sh" >"$s/install.stdout" 2>&1
echo $? >"$s/install.rc"
check "action install step with binary-path: exit 0" [ "$(rc install)" = 0 ]
check "action install step: outputs the installed binary" grep -qx "binary=$(realpath "$bin")" "$s/gh-output"
check "action install step: outputs the installed tasks" grep -qx "tasks=$(realpath "$p/share/ptxgate/tasks")" "$s/gh-output"
[[ "$(rc install)" = 0 ]] || show install

check "no output names the source tree" bash -c "! grep -rlF '$PG_SRC' '$s'/s1 '$s'/s2 '$s'/c1 '$s'/r1 '$s'/cmp '$s'/*.stdout '$s'/*.stderr '$s'/pub-summary.md"
echo "$failures failed checks"
exit $((failures > 0))
