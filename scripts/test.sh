#!/usr/bin/env bash
# One command for the whole test suite on a fresh machine: install label-audit with its test tools,
# Label Studio in its own venv, start Redis if none answers, then run pytest (extra args pass through).
# Two workers (pytest-xdist), each taking a whole test file at a time so module fixtures (a Label Studio, a demo)
# stay with their tests: the suite waits on servers and browsers often enough that two workers on two cores
# finish it sooner than one (35 min against 41-51 min measured on one machine kind).
# LABEL_AUDIT_TEST_WORKERS=0 runs it in one process; a later "-n N" among the extra args overrides it.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" bash scripts/install.sh
LABEL_STUDIO_BIN=$(bash scripts/install_labelstudio.sh | tail -n 1)
export LABEL_STUDIO_BIN
bash scripts/services.sh
# The HTML report test opens the report in headless Chromium (Debian package; no browser download).
if [ ! -x "${LABEL_AUDIT_CHROMIUM:-/usr/bin/chromium}" ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 || echo "chromium: install failed (HTML screenshot tests will say so)"
fi
exec "${LABEL_AUDIT_VENV:-.venv}/bin/python" -m pytest -n "${LABEL_AUDIT_TEST_WORKERS:-2}" --dist loadfile "$@"
