"""Load a benchmark script (``bench/<name>.py``) as a module, so tests can call its functions.

The scripts are run as files, not installed as a package: each is loaded from its path, registered under its own
name first (a dataclass in it resolves its annotations through ``sys.modules``), with ``bench/`` on the path for
the scripts it imports itself.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` as a fresh module named ``name``."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    if spec is None or spec.loader is None:
        raise ValueError(f"no benchmark script bench/{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
