"""The confident-learning member (``cleanlab:tfidf-logreg``): a provider whose answers come from one fit.

It plugs into the engine like any provider, so caching, quorum, averaging, the ledger and the report
treat it as a member. The difference is where its answers come from: :meth:`ConfidentProvider.train_on`
hands it every labelled item of the run (or of the project, in a worker) *before* scoring, and the first
call that misses the cache fits the classifier once (K-fold out-of-fold probabilities for all items);
every later call is a table look-up. The training set's fingerprint enters :meth:`cache_params`, so a
cached answer is reused exactly while the items and labels it was fitted on are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any, Callable, Mapping, Sequence

from backend.common import defaults
from backend.confident.classifier import CLASSIFIERS, UNLABELLED, out_of_fold_probs, shortfall
from backend.providers.base import ClassDistribution, ProviderError
from backend.scoring.confident_template import KIND
from backend.providers.registry import register

METHOD = "cross_validated"


def prompt_digest(prompt: str) -> str:
    """The table key of one rendered item (the member's template renders the item's inputs)."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def as_tokens(probs: Mapping[str, float], tokens: Sequence[str]) -> ClassDistribution:
    """``probs`` (by class, in class order) as a distribution over the engine's answer tokens."""
    values = list(probs.values())
    if len(values) != len(tokens):
        raise ProviderError("bad_labels", f"fitted on {len(values)} classes, asked for {len(tokens)}", retryable=False)
    return ClassDistribution(probs=dict(zip(tokens, values)), raw_mass=1.0, method=METHOD)


@register
class ConfidentProvider:
    """Out-of-fold class probabilities of a text classifier trained on the labels being audited.

    Parameters
    ----------
    model : str
        The classifier (:data:`backend.confident.classifier.CLASSIFIERS`): ``tfidf-logreg``.
    folds, min_per_class, seed : int
        Cross-validation folds, the labelled items each class needs, the fold seed.
    """

    name = KIND
    takes_base_url = False
    #: Its classifier reads the item's text inputs only: left out of image questions (``no_vision``).
    accepts_images = False
    #: Its classifier answers by class, never by letter: a question asked in several option orders asks it
    #: once (the first order), not once per order with the same answer (``Question.reorders``).
    reads_order = False

    def __init__(self, model: str, *, folds: int = defaults.CONFIDENT_FOLDS,
                 min_per_class: int = defaults.CONFIDENT_MIN_PER_CLASS, seed: int = defaults.CONFIDENT_SEED):
        if model not in CLASSIFIERS:
            raise ValueError(f"unknown confident-learning classifier {model!r}; known: {', '.join(CLASSIFIERS)}")
        if not isinstance(folds, int) or folds < 2:
            raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
        if not isinstance(min_per_class, int) or min_per_class < max(2, folds):
            raise ValueError(f"min_per_class must be an integer >= max(2, folds), got {min_per_class!r}")
        self.model, self.folds, self.min_per_class, self.seed = model, folds, min_per_class, int(seed)
        self.fits = 0  # how many times the classifier was fitted (once per training set)
        self.on_fit: Callable[[Mapping[str, Mapping[str, float]]], None] | None = None  # e.g. prime a shared cache
        self._lock = threading.Lock()
        self._training: dict[str, Any] | None = None
        self._table: dict[str, dict[str, float]] = {}
        self._fingerprint = ""

    def train_on(self, prompts: Sequence[str], inputs: Sequence[Mapping[str, str]],
                 originals: Sequence[str | None], classes: Sequence[str]) -> str | None:
        """Set the items to learn from (no fit yet). Returns why it cannot be fitted, or None.

        ``prompts[i]`` is item ``i`` rendered by this member's template (what :meth:`classify` receives),
        ``inputs[i]`` its texts, ``originals[i]`` its label (None: unlabelled, predicted, not learnt from).
        """
        index = {c: n for n, c in enumerate(classes)}
        labels = [UNLABELLED if o is None else index[o] for o in originals]
        reason = shortfall(labels, classes, minimum=self.min_per_class)
        with self._lock:
            self._table = {}
            if reason is not None:
                self._training, self._fingerprint = None, ""
                return reason
            keys = [prompt_digest(p) for p in prompts]
            self._training = {"keys": keys, "inputs": list(inputs), "labels": labels, "classes": tuple(classes)}
            blob = json.dumps([sorted(zip(keys, labels)), list(classes)], separators=(",", ":"))
            self._fingerprint = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
        return None

    @property
    def fingerprint(self) -> str:
        """Hash of the training set (item inputs and labels, class order); empty before :meth:`train_on`."""
        return self._fingerprint

    def _fit(self) -> None:
        """One fit for the whole training set; duplicates of one input share the mean of their answers."""
        training = self._training
        assert training is not None
        probs = out_of_fold_probs(training["inputs"], training["labels"], training["classes"],
                                  classifier=self.model, folds=self.folds, seed=self.seed)
        sums: dict[str, list[float]] = {}
        counts: dict[str, int] = {}
        for key, row in zip(training["keys"], probs):
            sums[key] = [a + b for a, b in zip(sums.get(key, [0.0] * len(row)), row)]
            counts[key] = counts.get(key, 0) + 1
        self._table = {k: {c: v / counts[k] for c, v in zip(training["classes"], s)} for k, s in sums.items()}
        self.fits += 1
        if self.on_fit is not None:
            self.on_fit(self._table)

    def answer_for(self, prompt: str) -> dict[str, float] | None:
        """The fitted answer for one rendered item (fitting first if needed); None when it was not trained on."""
        with self._lock:
            if self._training is None:
                raise ProviderError("not_fitted", "the confident-learning member was given no training set",
                                    retryable=False)
            if not self._table:
                self._fit()
            return self._table.get(prompt_digest(prompt))

    def classify(self, prompt: str, labels: Sequence[str], *, timeout: float) -> ClassDistribution:
        """The item's out-of-fold probabilities (``timeout`` is unused: nothing is called).

        ``labels`` are the answer tokens the engine reads (lettered options for generic prompts), one per
        class in the task's class order: the answer is given over them, as any judge's would be.
        """
        probs = self.answer_for(prompt)
        if probs is None:
            raise ProviderError("not_in_training_set", "this item was not among the items the member was fitted on",
                                retryable=False)
        return as_tokens(probs, labels)

    def cache_params(self) -> Mapping[str, Any]:
        return {"classifier": self.model, "folds": self.folds, "min_per_class": self.min_per_class,
                "seed": self.seed, "training_set": self._fingerprint}
