"""`label-audit`: the backend-side command line.

Each command group lives in its own module under ``backend/commands`` and registers itself here, so
one file never grows into a grab-bag of unrelated commands.
"""

from __future__ import annotations

from importlib import import_module

import typer

app = typer.Typer(
    name="label-audit",
    help="Find label errors with an ensemble of LLM judges and route suspects to a blind expert review.",
    no_args_is_help=True,
    add_completion=False,
)

COMMAND_MODULES = (
    "backend.commands.score",   # score
    "backend.commands.demo",    # demo (the file, or --labelstudio)
    "backend.commands.serve",   # serve, worker, audit
    "backend.commands.review",  # review push / reconcile / status
    "backend.commands.probe",   # probe
    "backend.commands.judge",   # judge list / install (opt-in named local judges)
)

for _name in COMMAND_MODULES:
    import_module(_name).register(app)


if __name__ == "__main__":  # pragma: no cover
    app()
