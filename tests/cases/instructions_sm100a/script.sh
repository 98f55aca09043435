#!/usr/bin/env bash
# sm_100a offline: the hand-written tcgen05 fixture (tests/fixtures/sm100a) assembles with
# ptxas -arch=sm_100a, and its static inventory holds the task's sm_100a targets (tcgen05.mma,
# cp.async.bulk.tensor) at their PTX lines. SASS: with the fake disassembler and the
# hand-written sm_100a listing the stage passes (UTCHMMA, UTMALDG); without a disassembler it
# is "skipped: no disassembler"; with a real one (the toolkit's, or the one scripts/setup.sh puts
# into the tools venv) the real disassembly of the sm_100a cubin must show UTCHMMA and UTMALDG.
set -uo pipefail
mkdir -p "$OUT"
m="$ROOT/tests/fixtures/sm100a/tcgen05_tile.json"
fail=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sub=r["submissions"][0]; s=sub["workloads"][0]["stages"][1]; assert s["stage"]=="instructions"; print(eval(sys.argv[2]))' "$1" "$2"; }

PTXGATE_NVDISASM="$ROOT/tests/fakes/fake_disassembler.sh" \
  PG_FAKE_LISTING="$ROOT/tests/fixtures/sass/tcgen05_sm100a.nvdisasm.txt" \
  "$BIN" check --no-gpu --quiet --output "$OUT/fake" "$m" >"$OUT/fake.stdout" 2>&1
check "exit 0" [ $? = 0 ]
check "assembled for sm_100a" grep -q "assemble     pass     ptxas sm_100a ok" "$OUT/fake.stdout"
check "the arch comes from the manifest" [ "$(field "$OUT/fake/results.json" 'sub["arch"]')" = sm_100a ]
check "targets of the sm_100a set" [ "$(field "$OUT/fake/results.json" '[t["target"] for t in s["details"]["targets"]]')" = "['tcgen05.mma', 'cp.async.bulk.tensor']" ]
check "tcgen05.mma at line 82, TMA at lines 60 and 63" [ "$(field "$OUT/fake/results.json" '[t["ptx"]["lines"] for t in s["details"]["targets"]]')" = "[[82], [60, 63]]" ]
check "proven by UTCHMMA and UTMALDG" [ "$(field "$OUT/fake/results.json" '[t["sass"]["opcodes"][0]["opcode"] for t in s["details"]["targets"]]')" = "['UTCHMMA', 'UTMALDG.2D']" ]
check "stage passes" [ "$(field "$OUT/fake/results.json" 's["status"]')" = pass ]

"$BIN" check --no-gpu --quiet --output "$OUT/real" "$m" >"$OUT/real.stdout" 2>&1
rc=$?
# Whether ptxgate found a disassembler (the toolkit's, or the tools venv's: scripts/sass-tools.sh)
# is in the results; under CI=true one is required (setup installs it), so CI runs the SASS half.
have_disassembler=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["environment"]["disassembler"] is not None))' "$OUT/real/results.json")
if [[ "${CI:-}" == true ]]; then check "CI=true: a disassembler was found" [ "$have_disassembler" = 1 ]; fi
if ((have_disassembler)); then
  check "real disassembly: exit 0" [ $rc = 0 ]
  check "real disassembly: UTCHMMA and UTMALDG in the sm_100a SASS" [ "$(field "$OUT/real/results.json" '[t["status"] for t in s["details"]["targets"]]')" = "['pass', 'pass']" ]
else
  check "no disassembler: exit 0" [ $rc = 0 ]
  check "no disassembler: skipped, targets unknown" [ "$(field "$OUT/real/results.json" '(s["status"], [t["status"] for t in s["details"]["targets"]])')" = "('skipped', ['unknown', 'unknown'])" ]
  check "no disassembler: the PTX part still recorded" [ "$(field "$OUT/real/results.json" '[t["ptx"]["count"] for t in s["details"]["targets"]]')" = "[1, 2]" ]
fi
if ((fail)); then cat "$OUT"/*.stdout; fi
exit $fail
