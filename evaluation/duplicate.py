"""Paired duplicate evaluation of two agents, and round robins of several.

For agents A and B and each deal, twelve games are played: all-B, then A at
each seat s among four B's (five games); all-A, then B at each seat among
four A's (five games). A's **edge** over B on (deal, s) is A's payoff at s
among B's minus B's payoff at s in the all-B game: the same cards, the same
position, only the player changed. So luck of the deal cancels out, and every
agent holds every hand in every position. Means are per hand; the 95%
confidence intervals come from a bootstrap over deals (a deal's five seats
stay together, as they share the cards).

At a table of four (``RulesConfig(players=4)``) the same with four seats: ten games a deal (all-B,
A alone at each seat among three B's, all-A, B alone at each seat), and the table edge's 14 tables
(:mod:`.table_edge`): 16 games a deal. The seats are those of the rules' table throughout.

:func:`evaluate_table` also plays the tables mixing the two in every other
proportion (two or three copies of A), after those twelve games, and reports
A's **table edge** of :mod:`.table_edge`, whose slices with one and four copies
of A are the twelve games' one-against-four tables: 32 games a deal (22 with
``tables=20``). ``briscola evaluate`` and :func:`round_robin` report it.

A one-sided evaluation plays only the first six games of each deal (all-B,
then one A at each seat): A's edge alone, for agents too costly to seat four
at a table; B's statistics then come from the all-B games. It has no table edge.

The deals are played in chunks (:func:`.parallel.deal_chunks`), each a piece of
work computed from its own inputs alone, with the agents reseeded from the run
seed, the chunk's index and their role in its games (:func:`_play_chunk`): so the
results are the same in this process and as Ray tasks (``workers``), whatever
their number. (Before, one generator per agent, seeded once, ran on across the
chunks: agents that draw random numbers now play other games on the same seed
than they did then; deterministic ones play the same.)
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
from briscola_env.rules import RulesConfig, resolve_rules

from .bootstrap import bootstrap_ci
from .parallel import check_workers, deal_chunks, piece_seed, ray_for, run_pieces
from .stats import AgentStats, agent_stats
from .table_edge import TableEdge, a_seats_of_mixed_tables, check_tables, lone_tables, measure, two_seat_sides

A, B = 0, 1


def lone_games(seats: int = NUM_SEATS) -> int:
    """A side's games a deal at a table of ``seats``: all-B, then A alone at each seat."""
    return 1 + seats


GAMES_PER_DEAL = 2 * lone_games()  # 12 at five seats
GAMES_PER_DEAL_ONE_SIDED = lone_games()  # 6: all-B, then A alone at each seat


def measured_games(seats: int = NUM_SEATS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per seat s, the game of a deal (in duplicate_layout's order) whose hand at s is measured:
    ``(A alone at s among B's, B alone at s among A's, B at s of the all-B game)``."""
    return (1 + np.arange(seats), 1 + lone_games(seats) + np.arange(seats), np.zeros(seats, dtype=np.int64))


ALONE_A, ALONE_B, ALL_B = measured_games()  # at five seats
# An agent's role in a group of games of a chunk (:func:`_play_chunk`), which with the chunk seeds it:
# alone at a seat among four copies of the other (or one of those four, or at the all-others game), at
# the two seats of a mixed table or at its three others.
_ROLES = ("alone", "four", "two", "three")
_AGENT_STREAM = "duplicate-agents"  # the agents' seeds, keyed apart from the deals' and the tables' draws


def duplicate_layout(num_deals: int, one_sided: bool = False, seats: int = NUM_SEATS) -> np.ndarray:
    """``(num_deals * 12, 5)`` seat assignments (``(num_deals * 2 (1 + seats), seats)`` at another
    table): agent 0 (A) or 1 (B) at each seat; one-sided, only each deal's first six games (all-B,
    then A alone at each seat)."""
    one_deal = [[B] * seats] + [[A if s == k else B for s in range(seats)] for k in range(seats)]
    if not one_sided:
        one_deal += [[A] * seats] + [[B if s == k else A for s in range(seats)] for k in range(seats)]
    return np.tile(np.array(one_deal), (num_deals, 1))


@dataclass
class Edge:
    """One side of a duplicate evaluation: ``agent`` alone among ``among``'s copies."""

    agent: str
    among: str
    mean: float  # per hand
    ci: tuple  # 95% bootstrap interval over deals
    per_seat: np.ndarray  # (deals, seats) the edge on each deal and seat


@dataclass
class Hands:
    """The hands an agent's statistics were measured on: it held seat ``seat[k]`` of game ``game[k]``."""

    agent: str
    among: str  # the agent at the other seats
    stats: AgentStats
    game: np.ndarray  # (deals * seats,) indices into the result's games, deal-major
    seat: np.ndarray  # (deals * seats,)


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
    per_seat_a: np.ndarray = field(repr=False)  # (deals, seats) A's edge on each deal and seat
    per_seat_b: Optional[np.ndarray] = field(repr=False)
    stats_a: AgentStats = field(repr=False)  # A alone among B's
    stats_b: AgentStats = field(repr=False)  # B alone among A's; one-sided, B at the all-B table
    games: engine.State = field(repr=False)  # every game played (see duplicate_layout)
    actions: list = field(repr=False)  # per chunk of deals, (games, steps) actions, -1 padded

    one_sided: ClassVar[bool]
    NOT_MEASURED: ClassVar[str] = "not measured (one-sided)"
    TABLE_EDGE_NOTE: ClassVar[str]  # why the table edge was not measured

    @property
    def seats(self) -> int:
        """The seats of the table the games were played at (5, or 4: ``RulesConfig.players``)."""
        return self.per_seat_a.shape[1]

    @property
    def games_per_deal(self) -> int:
        """The games of :func:`duplicate_layout` a deal: 12 (10 at four seats), 6 (5) one-sided."""
        return lone_games(self.seats) * (1 if self.one_sided else 2)

    def _dealt(self, rules: Optional[RulesConfig]) -> tuple[RulesConfig, np.ndarray, np.ndarray]:
        """``(rules, deals, dealers)`` of the games, refusing rules of another table than theirs."""
        rules = resolve_rules(rules)
        if rules.table_shape.seats != self.seats:
            raise ValueError(f"these games were played at a table of {self.seats}, not of "
                             f"{rules.table_shape.seats}: give the rules they were played by")
        return (rules, *engine.deal_from_seeds(self.deal_seeds, rules))

    def records(self, rules: Optional[RulesConfig] = None) -> Iterator[dict]:
        """Game records (:mod:`briscola_env.records`) of the games of :func:`duplicate_layout` (every
        game played but a :class:`TableResult`'s mixed tables: see its :meth:`~TableResult.mixed_records`),
        under ``rules``, those they were played by (default: the standard ones)."""
        names = (self.a, self.b)
        layout = duplicate_layout(self.deals, self.one_sided, self.seats)
        rules, deals, dealers = self._dealt(rules)
        g = 0
        for actions in self.actions:
            for row in actions:
                d = g // self.games_per_deal
                yield game_record(rules, deals[d], dealers[d], row[row >= 0], [names[k] for k in layout[g]])
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
        seat = np.tile(np.arange(self.seats), self.deals)
        alone_a, alone_b, all_b = measured_games(self.seats)
        b_games = all_b if self.one_sided else alone_b
        return [Hands(self.a, self.b, self.stats_a, _games_of(self.deals, self.games_per_deal, alone_a), seat),
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
    TABLE_EDGE_NOTE: ClassVar[str] = ("not measured: only the one-against-four tables were played "
                                      "(evaluation.evaluate_table plays every mix)")


@dataclass
class TableResult(PairResult):
    """:class:`PairResult` and A's table edge over every mix of the two agents (:mod:`.table_edge`):
    ``table_edge``, ``table_edge_ci`` and ``table_edge_by_k``, A's point of view, per hand. What it
    has of :class:`PairResult` (``games``, ``actions``, :meth:`records`, the edges, statistics and
    ratings) is of the twelve games a deal; the tables with two or three copies of A
    are in ``mixed_seating``, ``mixed_actions`` and :meth:`mixed_records`."""

    table: TableEdge = field(repr=False)
    mixed_seating: np.ndarray = field(repr=False)  # (deals * mixed games a deal, seats) A (0) or B (1) at each seat
    mixed_actions: list = field(repr=False)  # per chunk of deals, (games, steps) actions of the mixed tables

    @property
    def table_edge(self) -> float:
        return self.table.edge

    @property
    def table_edge_ci(self) -> tuple:
        return self.table.edge_ci

    @property
    def table_edge_by_k(self) -> list:
        """The :class:`.table_edge.TableSlice` of k = 1..seats-1 copies of A."""
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
        rules, deals, dealers = self._dealt(rules)
        g = 0
        for actions in self.mixed_actions:
            for row in actions:
                d = g // per_deal
                yield game_record(rules, deals[d], dealers[d], row[row >= 0], [names[k] for k in self.mixed_seating[g]])
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
    TABLE_EDGE_NOTE: ClassVar[str] = "not measured (one-sided): only A alone among four B's was played"


def _games_of(deals: int, games_per_deal: int, game_in_deal: np.ndarray) -> np.ndarray:
    """``(deals * seats,)`` deal-major: for each deal and seat s, the index of its game ``game_in_deal[s]``."""
    return (np.arange(deals)[:, None] * games_per_deal + game_in_deal).ravel()


def _stats(games: engine.State, game_of: np.ndarray, deal_seeds: np.ndarray,
           ci_rng: np.random.Generator) -> AgentStats:
    """Statistics of the agent at each seat s of the games ``game_of`` (see :func:`_games_of`)."""
    deals, seats = len(deal_seeds), games.tables.shape.seats
    seat_of, deal_of = np.tile(np.arange(seats), deals), np.repeat(np.arange(deals), seats)
    seat_of_card, _ = engine.deal_from_seeds(deal_seeds, games.rules)
    dealt = seat_of_card[deal_of] == seat_of[:, None]  # the hand it was dealt
    return agent_stats(games.take(game_of), seat_of, deal_of, ci_rng, dealt)


def _deal_seeds(deals: int, seed: int) -> np.ndarray:
    """The deals' seeds, from ``seed``."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1; got {deals}")
    return np.random.default_rng(seed).integers(0, engine.MAX_SEED, deals)


@dataclass(frozen=True)
class _Chunk:
    """One piece of a duplicate evaluation (:func:`_play_chunk`): all it is played from."""

    agents: tuple  # (A, B)
    rules: Optional[RulesConfig]
    seed: int  # the run's
    index: int  # the chunk's, from 0
    deal_seeds: np.ndarray  # (n,)
    one_sided: bool
    sides: Optional[np.ndarray]  # (n, pairs, 2) the two-seat sides of its mixed tables; None: none played


@dataclass
class _ChunkGames:
    """What a chunk played: its games of :func:`duplicate_layout`, deal-major, and of its mixed tables."""

    games: engine.State
    actions: np.ndarray  # (games, steps), -1 padded
    mixed_payoffs: Optional[np.ndarray]  # (n, pairs, 2, seats): [deal, pair, table 0 (A at the two seats) or 1, seat]
    mixed_actions: Optional[np.ndarray]  # (n * pairs * 2, steps), in that order


def _play_seated(mine: Agent, theirs: Agent, seated: np.ndarray, deal_seeds: np.ndarray,
                 rules: Optional[RulesConfig], seeds: tuple[int, int]) -> tuple[engine.State, np.ndarray]:
    """Games with ``mine`` where ``seated`` ``(games, seats)`` is 0 and ``theirs`` where it is 1, the two
    reseeded first with ``seeds``: those of their roles in these games, not of their order in the call."""
    mine.reset(seeds[0])
    theirs.reset(seeds[1])
    return play_games([mine, theirs], seated, deal_seeds, rules)


def _deal_major(groups: int, deals: int, per_deal: int) -> np.ndarray:
    """The order that takes ``groups`` blocks of games (one after the other, each ``per_deal`` games a
    deal, deal-major) deal by deal: a deal's games of each block in turn."""
    return np.arange(groups * deals * per_deal).reshape(groups, deals, per_deal).transpose(1, 0, 2).ravel()


def _padded(actions: list) -> np.ndarray:
    """The ``(games, steps)`` actions of several calls of ``play_games`` one after the other, -1 padded."""
    steps = max(a.shape[1] for a in actions)
    return np.concatenate([np.pad(a, ((0, 0), (0, steps - a.shape[1])), constant_values=-1) for a in actions])


def _play_chunk(chunk: _Chunk) -> _ChunkGames:
    """A chunk's games, from the chunk alone: so the same in this process and in a Ray worker.

    Each group of games is played by one call, its agents seeded by their role in it (:data:`_ROLES`)
    from the run seed and the chunk's index: A alone at each seat among B's with the all-B game, then
    B alone among A's with the all-A game; then the mixed tables with A at the two seats of each pair,
    then those with B there. Evaluating B against A plays the same groups, the agents swapped with
    their roles, so each game is played by the same agents with the same seeds: the same games."""
    agent_a, agent_b = chunk.agents
    n, seats = len(chunk.deal_seeds), resolve_rules(chunk.rules).table_shape.seats

    def seeds(mine: str, theirs: str) -> tuple[int, int]:
        return tuple(piece_seed(chunk.seed, _AGENT_STREAM, chunk.index, _ROLES.index(role)) for role in (mine, theirs))

    lone_seating = duplicate_layout(n, one_sided=True, seats=seats)  # 0: the lone agent (none in the all-others game)
    lone_deals = np.repeat(chunk.deal_seeds, lone_games(seats))
    who_is_alone = [(agent_a, agent_b)] if chunk.one_sided else [(agent_a, agent_b), (agent_b, agent_a)]
    lone = [_play_seated(mine, theirs, lone_seating, lone_deals, chunk.rules, seeds("alone", "four"))
            for mine, theirs in who_is_alone]
    order = _deal_major(len(lone), n, lone_games(seats))
    games = engine.concatenate([state for state, _ in lone]).take(order)
    actions = _padded([a for _, a in lone])[order]
    if chunk.sides is None:
        return _ChunkGames(games, actions, None, None)
    pairs = chunk.sides.shape[1]
    two_here = a_seats_of_mixed_tables(chunk.sides, seats)[:, :, 0].reshape(n * pairs, seats)
    mixed_deals = np.repeat(chunk.deal_seeds, pairs)
    mixed = [_play_seated(two, three, np.where(two_here, 0, 1), mixed_deals, chunk.rules, seeds("two", "three"))
             for two, three in ((agent_a, agent_b), (agent_b, agent_a))]
    payoffs = np.stack([state.rewards.reshape(n, pairs, seats) for state, _ in mixed], axis=2)
    mixed_actions = _padded([a for _, a in mixed])[_deal_major(2, n * pairs, 1)]  # a pair's two tables in turn
    return _ChunkGames(games, actions, payoffs, mixed_actions)


@dataclass
class _Played:
    """Every chunk's games put together (:func:`_play`)."""

    deal_seeds: np.ndarray
    games: engine.State  # every game of duplicate_layout
    history: list  # per chunk, the actions of those games
    edges: np.ndarray  # (deals, sides, seats) one-against-four edges (side 0: A alone)
    mixed: Optional[np.ndarray]  # (deals, pairs, 2, seats) the mixed tables' payoffs, if played
    mixed_history: Optional[list]  # per chunk, their actions


def _play(agent_a: Agent, agent_b: Agent, deals: int, seed: int, rules: Optional[RulesConfig],
          chunk: Optional[int], one_sided: bool, progress: Optional[Callable[[int], None]], workers: int,
          tables: Optional[int] = None) -> _Played:
    """Every deal's games of :func:`duplicate_layout` (and, given ``tables``, of the mixed tables of
    :func:`.table_edge.two_seat_sides`), ``chunk`` deals a piece (:func:`.parallel.deal_chunks`), the
    pieces played by :func:`.parallel.run_pieces` on ``workers``; ``progress(deals done)``."""
    workers = check_workers(workers)
    deal_seeds = _deal_seeds(deals, seed)
    cuts = deal_chunks(deals, chunk)
    seats = resolve_rules(rules).table_shape.seats
    sides = None if tables is None else two_seat_sides(deals, seed, tables, seats)
    pieces = [_Chunk((agent_a, agent_b), rules, seed, index, deal_seeds[cut], one_sided,
                     None if sides is None else sides[cut]) for index, cut in enumerate(cuts)]
    played = run_pieces(_play_chunk, pieces, workers, progress and (lambda done: progress(cuts[done - 1].stop)))
    games = engine.concatenate([piece.games for piece in played])
    side_count = 1 if one_sided else 2
    pay = games.rewards.reshape(deals, side_count, lone_games(seats), seats)  # [deal, who is alone, game, seat]
    alone = pay[:, :, 1:][:, :, np.arange(seats), np.arange(seats)]  # his own seat
    edges = (alone - pay[:, :, 0, :]).astype(np.float64)
    mixed = None if sides is None else np.concatenate([piece.mixed_payoffs for piece in played])
    return _Played(deal_seeds, games, [piece.actions for piece in played], edges, mixed,
                   None if sides is None else [piece.mixed_actions for piece in played])


def _pair_result(deals: int, seed: int, names: tuple, played: _Played) -> PairResult:
    """The :class:`PairResult` of :func:`_play`'s two-sided games (the intervals drawn from ``seed + 1``)."""
    deal_seeds, games, edges = played.deal_seeds, played.games, played.edges
    per_deal = edges.mean(axis=2)  # (deals, 2): a deal's seats share the cards, so they resample together
    ci_rng = np.random.default_rng(seed + 1)
    seats = games.tables.shape.seats
    alone_a, alone_b, _ = measured_games(seats)
    stats_a, stats_b = (_stats(games, _games_of(deals, 2 * lone_games(seats), alone), deal_seeds, ci_rng)
                        for alone in (alone_a, alone_b))
    return PairResult(names[0], names[1], deals, deal_seeds,
                      edge_a=float(per_deal[:, A].mean()), edge_a_ci=bootstrap_ci(per_deal[:, A], ci_rng),
                      edge_b=float(per_deal[:, B].mean()), edge_b_ci=bootstrap_ci(per_deal[:, B], ci_rng),
                      per_seat_a=edges[:, A], per_seat_b=edges[:, B], stats_a=stats_a, stats_b=stats_b,
                      games=games, actions=played.history)


def evaluate_pair(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                  rules: Optional[RulesConfig] = None, chunk: Optional[int] = None, names: tuple = ("A", "B"),
                  progress: Optional[Callable[[int], None]] = None, workers: int = 0) -> PairResult:
    """Paired duplicate evaluation of A against B on ``deals`` seeded deals.

    Deals are played ``chunk`` at a time (12 games each; None: :func:`.parallel.deal_chunks`'
    default), each chunk a piece of work, in this process (``workers=0``) or as Ray tasks on
    ``workers`` CPUs (the agents pickled to them: :mod:`.parallel`), with the same results;
    ``progress(n)`` is called with the number of deals done after each chunk. The agents are
    reseeded for each chunk from ``seed``, the chunk's index and their role in its games (see
    :func:`_play_chunk`), so an agent that draws random numbers (random, PIMC, a sampling network)
    plays the same games whatever the workers, but other games than before chunks were seeded
    apart (one generator per agent, seeded once, ran on across the chunks then); deterministic
    agents (the heuristic, a greedy network) play as they always did. :func:`evaluate_table` adds
    the table edge."""
    played = _play(agent_a, agent_b, deals, seed, rules, chunk, False, progress, workers)
    return _pair_result(deals, seed, names, played)


def evaluate_one_sided(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                       rules: Optional[RulesConfig] = None, chunk: Optional[int] = None, names: tuple = ("A", "B"),
                       progress: Optional[Callable[[int], None]] = None, workers: int = 0) -> OneSidedResult:
    """A's edge of :func:`evaluate_pair` only, from half its games (all-B, then A alone at each
    seat) on the same deals, the very games :func:`evaluate_pair` plays there with the same
    ``chunk``: for agents too costly to seat four at a table, such as search (four search agents
    bid against each other for a long time). ``workers`` as for :func:`evaluate_pair`."""
    played = _play(agent_a, agent_b, deals, seed, rules, chunk, True, progress, workers)
    games, deal_seeds, edges = played.games, played.deal_seeds, played.edges
    per_deal = edges[:, A].mean(axis=1)
    ci_rng = np.random.default_rng(seed + 1)  # B's statistics draw last: A's interval is that of earlier runs
    seats = games.tables.shape.seats
    alone_a, _, all_b = measured_games(seats)
    stats_a = _stats(games, _games_of(deals, lone_games(seats), alone_a), deal_seeds, ci_rng)
    edge_a_ci = bootstrap_ci(per_deal, ci_rng)
    stats_b = _stats(games, _games_of(deals, lone_games(seats), all_b), deal_seeds, ci_rng)
    return OneSidedResult(names[0], names[1], deals, deal_seeds, edge_a=float(per_deal.mean()), edge_a_ci=edge_a_ci,
                          edge_b=None, edge_b_ci=None, per_seat_a=edges[:, A], per_seat_b=None,
                          stats_a=stats_a, stats_b=stats_b, games=games, actions=played.history)


def games_per_deal(tables: Optional[int] = None, seats: int = NUM_SEATS) -> int:
    """The games :func:`evaluate_table` plays a deal for ``tables`` (None: every seating) at a table of
    ``seats``: the twelve of :func:`evaluate_pair` (ten at four seats), whose lone-agent games are the
    tables with one copy of an agent, then the mixed tables (two or three copies of A)."""
    return 2 * lone_games(seats) + check_tables(tables, seats) - lone_tables(seats)


def evaluate_table(agent_a: Agent, agent_b: Agent, deals: int, seed: int = 0,
                   rules: Optional[RulesConfig] = None, tables: Optional[int] = None, chunk: Optional[int] = None,
                   names: tuple = ("A", "B"), progress: Optional[Callable[[int], None]] = None,
                   workers: int = 0) -> TableResult:
    """A's table edge over B (:mod:`.table_edge`) on ``deals`` seeded deals, with everything of
    :func:`evaluate_pair` on the same deals and ``chunk``, unchanged (its games, edges, statistics
    and intervals, bit for bit: each chunk plays its twelve games a deal as it plays them, then
    its mixed tables, with the agents seeded by their roles there).

    ``tables``: per deal, 30 (None: every seating of the two with both present) or 20, for costly
    agents (5 of the 10 seatings with two copies of A and their 5 complements, chosen per deal from
    ``seed``, A at every seat equally often within each k; see :func:`.table_edge.check_tables` for
    why no other count): 32 or 22 games a deal; at a table of four, 14 (None), the only count: 16
    games a deal. Fewer tables make each deal's mean noisier, so the
    interval widens, and the bootstrap over deals still covers that noise. Each game is played by
    the same agents with the same seeds as when B is evaluated against A (:func:`_play_chunk`), so
    edge(B, A) = -edge(A, B) exactly, for agents that draw random numbers too. ``workers`` as for
    :func:`evaluate_pair`; ``progress(n)`` is called with the number of this pair's games played
    after each chunk."""
    seats = resolve_rules(rules).table_shape.seats
    tables = check_tables(tables, seats)  # before any game
    per_deal = games_per_deal(tables, seats)
    played = _play(agent_a, agent_b, deals, seed, rules, chunk, False,
                   progress and (lambda done: progress(done * per_deal)), workers, tables)
    pair = _pair_result(deals, seed, names, played)
    sides = two_seat_sides(deals, seed, tables, seats)
    pay = played.games.rewards.reshape(deals, 2, lone_games(seats), seats)  # [deal, who is alone, game, seat]
    table = measure(alone_a=pay[:, A, 1:], alone_b=pay[:, B, 1:], all_a=pay[:, B, 0], all_b=pay[:, A, 0],
                    lone_gain=played.edges, mixed=played.mixed, sides=sides, seed=seed)
    seating = np.where(a_seats_of_mixed_tables(sides, seats), A, B).reshape(-1, seats)
    return TableResult(**{f.name: getattr(pair, f.name) for f in fields(pair)}, table=table, mixed_seating=seating,
                       mixed_actions=played.mixed_history)


def round_robin(agents: Sequence[Agent], names: Sequence[str], deals: int, seed: int = 0,
                rules: Optional[RulesConfig] = None, tables: Optional[int] = None, workers: int = 0,
                **kwargs) -> list[TableResult]:
    """:func:`evaluate_table` for every pair of agents, on the same deals (on one Ray, with ``workers``)."""
    with ray_for(workers):
        return [evaluate_table(agents[i], agents[j], deals, seed, rules, tables, names=(names[i], names[j]),
                               workers=workers, **kwargs) for i, j in combinations(range(len(agents)), 2)]
