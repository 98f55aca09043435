# Shared by the submission-root cases (tests/cases/root_*, include_*): a victim file outside the
# repository holding a secret, a submission made of the bundled naive GEMM kernel with lines put
# before it, and the checks that the secret never reaches a report and the victim is unchanged.
# Sourced by a case's script.sh (BIN, ROOT, OUT, CASE set by run_case.sh).
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
SECRET="PG_RUNNER_SECRET_7f3a9c it's private"
VICTIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pg-victim.XXXXXX")
trap 'rm -rf "$VICTIM_DIR"' EXIT
VICTIM="$VICTIM_DIR/victim.txt"
printf '%s\n' "$SECRET" >"$VICTIM"
VICTIM_SHA=$(sha256sum "$VICTIM" | cut -d' ' -f1)
mkdir -p "$OUT"

# make_submission DIR [LINE...]: DIR/k.json naming k.cu, and DIR/k.cu = the lines, then naive.cu.
make_submission() {
  local dir="$1"; shift
  mkdir -p "$dir"
  sed 's#"naive.cu"#"k.cu"#' "$ROOT/tasks/gemm_bf16_nt/examples/naive.json" >"$dir/k.json"
  { for l in "$@"; do printf '%s\n' "$l"; done; cat "$ROOT/tasks/gemm_bf16_nt/examples/naive.cu"; } >"$dir/k.cu"
}

# run_check REPORTS [ARGS...]: an offline check of one workload into REPORTS; $rc, REPORTS.stdout/.stderr.
run_check() {
  local reports="$1"; shift
  "$BIN" check --no-gpu --accepted-kernel none --instructions off --workloads m4096_n4096_k4096 \
    --output "$reports" "$@" >"$reports.stdout" 2>"$reports.stderr"
  rc=$?
}

# no_secret REPORTS: the secret is in none of the reports nor the output streams.
no_secret() {
  local reports="$1" f
  for f in "$reports/results.json" "$reports/junit.xml" "$reports/summary.md" "$reports.stdout" "$reports.stderr"; do
    [[ -e "$f" ]] || continue
    if grep -q "PG_RUNNER_SECRET" "$f"; then echo "secret found in $f"; return 1; fi
  done
  return 0
}

victim_unchanged() { [[ "$(sha256sum "$VICTIM" | cut -d' ' -f1)" == "$VICTIM_SHA" ]]; }

# assemble_message REPORTS: the assemble stage's message of the first submission.
assemble_message() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["submissions"][0]["stages"][0]["message"])' "$1/results.json"
}

finish() {
  if ((fail)); then
    for f in "$OUT"/*.stdout "$OUT"/*.stderr; do [[ -e "$f" ]] && { echo "--- $f"; cat "$f"; }; done
  fi
  exit $fail
}
