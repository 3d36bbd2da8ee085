"""Aggregating a score over training seeds, as the rliable library does (Agarwal et al., "Deep
Reinforcement Learning at the Edge of the Statistical Precipice", NeurIPS 2021): the mean, the
interquartile mean (IQM) and stratified bootstrap confidence intervals over seeds.

Scores are a ``(seeds, tasks)`` matrix, one row per training seed (a run), one column per task
(here: per opponent, or a single column); a 1-D array is one task. The functions follow rliable's
``metrics.aggregate_mean`` (the mean over tasks of each task's mean over seeds),
``metrics.aggregate_iqm`` (``scipy.stats.trim_mean(scores, 0.25, axis=None)``: the whole matrix,
sorted, without its lowest and highest ``int(0.25 * n)`` values; whole values only, so with 2 or 3
seeds the IQM is the mean, and with 5 it is the mean of the middle 3) and
``library.get_interval_estimates`` (``StratifiedBootstrap``: each task's seeds resampled with
replacement on their own, percentile intervals, 50,000 resamples). rliable itself is not a
dependency: it would bring arch, statsmodels, seaborn and their dependencies for these few lines.

A percentile interval over a handful of seeds is narrow: its resamples never leave the range of
the seeds measured, so with 3 seeds it says how far apart the seeds were, not where a fourth would fall.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .bootstrap import LEVEL, percentile_interval

MIN_SEEDS = 2  # a bootstrap over one seed has nothing to resample
BOOTSTRAP_RESAMPLES = 50_000  # rliable's default (get_interval_estimates' reps)
IQM_CUT = 0.25  # the share of the scores trimmed at each end


def score_matrix(scores) -> np.ndarray:
    """``scores`` as a float ``(seeds, tasks)`` matrix (a 1-D array is one task), or a ValueError
    saying what is wrong: fewer than :data:`MIN_SEEDS` seeds, no task, or a value not finite."""
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    if matrix.ndim != 2:
        raise ValueError(f"scores are a (seeds, tasks) matrix or one score per seed; got shape {matrix.shape}")
    if matrix.shape[0] < MIN_SEEDS:
        raise ValueError(f"aggregating over seeds needs at least {MIN_SEEDS} seeds; got {matrix.shape[0]}")
    if matrix.shape[1] < 1:
        raise ValueError("scores hold no task (a (seeds, 0) matrix)")
    if not np.isfinite(matrix).all():
        raise ValueError(f"scores must be finite numbers; got {matrix[~np.isfinite(matrix)][0]!r}")
    return matrix


def aggregate_mean(scores) -> float:
    """rliable's ``aggregate_mean``: the mean over tasks of each task's mean over seeds."""
    return float(_mean_over_tasks(score_matrix(scores)[None])[0])


def interquartile_mean(scores) -> float:
    """rliable's ``aggregate_iqm``: the mean of all the scores (every seed of every task) without
    the lowest and the highest ``int(0.25 * n)`` of them (``scipy.stats.trim_mean(scores, 0.25)``)."""
    return float(_trimmed_means(score_matrix(scores)[None])[0])


def _mean_over_tasks(resamples: np.ndarray) -> np.ndarray:
    """``(reps, seeds, tasks)`` -> ``(reps,)``: :func:`aggregate_mean` of each."""
    return resamples.mean(axis=1).mean(axis=1)


def _trimmed_means(resamples: np.ndarray) -> np.ndarray:
    """``(reps, seeds, tasks)`` -> ``(reps,)``: :func:`interquartile_mean` of each."""
    flat = np.sort(resamples.reshape(len(resamples), -1), axis=1)
    cut = int(IQM_CUT * flat.shape[1])
    return flat[:, cut:flat.shape[1] - cut].mean(axis=1)


STATISTICS = {"mean": _mean_over_tasks, "iqm": _trimmed_means}
"""The aggregates by name, each from ``(reps, seeds, tasks)`` resamples to one value per resample."""


def stratified_resamples(matrix: np.ndarray, rng: np.random.Generator, reps: int) -> np.ndarray:
    """``(reps, seeds, tasks)``: rliable's ``StratifiedBootstrap`` without task resampling: in each
    resample, every task's seeds drawn with replacement from that task's own, independently of the
    other tasks' (a task is a stratum); with one task, a plain bootstrap over seeds."""
    seeds, tasks = matrix.shape
    picks = rng.integers(0, seeds, size=(reps, seeds, tasks))
    return matrix[picks, np.arange(tasks)]


def bootstrap_ci(scores, statistic: str, seed: int, reps: int = BOOTSTRAP_RESAMPLES,
                 level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval at ``level`` of ``statistic`` (a key of :data:`STATISTICS`) over
    :func:`stratified_resamples` of the seeds, drawn from ``np.random.default_rng(seed)``:
    the same seed, the same interval."""
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r}; the statistics are {', '.join(STATISTICS)}")
    if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
        raise ValueError(f"reps must be a whole number of at least 1; got {reps!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1); got {level!r}")
    return percentile_interval(
        STATISTICS[statistic](stratified_resamples(score_matrix(scores), np.random.default_rng(seed), reps)), level)


@dataclass(frozen=True)
class SeedAggregate:
    """A score aggregated over seeds: the mean and the IQM, each with its bootstrap interval over seeds."""

    seeds: int
    mean: float
    mean_ci: tuple
    iqm: float
    iqm_ci: tuple

    def as_dict(self) -> dict:
        return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(self).items()}


def aggregate(scores, seed: int = 0, reps: int = BOOTSTRAP_RESAMPLES, level: float = LEVEL) -> SeedAggregate:
    """The mean and the IQM of ``scores`` (per seed, or ``(seeds, tasks)``), with their stratified
    bootstrap intervals over seeds; each interval from its own generator of ``seed``, as rliable
    computes each aggregate's interval on its own."""
    matrix = score_matrix(scores)
    return SeedAggregate(seeds=matrix.shape[0],
                         mean=aggregate_mean(matrix), mean_ci=bootstrap_ci(matrix, "mean", seed, reps, level),
                         iqm=interquartile_mean(matrix), iqm_ci=bootstrap_ci(matrix, "iqm", seed, reps, level))


def _cell(value: float, ci) -> str:
    if ci[0] == ci[1] == value:  # a bootstrap over one deal (or one seed) resamples it alone: no interval
        return f"{value:+.3f} (no CI: one deal or seed)"
    return f"{value:+.3f} ({ci[0]:+.3f}, {ci[1]:+.3f})"


def seeds_table(seeds, runs, scores: dict, aggregates: dict) -> str:
    """A Markdown table with a row per seed (its run and, in each column of ``scores``, its score
    with the interval it came with), then the mean and the IQM over seeds, with their intervals over
    seeds. ``scores`` maps a column's title to one ``(score, (low, high))`` per seed, and
    ``aggregates`` the same titles to their :class:`SeedAggregate`."""
    columns = list(scores)
    if any(len(scores[title]) != len(seeds) for title in columns) or len(runs) != len(seeds):
        raise ValueError("seeds_table needs one run and, in every column, one score per seed")
    rows = ["| seed | run | " + " | ".join(columns) + " |", "|---:|---|" + "---|" * len(columns)]
    for i, (seed, run) in enumerate(zip(seeds, runs)):
        rows.append(f"| {seed} | {run} | " + " | ".join(_cell(*scores[title][i]) for title in columns) + " |")
    for name, label in (("mean", "mean over seeds"), ("iqm", "IQM over seeds")):
        cells = [_cell(getattr(aggregates[title], name), getattr(aggregates[title], f"{name}_ci")) for title in columns]
        rows.append(f"| **{label}** | (95% CI over seeds) | " + " | ".join(cells) + " |")
    return "\n".join(rows)
