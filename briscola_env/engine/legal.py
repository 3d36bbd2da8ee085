"""Legal action sets of the player to act, per phase, for a subset of games.

Each function takes the state and ``g``, an index array of games in that
phase, and writes ``state._legal[g]`` (the bits.py action-set layout).
Indexing goes through flat views (``g * width + column``): NumPy's 2-D fancy
indexing costs several times more, and these run on every step.
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, PASS, PLAY_OFFSET, RANK_BID_OFFSET
from ..cards import CARD_SUIT, NUM_SEATS, NUM_TRICKS
from .bits import NUM_WORDS, SUIT_BITS, action_range, popcount, put_card_actions
from .state import State
from .tables import RuleTables


def held_by(state: State, g: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Card sets of ``seat[i]`` in game ``g[i]``."""
    return state.hidden.hand_bits.reshape(-1)[g * NUM_SEATS + seat]


def set_auction_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    rules = state.rules
    high = state.high_bid[g]
    words = action_range(tables.bid_lo[high], tables.bid_hi[high])
    if not rules.allow_self_call:
        # A rank bid is void of meaning if every card it lets him call is his own.
        hand = held_by(state, g, state.current_player[g])
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
        cards = cards & ~held_by(state, g, state.caller[g])
    put_card_actions(state._legal, g, cards, CALL_OFFSET)


def set_play_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    hand = held_by(state, g, state.current_player[g])
    if tables.follow_from_trick < NUM_TRICKS:
        trick = state.trick_index[g]
        led = state.trick_cards.reshape(-1)[(g * NUM_TRICKS + trick) * NUM_SEATS]
        suited = hand & SUIT_BITS[CARD_SUIT[led]]
        must_follow = (state.trick_size[g] > 0) & (trick >= tables.follow_from_trick) & (suited != 0)
        hand = np.where(must_follow, suited, hand)
    put_card_actions(state._legal, g, hand, PLAY_OFFSET)


def clear_legal(state: State, g: np.ndarray) -> None:
    state._legal[g] = 0
