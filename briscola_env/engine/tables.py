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
from ..cards import NUM_CARDS, NUM_FACES, NUM_SEATS, NUM_SUITS, NUM_TRICKS, card_tables
from ..rules import RulesConfig
from .bits import ALL_CARDS, CARD_BIT, LOW_BITS, WORD

# Roles at the table, indexing RuleTables.payoff_by_role.
DEFENDER, CALLER, PARTNER, SOLO_CALLER, SOLO_DEFENDER = range(5)

NUM_BID_STATES = POINT_BID_OFFSET + MAX_POINTS - MIN_POINTS + 1  # standing bid: 0 (none) .. 70
NO_SEAT = -1


@dataclass(frozen=True)
class RuleTables:
    bid_lo: np.ndarray  # (71,) lowest legal bid id given the standing bid id (0 = none)
    bid_bits: np.ndarray  # (71,) uint64, legal bids given the standing bid id, bit j = bid id bid_lo + j
    callable_cards: np.ndarray  # (71,) uint64 card set the caller may name, given the winning bid id
    rank_bid_cards: np.ndarray  # (10,) uint64 callable cards of each rank bid level (for allow_self_call=False)
    next_speaker: np.ndarray  # (5, 32) first seat after s (cyclically, s itself last) not in the passed set
    points: np.ndarray  # (40,) int16 card points
    strength: np.ndarray  # (40,) int8 strength within a suit, 9 = strongest
    target: np.ndarray  # (71,) int16 points the caller's side needs, given the winning bid id
    multiplier: np.ndarray  # (71,) int16 bid multiplier, given the winning bid id
    follow_from_trick: int  # follow suit is compulsory from this trick index on (8 = never)
    beats: np.ndarray  # (4 * 41 * 40,) bool, flat [trump, best card + 1, card]: card takes the trick from best
    payoff_by_role: np.ndarray  # (5,) float32, payoff of each role (DEFENDER, ...) for a made contract


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


@lru_cache(maxsize=64)
def rule_tables(rules: RulesConfig) -> RuleTables:
    cards = card_tables(rules.ten_card)
    bid_lo, bid_hi = _bid_range(rules)
    bid_bits = LOW_BITS[np.clip(bid_hi - bid_lo, 0, WORD)]

    level_cards = np.zeros(NUM_RANK_LEVELS + 1, dtype=np.uint64)  # index = level 1..10
    for c in range(NUM_CARDS):
        level_cards[cards.level[c]] |= CARD_BIT[c]
    if rules.call_rule == "at_least":
        level_cards = np.bitwise_or.accumulate(level_cards)
    rank_bid_cards = level_cards[1:].copy()
    callable_cards = np.full(NUM_BID_STATES, ALL_CARDS, dtype=np.uint64)  # point bids: any card
    callable_cards[RANK_BID_OFFSET:RANK_BID_OFFSET + NUM_RANK_LEVELS] = rank_bid_cards

    next_speaker = np.full((NUM_SEATS, 1 << NUM_SEATS), NO_SEAT, dtype=np.int8)
    for seat in range(NUM_SEATS):
        for passed in range(1 << NUM_SEATS):
            for k in range(1, NUM_SEATS + 1):
                s = (seat + k) % NUM_SEATS
                if not passed >> s & 1:
                    next_speaker[seat, passed] = s
                    break

    target = np.full(NUM_BID_STATES, rules.target, dtype=np.int16)
    multiplier = np.ones(NUM_BID_STATES, dtype=np.int16)
    for bid in range(POINT_BID_OFFSET, NUM_BID_STATES):
        target[bid] = max(rules.target, bid_points(bid))
        multiplier[bid] = rules.multiplier_for_points(bid_points(bid))

    follow_from = NUM_TRICKS
    if rules.follow_suit:
        follow_from = NUM_TRICKS - (rules.follow_suit_last_k or NUM_TRICKS)

    # A card takes the trick from the best so far (none: index 0) if it is a
    # higher card of the same suit, or a trump over a non-trump.
    suit = np.arange(NUM_CARDS) // NUM_FACES
    same_suit_higher = (suit[:, None] == suit[None, :]) & (cards.strength[None, :] > cards.strength[:, None])
    beats = np.ones((NUM_SUITS, NUM_CARDS + 1, NUM_CARDS), dtype=bool)
    for trump in range(NUM_SUITS):
        trump_over = (suit[None, :] == trump) & (suit[:, None] != trump)
        beats[trump, 1:] = same_suit_higher | trump_over

    pay = rules.payoff_table
    tables = RuleTables(
        bid_lo=bid_lo, bid_bits=bid_bits, callable_cards=callable_cards, rank_bid_cards=rank_bid_cards,
        next_speaker=next_speaker, points=cards.points, strength=cards.strength,
        target=target, multiplier=multiplier, follow_from_trick=follow_from, beats=beats.reshape(-1),
        payoff_by_role=np.array([pay.defender, pay.caller, pay.partner, pay.solo_caller, pay.solo_defender],
                                dtype=np.float32),
    )
    for value in vars(tables).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return tables
