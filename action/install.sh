#!/usr/bin/env bash
# Step 2 of action.yml: find ptxgate. binary-path when given; else the release named by version,
# downloaded and verified against the release's SHA256SUMS; else built from the action's own
# source with CMake. Outputs: binary (absolute path), tasks (the shipped tasks folder; with
# binary-path, <prefix>/share/ptxgate/tasks when the binary is an installed one, else empty).
# Inputs (env): PG_BINARY_PATH, PG_VERSION, PG_RELEASE_REPOSITORY, PG_ACTION_REPOSITORY,
# PG_SERVER_URL, PG_WORK_DIR; GITHUB_ACTION_PATH, GITHUB_OUTPUT.
set -euo pipefail

fail() { echo "::error title=ptxgate install::$*"; exit 1; }
work="${PG_WORK_DIR:-${RUNNER_TEMP:-/tmp}/ptxgate}"
mkdir -p "$work"
tasks=""

if [[ -n "${PG_BINARY_PATH:-}" ]]; then
  [[ -f "$PG_BINARY_PATH" && -x "$PG_BINARY_PATH" ]] || fail "binary-path is not an executable file"
  bin=$(realpath "$PG_BINARY_PATH")
  # An installed prefix (the release package, cmake --install): its tasks sit next to bin/.
  shipped="$(dirname "$bin")/../share/ptxgate/tasks"
  [[ -d "$shipped" ]] && tasks=$(realpath "$shipped")
elif [[ -n "${PG_VERSION:-}" ]]; then
  version="${PG_VERSION#v}"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+.][0-9A-Za-z.]+)?$ ]] || fail "version must look like 1.2.3"
  repo="${PG_RELEASE_REPOSITORY:-${PG_ACTION_REPOSITORY:-}}"
  [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || fail "release-repository must be owner/name"
  server="${PG_SERVER_URL:-https://github.com}"
  [[ "$server" =~ ^https?://[A-Za-z0-9.:-]+(/[A-Za-z0-9._/-]*)?$ ]] || fail "bad server URL"
  arch=$(uname -m)
  name="ptxgate-${version}-linux-${arch}"
  base="${server%/}/${repo}/releases/download/v${version}"
  dl="$work/download-$version"
  rm -rf "$dl" && mkdir -p "$dl"
  echo "ptxgate: downloading $base/$name.tar.gz"
  curl -fsSL --proto '=https,http' --retry 3 --max-time 300 -o "$dl/$name.tar.gz" "$base/$name.tar.gz" ||
    fail "could not download $name.tar.gz from the v$version release"
  curl -fsSL --proto '=https,http' --retry 3 --max-time 60 -o "$dl/SHA256SUMS" "$base/SHA256SUMS" ||
    fail "could not download SHA256SUMS from the v$version release"
  want=$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$dl/SHA256SUMS")
  [[ "$want" =~ ^[0-9a-f]{64}$ ]] || fail "SHA256SUMS has no single checksum for $name.tar.gz"
  have=$(sha256sum "$dl/$name.tar.gz" | cut -d' ' -f1)
  if [[ "$have" != "$want" ]]; then
    fail "checksum mismatch for $name.tar.gz (SHA256SUMS says $want, the download is $have): not installed"
  fi
  echo "ptxgate: $name.tar.gz matches SHA256SUMS ($have)"
  tar -xzf "$dl/$name.tar.gz" --no-same-owner -C "$dl"
  bin="$dl/$name/bin/ptxgate"
  tasks="$dl/$name/share/ptxgate/tasks"
  [[ -x "$bin" ]] || fail "the package has no bin/ptxgate"
else
  src="${GITHUB_ACTION_PATH:?}"
  cuda="${CUDA_HOME:-/usr/local/cuda}"
  export PATH="$cuda/bin:$PATH"
  echo "ptxgate: building from $src"
  cmake -S "$src" -B "$work/build" -DPG_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCUDAToolkit_ROOT="$cuda" >/dev/null || fail "cmake could not configure the build (needs CMake >= 3.25, jansson, libxml2, libcurl, OpenSSL libcrypto and the CUDA toolkit at $cuda)"
  cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 || {
    tail -n 40 "$work/build.log"; fail "the build failed (log above)"; }
  bin="$work/build/ptxgate"
  tasks="$src/tasks"
fi

"$bin" --version
{
  echo "binary=$bin"
  echo "tasks=$tasks"
} >>"${GITHUB_OUTPUT:?}"
