#!/usr/bin/env bash
# tests/gpu/gpu_probe.sh, the GPU tests' first step: the real probe without a GPU skips (77)
# with the driver's reason; a probe reporting a device lets the test go on; one reporting
# nothing usable skips with a reason (fake ptxgate binaries stand in for the GPU cases).
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT"
probe() { # BIN -> "rc|output"
  local out rc
  out=$(bash -c 'source "$1/tests/gpu/gpu_probe.sh"; pg_require_gpu "$2"; echo "went on"' _ "$ROOT" "$1" 2>&1)
  rc=$?
  echo "$rc|$out"
}
cat >"$OUT/fake_device" <<'SH'
#!/bin/sh
echo '{"ev":"device","info":{"name":"NVIDIA H200"}}'
echo '{"ev":"done"}'
SH
cat >"$OUT/fake_unavailable" <<'SH'
#!/bin/sh
echo '{"ev":"unavailable","reason":"CUDA_ERROR_NO_DEVICE: no CUDA-capable device"}'
echo '{"ev":"done"}'
SH
cat >"$OUT/fake_silent" <<'SH'
#!/bin/sh
exit 3
SH
chmod +x "$OUT"/fake_*
r=$(probe "$OUT/fake_device")
check "a device: the test goes on" [ "$r" == "0|went on" ]
r=$(probe "$OUT/fake_unavailable")
check "unavailable: skip 77 with the reason" [ "$r" == "77|SKIP: no usable GPU: CUDA_ERROR_NO_DEVICE: no CUDA-capable device" ]
r=$(probe "$OUT/fake_silent")
check "no answer: skip 77, saying so" [ "$r" == "77|SKIP: no usable GPU: the GPU probe reported no device" ]
# The real binary on this machine: a device, or a skip with the driver's reason.
r=$(probe "$BIN")
check "the real probe answers" bash -c '[[ "$1" == "0|went on" || "$1" == "77|SKIP: no usable GPU: "?* ]]' _ "$r"
echo "real probe: $r"
exit $fail
