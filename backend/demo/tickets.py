"""The demo's sample for the confident-learning member: support tickets with planted label errors.

Self-written (no data set is downloaded or shipped): short customer messages built at run time from the
phrases below, labelled by the queue they belong to (billing, delivery, account), with a seeded share of
labels replaced by another queue. The planted errors are the only wrong labels, so the demo can say how
many of them each member found and with what precision. Why self-written: the demo must run on a fresh
machine without ``../shared`` (ChaosNLI's CC BY-NC licence keeps it out of this Apache-2.0 repository),
and no package we install ships a labelled text set we may redistribute.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

LABELS = ("billing", "delivery", "account")
TOPICS = {
    "billing": ["I was charged twice for {thing}", "the invoice for {thing} shows the wrong amount",
                "please refund the payment for {thing}", "my card was billed after I cancelled {thing}",
                "why did the price of {thing} go up on my last bill", "I need a receipt for {thing}",
                "the discount code was not applied to {thing}", "can I pay for {thing} in instalments"],
    "delivery": ["{thing} has not arrived yet", "the parcel with {thing} was left at the wrong address",
                 "tracking for {thing} has not moved in a week", "{thing} arrived damaged in the box",
                 "can the courier deliver {thing} on Saturday", "the package with {thing} is stuck at the depot",
                 "only half of {thing} was in the shipment", "please change the delivery date for {thing}"],
    "account": ["I cannot log in to see {thing}", "reset my password, I need to check {thing}",
                "my profile lost the settings for {thing}", "please delete my account and {thing}",
                "two-factor codes never reach my phone when I open {thing}", "change the email on my account for {thing}",
                "someone else signed in to my account and viewed {thing}", "my username is locked since I ordered {thing}"],
}
THINGS = ["my order", "the blue kettle", "the winter jacket", "order 4471", "the annual plan", "the headphones",
          "the garden chairs", "my subscription", "the printer ink", "the gift card", "the running shoes", "the lamp"]
OPENERS = ["Hello,", "Hi team,", "Good morning.", "", "Urgent:", "Hi there -", ""]
CLOSERS = ["Thanks.", "Please help.", "This is the second time I write.", "", "Regards, Sam", "Thank you in advance.", ""]


def ticket_records(*, n: int = 150, error_rate: float = 0.1, seed: int = 7) -> list[dict]:
    """``n`` tickets (balanced queues) with ``round(error_rate * n)`` labels replaced; ``planted`` marks them."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        queue = LABELS[i % len(LABELS)]
        body = rng.choice(TOPICS[queue]).format(thing=rng.choice(THINGS))
        text = " ".join(p for p in (rng.choice(OPENERS), body[0].upper() + body[1:] + ".", rng.choice(CLOSERS)) if p)
        records.append({"id": f"ticket-{i + 1:03d}", "text": text, "label": queue, "planted": False})
    rng.shuffle(records)
    for record in rng.sample(records, round(error_rate * n)):
        record["label"] = rng.choice([q for q in LABELS if q != record["label"]])
        record["planted"] = True
    return records


def write_tickets(path: Path, **options) -> Path:
    """Write :func:`ticket_records` as JSONL to ``path`` (the ``planted`` field is never shown to a judge)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in ticket_records(**options)), "utf-8")
    return path
