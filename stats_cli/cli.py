"""`audit-stats`: the statistics side of label-audit.

Offline statistics commands and the Label Studio report / gold sync register themselves from
``stats_cli/commands``.
"""

from __future__ import annotations

from importlib import import_module

import typer

app = typer.Typer(
    name="audit-stats",
    help="Agreement, aggregation, error-rate bounds, stratification and the audit report.",
    no_args_is_help=True,
    add_completion=False,
)

COMMAND_MODULES = (
    "stats_cli.commands.offline",  # agreement, aggregate, bounds, expected, stratify, confidence-bins, rerank
    "stats_cli.commands.report",   # report
    "stats_cli.commands.sync_gold",  # sync-gold
    "stats_cli.commands.estimate",  # estimate (stratified error rate, detector precision/recall)
)

for _name in COMMAND_MODULES:
    import_module(_name).register(app)


if __name__ == "__main__":  # pragma: no cover
    app()
