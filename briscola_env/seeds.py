"""Deal seeds by purpose: the deals a model learns from are not those it is measured on.

Each purpose of :data:`PURPOSES` has a stream of deal seeds of its own for every run seed:
its generator is keyed by the purpose's name (a NumPy ``SeedSequence`` whose spawn key is
the name), so it shares no state with another purpose's, nor with the plain
``np.random.default_rng(seed)`` from which ``briscola evaluate`` and ``briscola session``
draw their deals, whatever the seeds. Two streams then meet only by a collision of 57-bit
seeds (odds of about ``n * m / 2**57`` for n and m deals: below 1e-9 for a million against
a hundred); where a model records the deals it was trained on, :func:`refuse_training_deals`
makes even that a clear error rather than a silent leak.

The training environment of ``train.py`` draws its deals as it goes from
``seed_sequence("train-env", seed)``; a belief model's games come from ``"belief-train"``
and its held-out games from ``"belief-heldout"``; ``briscola concealment`` plays those of
``"concealment"``; ``briscola tournament`` plays those of ``"tournament"``; ``briscola label``
(search labels for distillation) those of ``"label"``.
"""

from __future__ import annotations

import numpy as np

from .engine.deal import MAX_SEED

PURPOSES = ("train-env", "belief-train", "belief-heldout", "concealment", "tournament", "label")


def seed_sequence(purpose: str, seed: int) -> np.random.SeedSequence:
    """The seed of ``purpose``'s stream for the run seed ``seed`` (give it to
    ``np.random.default_rng``, or to anything that seeds a generator with it)."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown deal purpose {purpose!r}; the purposes are {', '.join(PURPOSES)}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"a run seed is a whole number of at least 0; got {seed!r}")
    return np.random.SeedSequence(int(seed), spawn_key=(int.from_bytes(purpose.encode(), "big"),))


def deal_seeds(purpose: str, seed: int, count: int) -> np.ndarray:
    """The first ``count`` deal seeds of ``purpose``'s stream for ``seed`` (int64, each below
    the engine's ``MAX_SEED``); a shorter count gives the start of a longer one."""
    if isinstance(count, (bool, np.bool_)) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"a count of deals is a whole number of at least 0; got {count!r}")
    return np.random.default_rng(seed_sequence(purpose, seed)).integers(0, MAX_SEED, count)


def refuse_training_deals(measured: np.ndarray, trained_on: np.ndarray, model: str) -> None:
    """A ValueError if any deal seed of ``measured`` is among those ``model`` was trained on:
    measured there, a model scores what it remembers, not what it can tell."""
    shared = np.intersect1d(measured, trained_on)
    if shared.size:
        raise ValueError(f"{shared.size} of the {np.unique(measured).size} deals to measure on are among the "
                         f"{np.unique(trained_on).size} deals {model} was trained on (deal seed {shared[0]}, ...): "
                         "measure it on other deals")
