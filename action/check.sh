#!/usr/bin/env bash
# Step 3 of action.yml: run `ptxgate check` on the submissions and record its exit code; the
# step itself succeeds so that publishing runs (conclude.sh fails the job per fail-on).
# ptxgate's log carries untrusted text (kernel names, compiler output), so workflow commands
# are switched off around it. Outputs: exit-code, results, junit-path.
# Inputs (env): PG_BINARY, PG_DEFAULT_TASKS, PG_SUBMISSIONS, PG_TASKS, PG_WORKLOADS, PG_ARCH,
# PG_MIN_SPEEDUP, PG_CONFIDENCE, PG_REPETITIONS, PG_SETS, PG_TIMEOUT, PG_DEVICE, PG_DEVICES,
# PG_RECURSIVE, PG_SANITIZE, PG_IF_NO_GPU,
# PG_BASELINES_DIR, PG_GPU_KEY, PG_ON_MISSING_BASELINE, PG_ON_DRIFT, PG_DRIFT_TOLERANCE,
# PG_INSTRUCTIONS, PG_TIMING_MODE, PG_ACCEPTED_KERNEL, PG_OUTPUT_DIR, PG_JUNIT_PATH;
# GITHUB_OUTPUT.
# A pull request controls the checkout, symbolic links included: this script writes nothing
# there itself. ptxgate writes the reports and the JUnit copy (--junit-copy), refusing links,
# and never follows a linked output folder (the action never gives --follow-output-link).
set -uo pipefail

out="${GITHUB_OUTPUT:?}"
fail() { echo "::error title=ptxgate::$*"; echo "exit-code=2" >>"$out"; exit 1; }
[[ -n "${PG_BINARY:-}" ]] || fail "no ptxgate binary (the install step failed)"
case "${PG_RECURSIVE:-false}" in
  true | false) ;;
  *) fail "recursive must be true or false" ;;
esac
outdir="${PG_OUTPUT_DIR:-ptxgate-reports}"

args=(check --output "$outdir")
tasks="${PG_TASKS:-${PG_DEFAULT_TASKS:-}}"
[[ -n "$tasks" ]] && args+=(--tasks "$tasks")
add() { [[ -n "$2" ]] && args+=("$1" "$2"); return 0; }
add --workloads "${PG_WORKLOADS:-}"
add --arch "${PG_ARCH:-}"
add --min-speedup "${PG_MIN_SPEEDUP:-}"
add --confidence "${PG_CONFIDENCE:-}"
add --repetitions "${PG_REPETITIONS:-}"
add --sets "${PG_SETS:-}"
add --timeout "${PG_TIMEOUT:-}"
add --device "${PG_DEVICE:-}"
add --devices "${PG_DEVICES:-}"
add --if-no-gpu "${PG_IF_NO_GPU:-}"
add --baselines "${PG_BASELINES_DIR:-}"
add --gpu-key "${PG_GPU_KEY:-}"
add --on-missing-baseline "${PG_ON_MISSING_BASELINE:-}"
add --on-drift "${PG_ON_DRIFT:-}"
add --drift-tolerance "${PG_DRIFT_TOLERANCE:-}"
add --instructions "${PG_INSTRUCTIONS:-}"
add --mode "${PG_TIMING_MODE:-}"
add --accepted-kernel "${PG_ACCEPTED_KERNEL:-}"
add --sanitize "${PG_SANITIZE:-}"
[[ "${PG_RECURSIVE:-false}" == true ]] && args+=(--recursive)
[[ -n "${PG_JUNIT_PATH:-}" ]] && args+=(--junit-copy "$PG_JUNIT_PATH")

# Submissions: split on blanks and newlines only, never globbed or evaluated; "--" ends the
# options, so a name starting with "-" is a path, not a flag.
set -f
read -r -d '' -a subs <<<"${PG_SUBMISSIONS:-}" || true
set +f
((${#subs[@]})) || fail "the submissions input is empty"

# A report file counts as this run's only when ptxgate wrote it now: a regular file, not a
# link, and not the very file that was there before (one committed in the pull request, or
# left by an earlier run when this one exits without writing reports).
ident() { [[ -f "$1" && ! -L "$1" ]] && stat -c '%d:%i' -- "$1"; }
results_before=$(ident "$outdir/results.json")
written_now() { local now; now=$(ident "$1") && [[ "$now" != "$2" ]]; }

stop=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "::stop-commands::$stop"
"$PG_BINARY" "${args[@]}" -- "${subs[@]}"
rc=$?
echo "::$stop::"
echo "ptxgate check exited $rc"

echo "exit-code=$rc" >>"$out"
if written_now "$outdir/results.json" "$results_before"; then
  echo "results=$outdir/results.json" >>"$out"
  junit="$outdir/junit.xml"
  if [[ -n "${PG_JUNIT_PATH:-}" ]] && ident "$PG_JUNIT_PATH" >/dev/null; then
    junit="$PG_JUNIT_PATH"
  fi
  echo "junit-path=$junit" >>"$out"
fi
exit 0
