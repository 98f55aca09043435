#!/usr/bin/env bash
# max_active_clusters offline: a grid sized by max_active_clusters(2, 214064) takes the rule of
# data/arch/sm_90a.json's reference_device (cluster_sms 132 / 2 = 66 clusters) and records it
# in results.json, marked assumed; a wrong argument count, a negative byte count, a cluster size
# of 0, the function outside a grid and a call that gives 0 clusters are exit 2 naming the
# file and field, with no reports written.
set -uo pipefail
failures=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi; }
mkdir -p "$OUT"
"$BIN" check --no-gpu --instructions warn --quiet --output "$OUT/run" "$CASE/m.json" >"$OUT/run.stdout" 2>&1
rc=$?
check "offline check passes (exit 0, got $rc)" [ $rc = 0 ]
check "the value used is recorded, assumed" python3 - "$OUT/run/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["submissions"][0]["device_symbols"]
assert s["assumed"] is True and s["num_sms"] == 132, s
assert s["max_active_clusters"] == [{"launch": "launches[0]", "cluster_size": 2,
                                     "dynamic_shared_bytes": 214064, "value": 66}], s
assert s["max_active_clusters_rule"] == \
    "assumed: cluster_sms 132 / cluster size (one block per SM)", s
for w in r["submissions"][0]["workloads"]:
    assert "max_active_clusters" not in w, w  # only a GPU run records the kernel's own value
PY
bad() { # file field expected-text
    "$BIN" check --no-gpu --output "$OUT/bad_$1" "$CASE/$1" >"$OUT/$1.stdout" 2>&1
    local rc=$?
    check "$1: exit 2 (got $rc)" [ $rc = 2 ]
    check "$1: names the file and field" grep -qF "$1: field '$2'" "$OUT/$1.stdout"
    check "$1: says '$3'" grep -qF "$3" "$OUT/$1.stdout"
    check "$1: no reports" [ ! -e "$OUT/bad_$1/results.json" ]
}
bad args.json "launches[0].grid[0]" "max_active_clusters takes 2 arguments (cluster size, dynamic shared bytes), found 1"
bad negative.json "launches[0].grid[0]" "the dynamic shared bytes must not be negative, found -1024"
bad cluster0.json "launches[0].grid[0]" "the cluster size must be at least 1, found 0"
bad outside.json "launches[0].dynamic_shared_bytes" "is only available in launch grid expressions"
bad toobig.json "launches[0].grid[0]" "= 0 does not fit a grid dimension"
[ $failures = 0 ] || cat "$OUT"/*.stdout
exit $((failures > 0))
