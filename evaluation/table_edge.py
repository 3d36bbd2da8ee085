"""The mixed-table edge of agent A over agent B: every seating of the two at a table of five.

A *table* seats k copies of A (k = 1..4) and 5 - k copies of B on a deal: C(5, k) seatings
for each k, 5 + 10 + 10 + 5 = 30 in all. On one table A's edge is the mean payoff of A's seats
minus the mean payoff of B's seats; on a deal, the mean over its tables; A's **table edge** is
the mean of that over the deals, with a 95% bootstrap interval over deals (a deal's tables
share its cards, so they are resampled together). Every seat holds A equally often within each
k, so the luck of the cards cancels out as in the one-against-four duplicate games.

**Pairs.** A table and its complement (A and B swapped) are both played; the 30 tables form 15
such pairs, each named by its smaller side: one seat (a table with one A and the one with one B
there, k = 1 and 4) or two seats (k = 2 and 3). Each slice k averages its tables in the order
of their pairs (the lone seat 0..4, the two seats in lexicographic order), the same whichever
agent is called A, and the headline adds the slices k and 5 - k before it weighs them. So
edge(B, A) is exactly -edge(A, B), bit for bit, whenever the two evaluations play the same games
(negating the terms of a sum negates it exactly, and x + y is y + x); an agent against an agent
that plays as it does scores exactly 0, as each pair's two tables are then one game. The
intervals are exactly mirrored too (:func:`.bootstrap.sign_symmetric_ci`, over resamples drawn
from the run seed alone). The two evaluations do play the same games, for agents that draw
random numbers too (random, PIMC, a sampling network): each group of games of a chunk of deals
is played with its agents reseeded by their role there (alone, one of the four, at the two seats
or at the three), not by their order in the call (:func:`.duplicate.evaluate_table`). So
edge(B, A) = -edge(A, B) bit for bit, and an agent against another instance of itself (the same
spec) scores exactly 0, whatever they draw.

**The slices by k** (A's point of view, k = copies of A) come in two units:

* ``edge``: the table edge over the tables with k copies of A; the headline is their mean
  weighted by the tables of each k, (5 e1 + 10 e2 + 10 e3 + 5 e4) / 30.
* ``seat_gain``: the duplicate gain per seat of the smaller side, the units of the one-against-
  four edges: at k = 1, 2 A's seats' payoff minus B's at those seats of the all-B game on the same
  cards; at k = 3, 4 minus B's seats' payoff less A's at those seats of the all-A game. At k = 1
  it *is* the one-against-four edge of A alone among four B's (``PairResult.edge_a``: the same
  games, the same arithmetic, bit for bit), and at k = 4 minus B's alone among four A's
  (``-edge_b``); it is antisymmetric as ``edge`` is.

The algebra between them, on a zero-sum payoff table (RULES.md's and every preset's: the five
payoffs of a hand add up to 0). At a table where A's k seats average a, B's 5 - k seats
average -k a / (5 - k), so the table's edge is 5 a / (5 - k). Within a slice every seat holds A
equally often, so the all-B baseline of ``seat_gain`` adds up to the all-B game's total payoff,
0; the slice's mean ``seat_gain`` is then the mean a (k = 1, 2; for k = 3, 4 the same with B's
seats, minus). Hence, deal by deal, in exact arithmetic,

    edge_k = 5 / (5 - m) * seat_gain_k,   m = min(k, 5 - k) the smaller side:
    edge_1 = 5/4 * edge_a,   edge_4 = -5/4 * edge_b,   edge_2 = 5/3 * seat_gain_2,   edge_3 = 5/3 * seat_gain_3.

So the headline keeps the definition above, and its slice k = 1 is the one-against-four edge of
A alone among B's: literally in ``seat_gain``, and 5/4 of it in ``edge`` (on a payoff table that
is not zero-sum only the first holds).

**Subsets** (``tables=20``, ``briscola evaluate --tables 20``), for costly agents. Balance (A at
every seat equally often within each k) needs all 5 tables of k = 1 and of k = 4 (they are the
one-against-four games, played anyway), and 5 or 10 of the 10 of k = 2 and of k = 3; keeping
the pairs whole (so the edge stays exactly antisymmetric) leaves 30 or 20. With 20, each deal
keeps 5 two-three pairs: the sides of a 5-cycle of the seats drawn for that deal from the run
seed (each seat in two of its sides: A at every seat twice in k = 2, three times in k = 3). Each
slice's mean then estimates its full mean without bias (every two-seat side is as likely to be
drawn), and the weights 5, 10, 10, 5 are kept, so the headline estimates the same figure. Fewer
tables make each deal's mean noisier, so the interval widens; the bootstrap resamples the deals'
means, noise included, so it still covers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Optional

import numpy as np

from briscola_env.cards import NUM_SEATS

from .bootstrap import resample_deals, sign_symmetric_ci

COPIES = tuple(range(1, NUM_SEATS))  # k, the copies of A at a table with both agents present
TABLES = sum(comb(NUM_SEATS, k) for k in COPIES)  # 30: every seating
TABLE_COUNTS = (TABLES, TABLES - comb(NUM_SEATS, 2))  # 30, or 20: half the two-three pairs
LONE_TABLES = 2 * NUM_SEATS  # k = 1 and k = 4, one agent alone: the one-against-four games of .duplicate
TWO_SEAT_SIDES = tuple(combinations(range(NUM_SEATS), 2))  # the two-three pairs, by their two-seat side
# The streams of the subsets' cycles and of the intervals' resamples: keyed apart from the deals'
# (np.random.default_rng(seed)) and from each other, and drawn from the run seed alone.
_CYCLES_KEY, _RESAMPLES_KEY = (int.from_bytes(name.encode(), "big") for name in ("table-cycles", "table-resamples"))


def check_tables(tables: Optional[int]) -> int:
    """``tables`` (None: every seating) as the tables per deal, if a balanced, pair-keeping count;
    else a ValueError saying which counts are and why."""
    if tables is None:
        return TABLES
    if isinstance(tables, (bool, np.bool_)) or not isinstance(tables, (int, np.integer)) \
            or int(tables) not in TABLE_COUNTS:
        raise ValueError(f"tables must be {TABLE_COUNTS[0]} (every seating of A and B) or {TABLE_COUNTS[1]} "
                         f"(half the tables with 2 or 3 copies of A, for costly agents); got {tables!r}. Each seat "
                         "must hold A equally often within each k: k = 1 and k = 4 have 5 seatings and keep all "
                         "5, k = 2 and k = 3 have 10 and keep 5 or 10, and keeping k = 2 and k = 3 alike keeps "
                         "edge(A, B) = -edge(B, A)")
    return int(tables)


def two_seat_sides(deals: int, seed: int, tables: int) -> np.ndarray:
    """``(deals, pairs, 2)`` the two-seat sides of each deal's two-three pairs, each side's seats
    ascending and the sides in lexicographic order: all 10 with 30 tables; with 20, the 5 sides of
    a 5-cycle of the seats drawn per deal from ``seed`` alone (so evaluating B against A draws the
    same), each seat in two of them."""
    if check_tables(tables) == TABLES:
        return np.tile(np.array(TWO_SEAT_SIDES), (deals, 1, 1))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_CYCLES_KEY,)))
    cycle = rng.permuted(np.tile(np.arange(NUM_SEATS), (deals, 1)), axis=1)  # every cycle equally likely
    sides = np.sort(np.stack([cycle, np.roll(cycle, -1, axis=1)], axis=2), axis=2)
    order = np.argsort(sides[..., 0] * NUM_SEATS + sides[..., 1], axis=1)
    return np.take_along_axis(sides, order[..., None], axis=1)


def a_seats_of_mixed_tables(sides: np.ndarray) -> np.ndarray:
    """``(deals, pairs, 2, 5)`` bool, where A sits at the tables of the two-three pairs of ``sides``
    (:func:`two_seat_sides`): table 0 of a pair holds A at the side's two seats (k = 2), table 1 holds
    B there and A at the other three (k = 3)."""
    on_side = (sides[..., None] == np.arange(NUM_SEATS)).any(axis=2)  # (deals, pairs, 5)
    return np.stack([on_side, ~on_side], axis=2)


@dataclass
class TableSlice:
    """A's table edge at the tables with ``k`` copies of A, in both units (see the module docstring)."""

    k: int
    tables: int  # per deal
    edge: float  # mean payoff of A's seats minus B's, per hand
    edge_ci: tuple  # 95% bootstrap interval over deals
    seat_gain: float  # the smaller side's duplicate gain per seat, signed for A: at k = 1, edge_a; at k = 4, -edge_b
    seat_gain_ci: tuple
    per_deal_edge: np.ndarray = field(repr=False)  # (deals,)
    per_deal_seat_gain: np.ndarray = field(repr=False)

    def as_dict(self) -> dict:
        return {"k": self.k, "tables": self.tables, "edge": self.edge, "edge_ci": list(self.edge_ci),
                "seat_gain": self.seat_gain, "seat_gain_ci": list(self.seat_gain_ci)}


@dataclass
class TableEdge:
    """A's table edge over B: the headline, with its slices by k (A's point of view)."""

    tables: int  # per deal
    edge: float  # per hand
    edge_ci: tuple  # 95% bootstrap interval over deals
    by_k: list  # [TableSlice] for k = 1..4
    per_deal: np.ndarray = field(repr=False)  # (deals,)


def _side_means(payoffs: np.ndarray, on_side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean payoff of the seats ``on_side`` and of the others, ``payoffs`` ``(..., 5)``: one
    function for both sides of every table, so the same game and seats always give the same bits."""
    payoffs = payoffs.astype(np.float64)
    side = (payoffs * on_side).sum(axis=-1) / on_side.sum(axis=-1)
    rest = (payoffs * ~on_side).sum(axis=-1) / (~on_side).sum(axis=-1)
    return side, rest


def measure(alone_a: np.ndarray, alone_b: np.ndarray, all_a: np.ndarray, all_b: np.ndarray,
            lone_gain: np.ndarray, mixed: np.ndarray, sides: np.ndarray, seed: int) -> TableEdge:
    """A's table edge from the payoffs of each deal's games: ``alone_a`` ``(deals, 5, 5)`` the games
    with A alone at seat s (index 1) among B's, ``alone_b`` B alone at s among A's, ``all_a`` and
    ``all_b`` ``(deals, 5)`` the games of one agent alone, ``lone_gain`` ``(deals, 2, 5)`` the
    one-against-four edges of :mod:`.duplicate` (A alone against all-B, B alone against all-A, at
    each seat), and ``mixed`` ``(deals, pairs, 2, 5)`` the tables of the two-three pairs ``sides``
    (:func:`a_seats_of_mixed_tables`); the intervals' resamples are drawn from ``seed`` alone."""
    lone = np.eye(NUM_SEATS, dtype=bool)  # table s of alone_a and alone_b: the lone agent at seat s
    side, rest = _side_means(alone_a, lone)
    edge = {1: side - rest}
    side, rest = _side_means(alone_b, lone)
    edge[4] = rest - side
    on_side = a_seats_of_mixed_tables(sides)[:, :, 0]
    side, rest = _side_means(mixed[:, :, 0], on_side)
    edge[2] = side - rest
    side, rest = _side_means(mixed[:, :, 1], on_side)
    edge[3] = rest - side
    per_deal_edge = {k: np.ascontiguousarray(values).mean(axis=1) for k, values in edge.items()}

    per_deal_lone = lone_gain.mean(axis=2)  # as duplicate.evaluate_pair averages it, so edge_a's very bits
    all_b, all_a = all_b[:, None].astype(np.float64), all_a[:, None].astype(np.float64)
    per_deal_gain = {1: per_deal_lone[:, 0], 4: -per_deal_lone[:, 1],
                     2: np.ascontiguousarray(_side_means(mixed[:, :, 0] - all_b, on_side)[0]).mean(axis=1),
                     3: -np.ascontiguousarray(_side_means(mixed[:, :, 1] - all_a, on_side)[0]).mean(axis=1)}

    weight = {k: comb(NUM_SEATS, k) for k in COPIES}  # each slice by its share of the 30 seatings
    per_deal = (weight[1] * (per_deal_edge[1] + per_deal_edge[4])
                + weight[2] * (per_deal_edge[2] + per_deal_edge[3])) / sum(weight.values())
    picks = resample_deals(len(per_deal), np.random.default_rng(np.random.SeedSequence(seed,
                                                                                       spawn_key=(_RESAMPLES_KEY,))))
    tables = {1: LONE_TABLES // 2, 4: LONE_TABLES // 2, 2: sides.shape[1], 3: sides.shape[1]}
    by_k = [TableSlice(k, tables[k], float(per_deal_edge[k].mean()), sign_symmetric_ci(per_deal_edge[k], picks),
                       float(per_deal_gain[k].mean()), sign_symmetric_ci(per_deal_gain[k], picks),
                       per_deal_edge[k], per_deal_gain[k]) for k in COPIES]
    return TableEdge(sum(tables.values()), float(per_deal.mean()), sign_symmetric_ci(per_deal, picks), by_k, per_deal)
