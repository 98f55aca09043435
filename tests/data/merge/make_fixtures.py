#!/usr/bin/env python3
"""Shard fixtures of `ptxgate merge` (tests/cases/golden_reports): run from the repository root
after a build, python3 tests/data/merge/make_fixtures.py [build/ptxgate]. Standard library only.

shard1.json, shard2.json  the two shards of `ptxgate check --no-gpu --shard i/2` over
                          tasks/gemm_bf16_nt/examples/{handwritten,naive}.json (ptxgate's own
                          output; the instructions stage fails, performance is skipped), with
                          the machine-specific text made neutral, the same way in both shards
                          so that their fingerprints still agree: the repository folder reads
                          /src/ptxgate, tool paths are bare tool names, the run's temporary
                          folder /tmp/ptxgate.000000 and the host name "runner".

Regenerating changes the inputs of the golden merge reports: rewrite those too (the case's
README says how) and read the diff.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
MANIFESTS = ["tasks/gemm_bf16_nt/examples/handwritten.json",
             "tasks/gemm_bf16_nt/examples/naive.json"]


def neutral(text, hostname):
    text = text.replace(ROOT, "/src/ptxgate")
    text = re.sub(r"/tmp/ptxgate\.[A-Za-z0-9]{6}", "/tmp/ptxgate.000000", text)
    text = re.sub(r"(?<![\w.])/[^\s\"]*/(ptxas|nvcc|nvdisasm|cuobjdump)(?=[\s\"])", r"\1", text)
    return text.replace(f'"hostname": "{hostname}"', '"hostname": "runner"')


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/ptxgate"))
    hostname = os.uname().nodename
    with tempfile.TemporaryDirectory() as tmp:
        for i in (1, 2):
            out = os.path.join(tmp, f"s{i}")
            rc = subprocess.run([binary, "check", "--no-gpu", "--quiet", "--shard", f"{i}/2",
                                 "--output", out] + MANIFESTS, cwd=ROOT,
                                stdout=subprocess.DEVNULL).returncode
            if rc not in (0, 1):
                sys.exit(f"check --shard {i}/2 exited {rc}")
            with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
                text = neutral(f.read(), hostname)
            left = sorted(set(re.findall(r"\"(/(?!src/ptxgate|tmp/ptxgate\.000000)[^\"]*)", text)))
            if left:
                sys.exit(f"shard {i}: absolute paths left: {left[:5]}")
            with open(os.path.join(HERE, f"shard{i}.json"), "w", encoding="utf-8") as f:
                f.write(text)


if __name__ == "__main__":
    main()
