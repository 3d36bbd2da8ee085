"""Confidence intervals by bootstrap."""

from __future__ import annotations

import numpy as np


def bootstrap_ci(per_deal: np.ndarray, rng: np.random.Generator, samples: int = 2000,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``per_deal`` values (one per deal:
    a deal's seats share the cards, so they are resampled together)."""
    picks = rng.integers(0, len(per_deal), size=(samples, len(per_deal)))
    means = per_deal[picks].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))
