#!/usr/bin/env bash
# One command for a first look: install, then score the bundled sample offline with the embedded
# default judge (SmolLM2-135M, a tiny model: it proves the plumbing, it does not judge well).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec "${LABEL_AUDIT_VENV:-.venv}/bin/label-audit" demo "$@"
