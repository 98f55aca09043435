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
  # The reason without starting another interpreter (a skip must stay cheap on a loaded
  # machine): the "reason" string of the "unavailable" event, JSON escapes left as they are.
  reason=$(sed -n 's/^{"ev":"unavailable","reason":"\(.*\)"}$/\1/p' <<<"$events" | head -n 1)
  [[ -n "$reason" ]] || reason="the GPU probe reported no device"
  echo "SKIP: no usable GPU: $reason"
  exit 77
}
