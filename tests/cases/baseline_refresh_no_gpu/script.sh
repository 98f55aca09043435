#!/usr/bin/env bash
# `baseline refresh` without a usable GPU (none visible: CUDA_VISIBLE_DEVICES is empty, so this
# holds on GPU machines too) is an infrastructure error: exit 3 with the reason, nothing written.
set -uo pipefail
CUDA_VISIBLE_DEVICES= "$BIN" baseline refresh --baselines "$OUT/b" gemm_bf16_nt >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
cat "$OUT.stdout" "$OUT.stderr"
[[ $rc == 3 ]] || { echo "FAIL: exit $rc, expected 3"; exit 1; }
grep -q "^ptxgate: baseline refresh needs a GPU: " "$OUT.stderr" || { echo "FAIL: no reason given"; exit 1; }
[[ ! -e "$OUT/b" || -z "$(find "$OUT/b" -type f)" ]] || { echo "FAIL: files were written"; exit 1; }
# An input error comes first, GPU or not: an unknown task is exit 2 naming it.
CUDA_VISIBLE_DEVICES= "$BIN" baseline refresh --baselines "$OUT/b" no_such_task >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
[[ $rc == 2 ]] || { echo "FAIL: unknown task: exit $rc, expected 2"; cat "$OUT.stderr"; exit 1; }
grep -q "unknown task 'no_such_task'" "$OUT.stderr" || { echo "FAIL: the unknown task is not named"; cat "$OUT.stderr"; exit 1; }
# A task without an accepted kernel cannot be refreshed: exit 2 naming gate.accepted_kernel.
mkdir -p "$OUT/tasks"
cp -r tasks/gemm_bf16_nt "$OUT/tasks/"
python3 - "$OUT/tasks/gemm_bf16_nt/task.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
del t["gate"]["accepted_kernel"]
json.dump(t, open(sys.argv[1], "w"), indent=2)
PY
CUDA_VISIBLE_DEVICES= "$BIN" baseline refresh --tasks "$OUT/tasks" --baselines "$OUT/b" >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
[[ $rc == 2 ]] || { echo "FAIL: no accepted kernel: exit $rc, expected 2"; cat "$OUT.stderr"; exit 1; }
grep -q "task.json: field 'gate.accepted_kernel': task 'gemm_bf16_nt' names no accepted kernel" "$OUT.stderr" ||
  { echo "FAIL: the missing accepted kernel is not named"; cat "$OUT.stderr"; exit 1; }
echo ok
