"""Ratings of agents from mixed tables (:mod:`.tournament` seats them).

**Rating.** A seat's payoff is modelled as the rating of the agent holding it plus an effect of
its deal and seat (the cards and the position: the luck, which cancels):
``payoff(t, s) ~ rating[agent(t, s)] + luck[deal(t), s]``, fitted by least squares over every
seat of every table. Adding a constant to every rating and taking it from every luck effect
changes no prediction, so the ratings are identified only up to that constant: one agent is
pinned at 0 (the heuristic, else the first agent), and an agent's rating is its payoff per
hand over the pinned agent's, holding the same cards in the same place. Nothing else is lost
as long as the agents sharing a (deal, seat) link the whole population (which takes at least
two tables per deal; :func:`check_identified` refuses a design that does not). The luck
effects are not estimated: subtracting each (deal, seat)'s mean from its payoffs and from the
agents' seat counts leaves the ratings' own least-squares problem (Frisch-Waugh-Lovell), a
system of one equation per agent summed deal by deal. The 95% intervals come from a bootstrap
over deals: deals resampled with replacement (a deal drawn twice counts twice), the ratings
refitted.

**OpenSkill.** From the same games, Plackett-Luce ratings: each table is a match between the
agents at it, ranked by their payoff there (an agent holding several seats of a table enters
once, with its seats' mean payoff: one player cannot be two entrants of a match); a table of one
agent rates nothing. Unlike the fitted ratings, these do not cancel the cards' luck, which only
averages out over many tables.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .bootstrap import SAMPLES
from .report import MAX_RATED_GAMES

_BLOCK = 250  # bootstrap samples refitted at once (bounds the memory of the resampled systems)


def _normal_equations(seating: np.ndarray, payoffs: np.ndarray, agents: int) -> tuple[np.ndarray, np.ndarray]:
    """Each deal's share of the ratings' normal equations, the luck effects taken out: ``(deals,
    agents, agents)`` and ``(deals, agents)``. Within a (deal, seat) of ``m`` tables where agent k
    sat ``n_k`` times and took ``S_k`` in all, with mean payoff ``y``: ``diag(n) - n n' / m`` and
    ``S - n y``."""
    tables, seats = seating.shape[1], seating.shape[2]
    count = np.zeros(seating.shape[:1] + (seats, agents))  # [deal, seat, agent]
    total = np.zeros_like(count)
    deal, _, seat = np.indices(seating.shape)
    np.add.at(count, (deal, seat, seating), 1.0)
    np.add.at(total, (deal, seat, seating), payoffs)
    mean = payoffs.mean(axis=1)  # (deals, seats)
    gram = np.einsum("dsk,kl->dkl", count, np.eye(agents)) - np.einsum("dsk,dsl->dkl", count, count) / tables
    moment = (total - count * mean[..., None]).sum(axis=1)
    return gram, moment


def _reduced(gram: np.ndarray, pinned: int) -> np.ndarray:
    keep = np.delete(np.arange(gram.shape[-1]), pinned)
    return gram[..., keep[:, None], keep]


def check_identified(seating: np.ndarray, agents: int, pinned: int) -> None:
    """A ValueError unless the design identifies every rating once ``pinned``'s is 0: the agents that
    share a (deal, seat) must link the whole population (a design of one table per deal links none)."""
    gram, _ = _normal_equations(seating, np.zeros(seating.shape), agents)
    if agents > 1 and np.linalg.matrix_rank(_reduced(gram.sum(axis=0), pinned)) < agents - 1:
        raise ValueError("the ratings are not identified by this design: the agents seated at the same seat of "
                         "the same deal do not link the whole population; play more deals, or more tables per deal")


def _solve(gram: np.ndarray, moment: np.ndarray, pinned: int) -> np.ndarray:
    """The ratings (pinned's 0) of normal equations ``gram`` and ``moment``, stacked in front."""
    keep = np.delete(np.arange(moment.shape[-1]), pinned)
    solved = np.linalg.solve(_reduced(gram, pinned), moment[..., keep, None])[..., 0]
    ratings = np.zeros(moment.shape)
    ratings[..., keep] = solved
    return ratings


def fit_ratings(seating: np.ndarray, payoffs: np.ndarray, agents: int, pinned: int = 0) -> np.ndarray:
    """``(agents,)`` least-squares ratings: ``payoffs[d, t, s] ~ rating[seating[d, t, s]] + luck[d, s]``,
    with ``rating[pinned] = 0`` (the module docstring)."""
    check_identified(seating, agents, pinned)
    gram, moment = _normal_equations(seating, np.asarray(payoffs, dtype=np.float64), agents)
    return _solve(gram.sum(axis=0), moment.sum(axis=0), pinned)


def bootstrap_ratings(seating: np.ndarray, payoffs: np.ndarray, agents: int, pinned: int, rng: np.random.Generator,
                      samples: int = SAMPLES) -> tuple[np.ndarray, int]:
    """``(kept, agents)`` ratings refitted on deals resampled with replacement, and how many of the
    ``samples`` resamples were left out because they did not identify the ratings (too few deals
    to link the population: never with the default design, whose every deal seats every agent at
    every seat while there are no more agents than tables)."""
    gram, moment = _normal_equations(seating, np.asarray(payoffs, dtype=np.float64), agents)
    deals = len(gram)
    refitted = []
    for start in range(0, samples, _BLOCK):
        block = min(_BLOCK, samples - start)
        picks = rng.integers(0, deals, size=(block, deals))
        weight = np.bincount((np.arange(block)[:, None] * deals + picks).ravel(), minlength=block * deals)
        weight = weight.reshape(block, deals).astype(np.float64)
        grams = (weight @ gram.reshape(deals, -1)).reshape(block, agents, agents)
        moments = weight @ moment
        solvable = np.linalg.matrix_rank(_reduced(grams, pinned)) == agents - 1
        refitted.append(_solve(grams[solvable], moments[solvable], pinned))
    kept = np.concatenate(refitted)
    return kept, samples - len(kept)


def openskill_ratings(seating: np.ndarray, payoffs: np.ndarray, names: Sequence[str]) -> dict[str, dict]:
    """Plackett-Luce ratings, each table a match of its agents ranked by payoff (the module
    docstring); at most ``MAX_RATED_GAMES`` tables, evenly spread, as :func:`.report.ratings`."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = [model.rating(name=name) for name in names]
    tables, pay = seating.reshape(-1, seating.shape[-1]), payoffs.reshape(-1, seating.shape[-1])
    step = max(1, len(tables) // MAX_RATED_GAMES)
    for seated, payoff in zip(tables[::step], pay[::step]):
        entrants = np.unique(seated)
        if len(entrants) < 2:
            continue
        scores = [float(payoff[seated == k].mean()) for k in entrants]
        rated = model.rate([[rating[k]] for k in entrants], scores=scores)
        for k, [new] in zip(entrants, rated):
            rating[k] = new
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in zip(names, rating)}


