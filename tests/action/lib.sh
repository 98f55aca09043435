# Shared by the action_* and publish_* test cases: start the fake GitHub API (or a static file
# server) on 127.0.0.1 and stop it on exit; find a Python with PyYAML for run_action.py.
# usage: source "$ROOT/tests/action/lib.sh"; fake_github STATE.json [PREFIX]  -> FAKE_URL, FAKE_LOG

# Only the local fakes are ever talked to: no proxy from the caller's environment.
unset http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
_pg_fake_pids=()
_pg_fake_cleanup() {
  local p
  for p in "${_pg_fake_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  return 0
}
trap _pg_fake_cleanup EXIT

# _pg_wait_port FILE: echo the port written to FILE (waits up to 10 s).
_pg_wait_port() {
  local i
  for i in $(seq 1 200); do
    if [[ -s "$1" ]]; then cat "$1"; return 0; fi
    sleep 0.05
  done
  echo "the fake server did not start" >&2
  return 1
}

# fake_github STATE_FILE [PREFIX] [DUMP_FILE]: the fake GitHub API.
fake_github() {
  local dir
  dir=$(mktemp -d "${OUT:-/tmp}/fake.XXXXXX")
  FAKE_LOG="$dir/requests.jsonl"
  python3 "$ROOT/tests/fakes/github_api.py" --port-file "$dir/port" --log "$FAKE_LOG" \
    --state "$1" --prefix "${2:-}" --lifetime 300 ${3:+--dump "$3"} &
  _pg_fake_pids+=($!)
  FAKE_URL="http://127.0.0.1:$(_pg_wait_port "$dir/port")${2:-}"
}

# fake_files ROOT_DIR: a static file server for ROOT_DIR -> FILES_URL.
fake_files() {
  local dir
  dir=$(mktemp -d "${OUT:-/tmp}/files.XXXXXX")
  python3 "$ROOT/tests/fakes/static_files.py" --root "$1" --port-file "$dir/port" --lifetime 300 &
  _pg_fake_pids+=($!)
  FILES_URL="http://127.0.0.1:$(_pg_wait_port "$dir/port")"
}

# A python3 that has PyYAML (for run_action.py): the lint-tools venv, else python3. Exits 77 (skip)
# without one, except where CI=true.
yaml_python() {
  local venv="${PTXGATE_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxgate/tools-venv}"
  for py in "$venv/bin/python3" python3; do
    if "$py" -c 'import yaml' 2>/dev/null; then YAML_PYTHON="$py"; return 0; fi
  done
  echo "SKIP: no python3 with PyYAML (scripts/setup.sh installs one)"
  [[ "${CI:-}" == true ]] && exit 1
  exit 77
}

# count_requests METHOD PATH_REGEX: requests in FAKE_LOG.
count_requests() {
  python3 - "$FAKE_LOG" "$1" "$2" <<'PY'
import json, re, sys
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == sys.argv[2] and re.search(sys.argv[3], r["path"]):
        n += 1
print(n)
PY
}

check() { # check DESCRIPTION COMMAND...: run COMMAND, count a failure with the description
  if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; failures=$((failures + 1)); fi
}
failures=0

# run_action NAME [run_action.py arguments...]: action.yml run as case NAME against $OUT/event.json
# with the built binary and no GPU needed (if-no-gpu=skip); its temp folder, job summary, log,
# result and reports (output-dir) under $OUT/NAME. The caller adds its own --input arguments.
run_action() {
  local name="$1"
  shift
  mkdir -p "$OUT/$name"
  "$YAML_PYTHON" "$ROOT/tests/action/run_action.py" --action "$ROOT/action.yml" \
    --event "$OUT/event.json" --temp "$OUT/$name/temp" --summary "$OUT/$name/summary.md" \
    --log "$OUT/$name/log.txt" --result "$OUT/$name/result.json" \
    --input binary-path="$BIN" --input if-no-gpu=skip --input output-dir="$OUT/$name/reports" "$@"
}

# push_event_setup: the fake GitHub API (token t-SECRET) and a push event of kernels/gemm on a
# self-hosted runner, exported as the action's environment.
push_event_setup() {
  mkdir -p "$OUT"
  echo '{"tokens": {"t-SECRET": "bot"}}' >"$OUT/state.json"
  fake_github "$OUT/state.json"
  echo '{"repository": {"full_name": "kernels/gemm"}}' >"$OUT/event.json"
  export GITHUB_EVENT_NAME=push GITHUB_REPOSITORY=kernels/gemm GITHUB_API_URL="$FAKE_URL" \
    GITHUB_TOKEN=t-SECRET GITHUB_EVENT_PATH="$OUT/event.json" GITHUB_WORKSPACE="$ROOT" \
    RUNNER_ENVIRONMENT=self-hosted
}
