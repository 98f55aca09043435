"""Parse junit.xml files with junitparser and xunitparser and replay three GitHub reporters'
location and time rules on them (tests/cases/junit_consumers/script.sh).

Arguments: FILE (a golden file: locations are checked for their form) or ROOT:FILE (a real run
from ROOT: every location must name a file below ROOT and a line inside it).

The rules replayed, as those projects' sources state them (read, not copied):
- mikepenz/action-junit-report, src/testParser.ts, resolveFileAndLine(file, line, className,
  output): the testcase's `file` attribute, else the last dot-separated part of the classname;
  with a `file` and a numeric `line` attribute both are used as they are; otherwise the line is
  searched in the failure text and defaults to 1.
- dorny/test-reporter, src/parsers/pytest-junit/pytest-junit-parser.ts, errorSource(): the
  first line of the <failure> text split at ':' gives the path and the line; the second line is
  the message. Its java-junit parser only reads Java stack frames "at ...(File.java:N)", so the
  pytest-junit reporter is the one that can locate ptxgate's failures.
- EnricoMi/publish-unit-test-result-action, python/publish/junitparser.py (parse_junit_xml_files
  reads JUnit through junitparser): test_file = the testcase's `file` attribute, line = int of
  its `line` attribute, else the annotation falls back to the classname; the run's duration is
  int(sum of the suites' `time`), not the root's.
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

import junitparser
import xunitparser

bad = []


def expect(ok, what):
    if not ok:
        print("FAIL: " + what)
        bad.append(what)


def check_file(path, root):
    before = len(bad)
    name = os.path.relpath(path, root) if root else os.path.basename(path)
    # junitparser: the structure and the counts
    xml = junitparser.JUnitXml.fromfile(path)
    top = ET.parse(path).getroot()
    suites = list(xml) if isinstance(xml, junitparser.JUnitXml) else [xml]
    cases = [(s, c) for s in suites for c in s]
    expect(len(cases) == int(top.get("tests")), f"{name}: junitparser sees {len(cases)} tests")
    failing = [(s, c) for s, c in cases
               if any(isinstance(r, (junitparser.Failure, junitparser.Error)) for r in c.result)]
    want_failing = int(top.get("failures")) + int(top.get("errors"))
    expect(len(failing) == want_failing, f"{name}: {len(failing)} failing, root says {want_failing}")
    # xunitparser: no assertion (duplicate property names across suites, counts)
    try:
        with open(path, "rb") as f:
            ts, tr = xunitparser.parse(f)
        expect(tr.testsRun == len(cases), f"{name}: xunitparser ran {tr.testsRun}")
        expect(len(tr.failures) + len(tr.errors) == want_failing, f"{name}: xunitparser failing")
    except Exception as e:  # an AssertionError inside xunitparser is the bug being guarded
        expect(False, f"{name}: xunitparser failed: {type(e).__name__}: {e}")
    # times: the suites add up to the root (EnricoMi sums the suites)
    root_time = float(top.get("time"))
    suite_sum = sum(float(s.time) for s in suites)
    expect(abs(suite_sum - root_time) < 5e-4, f"{name}: suites sum to {suite_sum}, root {root_time}")
    expect(int(suite_sum) == int(root_time), f"{name}: EnricoMi's duration int(sum) = {int(suite_sum)}")
    # run-wide properties once
    names = [p.get("name") for p in top.iter("property")]
    expect(len(names) == len(set(names)), f"{name}: a property name repeats")
    for s, c in failing:
        where = f"{name}: {c.classname} {c.name}"
        expect(c.classname.count(".") >= 1 and c.classname.split(".")[0] == s.name,
               f"{where}: classname is task.submission")
        f_attr, l_attr = c._elem.get("file"), c._elem.get("line")
        expect(bool(f_attr) and l_attr is not None and l_attr.isdigit() and int(l_attr) >= 1,
               f"{where}: file/line attributes {f_attr!r} {l_attr!r}")
        if not f_attr or not l_attr or not l_attr.isdigit():
            continue
        # mikepenz: both attributes used as given
        mp_file, mp_line = f_attr, int(l_attr)
        # EnricoMi: the same two attributes
        em_file, em_line = c._elem.get("file"), int(c._elem.get("line"))
        # dorny (pytest-junit): the first line of the failure text
        result = [r for r in c.result if isinstance(r, (junitparser.Failure, junitparser.Error))][0]
        first = (result.text or "").split("\n")[0].strip()
        parts = first.split(":")
        d_line = int(parts[1]) if len(parts) > 2 and parts[1].isdigit() else None
        expect(parts[0] == f_attr and d_line == int(l_attr),
               f"{where}: dorny reads {first[:80]!r}, not {f_attr}:{l_attr}")
        expect(mp_file == em_file == f_attr and mp_line == em_line, f"{where}: reporters disagree")
        expect(not os.path.isabs(f_attr) and ".." not in f_attr.split("/"),
               f"{where}: {f_attr} is not relative to the working directory")
        if root:
            full = os.path.join(root, f_attr)
            expect(os.path.isfile(full), f"{where}: {f_attr} is not a file below {root}")
            if os.path.isfile(full):
                n = sum(1 for _ in open(full, "rb"))
                expect(int(l_attr) <= n, f"{where}: line {l_attr} past the end ({n} lines)")
    if len(bad) == before:
        print(f"ok: {name}: {len(cases)} testcases, {len(failing)} located failures, "
              f"time {root_time} = sum of {len(suites)} suites")


for arg in sys.argv[1:]:
    root, _, path = arg.rpartition(":") if ":" in arg else ("", "", arg)
    check_file(path, root or None)
sys.exit(1 if bad else 0)
