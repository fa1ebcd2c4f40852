"""Label errors by class (k-class tasks): confusion original -> gold, per-class errors, per-label agreement.

Binary tasks read the same numbers off the errors section; with k labels the question becomes
"which labels get mistaken for which", and whether the experts agree on each label.

The reviewed items are suspects mixed with controls, not a random sample of any class, so the
per-class share wrong among them has no interval; with a random control sample each class also gets
a design-weighted domain estimate (Σ w·wrong / Σ w over the sampled items of that original label,
w = 1/inclusion probability), the share of that class's items in the project that are wrong.
"""

from __future__ import annotations

from stats_cli.stats.confusion import category_agreement, label_confusion, per_class_errors

from ..agreement import ratings_table
from ..control import control_items
from ..fmt import percent
from ..inputs import AuditData
from ..model import Section, Status, Table, pending
from ..registry import BuildOptions, ReportSection

KEY, TITLE = "classes", "Label errors by class"


def classes_section(data: AuditData, *, confidence: float = 0.95) -> Section:
    """Confusion table and per-class error counts over the items the experts settled."""
    labels = list(data.spec.labels)
    reviewed = [(it.original, gold) for it, gold in data.reviewed() if it.original is not None]
    if not reviewed:
        return pending(KEY, TITLE, "no expert decision is settled yet", sizes={"classes": len(labels)})
    original, gold = [o for o, _ in reviewed], [g for _, g in reviewed]
    matrix = label_confusion(original, gold, labels)
    confusion = Table.build("Original label (rows) -> gold label (columns), reviewed items",
                            ("original \\ gold", *labels),
                            [(lab, *(int(x) for x in matrix[i])) for i, lab in enumerate(labels)])
    per_class = per_class_errors(original, gold, labels, confidence=confidence)
    domain = _domain_rates(data, labels)
    errors = Table.build("Wrong labels per original class (in %)",
                         ("original label", "reviewed", "wrong", "% wrong among reviewed (no interval)",
                          "control sample n", "% wrong in the project (design-weighted)"),
                         [(c.label, c.reviewed, c.errors, percent(c.rate), domain[c.label][0], percent(domain[c.label][1]))
                          for c in per_class])
    answers = {i: {e: lab for e, lab in r.round1.items() if lab is not None} for i, r in data.reviews.items()}
    pairable = {i: a for i, a in answers.items() if len(a) >= 2}
    agreement = category_agreement(ratings_table(pairable), labels) if pairable else dict.fromkeys(labels)
    agree = Table.build("Expert agreement specific to each label (round 1; 2a/(2a+b+c) for two experts)",
                        ("label", "specific agreement"), [(lab, agreement[lab]) for lab in labels])
    confused = sorted(((int(matrix[i, j]), labels[i], labels[j]) for i in range(len(labels))
                       for j in range(len(labels)) if i != j and matrix[i, j]), reverse=True)
    notes = [f"Most frequent confusion: {a} labelled where the experts say {b} ({n} item{'s' if n != 1 else ''})."
             for n, a, b in confused[:3]]
    notes.append("The reviewed items are suspects and controls together, not a random sample of any class: "
                 "their share wrong has no interval. The design-weighted column rests on the random control "
                 "sample alone (— where it holds no item of that class).")
    values = {"confusion": {"labels": labels, "counts": matrix.tolist()},
              "per_class": [{"label": c.label, "reviewed": c.reviewed, "errors": c.errors, "rate": c.rate,
                             "control_n": domain[c.label][0], "domain_rate": domain[c.label][1]} for c in per_class],
              "category_agreement": agreement}
    return Section(KEY, TITLE, Status.OK, sizes={"reviewed": len(reviewed), "classes": len(labels)},
                   tables=(confusion, errors, agree), notes=tuple(notes), values=values)


def _domain_rates(data: AuditData, labels: list[str]) -> dict[str, tuple[int, float | None]]:
    """Per original label: control-sample items of that label and the design-weighted share wrong."""
    sums = {lab: [0, 0.0, 0.0] for lab in labels}
    for c in control_items(data):
        if c.item.original in sums:
            row = sums[c.item.original]
            row[0] += 1
            row[1] += c.weight
            row[2] += c.weight * data.is_error(c.item, c.gold)
    return {lab: (int(n), (wrong / w) if w else None) for lab, (n, w, wrong) in sums.items()}


class ClassesSection(ReportSection):
    key, title, order = KEY, TITLE, 35
    needs = ("one_label",)

    @classmethod
    def compute(cls, data: AuditData, options: BuildOptions) -> Section:
        return classes_section(data)
