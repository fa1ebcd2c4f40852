"""`label-audit review push|reconcile|status|gold`: the blind expert review in Label Studio.

Connection: ``--url`` (default ``LABEL_STUDIO_URL``) and the token from ``LABEL_STUDIO_API_KEY`` only
(a token on the command line would show in ``ps``) reach the source instance; ``--review-url`` (default
``LABEL_AUDIT_REVIEW_URL``, token from ``LABEL_AUDIT_REVIEW_API_KEY``) the review instance, where the
experts' accounts and projects live. Without one the review runs on the source instance, which
``push`` refuses unless ``--allow-same-instance``. ``--expert-instances`` (default
``LABEL_AUDIT_EXPERT_INSTANCES``) maps each expert to their own instance (docs/experts.md): ``push``
refuses two experts on one instance unless ``--allow-shared-review``, and an instance whose sign-up is
open unless ``--allow-open-signup``. Every command that creates or reads review projects prints their URLs. Scores come from the audit ledger and review state
goes to the same database (``--db``, default ``DATABASE_URL``).
"""

from __future__ import annotations

from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from backend.common import defaults
from backend.common.cli_errors import fail as _fail
from backend.scoring.member_health import stored_health
from backend.summaries.health_table import print_health
from backend.commands.review_instances import instances_app
from backend.commands.review_session import (DB, EXPERT_INSTANCES, JSON, PROJECT, REVIEW_URL, URL, ReviewSession,
                                             audited_source, print_json, print_skipped, refreshed, session)

review_app = typer.Typer(
    help="Blind expert review in Label Studio: push suspects, reconcile disagreements, gold labels.",
    no_args_is_help=True,
)

@review_app.command("push")
def push(
    project: int = PROJECT,
    experts: str = typer.Option(..., "--experts", help="Expert emails, comma-separated (created if missing)."),
    threshold: Optional[float] = typer.Option(None, help="Keep flagged items with confidence >= T."),
    budget: Optional[int] = typer.Option(None, help="At most N items under review (highest confidence first)."),
    order: str = typer.Option("confidence", help="Task order: confidence (default) or shuffled (the paper's)."),
    seed: int = typer.Option(0, help="Seed of the shuffled order."),
    label_field: Optional[str] = typer.Option(None, help="Data field holding the original label, never shown."),
    allow_same_instance: bool = typer.Option(
        False, "--allow-same-instance",
        help="Accept a review on the source instance, where experts can open the source project (a leak).",
    ),
    sample: Optional[int] = typer.Option(None, "--sample", help="Add a blind random sample of N audited items "
                                         "(drawn once, stored; the project's error rate and recall rest on it)."),
    design: str = typer.Option("random", "--design", help="random, or stratified (flagged / unflagged strata)."),
    bands: Optional[str] = typer.Option(None, "--bands", help="Stratified: confidence cut points for unflagged "
                                        "items, e.g. 0.8,0.9."),
    initial_passwords: bool = typer.Option(
        False, "--initial-passwords",
        help="Sign experts without an account up with a random password, printed once: hand it over privately.",
    ),
    allow_shared_review: bool = typer.Option(
        False, "--allow-shared-review",
        help="Accept experts sharing one review instance, where they see each other's projects (a leak).",
    ),
    allow_open_signup: bool = typer.Option(
        False, "--allow-open-signup",
        help="Accept a review instance whose sign-up form is open to anyone (a leak).",
    ),
    next_n: Optional[int] = typer.Option(None, "--next", min=1, help="Active review: send the next N suspects by "
                                         "calibrated probability that the label is wrong (needs a settled control "
                                         "sample: --sample N, then review status)."),
    include_ambiguous: bool = typer.Option(True, "--include-ambiguous/--hold-ambiguous", help="--hold-ambiguous: "
                                           "send only the suspects the triage calls likely errors and list the "
                                           "ambiguous ones and guideline gaps for the lead (opt-in: it trades recall for "
                                           "the experts' time; measured in docs/triage.md)."),
    ambiguous_choice: bool = typer.Option(
        False, "--ambiguous-choice",
        help="Offer \"More than one answer may be right\" on every item (and in round 2): for items the guidelines "
             "allow more than one defensible label; binary or nominal single-choice projects only.",
    ),
    until_width: Optional[str] = typer.Option(
        None, "--until-width",
        help="Review until sure: a control sample drawn where the judges are least sure, grown one step per push "
             "until the judge-assisted 95 % interval of the error rate is within this half-width: points (2 = ±2 "
             "points) or errors (40errors = ±40 errors). Replaces --sample.",
    ),
    until_batch: int = typer.Option(defaults.UNTIL_WIDTH_BATCH, "--batch", min=1,
                                    help="--until-width: control items drawn per step (the two-stage rule: its pilot)."),
    stop_rule: str = typer.Option(defaults.UNTIL_WIDTH_RULE, "--stop-rule",
                                  help="--until-width: sequential (a batch at a time, stop when within W), "
                                       "two-stage (a pilot batch, then the size its interval asks for) or fixed "
                                       "(the size planned up front from the judges' scores); coverage measured in "
                                       "docs/statistics.md."),
    url: Optional[str] = URL,
    review_url: Optional[str] = REVIEW_URL,
    expert_instances: Optional[str] = EXPERT_INSTANCES,
    db: Optional[str] = DB,
    json_out: bool = JSON,
) -> None:
    """Round 1: flagged items -> one blind review project per expert (inputs + opaque ref only)."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.labelstudio.expert_instances import check_isolation
    from backend.review.push import check_push_options, push_review
    from backend.review.gold_store import refresh_review
    from backend.review.sample_push import SampleRequest
    from backend.review.until_width import WidthTarget
    from backend.review.until_width_push import UntilRequest

    try:
        request = None if sample is None else SampleRequest(
            sample, design=design, seed=seed, bands=tuple(float(b) for b in (bands or "").split(",") if b.strip()))
        until = None if until_width is None else UntilRequest(WidthTarget.parse(until_width), batch=until_batch,
                                                              rule=stop_rule, seed=seed)
        emails = check_push_options(experts.split(","), order=order, budget=budget)
    except ValueError as exc:
        _fail(str(exc))
    with session(url, db, review_url, expert_instances) as s:
        if until is not None:  # the step reads the experts' latest verdicts
            source = audited_source(s, project)
            refresh_review(s.review, s.store, source, s.ledger.results(source.key), delta=s.delta)
        _check_not_source(s, emails, project=project, url=url, allow_same_instance=allow_same_instance)
        # Accepting the source instance accepts more than experts seeing each other: it includes that.
        accepted = check_isolation(s.review, emails, allow_shared=allow_shared_review or allow_same_instance,
                                   allow_open_signup=allow_open_signup)
        report = push_review(
            s.client, s.store, s.ledger, review_client=s.review, project_id=project, experts=experts.split(","),
            threshold=threshold, budget=budget, order=order, seed=seed, label_field=label_field, sample=request,
            initial_passwords=initial_passwords, next_n=next_n, include_ambiguous=include_ambiguous,
            ambiguous_choice=ambiguous_choice, settings=s.settings, until=until,
        )
        report.warnings[:0] = accepted
    if json_out:
        print_json(report.to_json())
        return
    out = Console(soft_wrap=True)
    out.print(f"project {project}: {report.items} items under review ({report.added} added now)")
    if not report.items:
        why = (f"no flagged item reaches --threshold {threshold}" if threshold is not None else
               "nothing was flagged (the judges confidently contradict no label at the flag threshold "
               "`label-audit audit` printed)")
        out.print(f"  {why}, so no review project was made; --sample N or --until-width W reviews a random sample "
                  "instead, which bounds the error rate")
    if report.ambiguous_choice:
        out.print('  every item offers "More than one answer may be right" (round 2 too)')
    if sample is not None:
        drawn = "drawn now" if report.sample_drawn else "drawn before, kept"
        out.print(f"  random sample ({design}, {drawn}): {report.sampled} control items added now")
    if report.until_width:
        u = report.until_width
        out.print(f"  until {u['target']} ({u['rule']} rule, plan {u['planned']} reviews): {u['state']}, "
                  f"{u['drawn']} control items drawn ({u['added']} now)")
        out.print(f"  {u['line']}")
    for email, pid in report.projects.items():
        out.print(f"  {email}: review project {pid} (+{report.new_tasks.get(email, 0)} tasks) "
                  f"{report.urls.get(email, '')}".rstrip())
    for email, password in report.passwords.items():
        out.print(f"  {email}: initial password {password} (shown once)")
    for warning in report.warnings:
        out.print(f"  [yellow]warning[/yellow] {warning}")
    print_skipped(out, report.errors)
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.review.triage_route import held_lines

    for line in held_lines(report.triage):
        out.print(f"  {line}")


@review_app.command("reconcile")
def reconcile_cmd(
    project: int = PROJECT,
    partial: bool = typer.Option(False, "--partial", help="Reconcile the items every expert answered so far."),
    initial_passwords: bool = typer.Option(
        False, "--initial-passwords",
        help="Sign experts without an account on the shared review instance up with a random password, printed "
             "once: hand it over privately.",
    ),
    url: Optional[str] = URL,
    review_url: Optional[str] = REVIEW_URL,
    expert_instances: Optional[str] = EXPERT_INSTANCES,
    db: Optional[str] = DB,
    json_out: bool = JSON,
) -> None:
    """Round 2: a reconciliation project with only the items the experts disagreed on."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.review.gold_store import refresh_gold
    from backend.review.reconcile import reconcile

    with session(url, db, review_url, expert_instances) as s:
        source = audited_source(s, project)
        report = reconcile(s.client, s.store, source, partial=partial, review_client=s.review,
                           initial_passwords=initial_passwords, settings=s.settings)
        refresh_gold(s.store, s.ledger.results(source.key), source.spec, source_project=source.key, delta=s.delta)
    if json_out:
        print_json(report.to_json())
        return
    out = Console(soft_wrap=True)
    out.print(f"round 1: {report.agreed} agreed, {report.disagreements} disagreed, {report.incomplete} incomplete")
    if report.project is not None:
        out.print(f"reconciliation project {report.project} (+{report.new_tasks} tasks) {report.url or ''}".rstrip())
    for email, password in report.passwords.items():
        out.print(f"  {email}: initial password {password} (shown once)")
    for warning in report.warnings:
        out.print(f"  [yellow]warning[/yellow] {warning}")
    print_skipped(out, report.errors)


@review_app.command("status")
def status_cmd(project: int = PROJECT, url: Optional[str] = URL, review_url: Optional[str] = REVIEW_URL,
               expert_instances: Optional[str] = EXPERT_INSTANCES, db: Optional[str] = DB,
               until_width: Optional[str] = typer.Option(
                   None, "--until-width", help="The half-width to project the reviews for (2 = ±2 points, 40errors "
                                               "= ±40 errors; default ±2 and ±3 points)."),
               json_out: bool = JSON) -> None:
    """Progress per expert and round (with each project's URL), ignored annotations, the gold labels, the flag
    cut fitted on the control sample (and each confident-learning member's own), and the health of the audit's
    members (from the ledger's latest results)."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.ledger import Ledger
    from backend.review.sample_store import SampleStore
    from backend.review.fitted_threshold import fitted_cut_line
    from backend.review.member_cut import member_cuts
    from backend.review.status import review_status
    from backend.review.until_width import WidthTarget
    from backend.review.until_width_push import width_lines
    from backend.scoring.ensemble import label_error

    try:
        targets = None if until_width is None else [WidthTarget.parse(until_width)]
    except ValueError as exc:
        _fail(str(exc))
    store, source, clients = refreshed(project, url, db, review_url, expert_instances)
    status = review_status(store, source.key, clients=clients, spec=source.spec)
    ledger = Ledger(db_engine=store.db_engine)  # the same database as the review
    health = stored_health(ledger, source.key)
    results, draw = ledger.results(source.key), SampleStore(store.db_engine).draw(source.key)
    outcomes = {o.task_id: o for o in store.gold_labels(source.key)}
    is_error = lambda gold, original: label_error(gold, original, source.spec)  # noqa: E731 - the family's rule
    widths = width_lines(results, draw, outcomes, targets=targets, is_error=is_error)
    cut_line, cut = fitted_cut_line(results, draw, outcomes, is_error=is_error, family=source.spec.task_family.name)
    members = member_cuts(results, draw, outcomes, is_error=is_error, family=source.spec.task_family.name)
    if json_out:
        print_json({**status.to_json(), "member_health": health, "until_width": widths,
                    "fitted_cut": {**(cut.to_json() if cut else {}), "line": cut_line},
                    "member_cuts": [m.to_json() for m in members]})
        return
    table = Table(title=f"Review of project {project} ({status.items} items)")
    for col in ("round", "who", "LS project", "answered"):
        table.add_column(col)
    for p in status.progress:
        who = p.name if not p.expert else f"{p.name} ({p.expert})"
        table.add_row(str(p.round), who, str(p.project), f"{p.answered}/{p.tasks}")
    out = Console(soft_wrap=True)  # URLs stay whole, on one line
    out.print(table)
    for p in status.progress:
        out.print(f"  {p.name}: {p.url or f'project {p.project} (instance URL unknown)'}")
    _print_ignored(out, status)
    if status.round1:
        out.print("round 1: " + ", ".join(f"{k} {v}" for k, v in status.round1.items()))
    out.print("gold labels: " + (", ".join(f"{k} {v}" for k, v in sorted(status.gold.items())) or "none yet"))
    if status.gold.get("experts_ambiguous"):
        out.print(f"  experts_ambiguous: {status.gold['experts_ambiguous']} item(s) the experts agree more than one "
                  "answer may be right: no gold label, for the lead (a guideline rule, or keep the original)")
    if status.design is not None:
        out.print(f"control sample ({status.design}): " + ", ".join(
            f"{p.stratum} settled {p.settled}/{p.drawn} drawn of {p.population}" for p in status.sample))
    for line in widths:
        out.print(line)
    out.print(cut_line, markup=False)
    for member in members:
        out.print(member.line, markup=False)
    _print_health(health)


def _print_health(health: Optional[dict]) -> None:
    """The audit's member health, wrapped at the terminal's width (the status's other lines do not wrap)."""
    out = Console()
    if health is None:
        out.print("member health: PENDING (no scored item in the ledger)")
        return
    out.print(f"member health of model version {health['model_version']}:")
    print_health(health, out)


@review_app.command("gold")
def gold_cmd(project: int = PROJECT, url: Optional[str] = URL, review_url: Optional[str] = REVIEW_URL,
             expert_instances: Optional[str] = EXPERT_INSTANCES, db: Optional[str] = DB,
             json_out: bool = JSON) -> None:
    """Recompute and list the gold labels (original where the ensemble agrees, else the experts')."""
    store, source, _clients = refreshed(project, url, db, review_url, expert_instances)
    labels = store.gold_labels(source.key)
    if json_out:
        print_json([g.to_json() for g in labels])
        return
    table = Table(title=f"Gold labels of project {project}")
    for col in ("task", "original", "ensemble", "gold", "decided by", "status"):
        table.add_column(col)
    for g in labels:
        table.add_row(g.task_id, str(g.original), str(g.prediction), str(g.gold or "-"), str(g.decided_by or "-"),
                      g.status.value)
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.review.status import project_links

    out = Console(soft_wrap=True)
    out.print(table)
    for who, where in project_links(store, source.key, _clients):  # where the answers were read
        out.print(f"  {who}: {where}")


def _print_ignored(out: Console, status: Any) -> None:
    """Annotations that did not count: who made them, on which item, in which project."""
    if not status.ignored:
        return
    out.print(f"[yellow]{len(status.ignored)} annotation(s) not counted[/yellow] (not by the project's own expert):")
    for i in status.ignored:
        where = f"review project {i.ls_project_id}" + (f" on {i.instance}" if i.instance else "")
        owner = f" of {i.expert}" if i.expert else " (reconciliation)"
        out.print(f"  {i.annotator}: item {i.task_id}, annotation {i.annotation_id}, {where}{owner}")


def _check_not_source(s: ReviewSession, emails: list[str], *, project: int, url: Optional[str],
                      allow_same_instance: bool) -> None:
    """Refuse round 1 on the source instance: the shared review instance (when an expert lands there) and
    each expert's own instance are checked."""
    # heavy: the review modules load label_studio_sdk's client, ~1.1 s; not loaded by label-audit --help
    from backend.labelstudio.instances import check_review_instance, source_url

    targets = {s.review.instance_of(e) for e in emails}
    for instance in targets:
        client = s.review.for_instance(instance)
        check_review_instance(s.client, client, source_project=project, source_url=source_url(s.settings, url),
                              review_url=instance or s.review_url, allow_same_instance=allow_same_instance)


def register(app: typer.Typer) -> None:
    """Add the ``review`` command group (with ``review instances``) to the ``label-audit`` app."""
    review_app.add_typer(instances_app, name="instances")
    app.add_typer(review_app, name="review")
