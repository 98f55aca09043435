#!/usr/bin/env bash
# scripts/baseline-pr.sh, the publish half of baseline-refresh.yml, against a local bare
# repository and a fake gh: refreshed files are committed to the fixed branch and a pull request
# is opened, a second refresh updates the same pull request (force-pushed branch, gh pr edit),
# no change opens nothing, nothing is ever merged, and unexpected files in the downloaded
# artifact are refused.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
command -v git >/dev/null || { echo "SKIP: git not found"; exit 77; }
mkdir -p "$OUT"
export GIT_CONFIG_GLOBAL="$OUT/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --global init.defaultBranch main
git init -q --bare "$OUT/origin.git"
git init -q "$OUT/repo"
mkdir -p "$OUT/repo/baselines" "$OUT/repo/scripts"
echo "# baselines" >"$OUT/repo/baselines/README.md"
cp "$ROOT/scripts/baseline-pr.sh" "$OUT/repo/scripts/"
(cd "$OUT/repo" && git add -A && git -c user.name=t -c user.email=t@e commit -qm init &&
  git remote add origin "$OUT/origin.git" && git push -q origin main)
cat >"$OUT/gh" <<'SH'
#!/usr/bin/env bash
echo "$*" >>"$GH_LOG"
if [[ "$1 $2" == "pr list" ]]; then cat "$GH_STATE" 2>/dev/null; fi
exit 0
SH
chmod +x "$OUT/gh"
export GH="$OUT/gh" GH_LOG="$OUT/gh.log" GH_STATE="$OUT/gh.state" BASE=main RUN_URL=https://github.example/r/1 GH_TOKEN=
art="$OUT/artifact"
mkdir -p "$art/h200-sxm"
echo '{"task": "gemm_bf16_nt", "median_ms": 1.0}' >"$art/h200-sxm/gemm_bf16_nt.json"
cp "$OUT/repo/baselines/README.md" "$art/"
printf '%s\n' 'gemm_bf16_nt on h200-sxm: baselines/h200-sxm/gemm_bf16_nt.json (updated)' \
  '  m4096_n4096_k4096: cuBLASLt 0.1771 ms [0.1769, 0.1773] → 0.1765 ms [0.1763, 0.1767] `x`' >"$OUT/refresh.txt"
export SUMMARY_FILE="$OUT/refresh.txt"
refresh() { (cd "$OUT/repo" && git checkout -q main && git reset -q --hard origin/main && scripts/baseline-pr.sh "$art") >"$OUT/$1.log" 2>&1; }
refresh first
check "first refresh opens a pull request" grep -q "^pr create --head ptxgate/baseline-refresh --base main" "$GH_LOG"
check "its body quotes the refresh summary, backticks removed" grep -q "m4096_n4096_k4096: cuBLASLt 0.1771 ms \[0.1769, 0.1773\] → 0.1765 ms \[0.1763, 0.1767\] x$" "$GH_LOG"
check "the branch holds the refreshed file" bash -c "git --git-dir='$OUT/origin.git' show ptxgate/baseline-refresh:baselines/h200-sxm/gemm_bf16_nt.json | grep -q median_ms"
echo 5 >"$GH_STATE"
echo '{"task": "gemm_bf16_nt", "median_ms": 0.9}' >"$art/h200-sxm/gemm_bf16_nt.json"
refresh second
check "a second refresh updates the open pull request" grep -q "^pr edit 5 --body" "$GH_LOG"
check "and force-pushes the branch" bash -c "git --git-dir='$OUT/origin.git' show ptxgate/baseline-refresh:baselines/h200-sxm/gemm_bf16_nt.json | grep -q 0.9"
check "nothing is merged" bash -c "! grep -q '^pr merge' '$GH_LOG'"
check "main is untouched" bash -c "! git --git-dir='$OUT/origin.git' show main:baselines/h200-sxm/gemm_bf16_nt.json 2>/dev/null"
rm -rf "$art/h200-sxm"
: >"$GH_LOG"
refresh nochange
check "no change: no pull request call" [ ! -s "$GH_LOG" ]
check "no change: says so" grep -q "no change against main" "$OUT/nochange.log"
mkdir -p "$art/h200-sxm" && echo '{}' >"$art/h200-sxm/Evil Name.json"
refresh evil
check "an unexpected file in the artifact is refused" grep -q "refusing an unexpected file in the artifact" "$OUT/evil.log"
rm -rf "$art/h200-sxm" && mkdir -p "$art/h200-sxm" && echo '{not json' >"$art/h200-sxm/gemm_bf16_nt.json"
refresh badjson
check "invalid JSON is refused" grep -q "is not valid JSON" "$OUT/badjson.log"
exit $((failures > 0))
