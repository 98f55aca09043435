#!/usr/bin/env bash
# A stand-in for nvdisasm and cuobjdump on machines without them: answers
# "nvdisasm --print-code CUBIN" and "cuobjdump -sass CUBIN" by printing the listing named in
# PG_FAKE_LISTING (one of tests/fixtures/sass). The cubin must exist; when PG_FAKE_SAVE is set,
# it is copied there, so a test can compare it with the cubin it expects to be disassembled.
# PG_FAKE_EXIT makes it fail with that exit code after printing an error line.
set -u
if [[ $# != 2 || ( $1 != --print-code && $1 != -sass ) ]]; then
  echo "fake disassembler: usage: --print-code|-sass CUBIN" >&2
  exit 2
fi
if [[ ! -f $2 ]]; then
  echo "fake disassembler: $2: no such file" >&2
  exit 1
fi
if [[ -n ${PG_FAKE_SAVE:-} ]]; then
  cp "$2" "$PG_FAKE_SAVE" || exit 1
fi
if [[ -n ${PG_FAKE_EXIT:-} ]]; then
  echo "fake disassembler: failing on purpose (PG_FAKE_EXIT=$PG_FAKE_EXIT)" >&2
  exit "$PG_FAKE_EXIT"
fi
cat "${PG_FAKE_LISTING:?PG_FAKE_LISTING names the listing to print}"
