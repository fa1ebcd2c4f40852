"""Does the installed llama.cpp build run on this CPU? ``python -m backend.providers.llama_check``.

A llama.cpp built with ``-march=native`` uses every instruction set the build machine's CPU
advertises. Inside a virtual machine a CPU may advertise AMX tiles that its kernel never enables;
the first evaluation then dies with SIGILL (seen on 2026-12-01: ``tileloadd`` in
``libggml-cpu.so``), taking the scoring process or the RQ work-horse with it and leaving no Python
traceback. ``scripts/install.sh`` therefore builds for AVX2 (x86-64-v3), and runs this check in a
child process after installing: a build that cannot evaluate one prompt here is rebuilt from source
(pip reuses a cached wheel of the same version whatever ``CMAKE_ARGS`` say, so only the check can
tell a stale native wheel apart).

Exit status 0: one prompt scored through the embedded default judge. Anything else (a signal, an
exception) means the build does not run here.
"""

from __future__ import annotations

import sys
from backend.providers.registry import make_provider

__all__ = ["check"]


def check() -> str:
    """Score one tiny prompt with the embedded model; returns a one-line description of what ran."""
    provider = make_provider("local", "smollm2")
    dist = provider.classify("Is water wet? Answer yes or no.\nAnswer:", ["yes", "no"], timeout=120)
    return f"llama.cpp runs on this CPU (method {dist.method}, mass on the labels {dist.raw_mass:.3f})"


def main() -> int:
    try:
        print(check())
    except Exception as exc:  # noqa: BLE001 - any failure means "rebuild"; the reason is printed
        print(f"llama.cpp check failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
