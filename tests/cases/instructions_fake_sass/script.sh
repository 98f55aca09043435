#!/usr/bin/env bash
# The SASS half of the instructions stage on the build machine, which has no disassembler: the
# fake disassembler (tests/fakes/fake_disassembler.sh) prints a hand-written listing for the
# cubin ptxas produced. A PTX with wgmma and TMA passes when the listing has HGMMA and
# UTMALDG, fails "removed_by_ptxas" when it has none; a failing disassembler is an
# infrastructure error (exit 3); no disassembler at all is "skipped: no disassembler", never a
# pass. The cubin handed to the disassembler is the one ptxas assembled (byte-compared).
set -uo pipefail
mkdir -p "$OUT"
m="$ROOT/tests/fixtures/instructions/wgmma_tma.json"
fake="$ROOT/tests/fakes/fake_disassembler.sh"
sass="$ROOT/tests/fixtures/sass"
fail=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
stage() { # stage RESULTS FIELD: a field of the first workload's instructions stage
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["submissions"][0]["workloads"][0]["stages"][1]; assert s["stage"]=="instructions"; print(eval(sys.argv[2]))' "$1" "$2"
}
run() { # run NAME: check with the environment set by the caller
  "$BIN" check --no-gpu --quiet --output "$OUT/$1" "$m" >"$OUT/$1.stdout" 2>"$OUT/$1.stderr"
  echo $? >"$OUT/$1.rc"
}

PTXGATE_NVDISASM="$fake" PG_FAKE_LISTING="$sass/wgmma_tma_sm90a.nvdisasm.txt" PG_FAKE_SAVE="$OUT/seen.cubin" run pass
check "present in PTX and SASS: exit 0" [ "$(cat "$OUT/pass.rc")" = 0 ]
check "stage passes" [ "$(stage "$OUT/pass/results.json" 's["status"]')" = pass ]
check "message" grep -q "instructions pass     2/2 targets in the PTX and the SASS on sm_90a: wgmma.mma_async (PTX ×1, SASS ×5), cp.async.bulk.tensor (PTX ×1, SASS ×2); executed counts not measured" "$OUT/pass.stdout"
check "SASS opcodes recorded" [ "$(stage "$OUT/pass/results.json" 's["details"]["targets"][0]["sass"]["opcodes"][0]')" = "{'opcode': 'HGMMA.64x128x16.F32.BF16', 'count': 4}" ]
check "PTX lines recorded" [ "$(stage "$OUT/pass/results.json" 's["details"]["targets"][1]["ptx"]["lines"]')" = "[40]" ]
check "the tool is named" [ "$(stage "$OUT/pass/results.json" 's["details"]["sass"]["tool"]')" = nvdisasm ]
ptxas=$(command -v ptxas || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas")
"$ptxas" -arch=sm_90a -v -lineinfo --warn-on-spills -o "$OUT/expected.cubin" \
  "$ROOT/tests/fixtures/instructions/wgmma_tma.ptx" >/dev/null 2>&1
check "the disassembled cubin is the one ptxas assembled" cmp -s "$OUT/seen.cubin" "$OUT/expected.cubin"

PTXGATE_NVDISASM=/nonexistent PTXGATE_CUOBJDUMP="$fake" PG_FAKE_LISTING="$sass/tiled_mma_sm90a.cuobjdump.txt" run removed
check "absent from the SASS: exit 1" [ "$(cat "$OUT/removed.rc")" = 1 ]
check "reason removed_by_ptxas" [ "$(stage "$OUT/removed/results.json" '[t["reason"] for t in s["details"]["targets"]]')" = "['removed_by_ptxas', 'removed_by_ptxas']" ]
check "cuobjdump used" [ "$(stage "$OUT/removed/results.json" 's["details"]["sass"]["tool"]')" = cuobjdump ]
check "message names it" grep -q "wgmma.mma_async in PTX ×1 (lines 49) but no HGMMA in the SASS: removed by ptxas" "$OUT/removed.stdout"

PTXGATE_NVDISASM="$fake" PG_FAKE_LISTING="$sass/wgmma_tma_sm90a.nvdisasm.txt" PG_FAKE_EXIT=1 run broken
check "a failing disassembler: exit 3" [ "$(cat "$OUT/broken.rc")" = 3 ]
check "stage error" [ "$(stage "$OUT/broken/results.json" 's["status"]')" = error ]
check "its message" grep -q "instructions error    SASS not checked (nvdisasm failed (exit code 1): fake disassembler: failing on purpose" "$OUT/broken.stdout"

PTXGATE_NVDISASM=/nonexistent PTXGATE_CUOBJDUMP=/nonexistent run none
check "no disassembler: exit 0 (assemble passed, nothing failed)" [ "$(cat "$OUT/none.rc")" = 0 ]
check "stage skipped, never a pass" [ "$(stage "$OUT/none/results.json" 's["status"]')" = skipped ]
check "targets unknown" [ "$(stage "$OUT/none/results.json" '[t["status"] for t in s["details"]["targets"]]')" = "['unknown', 'unknown']" ]
check "says why" [ "$(stage "$OUT/none/results.json" 's["message"].startswith("SASS not checked (skipped: no disassembler: neither nvdisasm nor cuobjdump was found")')" = True ]
check "and what the PTX has" [ "$(stage "$OUT/none/results.json" '"; in the PTX: wgmma.mma_async ×1, cp.async.bulk.tensor ×1; executed counts not measured" in s["message"]')" = True ]
if ((fail)); then for f in "$OUT"/*.stdout; do echo "--- $f"; cat "$f"; done; fi
exit $fail
