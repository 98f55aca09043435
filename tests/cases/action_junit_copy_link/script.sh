#!/usr/bin/env bash
# action.yml in a checkout whose pull request committed symbolic links: at the junit-path the
# workflow names, and as the output-dir folder. The action's own steps write nothing into the
# checkout (ptxgate writes the reports and the JUnit copy, refusing links): the check is exit 2
# naming the link, the job fails, the file or folder the link points to (outside the run) is
# byte for byte as it was, and no results or JUnit path is handed on. A results.json committed
# in the output folder is never taken for this run's when the run writes no reports. A fresh
# junit-path (its folder created) gets junit.xml's bytes.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
push_event_setup
ws="$OUT/checkout"
mkdir -p "$ws/kernels" "$ws/junit" "$OUT/elsewhere"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$ws/kernels/"
printf 'secret\n' >"$OUT/victim"
cp "$OUT/victim" "$OUT/victim.orig"
printf 'kept\n' >"$OUT/elsewhere/keep.txt"
ln -s "$OUT/victim" "$ws/junit/ptxgate.xml"
export GITHUB_WORKSPACE="$ws"
cd "$ws" || exit 1
run() { # run NAME [input=value...]
  run_action "$1" --input comment-mode=off --input instructions=off --input tasks="$ROOT/tasks" \
    --input submissions=kernels/handwritten.json --input output-dir=ptxgate-reports "${@:2}"
}
out_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs"].get(sys.argv[2], ""))' "$OUT/$1/result.json" "$2"; }
conclusion() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["conclusion"])' "$OUT/$1/result.json"; }
victim_ok() { cmp -s "$OUT/victim" "$OUT/victim.orig"; }

run link_at_junit --input junit-path=junit/ptxgate.xml
check "a link at junit-path: exit-code 2" [ "$(out_of link_at_junit exit-code)" = 2 ]
check "the job fails" [ "$(conclusion link_at_junit)" = failure ]
check "the log names the link" grep -qF "junit/ptxgate.xml: is a symbolic link, not a regular file; ptxgate never writes through or replaces it" "$OUT/link_at_junit/log.txt"
check "the file it points to is unchanged" victim_ok
check "the link is still the link" [ "$(readlink junit/ptxgate.xml)" = "$OUT/victim" ]
check "no junit-path or results-path is handed on" \
  bash -c '[ -z "$1" ] && [ -z "$2" ]' _ "$(out_of link_at_junit junit-path)" "$(out_of link_at_junit results-path)"

rm -rf ptxgate-reports
ln -s "$OUT/elsewhere" ptxgate-reports
printf '{"forged": true}\n' >"$OUT/elsewhere/results.json"
(cd "$OUT/elsewhere" && find . | sort && cat keep.txt results.json) >"$OUT/elsewhere.before"
run linked_output --input junit-path=junit/fresh.xml
check "a linked output-dir: exit-code 2" [ "$(out_of linked_output exit-code)" = 2 ]
check "the job fails" [ "$(conclusion linked_output)" = failure ]
check "the log names the link" grep -qF "ptxgate-reports: field '--output': is a symbolic link; ptxgate does not write through links" "$OUT/linked_output/log.txt"
check "the folder it points to is unchanged" \
  bash -c '(cd "$1" && find . | sort && cat keep.txt results.json) | cmp -s - "$2"' _ "$OUT/elsewhere" "$OUT/elsewhere.before"
check "the results.json there is not published as this run's" [ -z "$(out_of linked_output results-path)" ]
check "no JUnit copy was written" [ ! -e junit/fresh.xml ]

rm ptxgate-reports
mkdir ptxgate-reports
printf '{"forged": true}\n' >ptxgate-reports/results.json
mkdir ptxgate-reports/junit.xml # the reports cannot be written: exit 2, the committed file stays
run committed_results
check "reports that cannot be written: exit-code 2" [ "$(out_of committed_results exit-code)" = 2 ]
check "the committed results.json is not published as this run's" \
  bash -c '[ -z "$1" ] && grep -qF "no results.json to publish" "$2"' _ "$(out_of committed_results results-path)" "$OUT/committed_results/log.txt"

rm -rf ptxgate-reports
run fresh --input junit-path=junit/new/ptxgate.xml
check "a fresh junit-path: exit-code 0" [ "$(out_of fresh exit-code)" = 0 ]
check "the copy is junit.xml byte for byte" cmp -s junit/new/ptxgate.xml ptxgate-reports/junit.xml
check "junit-path output names the copy" [ "$(out_of fresh junit-path)" = junit/new/ptxgate.xml ]
check "results-path output names this run's results" [ "$(out_of fresh results-path)" = ptxgate-reports/results.json ]
check "the victim is unchanged after all runs" victim_ok
exit $((failures > 0))
