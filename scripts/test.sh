#!/usr/bin/env bash
# The whole test suite: set up, build, run every unit, end-to-end and GPU test (GPU tests skip
# with their reason on a machine without a GPU; the reasons are listed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
rc=0
ctest --output-on-failure -j "$(nproc)" "$@" || rc=$?
# ctest hides the output of skipped tests: show why each one skipped. A test that passed can
# still have skipped one of its checks (it says SKIP too): those are listed here as well, but
# not under ctest's "did not run".
awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
     /^SKIP/ { print "  " name ": " $0 }' Testing/Temporary/LastTest.log | sort -u |
  sed '1i skip reasons (skipped tests, and skipped checks inside tests that passed):' || true
exit $rc
