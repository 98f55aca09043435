#!/usr/bin/env bash
# --devices without GPUs: a fake worker (tests/fakes/fake_worker.py, through PTXGATE_WORKER)
# sleeps in every performance stage and logs when each job starts and ends on which device. Four
# submissions on --devices 0,1 must run two at a time (overlapping jobs; the wall times against
# --devices 0 are shown, not compared: load decides them), never two workers on one device at
# once, and give the results of the single-device run in the same order; a worker killed mid-run
# costs only its own submission's step; devices of two GPU models and bad flag combinations are
# input errors (exit 2).
set -uo pipefail
export PTXGATE_WORKER="$ROOT/tests/fakes/fake_worker.py"
export FAKE_WORKER_SLEEP=0.6
wl=m257_n513_k1000,m2048_n2048_k2048
mkdir -p "$OUT/subs"
subs=()
for s in a b c d; do
  cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$OUT/subs/handwritten.ptx"
  cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$OUT/subs/$s.json"
  subs+=("$OUT/subs/$s.json")
done
fail=0
run() { # name, extra args...
  local name=$1; shift
  export FAKE_WORKER_LOG="$OUT/$name.log"
  "$BIN" check --quiet --instructions off --accepted-kernel none --workloads "$wl" \
    --output "$OUT/$name" "$@" "${subs[@]}" >"$OUT/$name.stdout" 2>&1
  echo $? >"$OUT/$name.rc"
}
run one --devices 0
run two --devices 0,1
FAKE_WORKER_KILL=/b.json run kill --devices 0,1
FAKE_WORKER_ODD_DEVICE=1 run odd --devices 0,1
run noiso --devices 0,1 --no-isolation
run both --device 1 --devices 0,1
run twice --devices 0,1,0
python3 - "$OUT" "$ROOT/schemas/results.schema.json" <<'PY' || fail=1
import json, sys, jsonschema
out = sys.argv[1]
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + what)
    bad += 0 if ok else 1
def load(name):
    r = json.load(open(f"{out}/{name}/results.json"))
    log = [json.loads(l) for l in open(f"{out}/{name}.log")]
    return r, log, int(open(f"{out}/{name}.rc").read())
def table(r):
    return [(s["manifest"], s["verdict"], [(w["name"], w["status"], [(st["stage"], st["status"]) for st in w["stages"]]) for w in s["workloads"]]) for s in r["submissions"]]
def jobs(log):
    starts = [e for e in log if "workloads" in e]
    ends = [e for e in log if e.get("end") or e.get("killed")]
    spans = []
    for s in starts:
        e = min((e for e in ends if e["manifest"] == s["manifest"] and e["device"] == s["device"] and e["t"] >= s["t"]), key=lambda e: e["t"])
        ends.remove(e)
        spans.append((s["device"], s["t"], e["t"], s["manifest"]))
    return spans
def overlaps(a, b):
    return a[1] < b[2] and b[1] < a[2]
schema = jsonschema.Draft202012Validator(json.load(open(sys.argv[2])))

one, log1, rc1 = load("one")
two, log2, rc2 = load("two")
check(rc1 == 0 and rc2 == 0, f"exit codes {rc1} {rc2}")
check(table(one) == table(two), "--devices 0,1 gives the table of --devices 0, in the same order")
check([s["manifest"].split("/")[-1] for s in two["submissions"]] == ["a.json", "b.json", "c.json", "d.json"], "submissions in command-line order")
check(one["holm"] == two["holm"], f"same Holm family: {two['holm']}")
check(one["settings"]["devices"] == [0] and two["settings"]["devices"] == [0, 1], "settings.devices")
check(all(s["device"] == 0 for s in one["submissions"]), "one device: every submission on device 0")
check(sorted({s["device"] for s in two["submissions"]}) == [0, 1], f"two devices: both used: {[s['device'] for s in two['submissions']]}")
check([d["ordinal"] for d in two["environment"]["devices"]] == [0, 1] and "devices" not in one["environment"], "environment lists the probed devices")
check(sorted(e["device"] for e in log2 if e.get("probe")) == [0, 1], "each device probed once")
spans = jobs(log2)
check(len(spans) == 4, f"one worker per submission: {len(spans)}")
same = [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] == b[0] and overlaps(a, b)]
check(not same, f"never two workers on one device at once: {same}")
check(any(overlaps(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] != b[0]), "workers on the two devices overlap in time")
check(all(s["device"] == next(sp[0] for sp in spans if sp[3] == s["manifest"]) for s in two["submissions"]), "the device field names the device its worker ran on")
seq = sum(e - s for _, s, e, _ in jobs(log1))
# The two devices' workers overlapping (checked above) is what makes the run faster; the wall
# times are shown, not compared: on a loaded 2-core machine the fake workers' start-up dominates.
print(f"info two devices {two['duration_s']:.2f} s, one device {one['duration_s']:.2f} s (jobs {seq:.2f} s)")

kill, logk, rck = load("kill")
ks = {s["manifest"].split("/")[-1]: s for s in kill["submissions"]}
b = {w["name"]: w for w in ks["b.json"]["workloads"]}
check(b["m257_n513_k1000"]["status"] == "INFRA_ERROR" and "ended unexpectedly (signal 9" in next(s for s in b["m257_n513_k1000"]["stages"] if s["stage"] == "performance")["message"], "kill: the killed step is an infrastructure error")
check(b["m2048_n2048_k2048"]["status"] == "PASSED", "kill: the submission's other workload ran in a fresh worker")
check([t for t in table(kill) if not t[0].endswith("/b.json")] == [t for t in table(one) if not t[0].endswith("/b.json")], "kill: the other submissions' results stand")
check(rck == 3, f"kill: infrastructure exit {rck}")

odd = open(f"{out}/odd.stdout").read()
check(int(open(f"{out}/odd.rc").read()) == 2 and "Other Fake GPU" in odd and "--devices" in odd, f"two GPU models: exit 2: {odd.strip()}")
for name, text in (("noiso", "--no-isolation"), ("both", "give one of them"), ("twice", "listed twice")):
    msg = open(f"{out}/{name}.stdout").read()
    check(int(open(f"{out}/{name}.rc").read()) == 2 and text in msg, f"{name}: exit 2: {msg.strip()}")
for name in ("one", "two", "kill"):
    errs = list(schema.iter_errors(json.load(open(f"{out}/{name}/results.json"))))
    check(not errs, f"{name}: valid under the schema{': ' + errs[0].message if errs else ''}")
print(f"{bad} failed checks")
sys.exit(1 if bad else 0)
PY
if ((fail)); then for f in "$OUT"/*.stdout; do echo "--- $f"; cat "$f"; done; fi
exit $fail
