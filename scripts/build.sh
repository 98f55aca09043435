#!/usr/bin/env bash
# Set up (scripts/setup.sh) and build ptxgate into build/.
# usage: scripts/build.sh [cmake --build options]   e.g. --target ptxgate_cli: the binary alone,
# without the test programs (what scripts/run-examples.sh builds).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
cmake -S . -B build -DCUDAToolkit_ROOT="$cuda" >/dev/null
cmake --build build -j "$(nproc)" "$@"
