#!/usr/bin/env bash
# The publish half of .github/workflows/baseline-refresh.yml: take the refreshed baselines
# folder downloaded from the GPU job (untrusted: only <gpu-key>/<task>.json files of valid JSON
# with plain names are taken), and when they differ from the default branch's, commit them to
# the fixed branch ptxgate/baseline-refresh and open its pull request, or update the open one.
# Never merges. Needs GH_TOKEN (contents: write, pull-requests: write), BASE (the default
# branch), RUN_URL; runs in a checkout of BASE. SUMMARY_FILE (optional) is the output of
# `ptxgate baseline refresh` (old -> new per workload), quoted in the pull request body. BRANCH
# overrides the branch name; GH (the gh command) and PUSH_URL (the remote to push to) exist for
# tests.
# usage: scripts/baseline-pr.sh DOWNLOADED_BASELINES_DIR
set -euo pipefail
src="${1:?usage: scripts/baseline-pr.sh DIR}"
branch="${BRANCH:-ptxgate/baseline-refresh}"
base="${BASE:-main}"
gh="${GH:-gh}"
cd "$(git rev-parse --show-toplevel)"

n=0
while IFS= read -r -d '' f; do
  rel="${f#"$src"/}"
  if [[ ! "$rel" =~ ^[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9_]*\.json$ && "$rel" != README.md ]]; then
    echo "::error title=baseline-refresh::refusing an unexpected file in the artifact: $rel"
    exit 1
  fi
  [[ "$rel" == README.md ]] && continue
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" ||
    { echo "::error title=baseline-refresh::$rel is not valid JSON"; exit 1; }
  mkdir -p "baselines/$(dirname "$rel")"
  cp "$f" "baselines/$rel"
  n=$((n + 1))
done < <(find "$src" -type f -print0)
[[ -z "$(find "$src" ! -type f ! -type d -print -quit)" ]] ||
  { echo "::error title=baseline-refresh::the artifact holds links or special files"; exit 1; }

if [[ -z "$(git status --porcelain -- baselines)" ]]; then
  echo "baseline-refresh: $n baseline files, no change against $base"
  exit 0
fi
git config user.name "github-actions[bot]"
git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
git checkout -q -B "$branch"
git add -- baselines
git commit -q -m "Refresh vendor baselines" -m "Measured by $RUN_URL"
push_url="${PUSH_URL:-$(git remote get-url origin)}"
if [[ -n "${GH_TOKEN:-}" && "$push_url" == https://* ]]; then
  auth=$(printf 'x-access-token:%s' "$GH_TOKEN" | base64 -w0)
  echo "::add-mask::$auth"
  git -c "http.extraheader=AUTHORIZATION: basic $auth" push -q --force "$push_url" "HEAD:refs/heads/$branch"
else
  git push -q --force "$push_url" "HEAD:refs/heads/$branch"
fi
body="Vendor baselines re-measured on the GPU runner by $RUN_URL.

Review the changes (old → new times and the environment fingerprint) before merging; this pull
request is never merged automatically. It was opened with GITHUB_TOKEN, so CI does not start by
itself: close and reopen it, or push a commit to the branch, to run the checks."
if [[ -n "${SUMMARY_FILE:-}" && -f "$SUMMARY_FILE" ]]; then
  # Quoted as plain text: backticks removed so the fence holds; kept well under GitHub's
  # 65536-character body limit.
  body+=$'\n\n```text\n'"$(tr -d '`' <"$SUMMARY_FILE" | head -c 50000)"$'\n```'
fi
pr=$("$gh" pr list --head "$branch" --base "$base" --state open --json number --jq '.[0].number')
if [[ -n "$pr" ]]; then
  "$gh" pr edit "$pr" --body "$body"
  echo "baseline-refresh: updated pull request #$pr"
else
  "$gh" pr create --head "$branch" --base "$base" --title "Refresh vendor baselines" --body "$body"
  echo "baseline-refresh: opened a pull request from $branch"
fi
