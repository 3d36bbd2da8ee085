"""Confidence intervals by bootstrap."""

from __future__ import annotations

import numpy as np

SAMPLES, LEVEL = 2000, 0.95


def bootstrap_ci(per_deal: np.ndarray, rng: np.random.Generator, samples: int = SAMPLES,
                 level: float = LEVEL) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``per_deal`` values (one per deal:
    a deal's seats share the cards, so they are resampled together)."""
    picks = rng.integers(0, len(per_deal), size=(samples, len(per_deal)))
    return percentile_interval(per_deal[picks].mean(axis=1), level)


def percentile_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The central ``level`` interval of bootstrap ``values``: their quantiles ``(1 - level) / 2`` and
    ``(1 + level) / 2``."""
    tail = (1 - level) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def resample_deals(deals: int, rng: np.random.Generator, samples: int = SAMPLES) -> np.ndarray:
    """``(samples, deals)`` deal indices drawn with replacement, one bootstrap resample a row: drawn
    once, they give every figure measured on the same deals its interval from the same resamples."""
    return rng.integers(0, deals, size=(samples, deals))


def sign_symmetric_ci(per_deal: np.ndarray, picks: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of :func:`bootstrap_ci` over the resamples ``picks``
    (:func:`resample_deals`), with its upper end read as minus the lower end of the negated means:
    so the interval of ``-per_deal`` is exactly ``(-high, -low)``, bit for bit (the quantile's
    interpolation, read from the other end, may round differently)."""
    means = per_deal[picks].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(-np.quantile(-means, tail))
