"""The one CLI context of the scoring commands: options resolved once into :class:`backend.config.settings.Settings`.

``score``, ``demo`` and ``probe`` share the member options (``--members`` file or ``--member`` flags,
else the settings' members) and the engine knobs declared here; every one defaults to None ("not
given"), so an option left out keeps the environment's value, and the environment's absence keeps
:mod:`backend.common.defaults` (which the help texts quote). The engine then takes
:meth:`Settings.engine_config` — the same view the workers take.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import typer

from backend.common import defaults
from backend.scoring.members import MemberSpec, member_specs_from_config, parse_member_arg
from backend.config.settings import Settings


#: The one opinion on tokens on the command line: prefer the environment, because an option's value
#: shows in ``ps`` and shell history for every local user.

MEMBERS_FILE = typer.Option(None, "--members", help="YAML list of members (provider, model, base_url, prompts, "
                            "options); default $LABEL_AUDIT_MEMBERS_FILE.")
MEMBER = typer.Option(None, "--member", help="PROVIDER:MODEL or PROVIDER:MODEL@BASE_URL, repeatable; each adds one "
                      f"model with all prompts (default $LABEL_AUDIT_MEMBERS, else {defaults.MEMBER}).")

EXCLUDE_MEMBER = typer.Option(None, "--exclude-member", help="Leave this member out of the ensemble: a member id "
                              "(provider:model/prompt@vN) or a prompt id for every model, repeatable; the model "
                              "version changes (default $LABEL_AUDIT_EXCLUDE_MEMBERS, comma-separated, else none).")


def _setting(flag: str, what: str, variable: str, default: object) -> Any:
    """An option of a run setting: None when left out; its help names the variable and the default."""
    return typer.Option(None, flag, help=f"{what} (default ${variable}, else {default}).")


THRESHOLD = _setting("--threshold", "Minimum confidence to flag", "LABEL_AUDIT_THRESHOLD",
                     "0.55 binary and multi-label, 0.45 nominal, 0.2 ordinal")
DELTA = _setting("--delta", "Ordinal tasks: flag when |prediction - original| > DELTA", "LABEL_AUDIT_DELTA",
                 "the task spec's flag rule")
QUORUM = _setting("--quorum", "Share of members that must answer for an item to be flaggable", "LABEL_AUDIT_QUORUM",
                  f"{defaults.QUORUM_SHARE:g}")
QUORUM_MODELS = _setting("--quorum-models/--no-quorum-models", "Also require every model to answer through at "
                         "least one prompt", "LABEL_AUDIT_QUORUM_MODELS", "yes" if defaults.QUORUM_MODELS else "no")
CONCURRENCY = _setting("--concurrency", "Calls in flight at once", "LABEL_AUDIT_CONCURRENCY", defaults.CONCURRENCY)
TIMEOUT = _setting("--timeout", "Per-call timeout, seconds", "LABEL_AUDIT_TIMEOUT", f"{defaults.TIMEOUT:g}")
MAX_ATTEMPTS = _setting("--max-attempts", "Tries per call, retryable errors only", "LABEL_AUDIT_MAX_ATTEMPTS",
                        defaults.MAX_ATTEMPTS)


# The task options of `score` and `probe` (backend.commands.task_options.resolve_task turns them into one spec).
TASK = typer.Option(None, "--task", help="Task spec: factual-consistency, likert, relevance, or a YAML/TOML file "
                    "(with --labels/--label-config: the task's name).")
LABELS = typer.Option(None, "--labels", help="Generic task: the label names, comma-separated (or repeat --labels, "
                      "one label each).")
FIELDS = typer.Option(None, "--fields", help="Generic task: the data fields shown to the judge, comma-separated.")
GUIDELINES = typer.Option(None, "--guidelines", help="Generic task: labelling guidelines (text or HTML file).")
LABEL_CONFIG = typer.Option(None, "--label-config", help="Generic task from a Label Studio label config (XML file).")
FAMILY = typer.Option(None, "--family", help="binary, ordinal or nominal (default: 2 labels binary, numbers ordinal, "
                      "else nominal).")
NEGATIVE_LABEL = typer.Option(None, "--negative-label", help="The 'nothing here' class (strict aggregation, "
                              "built-in probes).")
PRIOR_CORRECTION = typer.Option(None, "--prior-correction", help="Correct each judge's answers over the whole "
                                "run for the class prior they show: none, em (Saerens et al. 2002), batch (towards equal classes), given "
                                "(towards the shares of the project's labels) or fitted (each verdict re-read by a model "
                                "of the other items' labels on every judge's answers) or auto (of the judges' average, given and fitted, "
                                "the one whose verdicts agree with the most of the project's own labels, none read to predict itself) (default "
                                f"LABEL_AUDIT_PRIOR_CORRECTION, else {defaults.PRIOR_CORRECTION}).")
OPTION_ORDERS = typer.Option(None, "--option-orders", min=1, help="Ask lettered options in this many cyclic orders "
                             "and average each judge over them (default LABEL_AUDIT_OPTION_ORDERS, else "
                             f"{defaults.OPTION_ORDERS}; 1: as given only).")


def member_specs(members_file: Optional[Path], member: Optional[Sequence[str]]) -> tuple[MemberSpec, ...] | None:
    """The members the options name (None: the settings decide). ValueError when both are given."""
    if members_file and member:
        raise ValueError("use either --members or --member, not both")
    if members_file:
        return tuple(member_specs_from_config(members_file))
    if member:
        return tuple(parse_member_arg(a) for a in member)
    return None


def run_settings(*, members_file: Optional[Path] = None, member: Optional[Sequence[str]] = None,
                 exclude_member: Optional[Sequence[str]] = None, env: Optional[Mapping[str, str]] = None,
                 **options: Any) -> Settings:
    """Settings from ``env`` (default: the process environment) with the command options on top (None = not given)."""
    return Settings.from_env(env, members=member_specs(members_file, member),
                             exclude_members=tuple(exclude_member) if exclude_member else None, **options)
