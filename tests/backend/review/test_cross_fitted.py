"""Calibration.cross_fitted: every item scored by fold models, none of them fitted on a control item's own verdict."""

from __future__ import annotations

import numpy as np
import pytest

from backend.review.calibration import _features, _model, _predict, fit_calibration


@pytest.mark.parametrize("method", ["logistic", "isotonic"])
def test_cross_fitted_is_the_average_of_the_fold_models(method):
    rng = np.random.default_rng(0)
    wrong = rng.uniform(size=120) < 0.25
    scores = np.clip(rng.uniform(0, 0.6, size=120) + 0.4 * wrong, 0, 1)
    fit = fit_calibration(scores, wrong, method=method)
    assert len(fit.folds) == 5
    others = np.linspace(0, 1, 11)
    by_hand = np.mean([_predict(fold, _features(others, method)) for fold in fit.folds], axis=0)
    assert fit.cross_fitted(others) == pytest.approx(np.clip(by_hand, 0, 1))
    # each fold model is fitted without its test fifth: refitting the full model changes the answer
    full = _predict(_model(method, 0).fit(_features(scores, method), wrong.astype(int)), _features(others, method))
    assert not np.allclose(fit.cross_fitted(others), full)
    assert np.all(np.diff(fit.cross_fitted(others)) >= -1e-12)  # still increasing in the score
