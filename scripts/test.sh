#!/usr/bin/env bash
# One command for the whole test suite on a fresh machine: install label-audit with its test tools,
# Label Studio in its own venv, start Redis if none answers, then run pytest (extra args pass through).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" bash scripts/install.sh
LABEL_STUDIO_BIN=$(bash scripts/install_labelstudio.sh | tail -n 1)
export LABEL_STUDIO_BIN
bash scripts/services.sh
exec "${LABEL_AUDIT_VENV:-.venv}/bin/python" -m pytest "$@"
