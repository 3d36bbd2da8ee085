"""Legal action sets of the player to act, per phase, for a subset of games.

Each function takes the state and ``g``, an index array of games in that
phase, and writes their legal sets (``_legal_bits``, ``_legal_base``,
``_pass_ok``, as in bits.py). Indexing goes through flat views
(``g * width + column``): NumPy's 2-D fancy indexing costs several times
more, and these run on every step.
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, PLAY_OFFSET
from ..cards import CARD_SUIT
from .bits import CARD_BIT, SUIT_BITS
from .state import State
from .tables import RuleTables, callable_by, hopeless_rank_bids


def held_by(state: State, g: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Card sets of ``seat[i]`` in game ``g[i]``."""
    return state.hidden.hand_bits.reshape(-1)[g * state.tables.shape.seats + seat]


def set_auction_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    rules = state.rules
    high = state.high_bid[g]
    lo, bits = tables.bid_lo[high], tables.bid_bits[high]
    if not rules.allow_self_call:
        # A rank bid is void of meaning if every card it lets him call is his own.
        hand = held_by(state, g, state.current_player[g])
        bits &= ~(hopeless_rank_bids(tables, hand) >> lo.astype(np.uint64))
    state._legal_bits[g] = bits
    state._legal_base[g] = lo
    if rules.all_pass == "last_forced":
        last_to_speak = (np.bitwise_count(state._passed_bits[g]) == tables.shape.seats - 1) & (high == 0)
        state._pass_ok[g] = ~last_to_speak
    else:
        state._pass_ok[g] = True


def own_cards(state: State, g: np.ndarray) -> np.ndarray:
    """The caller's own cards as far as the call goes: his hand, his discards (``RulesConfig.monte``)
    and the card he played in a blind first trick (``RulesConfig.blind_first_trick``)."""
    caller = state.caller[g]
    own = held_by(state, g, caller)
    if state.hidden.discards is not None:
        own = own | state.hidden.discards[g]
    if state.rules.blind_first_trick:
        shape = state.tables.shape
        place = (caller - state.trick_leaders[g, 0]) % shape.seats
        own = own | CARD_BIT[state.trick_cards.reshape(-1)[g * shape.cards_in_tricks + place]]
    return own


def set_call_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    own = own_cards(state, g)
    cards = callable_by(tables, state.high_bid[g], own)
    if not state.rules.allow_self_call:
        # Only the monte can make every card he may call his own (he bid before seeing it): then,
        # and only then, he calls one of them and plays solo.
        cards = np.where((cards & ~own) != 0, cards & ~own, cards)
    _set_cards(state, g, cards, CALL_OFFSET)


def playable(state: State, tables: RuleTables, g: np.ndarray) -> np.ndarray:
    """The cards the current player may play: his hand, or with follow suit
    in force and a card led, the cards of the suit led if he has any."""
    hand = held_by(state, g, state.current_player[g])
    shape = tables.shape
    if tables.follow_from_trick < shape.tricks:
        trick, size = np.divmod(state._cards_played[g], shape.seats)
        led = state.trick_cards.reshape(-1)[g * shape.cards_in_tricks + trick * shape.seats]
        suited = hand & SUIT_BITS[CARD_SUIT[led]]
        must_follow = (size > 0) & (trick >= tables.follow_from_trick) & (suited != 0)
        hand = np.where(must_follow, suited, hand)
    return hand


def set_play_legal(state: State, tables: RuleTables, g: np.ndarray) -> None:
    _set_cards(state, g, playable(state, tables, g), PLAY_OFFSET)


def set_discard_legal(state: State, g: np.ndarray) -> None:
    """The caller discards any card of his hand, the monte's included (ids of the card play)."""
    _set_cards(state, g, held_by(state, g, state.caller[g]), PLAY_OFFSET)


def _set_cards(state: State, g: np.ndarray, cards: np.ndarray, offset: int) -> None:
    state._legal_bits[g] = cards
    state._legal_base[g] = offset
    state._pass_ok[g] = False


def clear_legal(state: State, g: np.ndarray) -> None:
    state._legal_bits[g] = 0
    state._pass_ok[g] = False
