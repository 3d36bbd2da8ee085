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
from typing import Callable, Iterator, Optional, Sequence

import numpy as np

from agents import Agent
from briscola_env import engine
from briscola_env.cards import NUM_SEATS
from briscola_env.records import record as game_record
from briscola_env.rules import RulesConfig

from .bootstrap import bootstrap_ci
from .play import play_games
from .stats import AgentStats, agent_stats

GAMES_PER_DEAL = 2 * (1 + NUM_SEATS)
A, B = 0, 1


def duplicate_layout(num_deals: int) -> np.ndarray:
    """``(num_deals * 12, 5)`` seat assignments: agent 0 (A) or 1 (B) at each seat."""
    one_deal = [[B] * NUM_SEATS] + [[A if s == k else B for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    one_deal += [[A] * NUM_SEATS] + [[B if s == k else A for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    return np.tile(np.array(one_deal), (num_deals, 1))


@dataclass
class PairResult:
    """A's and B's paired edges, per hand, with 95% bootstrap intervals."""

    a: str
    b: str
    deals: int
    deal_seeds: np.ndarray = field(repr=False)
    edge_a: float  # one A among four B's, against all B's
    edge_a_ci: tuple
    edge_b: float  # one B among four A's, against all A's
    edge_b_ci: tuple
    per_seat_a: np.ndarray = field(repr=False)  # (deals, 5) A's edge on each deal and seat
    per_seat_b: np.ndarray = field(repr=False)
    stats_a: AgentStats = field(repr=False)  # A alone among B's
    stats_b: AgentStats = field(repr=False)  # B alone among A's
    games: engine.State = field(repr=False)  # every game played, 12 per deal (see duplicate_layout)
    actions: list = field(repr=False)  # per chunk of deals, (games, steps) actions, -1 padded

    def records(self, rules: Optional[RulesConfig] = None) -> Iterator[dict]:
        """Game records (:mod:`briscola_env.records`) of every game played."""
        names = (self.a, self.b)
        layout = duplicate_layout(self.deals)
        deals, dealers = engine.deal_from_seeds(self.deal_seeds)
        g = 0
        for actions in self.actions:
            for row in actions:
                d = g // GAMES_PER_DEAL
                yield game_record(rules or RulesConfig(), deals[d], dealers[d], row[row >= 0],
                                  [names[k] for k in layout[g]])
                g += 1

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "deals": self.deals,
                "edge_a": self.edge_a, "edge_a_ci": list(self.edge_a_ci),
                "edge_b": self.edge_b, "edge_b_ci": list(self.edge_b_ci),
                "stats_a": self.stats_a.as_dict(), "stats_b": self.stats_b.as_dict()}


def _seed(agent_a: Agent, agent_b: Agent, deals: int, seed: int) -> np.ndarray:
    """The deals' seeds, and both agents reseeded: everything from ``seed``."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    rng = np.random.default_rng(seed)
    deal_seeds = rng.integers(0, 2**57, deals)
    agent_a.reset(int(rng.integers(2**32)))
    agent_b.reset(int(rng.integers(2**32)))
    return deal_seeds


def evaluate_pair(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                  rules: Optional[RulesConfig] = None, chunk: int = 256, names: tuple = ("A", "B"),
                  progress: Optional[Callable[[int], None]] = None) -> PairResult:
    """Paired duplicate evaluation of A against B on ``deals`` seeded deals.

    Deals are played ``chunk`` at a time (12 games each); ``progress(n)`` is
    called with the number of deals done after each chunk."""
    deal_seeds = _seed(agent_a, agent_b, deals, seed)
    edges = np.empty((deals, 2, NUM_SEATS))
    played, history = [], []
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        state, actions = play_games([agent_a, agent_b], duplicate_layout(n),
                                    np.repeat(deal_seeds[start:start + n], GAMES_PER_DEAL), rules)
        history.append(actions)
        pay = state.rewards.reshape(n, 2, 1 + NUM_SEATS, NUM_SEATS)  # [deal, who is alone, game, seat]
        alone = pay[:, :, 1:][:, :, np.arange(NUM_SEATS), np.arange(NUM_SEATS)]  # his own seat
        edges[start:start + n] = alone - pay[:, :, 0, :]
        played.append(state)
        if progress:
            progress(start + n)
    games = engine.concatenate(played)
    per_deal = edges.mean(axis=2)  # (deals, 2): a deal's seats share the cards, so they resample together
    ci_rng = np.random.default_rng(seed + 1)
    game_of = np.arange(deals)[:, None] * GAMES_PER_DEAL + 1 + np.arange(NUM_SEATS)  # A alone at seat s
    seat_of = np.tile(np.arange(NUM_SEATS), deals)
    deal_of = np.repeat(np.arange(deals), NUM_SEATS)
    seat_of_card, _ = engine.deal_from_seeds(deal_seeds)
    dealt = seat_of_card[deal_of] == seat_of[:, None]  # the hand each lone agent was dealt
    stats = [agent_stats(games.take(game_of.ravel() + offset), seat_of, deal_of, ci_rng, dealt)
             for offset in (0, 1 + NUM_SEATS)]
    return PairResult(names[0], names[1], deals, deal_seeds,
                      float(per_deal[:, A].mean()), bootstrap_ci(per_deal[:, A], ci_rng),
                      float(per_deal[:, B].mean()), bootstrap_ci(per_deal[:, B], ci_rng),
                      edges[:, A], edges[:, B], stats[0], stats[1], games, history)


@dataclass
class OneSidedResult:
    """A's paired edge over B alone: one A among four B's against the all-B game."""

    a: str
    b: str
    deals: int
    edge_a: float
    edge_a_ci: tuple
    per_seat_a: np.ndarray = field(repr=False)  # (deals, 5)
    stats_a: AgentStats = field(repr=False)  # A alone among B's


def evaluate_one_sided(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                       rules: Optional[RulesConfig] = None, chunk: int = 256, names: tuple = ("A", "B"),
                       progress: Optional[Callable[[int], None]] = None) -> OneSidedResult:
    """A's edge of :func:`evaluate_pair` only, from half its games (all-B, then A alone at each
    seat) on the same deals: for agents too costly to seat four at a table, such as search
    (four search agents bid against each other for a long time)."""
    deal_seeds = _seed(agent_a, agent_b, deals, seed)
    per_deal_games = 1 + NUM_SEATS
    layout = duplicate_layout(1)[:per_deal_games]
    edges = np.empty((deals, NUM_SEATS))
    played = []
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        state, _ = play_games([agent_a, agent_b], np.tile(layout, (n, 1)),
                              np.repeat(deal_seeds[start:start + n], per_deal_games), rules)
        pay = state.rewards.reshape(n, per_deal_games, NUM_SEATS)
        edges[start:start + n] = pay[:, 1:][:, np.arange(NUM_SEATS), np.arange(NUM_SEATS)] - pay[:, 0, :]
        played.append(state)
        if progress:
            progress(start + n)
    games = engine.concatenate(played)
    ci_rng = np.random.default_rng(seed + 1)
    alone = (np.arange(deals)[:, None] * per_deal_games + 1 + np.arange(NUM_SEATS)).ravel()
    seat_of, deal_of = np.tile(np.arange(NUM_SEATS), deals), np.repeat(np.arange(deals), NUM_SEATS)
    seat_of_card, _ = engine.deal_from_seeds(deal_seeds)
    stats = agent_stats(games.take(alone), seat_of, deal_of, ci_rng, seat_of_card[deal_of] == seat_of[:, None])
    per_deal = edges.mean(axis=1)
    return OneSidedResult(names[0], names[1], deals, float(per_deal.mean()), bootstrap_ci(per_deal, ci_rng),
                          edges, stats)


def round_robin(agents: Sequence[Agent], names: Sequence[str], deals: int, seed: int = 0,
                rules: Optional[RulesConfig] = None, **kwargs) -> list[PairResult]:
    """:func:`evaluate_pair` for every pair of agents, on the same deals."""
    return [evaluate_pair(agents[i], agents[j], deals, seed, rules, names=(names[i], names[j]), **kwargs)
            for i, j in combinations(range(len(agents)), 2)]
