# Sourced by the GPU tests (tests/gpu/test_*.sh): pg_require_gpu PTXGATE exits 77 (skipped) with
# the reason, within a second or two, when there is no usable GPU. It asks `ptxgate worker
# --probe` (the same probe an isolated check starts: load the driver, open the device, report
# its fingerprint) and writes its one-line JSON events to stdout, so a test never spends
# minutes on offline stages before finding out that its GPU stages cannot run.
pg_require_gpu() {
  local bin=$1 events reason
  events=$(timeout 30 "$bin" worker --probe --device "${2:-0}" --status /dev/stdout 2>&1)
  if grep -q '"ev": *"device"' <<<"$events"; then
    return 0
  fi
  reason=$(python3 -c 'import json,sys
for line in sys.stdin:
    try: e = json.loads(line)
    except ValueError: continue
    if e.get("ev") == "unavailable": print(e.get("reason")); break
else: print("the GPU probe reported no device")' <<<"$events")
  echo "SKIP: no usable GPU: $reason"
  exit 77
}
