"""Lookup tables derived from a rules config, built once per config and cached.

Rule variants become table contents here, so the phase code never branches on
a variant name per game.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..actions import (MAX_POINTS, MIN_POINTS, NUM_RANK_LEVELS, POINT_BID_OFFSET, RANK_BID_OFFSET,
                       bid_points, point_bid)
from ..cards import CARD_FACE, NUM_CARDS, NUM_FACES, NUM_SUITS, CardTables, card_tables
from ..rules import RulesConfig, TableShape
from .bits import ALL_CARDS, CARD_BIT, LOW_BITS, ONE, WORD
from .codes import ROLE_NAMES, Phase

NUM_BID_STATES = POINT_BID_OFFSET + MAX_POINTS - MIN_POINTS + 1  # standing bid: 0 (none) .. 70
NO_SEAT = -1


@dataclass(frozen=True)
class RuleTables:
    shape: TableShape  # seats, hand size, tricks and monte: RulesConfig.table_shape
    next_seat: np.ndarray  # (seats,) int8, the seat playing after s
    bid_lo: np.ndarray  # (71,) lowest legal bid id given the standing bid id (0 = none)
    bid_bits: np.ndarray  # (71,) uint64, legal bids given the standing bid id, bit j = bid id bid_lo + j
    callable_cards: np.ndarray  # (71,) uint64 card set the caller may name whatever his hand, given the winning bid id
    calls_weakest_missing: np.ndarray  # (71,) bool, given the winning bid id: the call after the 2 (see callable_by)
    any_weakest_missing_call: bool  # calls_weakest_missing.any(), checked once per call rather than per game
    weakest_missing_rank_bids: np.uint64  # the rank bids among calls_weakest_missing, as a set of action ids
    weakest_missing: np.ndarray  # (4 * 1024,) uint64, flat [suit, faces of it held (bit face - 1)]: the card
    #                              bit of the weakest card of that suit not held if its 2 is held, else 0
    next_speaker: np.ndarray  # (seats, 2**seats) first seat after s (cyclically, s itself last) not in the passed set
    points: np.ndarray  # (40,) int16 card points
    strength: np.ndarray  # (40,) int8 strength within a suit, 9 = strongest
    target: np.ndarray  # (71,) int16 points the caller's side needs, given the winning bid id
    multiplier: np.ndarray  # (71,) int16 bid multiplier, given the winning bid id
    follow_from_trick: int  # follow suit is compulsory from this trick index on (shape.tricks = never)
    beats: np.ndarray  # (5 * 41 * 40,) bool, flat [trump, best card + 1, card]: card takes the trick from best;
    #                    trump 4 (or -1): no trump
    beats_at_trump: np.ndarray  # (5,) int64, where the rows of a trump (4 or -1: none) start in beats
    beats_at_best: np.ndarray  # (41,) int64, where the row of a best card (-1, the last entry: none) starts in a
    #                            trump's rows: two lookups instead of a chain of arithmetic on every card played
    ends_trick: np.ndarray  # (cards_in_tricks + 1,) bool, given the cards played so far: a trick has just ended
    payoff_by_role: np.ndarray  # (5,) float32, payoff of each Role for a made contract
    phases: tuple  # the Phase codes a hand under these rules goes through before it is done


def _bid_range(rules: RulesConfig) -> tuple[np.ndarray, np.ndarray]:
    """Legal bids given the standing bid ``h``: the ids ``lo[h] .. hi[h]-1``."""
    first_rank, last_rank = RANK_BID_OFFSET, RANK_BID_OFFSET + NUM_RANK_LEVELS - 1
    lo = np.arange(NUM_BID_STATES, dtype=np.int64) + 1  # a later bid is strictly larger
    hi = np.full(NUM_BID_STATES, NUM_BID_STATES, dtype=np.int64)
    if rules.bidding == "points_only":
        lo[0] = point_bid(rules.min_point_bid)
        return lo, hi
    lo[0] = first_rank
    if rules.bidding == "rank_only":
        hi[:] = last_rank + 1
        return lo, hi
    hi[:last_rank] = last_rank + 1  # ranks only until the 2 stands ...
    lo[last_rank] = point_bid(MIN_POINTS + 1)  # ... then points, from "more than 61"
    return lo, hi


def _callable(rules: RulesConfig, cards: CardTables) -> tuple[np.ndarray, np.ndarray]:
    """``(callable_cards, calls_weakest_missing)`` of :class:`RuleTables`, per winning bid id."""
    level_cards = np.zeros(NUM_RANK_LEVELS + 1, dtype=np.uint64)  # index = level 1..10
    for c in range(NUM_CARDS):
        level_cards[cards.level[c]] |= CARD_BIT[c]
    if rules.call_rule == "at_least":
        level_cards = np.bitwise_or.accumulate(level_cards)
    callable_cards = np.full(NUM_BID_STATES, ALL_CARDS, dtype=np.uint64)  # a points-only auction: any card
    rank_bids = slice(RANK_BID_OFFSET, RANK_BID_OFFSET + NUM_RANK_LEVELS)
    callable_cards[rank_bids] = level_cards[1:]
    calls_weakest_missing = np.zeros(NUM_BID_STATES, dtype=bool)
    if rules.bidding != "points_only" and rules.call_after_two == "two":
        # Once a rank auction reaches the 2, the winning rank is the 2, points bid after it or not.
        the_two = RANK_BID_OFFSET + NUM_RANK_LEVELS - 1
        callable_cards[the_two:] = level_cards[NUM_RANK_LEVELS]
        calls_weakest_missing[the_two:] = rules.call_rule == "exact"
    return callable_cards, calls_weakest_missing


def _weakest_missing(cards: CardTables) -> np.ndarray:
    """The ``weakest_missing`` table of :class:`RuleTables`, in the ``ten_card`` order of ``cards``."""
    weakest_first = [face - 1 for face in reversed(cards.level_face)]  # bit of each face, weakest first
    table = np.zeros((NUM_SUITS, 1 << NUM_FACES), dtype=np.uint64)
    for held in range(1 << NUM_FACES):
        missing = [bit for bit in weakest_first if not held >> bit & 1]
        if held >> weakest_first[0] & 1 and missing:
            table[:, held] = CARD_BIT[np.arange(NUM_SUITS) * NUM_FACES + missing[0]]
    return table.reshape(-1)


def callable_by(tables: RuleTables, bid: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """Cards a caller holding ``hand`` (uint64 card sets) may call after winning the auction on
    ``bid``, his own included. After the 2 (``calls_weakest_missing``), a caller holding the 2
    of a suit may also call the weakest card of that suit he does not hold."""
    cards = tables.callable_cards[bid]
    if not tables.any_weakest_missing_call:
        return cards
    at = ((hand[..., None] >> _SUIT_SHIFT) & _FACE_BITS).astype(np.intp) + _SUIT_ROW  # (..., 4) into the table
    extra = np.bitwise_or.reduce(tables.weakest_missing[at], axis=-1)
    return cards | extra * tables.calls_weakest_missing[bid]


def hopeless_rank_bids(tables: RuleTables, hand: np.ndarray) -> np.ndarray:
    """For each uint64 card set ``hand``, the rank bids (a uint64 set of action ids) every card of
    which a player holding ``hand`` holds himself: with self-calls off he may not bid them."""
    hopeless = np.zeros(np.shape(hand), dtype=np.uint64)
    for bid, cards in zip(RANK_BID_BITS, tables.callable_cards[RANK_BID_IDS]):  # ten (n,) steps beat one (n, 10)
        hopeless |= ((hand & cards) == cards) * bid
    if tables.any_weakest_missing_call:
        # Holding a 2, he may call the weakest card of its suit he lacks, which is never his own.
        hopeless &= ~(((hand & _TWOS) != 0) * tables.weakest_missing_rank_bids)
    return hopeless


RANK_BID_IDS = np.arange(RANK_BID_OFFSET, RANK_BID_OFFSET + NUM_RANK_LEVELS)  # action ids of the ten rank bids
RANK_BID_BITS = ONE << RANK_BID_IDS.astype(np.uint64)  # their bits in a uint64 set of action ids
_SUIT_SHIFT = np.arange(0, NUM_CARDS, NUM_FACES, dtype=np.uint64)  # bit of each suit's first card
_FACE_BITS = np.uint64((1 << NUM_FACES) - 1)
_SUIT_ROW = np.arange(NUM_SUITS, dtype=np.intp) << NUM_FACES  # start of each suit's rows in weakest_missing
_TWOS = np.bitwise_or.reduce(CARD_BIT[CARD_FACE == 2])  # the four 2s


@lru_cache(maxsize=64)
def rule_tables(rules: RulesConfig) -> RuleTables:
    cards = card_tables(rules.ten_card)
    bid_lo, bid_hi = _bid_range(rules)
    bid_bits = LOW_BITS[np.clip(bid_hi - bid_lo, 0, WORD)]
    callable_cards, calls_weakest_missing = _callable(rules, cards)

    shape = rules.table_shape
    seats = shape.seats
    next_speaker = np.full((seats, 1 << seats), NO_SEAT, dtype=np.int8)
    for seat in range(seats):
        for passed in range(1 << seats):
            for k in range(1, seats + 1):
                s = (seat + k) % seats
                if not passed >> s & 1:
                    next_speaker[seat, passed] = s
                    break

    target = np.full(NUM_BID_STATES, rules.target, dtype=np.int16)
    multiplier = np.ones(NUM_BID_STATES, dtype=np.int16)
    for bid in range(POINT_BID_OFFSET, NUM_BID_STATES):
        target[bid] = max(rules.target, bid_points(bid))
        multiplier[bid] = rules.multiplier_for_points(bid_points(bid))

    follow_from = shape.tricks
    if rules.follow_suit:
        follow_from = shape.tricks - (rules.follow_suit_last_k or shape.tricks)

    # A card takes the trick from the best so far (none: index 0) if it is a
    # higher card of the same suit, or a trump over a non-trump.
    suit = np.arange(NUM_CARDS) // NUM_FACES
    same_suit_higher = (suit[:, None] == suit[None, :]) & (cards.strength[None, :] > cards.strength[:, None])
    # The last block, "trump" NUM_SUITS, is a trick without trump (the blind first trick); there the
    # trump -1 of a hand not called yet lands, as a negative flat index counts from the end.
    beats = np.ones((NUM_SUITS + 1, NUM_CARDS + 1, NUM_CARDS), dtype=bool)
    for trump in range(NUM_SUITS + 1):
        trump_over = (suit[None, :] == trump) & (suit[:, None] != trump)
        beats[trump, 1:] = same_suit_higher | trump_over

    pay = rules.payoff_table
    phases = (Phase.AUCTION,) + ((Phase.DISCARD,) if shape.monte_size else ()) + (Phase.CALL, Phase.PLAY)
    tables = RuleTables(
        shape=shape, next_seat=((np.arange(seats) + 1) % seats).astype(np.int8), phases=phases,
        bid_lo=bid_lo, bid_bits=bid_bits, callable_cards=callable_cards,
        calls_weakest_missing=calls_weakest_missing, any_weakest_missing_call=bool(calls_weakest_missing.any()),
        weakest_missing_rank_bids=np.bitwise_or.reduce(RANK_BID_BITS * calls_weakest_missing[RANK_BID_IDS]),
        weakest_missing=_weakest_missing(cards),
        next_speaker=next_speaker, points=cards.points, strength=cards.strength,
        target=target, multiplier=multiplier, follow_from_trick=follow_from, beats=beats.reshape(-1),
        beats_at_trump=np.arange(NUM_SUITS + 1, dtype=np.int64) * (NUM_CARDS + 1) * NUM_CARDS,
        beats_at_best=np.roll(np.arange(NUM_CARDS + 1, dtype=np.int64) * NUM_CARDS, -1),
        ends_trick=(np.arange(shape.cards_in_tricks + 1) % seats == 0) & (np.arange(shape.cards_in_tricks + 1) > 0),
        payoff_by_role=np.array([getattr(pay, role) for role in ROLE_NAMES], dtype=np.float32),
    )
    for value in vars(tables).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return tables
