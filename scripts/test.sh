#!/usr/bin/env bash
# One command for the whole test suite on a fresh machine: install label-audit with its test tools,
# Label Studio in its own venv, start Redis if none answers, then run pytest (extra args pass through).
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
exec "${LABEL_AUDIT_VENV:-.venv}/bin/python" -m pytest "$@"
