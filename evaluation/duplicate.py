"""Paired duplicate evaluation of two agents, and round robins of several.

For agents A and B and each deal, twelve games are played: all-B, then A at
each seat s among four B's (five games); all-A, then B at each seat among
four A's (five games). A's **edge** over B on (deal, s) is A's payoff at s
among B's minus B's payoff at s in the all-B game: the same cards, the same
position, only the player changed. So luck of the deal cancels out, and every
agent holds every hand in every position. Means are per hand; the 95%
confidence intervals come from a bootstrap over deals (a deal's five seats
stay together, as they share the cards).

:func:`evaluate_table` also plays the tables mixing the two in every other
proportion (two or three copies of A), after those twelve games, and reports
A's **table edge** of :mod:`.table_edge`, whose slices with one and four copies
of A are the twelve games' one-against-four tables: 32 games a deal (22 with
``tables=20``). ``briscola evaluate`` and :func:`round_robin` report it.

A one-sided evaluation plays only the first six games of each deal (all-B,
then one A at each seat): A's edge alone, for agents too costly to seat four
at a table; B's statistics then come from the all-B games. It has no table edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from itertools import combinations
from typing import Callable, ClassVar, Iterator, Optional, Sequence

import numpy as np

from agents import Agent
from agents.play import play_games
from briscola_env import engine
from briscola_env.cards import NUM_SEATS
from briscola_env.records import record as game_record
from briscola_env.rules import RulesConfig

from .bootstrap import bootstrap_ci
from .stats import AgentStats, agent_stats
from .table_edge import LONE_TABLES, TableEdge, a_seats_of_mixed_tables, check_tables, measure, two_seat_sides

GAMES_PER_DEAL = 2 * (1 + NUM_SEATS)
GAMES_PER_DEAL_ONE_SIDED = 1 + NUM_SEATS  # all-B, then A alone at each seat
A, B = 0, 1
# Per seat s, the game of a deal (in duplicate_layout's order) whose hand at s is measured:
ALONE_A = 1 + np.arange(NUM_SEATS)  # A alone at s among B's
ALONE_B = 2 + NUM_SEATS + np.arange(NUM_SEATS)  # B alone at s among A's
ALL_B = np.zeros(NUM_SEATS, dtype=np.int64)  # B at s of the all-B game


def duplicate_layout(num_deals: int, one_sided: bool = False) -> np.ndarray:
    """``(num_deals * 12, 5)`` seat assignments: agent 0 (A) or 1 (B) at each seat; one-sided,
    only each deal's first six games (all-B, then A alone at each seat)."""
    one_deal = [[B] * NUM_SEATS] + [[A if s == k else B for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    if not one_sided:
        one_deal += [[A] * NUM_SEATS] + [[B if s == k else A for s in range(NUM_SEATS)] for k in range(NUM_SEATS)]
    return np.tile(np.array(one_deal), (num_deals, 1))


@dataclass
class Edge:
    """One side of a duplicate evaluation: ``agent`` alone among ``among``'s copies."""

    agent: str
    among: str
    mean: float  # per hand
    ci: tuple  # 95% bootstrap interval over deals
    per_seat: np.ndarray  # (deals, 5) the edge on each deal and seat


@dataclass
class Hands:
    """The hands an agent's statistics were measured on: it held seat ``seat[k]`` of game ``game[k]``."""

    agent: str
    among: str  # the agent at the other four seats
    stats: AgentStats
    game: np.ndarray  # (deals * 5,) indices into the result's games, deal-major
    seat: np.ndarray  # (deals * 5,)


@dataclass
class DuplicateResult:
    """What a duplicate evaluation of A against B measured; :class:`PairResult` (both sides) and
    :class:`OneSidedResult` (A's side alone: B's edge is None) differ only in the games played."""

    a: str
    b: str
    deals: int
    deal_seeds: np.ndarray = field(repr=False)
    edge_a: float  # one A among four B's, against all B's
    edge_a_ci: tuple
    edge_b: Optional[float]  # one B among four A's, against all A's; None one-sided
    edge_b_ci: Optional[tuple]
    per_seat_a: np.ndarray = field(repr=False)  # (deals, 5) A's edge on each deal and seat
    per_seat_b: Optional[np.ndarray] = field(repr=False)
    stats_a: AgentStats = field(repr=False)  # A alone among B's
    stats_b: AgentStats = field(repr=False)  # B alone among A's; one-sided, B at the all-B table
    games: engine.State = field(repr=False)  # every game played (see duplicate_layout)
    actions: list = field(repr=False)  # per chunk of deals, (games, steps) actions, -1 padded

    one_sided: ClassVar[bool]
    games_per_deal: ClassVar[int]
    NOT_MEASURED: ClassVar[str] = "not measured (one-sided)"
    TABLE_EDGE_NOTE: ClassVar[str]  # why the table edge was not measured

    def records(self, rules: Optional[RulesConfig] = None) -> Iterator[dict]:
        """Game records (:mod:`briscola_env.records`) of the games of :func:`duplicate_layout` (every
        game played but a :class:`TableResult`'s mixed tables: see its :meth:`~TableResult.mixed_records`)."""
        names = (self.a, self.b)
        layout = duplicate_layout(self.deals, self.one_sided)
        deals, dealers = engine.deal_from_seeds(self.deal_seeds)
        g = 0
        for actions in self.actions:
            for row in actions:
                d = g // self.games_per_deal
                yield game_record(rules or RulesConfig(), deals[d], dealers[d], row[row >= 0],
                                  [names[k] for k in layout[g]])
                g += 1

    def edges(self) -> list[Edge]:
        """The sides measured: A's, and B's unless one-sided."""
        edges = [Edge(self.a, self.b, self.edge_a, self.edge_a_ci, self.per_seat_a)]
        if not self.one_sided:
            edges.append(Edge(self.b, self.a, self.edge_b, self.edge_b_ci, self.per_seat_b))
        return edges

    @property
    def b_among(self) -> str:
        """Whom B's statistics were measured among: A's copies; one-sided, B's own (the all-B games)."""
        return self.b if self.one_sided else self.a

    def hands(self) -> list[Hands]:
        """A's and B's statistics, each with the hands it was measured on."""
        seat = np.tile(np.arange(NUM_SEATS), self.deals)
        b_games = ALL_B if self.one_sided else ALONE_B
        return [Hands(self.a, self.b, self.stats_a, _games_of(self.deals, self.games_per_deal, ALONE_A), seat),
                Hands(self.b, self.b_among, self.stats_b, _games_of(self.deals, self.games_per_deal, b_games), seat)]

    def as_dict(self) -> dict:
        record = {"a": self.a, "b": self.b, "deals": self.deals, "one_sided": self.one_sided,
                  "edge_a": self.edge_a, "edge_a_ci": list(self.edge_a_ci),
                  "edge_b": self.edge_b, "edge_b_ci": None if self.edge_b_ci is None else list(self.edge_b_ci),
                  "stats_a": self.stats_a.as_dict(), "stats_a_among": self.b,
                  "stats_b": self.stats_b.as_dict(), "stats_b_among": self.b_among}
        if self.one_sided:
            record["edge_b_note"] = self.NOT_MEASURED
        record.update(table_edge=None, table_edge_ci=None, table_edge_by_k=None, table_edge_note=self.TABLE_EDGE_NOTE)
        return record


@dataclass
class PairResult(DuplicateResult):
    """A's and B's paired edges, per hand, with 95% bootstrap intervals: 12 games per deal."""

    one_sided: ClassVar[bool] = False
    games_per_deal: ClassVar[int] = GAMES_PER_DEAL
    TABLE_EDGE_NOTE: ClassVar[str] = ("not measured: only the one-against-four tables were played "
                                      "(evaluation.evaluate_table plays every mix)")


@dataclass
class TableResult(PairResult):
    """:class:`PairResult` and A's table edge over every mix of the two agents (:mod:`.table_edge`):
    ``table_edge``, ``table_edge_ci`` and ``table_edge_by_k``, A's point of view, per hand. What it
    has of :class:`PairResult` (``games``, ``actions``, :meth:`records`, the edges, statistics and
    ratings) is of the twelve games a deal, as before; the tables with two or three copies of A
    are in ``mixed_seating``, ``mixed_actions`` and :meth:`mixed_records`."""

    table: TableEdge = field(repr=False)
    mixed_seating: np.ndarray = field(repr=False)  # (deals * mixed games a deal, 5) A (0) or B (1) at each seat
    mixed_actions: list = field(repr=False)  # per chunk of deals, (games, steps) actions of the mixed tables

    @property
    def table_edge(self) -> float:
        return self.table.edge

    @property
    def table_edge_ci(self) -> tuple:
        return self.table.edge_ci

    @property
    def table_edge_by_k(self) -> list:
        """The :class:`.table_edge.TableSlice` of k = 1..4 copies of A."""
        return self.table.by_k

    @property
    def mixed_games(self) -> int:
        """The games of the tables with two or three copies of A (those :meth:`records` leaves out)."""
        return len(self.mixed_seating)

    def mixed_records(self, rules: Optional[RulesConfig] = None) -> Iterator[dict]:
        """Game records of the tables with two or three copies of A, deal by deal: the games played
        besides those of :meth:`records` (the twelve of :func:`duplicate_layout`)."""
        names = (self.a, self.b)
        per_deal = self.mixed_games // self.deals
        deals, dealers = engine.deal_from_seeds(self.deal_seeds)
        g = 0
        for actions in self.mixed_actions:
            for row in actions:
                d = g // per_deal
                yield game_record(rules or RulesConfig(), deals[d], dealers[d], row[row >= 0],
                                  [names[k] for k in self.mixed_seating[g]])
                g += 1

    def as_dict(self) -> dict:
        record = super().as_dict()
        del record["table_edge_note"]
        record.update(tables=self.table.tables, table_edge=self.table_edge, table_edge_ci=list(self.table_edge_ci),
                      table_edge_by_k=[s.as_dict() for s in self.table_edge_by_k])
        return record


@dataclass
class OneSidedResult(DuplicateResult):
    """A's paired edge over B alone, from 6 games per deal: one A among four B's against the
    all-B game. B's edge is not measured; B's statistics are those of the all-B games."""

    one_sided: ClassVar[bool] = True
    games_per_deal: ClassVar[int] = GAMES_PER_DEAL_ONE_SIDED
    TABLE_EDGE_NOTE: ClassVar[str] = "not measured (one-sided): only A alone among four B's was played"


def _games_of(deals: int, games_per_deal: int, game_in_deal: np.ndarray) -> np.ndarray:
    """``(deals * 5,)`` deal-major: for each deal and seat s, the index of its game ``game_in_deal[s]``."""
    return (np.arange(deals)[:, None] * games_per_deal + game_in_deal).ravel()


def _stats(games: engine.State, game_of: np.ndarray, deal_seeds: np.ndarray,
           ci_rng: np.random.Generator) -> AgentStats:
    """Statistics of the agent at each seat s of the games ``game_of`` (see :func:`_games_of`)."""
    deals = len(deal_seeds)
    seat_of, deal_of = np.tile(np.arange(NUM_SEATS), deals), np.repeat(np.arange(deals), NUM_SEATS)
    seat_of_card, _ = engine.deal_from_seeds(deal_seeds)
    dealt = seat_of_card[deal_of] == seat_of[:, None]  # the hand it was dealt
    return agent_stats(games.take(game_of), seat_of, deal_of, ci_rng, dealt)


def _seed(agent_a: Agent, agent_b: Agent, deals: int, seed: int) -> np.ndarray:
    """The deals' seeds, and both agents reseeded: everything from ``seed``."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    rng = np.random.default_rng(seed)
    deal_seeds = rng.integers(0, engine.MAX_SEED, deals)
    agent_a.reset(int(rng.integers(2**32)))
    agent_b.reset(int(rng.integers(2**32)))
    return deal_seeds


def _play(agent_a: Agent, agent_b: Agent, deals: int, seed: int, rules: Optional[RulesConfig], chunk: int,
          one_sided: bool, progress: Optional[Callable[[int], None]]):
    """Every deal's games of :func:`duplicate_layout`, ``chunk`` deals at a time: the deal seeds,
    the games, the actions per chunk and the edges ``(deals, sides, 5)`` (side 0: A alone)."""
    deal_seeds = _seed(agent_a, agent_b, deals, seed)
    layout = duplicate_layout(1, one_sided)
    sides = len(layout) // (1 + NUM_SEATS)
    edges = np.empty((deals, sides, NUM_SEATS))
    played, history = [], []
    for start in range(0, deals, chunk):
        n = min(chunk, deals - start)
        state, actions = play_games([agent_a, agent_b], np.tile(layout, (n, 1)),
                                    np.repeat(deal_seeds[start:start + n], len(layout)), rules)
        history.append(actions)
        pay = state.rewards.reshape(n, sides, 1 + NUM_SEATS, NUM_SEATS)  # [deal, who is alone, game, seat]
        alone = pay[:, :, 1:][:, :, np.arange(NUM_SEATS), np.arange(NUM_SEATS)]  # his own seat
        edges[start:start + n] = alone - pay[:, :, 0, :]
        played.append(state)
        if progress:
            progress(start + n)
    return deal_seeds, engine.concatenate(played), history, edges


def _pair_result(deals: int, seed: int, names: tuple, deal_seeds: np.ndarray, games: engine.State, history: list,
                 edges: np.ndarray) -> PairResult:
    """The :class:`PairResult` of :func:`_play`'s two-sided games (the intervals drawn from ``seed + 1``)."""
    per_deal = edges.mean(axis=2)  # (deals, 2): a deal's seats share the cards, so they resample together
    ci_rng = np.random.default_rng(seed + 1)
    stats_a, stats_b = (_stats(games, _games_of(deals, GAMES_PER_DEAL, alone), deal_seeds, ci_rng)
                        for alone in (ALONE_A, ALONE_B))
    return PairResult(names[0], names[1], deals, deal_seeds,
                      edge_a=float(per_deal[:, A].mean()), edge_a_ci=bootstrap_ci(per_deal[:, A], ci_rng),
                      edge_b=float(per_deal[:, B].mean()), edge_b_ci=bootstrap_ci(per_deal[:, B], ci_rng),
                      per_seat_a=edges[:, A], per_seat_b=edges[:, B], stats_a=stats_a, stats_b=stats_b,
                      games=games, actions=history)


def evaluate_pair(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                  rules: Optional[RulesConfig] = None, chunk: int = 256, names: tuple = ("A", "B"),
                  progress: Optional[Callable[[int], None]] = None) -> PairResult:
    """Paired duplicate evaluation of A against B on ``deals`` seeded deals.

    Deals are played ``chunk`` at a time (12 games each); ``progress(n)`` is
    called with the number of deals done after each chunk. :func:`evaluate_table`
    adds the table edge."""
    deal_seeds, games, history, edges = _play(agent_a, agent_b, deals, seed, rules, chunk, False, progress)
    return _pair_result(deals, seed, names, deal_seeds, games, history, edges)


def evaluate_one_sided(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                       rules: Optional[RulesConfig] = None, chunk: int = 256, names: tuple = ("A", "B"),
                       progress: Optional[Callable[[int], None]] = None) -> OneSidedResult:
    """A's edge of :func:`evaluate_pair` only, from half its games (all-B, then A alone at each
    seat) on the same deals: for agents too costly to seat four at a table, such as search
    (four search agents bid against each other for a long time)."""
    deal_seeds, games, history, edges = _play(agent_a, agent_b, deals, seed, rules, chunk, True, progress)
    per_deal = edges[:, A].mean(axis=1)
    ci_rng = np.random.default_rng(seed + 1)  # B's statistics draw last: A's interval is that of earlier runs
    stats_a = _stats(games, _games_of(deals, GAMES_PER_DEAL_ONE_SIDED, ALONE_A), deal_seeds, ci_rng)
    edge_a_ci = bootstrap_ci(per_deal, ci_rng)
    stats_b = _stats(games, _games_of(deals, GAMES_PER_DEAL_ONE_SIDED, ALL_B), deal_seeds, ci_rng)
    return OneSidedResult(names[0], names[1], deals, deal_seeds, edge_a=float(per_deal.mean()), edge_a_ci=edge_a_ci,
                          edge_b=None, edge_b_ci=None, per_seat_a=edges[:, A], per_seat_b=None,
                          stats_a=stats_a, stats_b=stats_b, games=games, actions=history)


def games_per_deal(tables: Optional[int] = None) -> int:
    """The games :func:`evaluate_table` plays a deal for ``tables`` (None: 30): the twelve of
    :func:`evaluate_pair`, whose lone-agent games are the tables with one or four copies of A, then
    the tables with two or three."""
    return GAMES_PER_DEAL + check_tables(tables) - LONE_TABLES


def _play_mixed(agent_a: Agent, agent_b: Agent, deal_seeds: np.ndarray, a_here: np.ndarray,
                rules: Optional[RulesConfig], chunk: int, progress: Callable[[int], None]):
    """The tables of ``a_here`` ``(deals, pairs, 2, 5)`` (:func:`.table_edge.a_seats_of_mixed_tables`),
    each deal's in order, in batches of as many deals as fit in the ``chunk * 12`` games of a batch of
    :func:`_play` (so memory stays as bounded): the seating ``(games, 5)``, the payoffs
    ``(deals, pairs, 2, 5)`` and the actions of each batch."""
    deals, per_deal = len(deal_seeds), a_here.shape[1] * a_here.shape[2]
    seating = np.where(a_here, A, B).reshape(deals * per_deal, NUM_SEATS)
    payoffs = np.empty((deals * per_deal, NUM_SEATS), dtype=np.float32)
    step, history = max(1, chunk * GAMES_PER_DEAL // per_deal), []
    for start in range(0, deals, step):
        games = slice(start * per_deal, min(start + step, deals) * per_deal)
        state, actions = play_games([agent_a, agent_b], seating[games],
                                    np.repeat(deal_seeds[start:start + step], per_deal), rules)
        payoffs[games] = state.rewards
        history.append(actions)
        progress(games.stop)
    return seating, payoffs.reshape(a_here.shape), history


def evaluate_table(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                   rules: Optional[RulesConfig] = None, tables: Optional[int] = None, chunk: int = 256,
                   names: tuple = ("A", "B"), progress: Optional[Callable[[int], None]] = None) -> TableResult:
    """A's table edge over B (:mod:`.table_edge`) on ``deals`` seeded deals, with everything of
    :func:`evaluate_pair` on the same deals, unchanged (its games, edges, statistics and intervals,
    bit for bit: its twelve games a deal are played first, as it plays them).

    ``tables``: per deal, 30 (None: every seating of the two with both present) or 20, for costly
    agents (5 of the 10 seatings with two copies of A and their 5 complements, chosen per deal from
    ``seed``, A at every seat equally often within each k; see :func:`.table_edge.check_tables` for
    why no other count): 32 or 22 games a deal. Fewer tables make each deal's mean noisier, so the
    interval widens, and the bootstrap over deals still covers that noise. The agents are seeded as
    :func:`evaluate_pair` seeds them, in the order given, and their generators run on into the mixed
    tables; ``progress(n)`` is called with the number of this pair's games played after each batch."""
    tables = check_tables(tables)  # before any game
    counted = progress or (lambda games: None)
    deal_seeds, games, history, edges = _play(agent_a, agent_b, deals, seed, rules, chunk, False,
                                              lambda done: counted(done * GAMES_PER_DEAL))
    pair = _pair_result(deals, seed, names, deal_seeds, games, history, edges)
    sides = two_seat_sides(deals, seed, tables)
    seating, mixed, mixed_history = _play_mixed(agent_a, agent_b, deal_seeds, a_seats_of_mixed_tables(sides), rules,
                                                chunk, lambda done: counted(deals * GAMES_PER_DEAL + done))
    pay = games.rewards.reshape(deals, 2, 1 + NUM_SEATS, NUM_SEATS)  # [deal, who is alone, game, seat]
    table = measure(alone_a=pay[:, A, 1:], alone_b=pay[:, B, 1:], all_a=pay[:, B, 0], all_b=pay[:, A, 0],
                    lone_gain=edges, mixed=mixed, sides=sides, seed=seed)
    return TableResult(**{f.name: getattr(pair, f.name) for f in fields(pair)}, table=table, mixed_seating=seating,
                       mixed_actions=mixed_history)


def round_robin(agents: Sequence[Agent], names: Sequence[str], deals: int, seed: int = 0,
                rules: Optional[RulesConfig] = None, tables: Optional[int] = None, **kwargs) -> list[TableResult]:
    """:func:`evaluate_table` for every pair of agents, on the same deals."""
    return [evaluate_table(agents[i], agents[j], deals, seed, rules, tables, names=(names[i], names[j]), **kwargs)
            for i, j in combinations(range(len(agents)), 2)]
