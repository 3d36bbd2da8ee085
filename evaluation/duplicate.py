"""Paired duplicate evaluation of two agents, and round robins of several.

For agents A and B and each deal, twelve games are played: all-B, then A at
each seat s among four B's (five games); all-A, then B at each seat among
four A's (five games). A's **edge** over B on (deal, s) is A's payoff at s
among B's minus B's payoff at s in the all-B game: the same cards, the same
position, only the player changed. So luck of the deal cancels out, and every
agent holds every hand in every position. Means are per hand; the 95%
confidence intervals come from a bootstrap over deals (a deal's five seats
stay together, as they share the cards).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Optional, Sequence

import numpy as np

from agents import Agent
from briscola_env.cards import NUM_SEATS
from briscola_env.rules import RulesConfig

from .play import play_games

GAMES_PER_DEAL = 2 * (1 + NUM_SEATS)
A, B = 0, 1


def duplicate_layout(num_deals: int) -> np.ndarray:
    """``(num_deals * 12, 5)`` seat assignments: agent 0 (A) or 1 (B) at each seat."""
    one_deal = [[B] * NUM_SEATS] + [[A if s == k else B for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    one_deal += [[A] * NUM_SEATS] + [[B if s == k else A for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    return np.tile(np.array(one_deal), (num_deals, 1))


def bootstrap_ci(per_deal: np.ndarray, rng: np.random.Generator, samples: int = 2000,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``per_deal`` values."""
    picks = rng.integers(0, len(per_deal), size=(samples, len(per_deal)))
    means = per_deal[picks].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


@dataclass
class PairResult:
    """A's and B's paired edges, per hand, with 95% bootstrap intervals."""

    a: str
    b: str
    deals: int
    edge_a: float  # one A among four B's, against all B's
    edge_a_ci: tuple
    edge_b: float  # one B among four A's, against all A's
    edge_b_ci: tuple
    per_deal_a: np.ndarray = field(repr=False)  # (deals,) A's mean edge over the five seats of each deal
    per_deal_b: np.ndarray = field(repr=False)

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "deals": self.deals,
                "edge_a": self.edge_a, "edge_a_ci": list(self.edge_a_ci),
                "edge_b": self.edge_b, "edge_b_ci": list(self.edge_b_ci)}


def evaluate_pair(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                  rules: Optional[RulesConfig] = None, chunk: int = 256, names: tuple = ("A", "B"),
                  progress: Optional[Callable[[int], None]] = None) -> PairResult:
    """Paired duplicate evaluation of A against B on ``deals`` seeded deals.

    Deals are played ``chunk`` at a time (12 games each); ``progress(n)`` is
    called with the number of deals done after each chunk."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    rng = np.random.default_rng(seed)
    deal_seeds = rng.integers(0, 2**57, deals)
    agent_a.reset(int(rng.integers(2**32)))
    agent_b.reset(int(rng.integers(2**32)))
    edges = np.empty((deals, 2, NUM_SEATS))
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        state = play_games([agent_a, agent_b], duplicate_layout(n), np.repeat(deal_seeds[start:start + n],
                                                                            GAMES_PER_DEAL), rules)
        pay = state.rewards.reshape(n, 2, 1 + NUM_SEATS, NUM_SEATS)  # [deal, who is alone, game, seat]
        alone = pay[:, :, 1:][:, :, np.arange(NUM_SEATS), np.arange(NUM_SEATS)]  # his own seat
        edges[start:start + n] = alone - pay[:, :, 0, :]
        if progress:
            progress(start + n)
    per_deal = edges.mean(axis=2)  # (deals, 2)
    ci_rng = np.random.default_rng(seed + 1)
    return PairResult(names[0], names[1], deals,
                      float(per_deal[:, A].mean()), bootstrap_ci(per_deal[:, A], ci_rng),
                      float(per_deal[:, B].mean()), bootstrap_ci(per_deal[:, B], ci_rng),
                      per_deal[:, A], per_deal[:, B])


def round_robin(agents: Sequence[Agent], names: Sequence[str], deals: int, seed: int = 0,
                rules: Optional[RulesConfig] = None, **kwargs) -> list[PairResult]:
    """:func:`evaluate_pair` for every pair of agents, on the same deals."""
    return [evaluate_pair(agents[i], agents[j], deals, seed, rules, names=(names[i], names[j]), **kwargs)
            for i, j in combinations(range(len(agents)), 2)]
