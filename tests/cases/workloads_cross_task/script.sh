#!/usr/bin/env bash
# One --workloads list for a run across tasks (docs/formats.md "Workload selection"): a name
# applies to every task that has it, TASK:NAME to one task, @ptxbench to the workloads the
# tasks' data tags; an item no task of the run has, a submission left without a workload and
# malformed items are exit 2 before any work, with no reports.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
run() { # OUT-NAME WORKLOADS
  local o="$OUT/$1"; shift
  "$BIN" check --no-gpu --quiet --instructions off --accepted-kernel none --output "$o" \
    --workloads "$1" "$CASE/gemm.json" "$CASE/mha.json" >"$o.stdout" 2>"$o.stderr"
}
workloads() { # OUT-NAME: "task:workload ..." in results order
  python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print(" ".join(s["task"] + ":" + w["name"] for s in r["submissions"] for w in s["workloads"]))' \
    "$OUT/$1/results.json"
}
mkdir -p "$OUT"

# A name both tasks have, and a GEMM-only alias: each applied where it exists.
run shared "m257_n513_k1000,b2_h16_s1000_d128,gemm_n7168_k5120"
check "cross-task names: exit 0" [ $? -eq 0 ]
check "cross-task names: each task gets its own" \
  [ "$(workloads shared)" == "gemm_bf16_nt:m257_n513_k1000 gemm_bf16_nt:m8192_n7168_k5120 mha_fwd_d128:b2_h16_s1000_d128" ]

# b4_h32_s2048_d64 is an attention name; TASK:NAME picks one task's workload.
run precise "gemm_bf16_nt:m2048_n2048_k2048,mha_fwd_d128:b4_h32_s2048_d64"
check "task:workload: exit 0" [ $? -eq 0 ]
check "task:workload: one task each" \
  [ "$(workloads precise)" == "gemm_bf16_nt:m2048_n2048_k2048 mha_fwd_d128:b4_h32_s2048_d64" ]

# @ptxbench: the headline workload of each task, from task.json "selections".
run bench "@ptxbench"
check "@ptxbench: exit 0" [ $? -eq 0 ]
check "@ptxbench: the headline workloads" \
  [ "$(workloads bench)" == "gemm_bf16_nt:m8192_n7168_k5120 mha_fwd_d128:b4_h48_s4096_d128" ]

# Errors: exit 2, the item named, no reports.
bad() { # OUT-NAME WORKLOADS EXPECTED-TEXT
  run "$1" "$2"
  local rc=$?
  check "$2: exit 2" [ $rc -eq 2 ]
  check "$2: says '$3'" grep -qF -- "$3" "$OUT/$1.stderr"
  check "$2: no reports" [ ! -e "$OUT/$1/results.json" ]
}
bad unknown "m257_n513_k1000,m1_n1_k1" \
  "no task of this run (gemm_bf16_nt, mha_fwd_d128) has a workload 'm1_n1_k1'"
bad wrongtask "mha_fwd_d128:m257_n513_k1000,m257_n513_k1000" \
  "task 'mha_fwd_d128' has no workload 'm257_n513_k1000' (known: b4_h48_s4096_d128"
bad notinrun "gemm_fp16_nt:m257_n513_k1000,m257_n513_k1000" \
  "no submission of this run is for task 'gemm_fp16_nt'"
bad nosel "@nosuch" "is in selection '@nosuch' (their selections: @ptxbench)"
bad leftout "m4096_n4096_k4096" \
  "'m4096_n4096_k4096' selects no workload of task 'mha_fwd_d128'"
bad malformed "gemm_bf16_nt:" "expected TASK:WORKLOAD with both parts given"
exit $fail
