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

**Four seats** (``RulesConfig(players=4)``): k = 1..3 copies of A, 4 + 6 + 4 = 14 tables, in 7
pairs: the 4 one-seat pairs (k = 1 and 3, the one-against-three games) and 3 two-seat pairs, each
a table with A at two seats and its complement, B there and A at the other two: k = 2 both. The
two-seat pairs are named by their side holding seat 0 ({0, 1}, {0, 2}, {0, 3}: each of the six
seatings once). The slice k = 2 is then its own mirror: a pair's term is the sum of its two
tables' edges (A's side less B's at the first, A's at the other two less B's side at the second),
halved, so that evaluating B against A, which plays the same two tables the other way round, sums
the same two numbers negated; the headline weighs (4 (e1 + e3) + 6 e2) / 14. Both sides of a k = 2
table have two seats, so its ``seat_gain`` takes both: A's sides' gain over the all-B game (at both
tables of a pair: every two-seat side once, each seat three times, so the baseline adds up to 0)
less B's over the all-A game, halved. The algebra above holds with 4 for 5 (edge_1 = 4/3 edge_a,
edge_2 = 2 seat_gain_2, edge_3 = -4/3 edge_b). The subset of 20 is a five-seat
design (a 5-cycle's sides): at four seats every evaluation plays all 14 (``check_tables``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb
from typing import Optional

import numpy as np

from briscola_env.cards import NUM_SEATS

from .bootstrap import resample_deals, sign_symmetric_ci

PAIR_SIDE = 2  # the seats of the smaller side of the mixed tables' pairs (the tables of one agent alone aside)
SEAT_COUNTS = (NUM_SEATS, 4)  # the tables evaluated: five seats, and four (RulesConfig.players)


def copies(seats: int = NUM_SEATS) -> tuple[int, ...]:
    """k, the copies of A at a table of ``seats`` with both agents present: 1..seats-1."""
    return tuple(range(1, seats))


def all_tables(seats: int = NUM_SEATS) -> int:
    """Every seating of A and B at a table of ``seats`` with both present: 30 at five, 14 at four."""
    return sum(comb(seats, k) for k in copies(seats))


def table_counts(seats: int = NUM_SEATS) -> tuple[int, ...]:
    """The tables a deal may play: every seating; at five seats also 20 (half the two-three pairs, the
    sides of a 5-cycle: see the module docstring), a design of five seats only."""
    full = all_tables(seats)
    return (full, full - comb(seats, PAIR_SIDE)) if seats == NUM_SEATS else (full,)


def lone_tables(seats: int = NUM_SEATS) -> int:
    """The tables of one agent alone (k = 1 and k = seats - 1): the one-against-the-rest games of .duplicate."""
    return 2 * seats


def pair_sides(seats: int = NUM_SEATS) -> tuple[tuple[int, int], ...]:
    """The two-seat sides naming every mixed pair, in lexicographic order: all 10 at five seats; at
    four, where a side's complement is a two-seat side too, the 3 holding seat 0 (each pair once)."""
    sides = combinations(range(seats), PAIR_SIDE)
    return tuple(side for side in sides if seats != 2 * PAIR_SIDE or 0 in side)


def _check_seats(seats: int) -> int:
    if seats not in SEAT_COUNTS:
        raise ValueError(f"the table edge is defined at tables of {' or '.join(map(str, SEAT_COUNTS))} seats; "
                         f"got {seats!r}")
    return seats


COPIES = copies()  # at five seats: k = 1..4
TABLES = all_tables()  # 30: every seating
TABLE_COUNTS = table_counts()  # 30, or 20: half the two-three pairs
LONE_TABLES = lone_tables()  # k = 1 and k = 4, one agent alone: the one-against-four games of .duplicate
TWO_SEAT_SIDES = pair_sides()  # the two-three pairs, by their two-seat side
# The streams of the subsets' cycles and of the intervals' resamples: keyed apart from the deals'
# (np.random.default_rng(seed)) and from each other, and drawn from the run seed alone.
_CYCLES_KEY, _RESAMPLES_KEY = (int.from_bytes(name.encode(), "big") for name in ("table-cycles", "table-resamples"))


def check_tables(tables: Optional[int], seats: int = NUM_SEATS) -> int:
    """``tables`` (None: every seating) as the tables per deal at a table of ``seats``, if a balanced,
    pair-keeping count; else a ValueError saying which counts are and why."""
    counts = table_counts(_check_seats(seats))
    if tables is None:
        return counts[0]
    if isinstance(tables, (bool, np.bool_)) or not isinstance(tables, (int, np.integer)) or int(tables) not in counts:
        if seats != NUM_SEATS:
            raise ValueError(f"tables must be {counts[0]} at a table of {seats} (every seating of A and B: "
                             f"{' + '.join(str(comb(seats, k)) for k in copies(seats))}); got {tables!r}. The subset "
                             f"of {TABLE_COUNTS[1]} (half the tables with 2 or 3 copies of A, the sides of a 5-cycle) "
                             f"is a design of five seats: at {seats} seats leave --tables out")
        raise ValueError(f"tables must be {counts[0]} (every seating of A and B) or {counts[1]} "
                         f"(half the tables with 2 or 3 copies of A, for costly agents); got {tables!r}. Each seat "
                         "must hold A equally often within each k: k = 1 and k = 4 have 5 seatings and keep all "
                         "5, k = 2 and k = 3 have 10 and keep 5 or 10, and keeping k = 2 and k = 3 alike keeps "
                         "edge(A, B) = -edge(B, A)")
    return int(tables)


def two_seat_sides(deals: int, seed: int, tables: Optional[int], seats: int = NUM_SEATS) -> np.ndarray:
    """``(deals, pairs, 2)`` the two-seat sides of each deal's mixed pairs, each side's seats
    ascending and the sides in lexicographic order: all of :func:`pair_sides` with every table;
    with 20 (five seats), the 5 sides of a 5-cycle of the seats drawn per deal from ``seed`` alone
    (so evaluating B against A draws the same), each seat in two of them."""
    if check_tables(tables, seats) == all_tables(seats):
        return np.tile(np.array(pair_sides(seats)), (deals, 1, 1))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_CYCLES_KEY,)))
    cycle = rng.permuted(np.tile(np.arange(seats), (deals, 1)), axis=1)  # every cycle equally likely
    sides = np.sort(np.stack([cycle, np.roll(cycle, -1, axis=1)], axis=2), axis=2)
    order = np.argsort(sides[..., 0] * seats + sides[..., 1], axis=1)
    return np.take_along_axis(sides, order[..., None], axis=1)


def a_seats_of_mixed_tables(sides: np.ndarray, seats: int = NUM_SEATS) -> np.ndarray:
    """``(deals, pairs, 2, seats)`` bool, where A sits at the tables of the mixed pairs of ``sides``
    (:func:`two_seat_sides`): table 0 of a pair holds A at the side's two seats (k = 2), table 1 holds
    B there and A at the others (k = seats - 2)."""
    on_side = (sides[..., None] == np.arange(seats)).any(axis=2)  # (deals, pairs, seats)
    return np.stack([on_side, ~on_side], axis=2)


@dataclass
class TableSlice:
    """A's table edge at the tables with ``k`` copies of A, in both units (see the module docstring)."""

    k: int
    tables: int  # per deal
    edge: float  # mean payoff of A's seats minus B's, per hand
    edge_ci: tuple  # 95% bootstrap interval over deals
    seat_gain: float  # the smaller side's duplicate gain per seat, signed for A: at k = 1, edge_a; at the last, -edge_b
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
    by_k: list  # [TableSlice] for k = 1..seats-1
    per_deal: np.ndarray = field(repr=False)  # (deals,)


def _side_means(payoffs: np.ndarray, on_side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean payoff of the seats ``on_side`` and of the others, ``payoffs`` ``(..., seats)``: one
    function for both sides of every table, so the same game and seats always give the same bits."""
    payoffs = payoffs.astype(np.float64)
    side = (payoffs * on_side).sum(axis=-1) / on_side.sum(axis=-1)
    rest = (payoffs * ~on_side).sum(axis=-1) / (~on_side).sum(axis=-1)
    return side, rest


def _mixed_slices(first: np.ndarray, second: np.ndarray, seats: int) -> dict[int, np.ndarray]:
    """The ``(deals, pairs)`` edges of the mixed pairs' slices, from A's edge at each pair's first table
    (k = 2) and at its second (k = seats - 2): one slice each, or at four seats, where both are k = 2,
    their sum halved (the same two numbers, negated, when B is evaluated against A)."""
    if seats - PAIR_SIDE != PAIR_SIDE:
        return {PAIR_SIDE: first, seats - PAIR_SIDE: second}
    return {PAIR_SIDE: (first + second) / 2}


def measure(alone_a: np.ndarray, alone_b: np.ndarray, all_a: np.ndarray, all_b: np.ndarray,
            lone_gain: np.ndarray, mixed: np.ndarray, sides: np.ndarray, seed: int) -> TableEdge:
    """A's table edge from the payoffs of each deal's games at a table of ``seats`` (the last axis):
    ``alone_a`` ``(deals, seats, seats)`` the games with A alone at seat s (index 1) among B's,
    ``alone_b`` B alone at s among A's, ``all_a`` and ``all_b`` ``(deals, seats)`` the games of one
    agent alone, ``lone_gain`` ``(deals, 2, seats)`` the one-against-the-rest edges of :mod:`.duplicate`
    (A alone against all-B, B alone against all-A, at each seat), and ``mixed`` ``(deals, pairs, 2,
    seats)`` the tables of the mixed pairs ``sides`` (:func:`a_seats_of_mixed_tables`); the intervals'
    resamples are drawn from ``seed`` alone."""
    seats = _check_seats(alone_a.shape[-1])
    last = seats - 1  # the k of B alone
    lone = np.eye(seats, dtype=bool)  # table s of alone_a and alone_b: the lone agent at seat s
    side, rest = _side_means(alone_a, lone)
    edge = {1: side - rest}
    side, rest = _side_means(alone_b, lone)
    edge[last] = rest - side
    on_side = a_seats_of_mixed_tables(sides, seats)[:, :, 0]
    side, rest = _side_means(mixed[:, :, 0], on_side)
    first = side - rest
    side, rest = _side_means(mixed[:, :, 1], on_side)
    edge.update(_mixed_slices(first, rest - side, seats))
    per_deal_edge = {k: np.ascontiguousarray(values).mean(axis=1) for k, values in edge.items()}

    per_deal_lone = lone_gain.mean(axis=2)  # as duplicate.evaluate_pair averages it, so edge_a's very bits
    all_b, all_a = all_b[:, None].astype(np.float64), all_a[:, None].astype(np.float64)
    a_side = _side_means(mixed[:, :, 0] - all_b, on_side)[0]  # A's gains at table 0 (A on the side)
    b_side = _side_means(mixed[:, :, 1] - all_a, on_side)[0]  # B's at table 1 (B on the side)
    if seats - PAIR_SIDE != PAIR_SIDE:  # minus after the mean, as it always was: the same bits
        mixed_gain = {PAIR_SIDE: np.ascontiguousarray(a_side).mean(axis=1),
                      seats - PAIR_SIDE: -np.ascontiguousarray(b_side).mean(axis=1)}
    else:  # both sides of two seats: A's gains over all-B at both tables, less B's over all-A
        a_other = _side_means(mixed[:, :, 1] - all_b, on_side)[1]  # A off the side at table 1
        b_other = _side_means(mixed[:, :, 0] - all_a, on_side)[1]  # B off the side at table 0
        mixed_gain = {PAIR_SIDE: np.ascontiguousarray(((a_side + a_other) - (b_side + b_other)) / 4).mean(axis=1)}
    per_deal_gain = {1: per_deal_lone[:, 0], last: -per_deal_lone[:, 1], **mixed_gain}

    weight = {k: comb(seats, k) for k in copies(seats)}  # each slice by its share of the seatings
    # Each slice k added to its mirror seats - k before they are weighed: negated terms, the same sum.
    terms = [weight[m] * (per_deal_edge[m] + per_deal_edge[seats - m]) if 2 * m != seats
             else weight[m] * per_deal_edge[m] for m in range(1, seats // 2 + 1)]
    weighted = terms[0]
    for term in terms[1:]:
        weighted = weighted + term
    per_deal = weighted / sum(weight.values())
    picks = resample_deals(len(per_deal), np.random.default_rng(np.random.SeedSequence(seed,
                                                                                       spawn_key=(_RESAMPLES_KEY,))))
    pairs = sides.shape[1]
    tables = {1: seats, last: seats, **({PAIR_SIDE: pairs, seats - PAIR_SIDE: pairs} if 2 * PAIR_SIDE != seats
                                        else {PAIR_SIDE: 2 * pairs})}
    by_k = [TableSlice(k, tables[k], float(per_deal_edge[k].mean()), sign_symmetric_ci(per_deal_edge[k], picks),
                       float(per_deal_gain[k].mean()), sign_symmetric_ci(per_deal_gain[k], picks),
                       per_deal_edge[k], per_deal_gain[k]) for k in copies(seats)]
    return TableEdge(sum(tables.values()), float(per_deal.mean()), sign_symmetric_ci(per_deal, picks), by_k, per_deal)
