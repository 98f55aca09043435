#!/usr/bin/env bash
# The whole test suite: set up, build, run every unit, end-to-end and GPU test (GPU tests skip
# with their reason on a machine without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
