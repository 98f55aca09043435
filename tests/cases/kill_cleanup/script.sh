#!/usr/bin/env bash
# A SIGKILLed check (a cancelled CI job's hard kill) leaves no tool running and no temporary
# file behind: the tools die with ptxgate (parent-death signal), the guard process kills what
# they started and removes the run's folder, and the tools' tmpxft_* files were made inside that
# folder. When even the guard is killed, the folder a dead run left is removed by the next
# start; folders of live processes and folders not provably ptxgate's are kept.
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
# Gone, or dead and waiting to be reaped (a zombie: an init that does not reap keeps it).
gone() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null); [ -z "$state" ] || [ "${state:0:1}" = Z ]; }
# Within 2 s, every pid given is gone.
all_gone_within_2s() {
  for _ in $(seq 20); do
    local left=0
    for p in "$@"; do gone "$p" || left=1; done
    [ $left = 0 ] && return 0
    sleep 0.1
  done
  return 1
}
# Run ptxgate as the leader of a process group of its own, as a CI runner starts a job step.
leader() { exec python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }
start() { # start TMP MARK: a check whose ptxas hangs
  TMPDIR="$1" PTXGATE_PTXAS="$ROOT/tests/fakes/slow_tool.sh" FAKE_TOOL_MARK="$2" leader \
    "$BIN" check --no-gpu --quiet --output "$OUT/r" "$ROOT/tests/cases/offline_noop/m.json" \
    >"$OUT/log" 2>&1 &
  pid=$!
  for _ in $(seq 300); do [ -e "$2" ] && break; sleep 0.1; done
}

# 1. SIGKILL of the leader while ptxas runs.
tmp="$OUT/tmp1" mark="$OUT/mark1"
mkdir -p "$tmp"
start "$tmp" "$mark"
check "the tool is running" [ -e "$mark" ]
read -r tool grandchild tmpxft < "$mark"
check "the tool's TMPDIR is inside ptxgate's private folder ($tmpxft)" \
  bash -c '[[ "$1" == "$2"/ptxgate.??????/tmp/tmpxft_* ]] && [ -e "$1" ]' _ "$tmpxft" "$tmp"
guard=$(ps -o pid=,comm= --ppid "$pid" | awk '$2 == "ptxgate-guard" {print $1}')
check "a guard process runs" [ -n "$guard" ]
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "the tool and its child are gone within 2 s" all_gone_within_2s "$tool" "$grandchild"
check "the guard is gone" all_gone_within_2s $guard
check "no tmpxft_* file is left" bash -c '[ -z "$(find "$1" -name "tmpxft_*")" ]' _ "$tmp"
check "the temporary folder is removed" bash -c '[ -z "$(ls -A "$1")" ]' _ "$tmp"
check "no report" [ ! -e "$OUT/r/results.json" ]
kill -KILL "$tool" "$grandchild" 2>/dev/null

# 2. The guard killed first, then the leader: the tool still dies (parent-death signal); the
# folder stays until the next start, which removes it.
tmp="$OUT/tmp2" mark="$OUT/mark2"
mkdir -p "$tmp"
start "$tmp" "$mark"
read -r tool grandchild tmpxft < "$mark"
guard=$(ps -o pid=,comm= --ppid "$pid" | awk '$2 == "ptxgate-guard" {print $1}')
[ -n "$guard" ] && kill -KILL "$guard"
sleep 0.2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
check "without the guard, the tool itself is gone within 2 s" all_gone_within_2s "$tool"
kill -KILL "$grandchild" 2>/dev/null
stale=$(ls -d "$tmp"/ptxgate.* 2>/dev/null)
check "the dead run's folder is left ($stale)" [ -n "$stale" ] && [ -e "$stale/ptxgate-owner" ]
# Beside it: a folder of a live process (this shell) and folders not provably ptxgate's.
live="$tmp/ptxgate.live01" nothing="$tmp/ptxgate.norec1" other="$tmp/ptxgate.other1"
mkdir -p "$live" "$nothing" "$other"
start_ticks=$(sed 's/.*) //' /proc/$$/stat | awk '{print $20}')
printf 'ptxgate-owner 1\npid %s\nstart %s\nboot %s\n' $$ "$start_ticks" \
  "$(cat /proc/sys/kernel/random/boot_id)" > "$live/ptxgate-owner"
printf 'something else\n' > "$other/ptxgate-owner"
TMPDIR="$tmp" "$BIN" check --no-gpu --quiet --output "$OUT/r3" "$ROOT/tests/cases/offline_noop/m.json" \
  >"$OUT/log3" 2>&1
rc=$?
check "the next start runs and reports (exit $rc)" [ -e "$OUT/r3/results.json" ]
check "the next start removed the dead run's folder" [ ! -e "$stale" ]
check "a live process's folder is kept" [ -e "$live/ptxgate-owner" ]
check "a folder without an owner record is kept" [ -d "$nothing" ]
check "a folder with another record is kept" [ -e "$other/ptxgate-owner" ]
check "no other folder is left" bash -c '[ "$(ls "$1" | wc -l)" = 3 ]' _ "$tmp"
exit $fail
