#!/usr/bin/env bash
# action/install.sh with version: downloads ptxgate-<v>-linux-<arch>.tar.gz and SHA256SUMS from
# the release URL (a local file server stands in for github.com), installs it when the checksum
# matches, refuses a tampered package or a SHA256SUMS without its entry, and checks its inputs.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
v=9.8.7
name="ptxgate-$v-linux-$(uname -m)"
rel="$OUT/site/acme/ptxgate/releases/download/v$v"
mkdir -p "$rel" "$OUT/pkg/$name/bin" "$OUT/pkg/$name/share/ptxgate"
cp "$BIN" "$OUT/pkg/$name/bin/ptxgate"
cp -r "$ROOT/tasks" "$OUT/pkg/$name/share/ptxgate/tasks"
tar -czf "$rel/$name.tar.gz" -C "$OUT/pkg" "$name"
(cd "$rel" && sha256sum "$name.tar.gz" >SHA256SUMS && echo "0000  other.deb" >>SHA256SUMS)
fake_files "$OUT/site"

install() { # install NAME [VAR=value...]: run install.sh with a fresh output file
  mkdir -p "$OUT/$1"
  : >"$OUT/$1/output"
  env GITHUB_OUTPUT="$OUT/$1/output" GITHUB_ACTION_PATH="$ROOT" PG_WORK_DIR="$OUT/$1/scratch" \
    PG_SERVER_URL="$FILES_URL" PG_ACTION_REPOSITORY=acme/ptxgate PG_VERSION="v$v" "${@:2}" \
    bash "$ROOT/action/install.sh" >"$OUT/$1/log" 2>&1
}
install good
check "a matching package installs" grep -q "^binary=$OUT/good/scratch/download-$v/$name/bin/ptxgate$" "$OUT/good/output"
check "its tasks folder is an output" grep -q "^tasks=$OUT/good/scratch/download-$v/$name/share/ptxgate/tasks$" "$OUT/good/output"
check "the installed binary runs" grep -q "^ptxgate " "$OUT/good/log"
check "the log names the verified checksum" grep -q "matches SHA256SUMS" "$OUT/good/log"

printf 'tampered' >>"$rel/$name.tar.gz"
install bad
check "a tampered package is refused" grep -q "checksum mismatch" "$OUT/bad/log"
check "the refused package gives no binary output" bash -c "! grep -q '^binary=' '$OUT/bad/output'"

(cd "$rel" && echo "0000  other.deb" >SHA256SUMS)
install nosum
check "a SHA256SUMS without the package's entry is refused" grep -q "no single checksum" "$OUT/nosum/log"
install badver PG_VERSION='1.0; rm -rf /'
check "a malformed version is refused" grep -q "version must look like 1.2.3" "$OUT/badver/log"
install badrepo PG_RELEASE_REPOSITORY='../../etc'
check "a malformed release repository is refused" grep -q "release-repository must be owner/name" "$OUT/badrepo/log"
install missing PG_VERSION=1.2.3
check "a missing release fails with its name" grep -q "could not download ptxgate-1.2.3" "$OUT/missing/log"
install path PG_BINARY_PATH="$BIN"
check "binary-path wins over version" grep -qF "binary=$(realpath "$BIN")" "$OUT/path/output"
install nopath PG_BINARY_PATH=/nonexistent/ptxgate
check "a binary-path that is not executable fails" grep -q "binary-path is not an executable file" "$OUT/nopath/log"
exit $((failures > 0))
