#!/usr/bin/env python3
"""Run the composite action in action.yml the way the GitHub runner does, on this machine, for
tests: the steps in order, each step's `env:` evaluated from the inputs and the simulated
`github`, `runner` and `steps` contexts, its `run:` executed by `bash --noprofile --norc -eo
pipefail` with GITHUB_ACTION_PATH, a fresh GITHUB_OUTPUT file per step and a GITHUB_STEP_SUMMARY
file per step (concatenated into --summary at the end, as the job summary shows them), and the
step's `if:` honoured (success(), !cancelled(), &&, ||, ==, != and context paths: the subset
action.yml uses; anything else is an error, so the simulator cannot silently drift from the
action). The step logs go to --log; the result (each step's outcome and outputs, the action's
outputs, the job's conclusion) to --result as JSON.

usage: run_action.py --action action.yml --event event.json --input name=value ... \
         --summary summary.md --log log.txt --result result.json --temp DIR
The GITHUB_* variables of the simulated runner are taken from this process's environment
(GITHUB_REPOSITORY, GITHUB_EVENT_NAME, GITHUB_API_URL, GITHUB_SERVER_URL, GITHUB_TOKEN, ...);
RUNNER_ENVIRONMENT gives runner.environment (default self-hosted).
"""
import argparse
import json
import os
import re
import subprocess
import sys

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKEN = re.compile(r"\s*(&&|\|\||==|!=|!|\(|\)|'[^']*'|[A-Za-z_][A-Za-z0-9_.\-]*(?:\(\))?)")


def lookup(path, ctx):
    cur = ctx
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return ""
    return "" if cur is None else cur


def evaluate(expr, ctx):
    """Evaluate the expression subset action.yml uses."""
    tokens, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise SystemExit("run_action.py: unsupported expression: %r" % expr)
        tokens.append(m.group(1))
        pos = m.end()
    tokens.append(None)
    i = [0]

    def peek():
        return tokens[i[0]]

    def take():
        t = tokens[i[0]]
        i[0] += 1
        return t

    def atom():
        t = take()
        if t == "!":
            return not truthy(atom())
        if t == "(":
            v = disjunction()
            if take() != ")":
                raise SystemExit("run_action.py: missing ) in %r" % expr)
            return v
        if t.startswith("'"):
            return t[1:-1]
        if t == "success()":
            return not ctx["_failed"]
        if t == "failure()":
            return ctx["_failed"]
        if t == "cancelled()":
            return False
        if t == "always()":
            return True
        if t in ("true", "false"):
            return t == "true"
        if t.endswith("()"):
            raise SystemExit("run_action.py: unsupported function %s" % t)
        return lookup(t, ctx)

    def comparison():
        v = atom()
        while peek() in ("==", "!="):
            op = take()
            w = atom()
            v = (str(v).lower() == str(w).lower()) if op == "==" else (str(v).lower() != str(w).lower())
        return v

    def conjunction():
        v = comparison()
        while peek() == "&&":
            take()
            w = comparison()
            v = w if truthy(v) else v
        return v

    def disjunction():
        v = conjunction()
        while peek() == "||":
            take()
            w = conjunction()
            v = v if truthy(v) else w
        return v

    v = disjunction()
    if peek() is not None:
        raise SystemExit("run_action.py: unsupported expression: %r" % expr)
    return v


def truthy(v):
    return bool(v) and v != "false"


def substitute(text, ctx):
    def one(m):
        v = evaluate(m.group(1), ctx)
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return EXPR.sub(one, str(text))


def read_outputs(path):
    """Parse a GITHUB_OUTPUT file: name=value lines and name<<DELIM heredocs."""
    out = {}
    lines = open(path, encoding="utf-8").read().split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while k < len(lines) and lines[k] != delim:
                value.append(lines[k])
                k += 1
            if k >= len(lines):
                raise SystemExit("run_action.py: unterminated heredoc for output %s" % name)
            k += 1
            out[name] = "\n".join(value)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--action", required=True)
    ap.add_argument("--event", required=True)
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--summary", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--result", required=True)
    ap.add_argument("--temp", required=True)
    a = ap.parse_args()

    action = yaml.safe_load(open(a.action, encoding="utf-8"))
    action_path = os.path.dirname(os.path.abspath(a.action))
    env0 = dict(os.environ)
    event = json.load(open(a.event, encoding="utf-8"))
    github = {
        "event_name": env0.get("GITHUB_EVENT_NAME", ""),
        "repository": env0.get("GITHUB_REPOSITORY", ""),
        "server_url": env0.get("GITHUB_SERVER_URL", ""),
        "api_url": env0.get("GITHUB_API_URL", ""),
        "token": env0.get("GITHUB_TOKEN", ""),
        "action_repository": env0.get("GITHUB_ACTION_REPOSITORY", ""),
        "event": event,
    }
    os.makedirs(a.temp, exist_ok=True)
    runner = {"environment": env0.get("RUNNER_ENVIRONMENT", "self-hosted"), "temp": a.temp}
    given = dict(kv.split("=", 1) for kv in a.input)
    declared = action.get("inputs", {})
    for name in given:
        if name not in declared:
            raise SystemExit("run_action.py: action.yml has no input %r" % name)
    ctx = {"github": github, "runner": runner, "steps": {}, "inputs": {}, "_failed": False}
    for name, spec in declared.items():
        if name in given:
            ctx["inputs"][name] = given[name]
        elif spec.get("required") and "default" not in spec:
            raise SystemExit("run_action.py: required input %r not given" % name)
        else:
            ctx["inputs"][name] = substitute(spec.get("default", ""), ctx)

    # The run: lines must not expand expressions inline (script injection): check it here too.
    steps = action["runs"]["steps"]
    open(a.log, "w").close()
    summaries = []
    result = {"steps": []}
    for n, step in enumerate(steps):
        if EXPR.search(step.get("run", "")):
            raise SystemExit("run_action.py: step %d expands an expression inside run:" % n)
        sid = step.get("id", "step%d" % n)
        cond = step.get("if", "success()")
        cond = EXPR.sub(lambda m: m.group(1), str(cond))
        if not truthy(evaluate(cond, ctx)):
            ctx["steps"][sid] = {"outcome": "skipped", "conclusion": "skipped", "outputs": {}}
            result["steps"].append({"id": sid, "name": step.get("name"), "outcome": "skipped"})
            continue
        out_file = os.path.join(a.temp, "output-%d" % n)
        sum_file = os.path.join(a.temp, "summary-%d" % n)
        open(out_file, "w").close()
        open(sum_file, "w").close()
        env = dict(env0)
        env.update({k: substitute(v, ctx) for k, v in (step.get("env") or {}).items()})
        env.update({"GITHUB_ACTION_PATH": action_path, "GITHUB_OUTPUT": out_file,
                    "GITHUB_STEP_SUMMARY": sum_file, "GITHUB_ACTIONS": "true",
                    "RUNNER_TEMP": a.temp})
        script = os.path.join(a.temp, "step-%d.sh" % n)
        with open(script, "w") as f:
            f.write(step["run"])
        with open(a.log, "a") as log:
            log.write("##[group]%s\n" % step.get("name", sid))
            log.flush()
            rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                 env=env, stdout=log, stderr=subprocess.STDOUT, timeout=600)
            log.write("##[endgroup] exit %d\n" % rc)
        outputs = read_outputs(out_file)
        outcome = "success" if rc == 0 else "failure"
        if rc:
            ctx["_failed"] = True
        ctx["steps"][sid] = {"outcome": outcome, "conclusion": outcome, "outputs": outputs}
        result["steps"].append({"id": sid, "name": step.get("name"), "outcome": outcome,
                                "exit": rc, "outputs": outputs})
        summaries.append(open(sum_file, encoding="utf-8").read())
    with open(a.summary, "w", encoding="utf-8") as f:
        f.write("".join(summaries))
    result["outputs"] = {k: substitute(v["value"], ctx) for k, v in action.get("outputs", {}).items()}
    result["conclusion"] = "failure" if ctx["_failed"] else "success"
    with open(a.result, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
