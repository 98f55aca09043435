#!/usr/bin/env bash
# Install NVIDIA's disassemblers — nvdisasm and cuobjdump, from the nvidia-cuda-nvdisasm and
# nvidia-cuda-cuobjdump wheels, pinned — into the tools venv (default ~/.cache/ptxgate/tools-venv;
# PTXGATE_TOOLS_VENV overrides) and link them as <venv>/bin/nvdisasm and <venv>/bin/cuobjdump,
# the folder ptxgate searches after the toolkit (gate/tool/toolchain.h). Only for a toolkit
# without them (the CUDA container images and the runfile's minimal install leave them out); the
# SASS half of the instructions stage needs one. Idempotent: a no-op once installed.
# The wheels carry CUDA 13.2 builds (the oldest 13.x on the index); a newer disassembler reads the
# cubins of an older ptxas of the same major version (checked for sm_90a and sm_100a by
# tests/cases/sass_disassembler).
# Exit status: 0 installed or not needed, 1 not installable (the caller decides whether that is
# fatal).
set -uo pipefail
venv="${PTXGATE_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxgate/tools-venv}"
pins=(nvidia-cuda-nvdisasm==13.2.86 nvidia-cuda-cuobjdump==13.2.86)
stamp="$venv/.ptxgate-sass-pins"
if [[ -x "$venv/bin/nvdisasm" && -x "$venv/bin/cuobjdump" && -f "$stamp" &&
      "$(cat "$stamp")" == "${pins[*]}" ]]; then
  exit 0
fi
echo "sass-tools: installing ${pins[*]} into $venv" >&2
python=$(command -v python3) || { echo "sass-tools: python3 not found" >&2; exit 1; }
if [[ ! -x "$venv/bin/python3" ]]; then
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv" >&2 || { echo "sass-tools: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
  "${pins[@]}" >&2 || { echo "sass-tools: pip install ${pins[*]} failed" >&2; exit 1; }
# The wheels put the programs under site-packages/nvidia/cu13/bin; pip's own record says where.
for tool in nvdisasm cuobjdump; do
  dist="nvidia-cuda-$tool"
  loc=$("$venv/bin/python3" -m pip show -f "$dist" 2>/dev/null | awk '/^Location: /{print $2}')
  rel=$("$venv/bin/python3" -m pip show -f "$dist" 2>/dev/null | awk -v t="bin/$tool" '$1 ~ t"$" {print $1}')
  if [[ -z "$loc" || -z "$rel" || ! -f "$loc/$rel" ]]; then
    echo "sass-tools: $dist installed but $tool not found in it" >&2
    exit 1
  fi
  chmod +x "$loc/$rel"
  ln -sf "$loc/$rel" "$venv/bin/$tool"
  "$venv/bin/$tool" --version >/dev/null 2>&1 || { echo "sass-tools: $venv/bin/$tool does not run" >&2; exit 1; }
done
echo "${pins[*]}" >"$stamp"
