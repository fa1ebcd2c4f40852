"""Out-of-sample class probabilities from a text classifier trained on the project's own labels.

Confident learning (Northcutt et al. 2021) needs, for every labelled item, class probabilities from a
model that never saw that item's label: K-fold ``cross_val_predict`` gives exactly that. The interface
is family-agnostic: one single-choice *question* per item (its input texts, its label's index, the
class names); a family that asks several questions per item (multi-label: one per label) calls it once
per question.

Threads: scikit-learn's BLAS and OpenMP pools are limited to one thread while fitting
(``threadpoolctl``): on a loaded 2-core machine the default pools made the same fit 100x slower
(docs/architecture.md#one-blas-thread-while-fitting).
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

import numpy as np

from backend.common import defaults
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from threadpoolctl import threadpool_limits

#: Classifier names a ``cleanlab:<name>`` member may use.
CLASSIFIERS = ("tfidf-logreg",)
UNLABELLED = -1


def shortfall(labels: Sequence[int], classes: Sequence[str], *, minimum: int) -> str | None:
    """Why the classes are too small to fit (None: every class has ``minimum`` labelled items).

    Every class of the task needs the minimum: a class with fewer examples cannot be learned, and its
    out-of-fold probabilities would be noise that the ensemble then averages in.
    """
    counts = Counter(int(y) for y in labels if y != UNLABELLED)
    short = [f"{name!r} has {counts.get(i, 0)}" for i, name in enumerate(classes) if counts.get(i, 0) < minimum]
    if not short:
        return None
    return (f"too few labelled items per class ({', '.join(short)}; the minimum is {minimum} per class, "
            f"{sum(counts.values())} labelled items in all)")


def _pipeline(fields: Sequence[str], *, classifier: str, seed: int):
    """TF-IDF per input field (a premise and a hypothesis keep their own vocabularies) + logistic regression."""
    if classifier not in CLASSIFIERS:
        raise ValueError(f"unknown confident-learning classifier {classifier!r}; known: {', '.join(CLASSIFIERS)}")
    vectorizers = [
        (f"tfidf_{n}", TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, strip_accents="unicode"), name)
        for n, name in enumerate(fields)
    ]
    return make_pipeline(ColumnTransformer(vectorizers), LogisticRegression(max_iter=2000, C=4.0, random_state=seed))


def _frame(inputs: Sequence[Mapping[str, str]], fields: Sequence[str]):
    return pd.DataFrame({name: [str(row.get(name, "")) for row in inputs] for name in fields})


def out_of_fold_probs(
    inputs: Sequence[Mapping[str, str]],
    labels: Sequence[int],
    classes: Sequence[str],
    *,
    classifier: str = CLASSIFIERS[0],
    folds: int = defaults.CONFIDENT_FOLDS,
    seed: int = defaults.CONFIDENT_SEED,
) -> np.ndarray:
    """Class probabilities, shape ``(len(inputs), len(classes))``, each labelled row from a model blind to it.

    Labelled rows (``labels[i] >= 0``) get stratified K-fold out-of-fold probabilities (K = ``folds``,
    fewer when the smallest class is smaller); unlabelled rows (:data:`UNLABELLED`) get the probabilities
    of one model fitted on every labelled row. Call :func:`shortfall` first: this raises ValueError when
    a class has fewer labelled rows than two.
    """
    if len(inputs) != len(labels):
        raise ValueError("one label (or UNLABELLED) per input")
    y = np.asarray(labels, dtype=int)
    fields = sorted({name for row in inputs for name in row})
    frame = _frame(inputs, fields)
    known = y != UNLABELLED
    smallest = min(Counter(y[known].tolist()).get(i, 0) for i in range(len(classes)))
    if smallest < 2:
        raise ValueError("every class needs at least two labelled items for cross-validation")
    out = np.zeros((len(inputs), len(classes)))
    with threadpool_limits(limits=1):
        model = _pipeline(fields, classifier=classifier, seed=seed)
        splitter = StratifiedKFold(n_splits=min(folds, smallest), shuffle=True, random_state=seed)
        out[known] = cross_val_predict(model, frame[known], y[known], cv=splitter, method="predict_proba")
        if (~known).any():
            model.fit(frame[known], y[known])
            out[~known] = model.predict_proba(frame[~known])
    return out
