#!/usr/bin/env bash
# The release tarball as a user installs it: CPack's .tar.gz of this build, unpacked into a
# temporary prefix, and every command path that needs no GPU run from the installed binary with
# the source tree out of reach (tests/package/installed_commands.sh does the runs).
# Out of reach: where the kernel allows it, a private mount namespace (unshare -rm) hides the
# source tree and the build folder under empty folders, so a binary that still reads them fails
# here; without that (e.g. in a container), the runs go from another folder with every PTXGATE_*
# variable unset, and the binary and every file the runs write are searched for the source path.
# usage: test_installed_commands.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
root="$(cd "$(dirname "$0")/../.." && pwd)"
command -v cpack >/dev/null || { echo "SKIP: cpack not found"; exit 77; }
cuda="${CUDA_HOME:-/usr/local/cuda}"
if ! command -v ptxas >/dev/null && [[ ! -x "$cuda/bin/ptxas" ]]; then
  echo "SKIP: no ptxas (the installed check assembles the examples)"; exit 77
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ptxgate-installed.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
case "$scratch" in "$root"/* | "$build"/*)
  echo "FAIL: the scratch folder $scratch is inside the source or build folder"; exit 1 ;;
esac

# The package of the binaries already built (cpack installs them; no rebuild).
t0=$(date +%s)
if ! (cd "$build" && cpack -G TGZ -B "$scratch/dist" >"$scratch/cpack.log" 2>&1); then
  cat "$scratch/cpack.log"; echo "FAIL: cpack -G TGZ"; exit 1
fi
tgz=$(ls "$scratch"/dist/ptxgate-*-linux-*.tar.gz)
tar -xzf "$tgz" --no-same-owner -C "$scratch"
prefix="$scratch/$(basename "$tgz" .tar.gz)"
echo "packaged and unpacked in $(($(date +%s) - t0)) s: $prefix"

# What the runs need from the source tree is copied out first: the fake GitHub API, the
# action's install step, the runner script itself.
mkdir -p "$scratch/aux/tests/fakes" "$scratch/aux/tests/action" "$scratch/aux/action" \
  "$scratch/empty" "$scratch/work"
cp "$root/tests/fakes/github_api.py" "$scratch/aux/tests/fakes/"
cp "$root/tests/action/lib.sh" "$scratch/aux/tests/action/"
cp "$root/action/install.sh" "$scratch/aux/action/"
cp "$root/tests/package/installed_commands.sh" "$scratch/aux/"

export PG_SRC="$root" PG_BUILD="$build" PG_PREFIX="$prefix" PG_SCRATCH="$scratch"
export PATH="$cuda/bin:$PATH"
if unshare -rm true 2>/dev/null; then
  PG_HIDDEN=1 unshare -rm bash -c \
    'mount --bind "$PG_SCRATCH/empty" "$PG_BUILD" && mount --bind "$PG_SCRATCH/empty" "$PG_SRC" &&
     exec bash "$PG_SCRATCH/aux/installed_commands.sh"'
else
  echo "note: no private mount namespace here (unshare -rm refused): the source tree stays on"
  echo "      disk; the runs go from $scratch/work with PTXGATE_* unset and are searched for it"
  PG_HIDDEN=0 bash "$scratch/aux/installed_commands.sh"
fi
