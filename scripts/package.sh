#!/usr/bin/env bash
# Build release packages with CPack: ptxgate-<version>-linux-<arch>.tar.gz and
# ptxgate_<version>_<arch>.deb, plus SHA256SUMS over both, into OUT_DIR.
# usage: scripts/package.sh [--tag vX.Y.Z] [--build-dir DIR] OUT_DIR
#   --tag        refuse unless the tag is v<project version> (the release workflow passes it)
#   --build-dir  package this existing build instead of a fresh Release build in build-release/
set -euo pipefail
cd "$(dirname "$0")/.."
tag="" build="" out=""
while (($#)); do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    -*) echo "package.sh: unknown option $1" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[[ -n "$out" ]] || { echo "usage: scripts/package.sh [--tag vX.Y.Z] [--build-dir DIR] OUT_DIR" >&2; exit 2; }
version=$(sed -n 's/^project(ptxgate VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
if [[ -n "$tag" && "$tag" != "v$version" ]]; then
  echo "package.sh: the tag $tag is not v$version (CMakeLists.txt's project version)" >&2
  exit 2
fi
cuda="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
if [[ -z "$build" ]]; then
  build="build-release"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPG_BUILD_TESTS=OFF -DCUDAToolkit_ROOT="$cuda" >/dev/null
  cmake --build "$build" -j "$(nproc)"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
(cd "$build" && cpack -G "TGZ;DEB" -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
cd "$out"
sha256sum ptxgate-"$version"-linux-*.tar.gz ptxgate_"$version"_*.deb >SHA256SUMS
cat SHA256SUMS
