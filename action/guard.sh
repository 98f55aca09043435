#!/usr/bin/env bash
# Step 1 of action.yml: refuse pull requests from forks on self-hosted runners (a fork's kernel
# is untrusted code, and a self-hosted runner keeps state between jobs) unless allow-forks is
# true; never run a fork's pull request under pull_request_target (secrets and a write token
# next to untrusted code: the "pwn request" pattern).
# Inputs (env): PG_EVENT_NAME, PG_HEAD_REPO, PG_REPOSITORY, PG_RUNNER_ENVIRONMENT, PG_ALLOW_FORKS.
set -euo pipefail

case "${PG_ALLOW_FORKS:-false}" in
  true | false) ;;
  *) echo "::error title=ptxgate::allow-forks must be true or false"; exit 1 ;;
esac
case "${PG_EVENT_NAME:-}" in
  pull_request | pull_request_target | pull_request_review | pull_request_review_comment) ;;
  *) exit 0 ;;
esac
if [[ -n "${PG_HEAD_REPO:-}" && "${PG_HEAD_REPO}" == "${PG_REPOSITORY:-}" ]]; then
  exit 0 # same repository: people with write access
fi
# A fork (or a head repository that no longer exists).
if [[ "$PG_EVENT_NAME" == "pull_request_target" ]]; then
  echo "::error title=ptxgate::refusing a fork's pull request under pull_request_target: that event" \
       "runs with secrets and a write token, and ptxgate would run the fork's kernels next to them." \
       "Use pull_request (and a workflow_run publish job for comments)."
  exit 1
fi
if [[ "${PG_RUNNER_ENVIRONMENT:-}" == "github-hosted" ]]; then
  exit 0 # an ephemeral GitHub-hosted machine: nothing to protect beyond the job
fi
if [[ "${PG_ALLOW_FORKS:-false}" == "true" ]]; then
  echo "::warning title=ptxgate::running a pull request from a fork on a self-hosted runner" \
       "(allow-forks: true): its kernels are untrusted code"
  exit 0
fi
echo "::error title=ptxgate::refusing a pull request from a fork on a self-hosted runner: its" \
     "kernels would run as untrusted code on this machine. A maintainer can run it from a branch" \
     "of this repository, or set allow-forks: true on an ephemeral, isolated runner."
exit 1
