#!/usr/bin/env bash
# A suite: `check --recursive` over submissions/<model-version>/<task>/*.json runs every manifest
# below the folder in one run with one combined report (hidden folders are not searched);
# without --recursive the folder of folders is refused with a hint.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
"$BIN" check --no-gpu --quiet --output "$OUT/flat" "$CASE/submissions" >"$OUT.flat.stdout" 2>&1
check "a folder of folders without --recursive exits 2" [ $? -eq 2 ]
check "with a hint" grep -q "has subfolders: --recursive" "$OUT.flat.stdout"
"$BIN" check --no-gpu --quiet --instructions off --recursive --output "$OUT/suite" "$CASE/submissions" >"$OUT.stdout" 2>&1
rc=$?
check "the suite passes offline (exit 0)" [ $rc -eq 0 ]
check "one combined report with the three manifests, in path order" python3 - "$OUT/suite/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = [s["manifest"].split("submissions/")[1] for s in r["submissions"]]
want = ["model-v1/gemm_bf16_nt/noop.json", "model-v2/gemm_bf16_nt/noop.json",
        "model-v2/gemm_bf16_nt/noop_tuned.json"]
print(got)
sys.exit(0 if got == want else 1)
PY
check "junit.xml and summary.md written" [ -s "$OUT/suite/junit.xml" ] && [ -s "$OUT/suite/summary.md" ]
exit $fail
