"""The demo's judge: the embedded one by default, or a named local judge (``--judge NAME``) with its cost in time.

The embedded SmolLM2-135M answers in a fraction of a second and cannot judge; a named judge
(:mod:`backend.providers.named_models`) can, and costs seconds per call. Before a run with one, the demo
says what it will cost: items x prompts x the seconds per call measured for that model, naming where that
figure comes from (it is a measurement on one machine, not a promise); after the run the demo prints the
time each call really took.
"""

from __future__ import annotations

from pathlib import Path

from backend.common import defaults
from backend.providers.named_models import installed_path, named_model

__all__ = ["judge_member", "judge_note", "require_judge", "time_estimate"]

def judge_member(judge: str | None) -> str:
    """The member the demo scores with: ``local:<judge>``, or the embedded default."""
    return f"local:{judge}" if judge else defaults.MEMBER


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
