"""Legal action sets of the player to act, per phase, for a subset of games.

Each function takes the state and ``g``, an index array of games in that
phase, and writes ``state._legal[g]`` (the bits.py action-set layout).
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, PASS, PLAY_OFFSET, RANK_BID_OFFSET
from ..cards import CARD_SUIT, NUM_SEATS
from .bits import SUIT_BITS, action_range, cards_to_actions, popcount
from .state import State
from .tables import RuleTables


def set_auction_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    rules = state.rules
    high = state.high_bid[g]
    words = action_range(tables.bid_lo[high], tables.bid_hi)
    if not rules.allow_self_call:
        # A rank bid is void of meaning if every card it lets him call is his own.
        hand = state.hidden.hand_bits[g, state.current_player[g]]
        for level, cards in enumerate(tables.rank_bid_cards, start=1):
            holds_all = (hand & cards) == cards
            words[:, 0] &= ~(holds_all.astype(np.uint64) << np.uint64(RANK_BID_OFFSET + level - 1))
    pass_ok = np.ones(len(g), dtype=np.uint64)
    if rules.all_pass == "last_forced":
        last_to_speak = (popcount(state._passed_bits[g]) == NUM_SEATS - 1) & (high == 0)
        pass_ok[last_to_speak] = 0
    words[:, 0] |= pass_ok << np.uint64(PASS)
    state._legal[g] = words


def set_call_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    cards = tables.callable_cards[state.high_bid[g]]
    if not state.rules.allow_self_call:
        cards = cards & ~state.hidden.hand_bits[g, state.caller[g]]
    state._legal[g] = cards_to_actions(cards, CALL_OFFSET)


def set_play_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    hand = state.hidden.hand_bits[g, state.current_player[g]]
    if tables.follow_from_trick < len(state.trick_leaders[0]):
        trick = state.trick_index[g]
        led = state.trick_cards[g, trick, 0]
        suited = hand & SUIT_BITS[CARD_SUIT[led]]
        must_follow = (state.trick_size[g] > 0) & (trick >= tables.follow_from_trick) & (suited != 0)
        hand = np.where(must_follow, suited, hand)
    state._legal[g] = cards_to_actions(hand, PLAY_OFFSET)


def clear_legal(state: State, g: np.ndarray) -> None:
    state._legal[g] = 0


