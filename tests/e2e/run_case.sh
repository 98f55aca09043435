#!/usr/bin/env bash
# Runs one end-to-end case folder (see tests/cases/README.md) against the ptxgate binary.
# usage: run_case.sh PTXGATE CASE_DIR OUT_DIR REPO_ROOT
set -uo pipefail
bin="$1" case_dir="$2" out="$3" root="$4"
rm -rf "$out"
mkdir -p "$(dirname "$out")"
export BIN="$bin" ROOT="$root" OUT="$out" CASE="$case_dir"
cd "$root"

if [[ -f "$case_dir/requires" ]]; then
  for tool in $(cat "$case_dir/requires"); do
    if ! command -v "$tool" >/dev/null && [[ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/$tool" ]]; then
      echo "SKIP: $tool not found"; exit 77
    fi
  done
fi

if [[ -x "$case_dir/script.sh" ]]; then
  exec "$case_dir/script.sh"
fi

subst() { sed -e "s#@ROOT@#$root#g" -e "s#@OUT@#$out#g" -e "s#@CASE@#$case_dir#g"; }
read -r -a args < <(subst <"$case_dir/cmd")
"$bin" "${args[@]}" >"$out.stdout" 2>"$out.stderr"
rc=$?
fail=0
want=$(cat "$case_dir/exit")
if [[ "$rc" != "$want" ]]; then
  echo "FAIL: exit code $rc, expected $want"; fail=1
fi
for stream in stdout stderr; do
  [[ -f "$case_dir/$stream" ]] || continue
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    line=$(subst <<<"$line")
    if ! grep -qF -- "$line" "$out.$stream"; then
      echo "FAIL: $stream lacks: $line"; fail=1
    fi
  done <"$case_dir/$stream"
done
if [[ -f "$case_dir/no_output_files" ]] && [[ -e "$out" ]] && [[ -n "$(ls -A "$out")" ]]; then
  echo "FAIL: files were left in $out:"; ls -A "$out"; fail=1
fi
if ((fail)); then
  echo "--- stdout"; cat "$out.stdout"; echo "--- stderr"; cat "$out.stderr"
fi
exit $fail
