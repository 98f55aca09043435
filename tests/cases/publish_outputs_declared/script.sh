#!/usr/bin/env bash
# Every step output that ptxgate publish writes is declared in action.yml's outputs (an output
# the action does not declare is invisible to the workflow), and every output action.yml takes
# from the publish step is one that publish writes. Run with a comment and a check run against
# the fake GitHub API, so the ids and URLs are written with values.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
mkdir -p "$OUT"
sha=cccccccccccccccccccccccccccccccccccccccc
cat >"$OUT/state.json" <<JSON
{"tokens": {"tok-3": "github-actions[bot]"}, "pulls": {"7": {"head_sha": "$sha"}}}
JSON
fake_github "$OUT/state.json"
unset GITHUB_TOKEN GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_ACTIONS
TOK=tok-3 "$BIN" publish --repo o/r --token-env TOK --api-url "$FAKE_URL" --comment update --pr 7 \
  --check-name ptxgate --sha "$sha" --annotations --summary-file "$OUT/summary.md" \
  --output-file "$OUT/output" "$ROOT/tests/data/results/assemble_fail.json" >"$OUT/stdout" 2>"$OUT/stderr"
check "publish: exit 0" [ $? = 0 ]
check "publish: no publishing error" grep -q "^publish-errors=0$" "$OUT/output"
"$YAML_PYTHON" - "$ROOT/action.yml" "$OUT/output" <<'PY' || failures=$((failures + 1))
import re, sys, yaml
action = yaml.safe_load(open(sys.argv[1]))
declared = action["outputs"]
steps = {s.get("id"): s for s in action["runs"]["steps"] if s.get("id")}
# The output file: name=value lines and name<<DELIM heredocs (GitHub's $GITHUB_OUTPUT format).
written, lines, i = [], open(sys.argv[2]).read().split("\n"), 0
while i < len(lines):
    line = lines[i]
    m = re.match(r"^([A-Za-z0-9_-]+)<<(.+)$", line)
    if m:
        written.append(m.group(1))
        i += 1
        while i < len(lines) and lines[i] != m.group(2):
            i += 1
    elif "=" in line:
        written.append(line.split("=", 1)[0])
    i += 1
ok = True
for name in written:
    if name not in declared:
        print(f"FAIL: publish writes '{name}', which action.yml does not declare"); ok = False
from_publish = {}
for name, o in declared.items():
    m = re.fullmatch(r"\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}", o["value"])
    if not m:
        print(f"FAIL: output '{name}' has an unexpected value {o['value']!r}"); ok = False
        continue
    if m.group(1) not in steps:
        print(f"FAIL: output '{name}' names step '{m.group(1)}', which action.yml does not have"); ok = False
    if m.group(1) == "publish":
        from_publish[name] = m.group(2)
        if m.group(2) not in written:
            print(f"FAIL: output '{name}' reads publish's '{m.group(2)}', which publish does not write"); ok = False
    if not o.get("description"):
        print(f"FAIL: output '{name}' has no description"); ok = False
for need in ("comment-url", "check-run-id", "annotations", "publish-errors"):
    if need not in from_publish:
        print(f"FAIL: '{need}' is not taken from the publish step"); ok = False
if ok:
    print(f"ok: the {len(written)} outputs written are declared: {' '.join(written)}")
sys.exit(0 if ok else 1)
PY
exit $((failures > 0))
