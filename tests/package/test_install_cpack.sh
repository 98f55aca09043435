#!/usr/bin/env bash
# cmake --install puts the binary, tasks, arch tables, schemas and docs in standard places (bin/,
# share/ptxgate/, share/doc/ptxgate/), and the installed binary runs a check with the installed
# tasks; CPack (scripts/package.sh on the existing build) makes the .tar.gz and the .deb with a
# SHA256SUMS that verifies, and the .deb's control data names its dependencies.
# usage: test_install_cpack.sh BUILD_DIR OUT_DIR
set -uo pipefail
build="$1" out="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$out" && mkdir -p "$out"
fail=0
check() { if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
for t in cpack dpkg-deb sha256sum; do
  command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

cmake --install "$build" --prefix "$out/prefix" >"$out/install.log" 2>&1
check "cmake --install succeeds" [ $? = 0 ]
p="$out/prefix"
check "bin/ptxgate" [ -x "$p/bin/ptxgate" ]
check "share/ptxgate/tasks" [ -f "$p/share/ptxgate/tasks/gemm_bf16_nt/task.json" ]
check "share/ptxgate/schemas" [ -f "$p/share/ptxgate/schemas/results.schema.json" ]
check "share/ptxgate/metrics" [ -f "$p/share/ptxgate/metrics/gh100.json" ]
check "share/ptxgate/arch" [ -f "$p/share/ptxgate/arch/sm_90a.json" ] && [ -f "$p/share/ptxgate/arch/sm_100a.json" ]
check "share/ptxgate/baselines" [ -f "$p/share/ptxgate/baselines/README.md" ]
check "the baseline schema" [ -f "$p/share/ptxgate/schemas/baseline.schema.json" ]
check "share/doc/ptxgate" [ -f "$p/share/doc/ptxgate/README.md" ]
check "the installed binary runs" "$p/bin/ptxgate" --version
PTXGATE_TASKS="$p/share/ptxgate/tasks" "$p/bin/ptxgate" check --no-gpu --quiet --output "$out/check" \
  "$root/tests/fixtures/gemm_bf16_nt/syntax_error.json" >/dev/null 2>&1
rc=$?
if command -v ptxas >/dev/null || [[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]]; then
  check "the installed binary checks with the installed tasks (exit 1: a syntax error)" [ "$rc" = 1 ]
  env -u PTXGATE_ARCH_DATA PTXGATE_TASKS="$p/share/ptxgate/tasks" "$p/bin/ptxgate" check --no-gpu \
    --quiet --output "$out/check2" "$p/share/ptxgate/tasks/gemm_bf16_nt/examples/handwritten.json" \
    >/dev/null 2>&1
  check "the installed binary reads the installed arch tables" \
    grep -q "\"table\": \"$p/bin/../share/ptxgate/arch/sm_90a.json\"" "$out/check2/results.json"
fi

"$root/scripts/package.sh" --build-dir "$build" "$out/dist" >"$out/package.log" 2>&1
check "scripts/package.sh succeeds" [ $? = 0 ]
v=$(sed -n 's/^project(ptxgate VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
tgz=$(ls "$out/dist"/ptxgate-"$v"-linux-*.tar.gz 2>/dev/null)
deb=$(ls "$out/dist"/ptxgate_"$v"_*.deb 2>/dev/null)
check "a .tar.gz" [ -f "$tgz" ]
check "a .deb" [ -f "$deb" ]
check "SHA256SUMS verifies" bash -c "cd '$out/dist' && sha256sum -c SHA256SUMS >/dev/null"
name=$(basename "$tgz" .tar.gz)
check "the tarball holds bin/ptxgate under its top folder" bash -c "tar -tzf '$tgz' | grep -qx '$name/bin/ptxgate'"
check "the tarball holds the tasks" bash -c "tar -tzf '$tgz' | grep -q '^$name/share/ptxgate/tasks/gemm_bf16_nt/task.json$'"
check "the tarball holds the arch tables" bash -c "tar -tzf '$tgz' | grep -q '^$name/share/ptxgate/arch/sm_90a.json$'"
check "the .deb installs /usr/bin/ptxgate" bash -c "dpkg-deb -c '$deb' 2>/dev/null | grep -q '\./usr/bin/ptxgate$'"
check "the .deb depends on jansson, libxml2 and libcurl" bash -c "dpkg-deb -f '$deb' Depends | grep -q 'libjansson4, libxml2, libcurl4'"
check "the .deb has version $v" [ "$(dpkg-deb -f "$deb" Version)" = "$v" ]
if ((fail)); then cat "$out/install.log" "$out/package.log"; fi
exit $fail
