#!/usr/bin/env bash
# Install Label Studio 1.23.2 in its own venv so its pins (openai, redis-py, Django) stay off ours.
# The venv is a cache outside the checkout; it is (re)built whenever it is missing or broken.
set -euo pipefail
LS_VENV=${LABEL_AUDIT_LS_VENV:-$HOME/.cache/label-audit/ls-venv-1.23.2}
PY=${PYTHON:-python3}
if ! "$LS_VENV/bin/python" -c "import label_studio, importlib.metadata as m; assert m.version('label-studio') == '1.23.2'" 2>/dev/null; then
  rm -rf "$LS_VENV"
  "$PY" -m venv "$LS_VENV"
  "$LS_VENV/bin/python" -m pip install -q --disable-pip-version-check "label-studio==1.23.2"
fi
echo "$LS_VENV/bin/label-studio"
