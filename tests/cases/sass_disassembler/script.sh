#!/usr/bin/env bash
# The real disassembler, as ptxgate finds it (the toolkit's, else the one scripts/setup.sh links
# into the tools venv), on the cubins ptxas builds for sm_90a (the bundled wgmma + TMA example:
# HGMMA and UTMALDG) and sm_100a (the tcgen05 fixture: UTCHMMA and UTMALDG): the SASS half of
# the instructions stage is checked, not skipped, and passes; through nvdisasm and through
# cuobjdump; its tool and version are in results.json's environment. Without a disassembler it
# skips (exit 77), except under CI=true, where setup installs one and this must not skip.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
unset PTXGATE_NVDISASM PTXGATE_CUOBJDUMP
sm90="$ROOT/tasks/gemm_bf16_nt/examples/wgmma_tma.json"
sm100="$ROOT/tests/fixtures/sm100a/tcgen05_tile.json"
run() { # run NAME MANIFEST [ENV...]
  env "${@:3}" "$BIN" check --no-gpu --quiet --workloads m4096_n4096_k4096 --output "$OUT/$1" "$2" \
    >"$OUT/$1.stdout" 2>&1
  echo $? >"$OUT/$1.rc"
}
q() { # q RESULTS EXPR: evaluate EXPR over r (results), ins (the first workload's instructions stage)
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); w=r["submissions"][0]["workloads"][0]; ins=[s for s in w["stages"] if s["stage"]=="instructions"][0]; print(eval(sys.argv[2]))' "$1" "$2"
}
run sm90 "$sm90"
dis=$(q "$OUT/sm90/results.json" 'r["environment"]["disassembler"]')
if [[ "$dis" == None ]]; then
  echo "SKIP: no nvdisasm or cuobjdump in the toolkit or the tools venv (scripts/setup.sh installs them)"
  [[ "${CI:-}" == true ]] && { echo "FAIL: CI=true: the SASS half must run"; exit 1; }
  exit 77
fi
tool=$(q "$OUT/sm90/results.json" 'r["environment"]["disassembler"]["tool"]')
version=$(q "$OUT/sm90/results.json" 'r["environment"]["disassembler"]["version"]')
check "the disassembler's version is recorded ($tool $version)" bash -c "[[ '$version' =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]"
check "the tool that ran is the one recorded" [ "$(q "$OUT/sm90/results.json" 'ins["details"]["sass"]["tool"]')" = "$tool" ]

for tool_run in nvdisasm cuobjdump; do
  envs=()
  [[ $tool_run == cuobjdump ]] && envs=(PTXGATE_NVDISASM=/nonexistent)
  for arch in sm90 sm100; do
    m=$sm90; want="['HGMMA', 'UTMALDG']"
    [[ $arch == sm100 ]] && { m=$sm100; want="['UTCHMMA', 'UTMALDG']"; }
    name="$arch-$tool_run"
    run "$name" "$m" "${envs[@]}"
    res="$OUT/$name/results.json"
    if [[ ! -s "$res" ]]; then check "$name: results written" false; continue; fi
    used=$(q "$res" 'ins["details"]["sass"]["tool"]')
    if [[ $tool_run == cuobjdump && $used != cuobjdump ]]; then
      # Setup installs both; a toolkit may carry only nvdisasm.
      check "$name: cuobjdump found (CI=true needs both)" [ "${CI:-}" != true ]
      echo "note: no cuobjdump here; its half is not run"
      continue
    fi
    check "$name: exit 0" [ "$(cat "$OUT/$name.rc")" = 0 ]
    check "$name: disassembled with $tool_run" [ "$used" = "$tool_run" ]
    check "$name: SASS checked, not skipped" [ "$(q "$res" 'ins["details"]["sass"]["status"]')" = checked ]
    check "$name: instructions pass" [ "$(q "$res" 'ins["status"]')" = pass ]
    check "$name: targets proven by $want" [ "$(q "$res" 'sorted(t["sass"]["opcodes"][0]["opcode"].split(".")[0] for t in ins["details"]["targets"])')" = "$want" ]
  done
done
if ((failures)); then for f in "$OUT"/*.stdout; do echo "--- $f"; cat "$f"; done; fi
exit $((failures > 0))
