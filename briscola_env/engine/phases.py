"""Applying one action in each phase, to the subset ``g`` of games in it.

Each ``apply_*`` takes the state (changed in place), the rule tables, ``g``
(index array of games in that phase) and their actions, and leaves every game
of ``g`` with its next player and legal set, or finished. This is the
engine's hot path: per-game updates go through flat indices
(``g * width + column``) and lookup tables, as NumPy's 2-D fancy indexing and
chains of small operations cost more than the arithmetic itself.
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, NUM_ACTIONS, PASS, PLAY_OFFSET
from ..cards import CARD_SUIT
from .bits import CARD_BIT, CARD_OUT
from .legal import clear_legal, playable, set_auction_legal, set_call_legal, set_discard_legal, set_play_legal
from .scoring import score
from .codes import Phase
from .state import MAX_AUCTION_LENGTH, State
from .tables import RuleTables
from .tricks import first_leader, takes_trick


def apply_auction(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    seat = state.current_player[g]
    n = state.auction_length[g]
    at = g * MAX_AUCTION_LENGTH + n
    state.auction_actions.reshape(-1)[at] = actions
    state.auction_seats.reshape(-1)[at] = seat
    state.auction_length[g] = n + 1

    is_pass = actions == PASS
    passed = state._passed_bits[g] | (is_pass.astype(np.uint8) << seat.astype(np.uint8))
    state._passed_bits[g] = passed
    bid = (~is_pass).nonzero()[0]
    state.high_bid[g[bid]] = actions[bid]
    state.high_bidder[g[bid]] = seat[bid]

    # Over when nobody is left (void), or one player is left holding the bid.
    still_in = tables.shape.seats - np.bitwise_count(passed)
    high_bidder = state.high_bidder[g]
    over = still_in <= 1
    if over.any():
        void = g[still_in == 0]
        finish(state, void)
        won = np.flatnonzero((still_in == 1) & (high_bidder >= 0))
        gw = g[won]
        state.caller[gw] = high_bidder[won]
        if state.hidden.monte is not None:
            begin_discards(state, gw)
        elif state.rules.blind_first_trick:
            begin_play(state, tables, gw)  # the first trick without trump; the call comes after it
        else:
            begin_call(state, tables, gw)
        going_on = np.flatnonzero(~over | ((still_in == 1) & (high_bidder < 0)))
        g, seat, passed = g[going_on], seat[going_on], passed[going_on]
    state.current_player[g] = tables.next_speaker[seat, passed]
    set_auction_legal(state, tables, g)


def begin_discards(state: State, g: np.ndarray) -> None:
    """The caller of the games ``g`` takes the monte into his hand and is to discard."""
    state.phase[g] = Phase.DISCARD
    caller = state.caller[g]
    state.current_player[g] = caller
    monte = state.hidden.monte
    assert monte is not None, "a discard phase comes with a monte only"
    state.hidden.hand_bits.reshape(-1)[g * state.tables.shape.seats + caller] |= monte[g]
    set_discard_legal(state, g)


def begin_call(state: State, tables: RuleTables, g: np.ndarray) -> None:
    """The caller of the games ``g`` is to call."""
    state.phase[g] = Phase.CALL
    state.current_player[g] = state.caller[g]
    set_call_legal(state, tables, g)


def begin_play(state: State, tables: RuleTables, g: np.ndarray) -> None:
    """The first trick of the games ``g`` is to be led."""
    state.phase[g] = Phase.PLAY
    leader = first_leader(state.rules, state.caller[g], state.dealer[g])
    state.current_player[g] = leader
    state.trick_leaders[g, 0] = leader
    set_play_legal(state, tables, g)


def apply_discard(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    bit = CARD_BIT[actions - PLAY_OFFSET]
    state.hidden.hand_bits.reshape(-1)[g * tables.shape.seats + state.caller[g]] &= ~bit
    all_discards = state.hidden.discards
    assert all_discards is not None, "a discard phase comes with a monte only"
    discards = all_discards[g] | bit
    all_discards[g] = discards
    done = np.bitwise_count(discards) == tables.shape.monte_size
    if state.rules.blind_first_trick:
        begin_play(state, tables, g[done])
    else:
        begin_call(state, tables, g[done])
    set_discard_legal(state, g[~done])


def apply_call(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    card = actions - CALL_OFFSET
    bit = CARD_BIT[card]
    holds = (state.hidden.hand_bits[g] & bit[:, None]) != 0  # (n, seats), at most one True per row
    state.called_card[g] = card
    state.trump[g] = CARD_SUIT[card]
    partner = holds.argmax(axis=1)
    if state.hidden.discards is not None:  # a discarded card is the caller's own: a solo
        partner = np.where((state.hidden.discards[g] & bit) != 0, state.caller[g], partner)
    if not state.rules.blind_first_trick:
        state.hidden.partner[g] = partner
        begin_play(state, tables, g)
        return
    # After the blind first trick: the called card may lie in it, which shows its player, the partner.
    in_first = state.trick_cards[g, 0] == card[:, None]
    played_it = (state.trick_leaders[g, 0] + in_first.argmax(axis=1)) % tables.shape.seats
    state.hidden.partner[g] = np.where(in_first.any(axis=1), played_it, partner)
    state.phase[g] = Phase.PLAY
    state.current_player[g] = state.trick_leaders[g, 1]  # the first trick's winner leads the second
    set_play_legal(state, tables, g)


# The card of each play action id, as an index and as the state holds cards (int8: no cast in each write).
_PLAYED_CARD = np.arange(NUM_ACTIONS, dtype=np.int64) - PLAY_OFFSET
_PLAYED_CARD8 = np.maximum(_PLAYED_CARD, -1).astype(np.int8)


def apply_play(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    card, card8 = _PLAYED_CARD[actions], _PLAYED_CARD8[actions]  # (lookups cost less than arithmetic)
    seat = state.current_player[g]
    played = state._cards_played[g]
    shape = tables.shape
    state.hidden.hand_bits.reshape(-1)[g * shape.seats + seat] &= CARD_OUT[card]
    state.trick_cards.reshape(-1)[g * shape.cards_in_tricks + played] = card8  # trick t, place i: t*seats + i
    played += 1
    state._cards_played[g] = played

    best = state._best_card[g]
    beats = takes_trick(tables, state.trump[g], best, card)
    best_seat = np.where(beats, seat, state._best_seat[g])
    points = state._trick_points[g] + tables.points[card]
    state._best_card[g] = np.where(beats, card8, best)
    state._best_seat[g] = best_seat
    state._trick_points[g] = points
    state.current_player[g] = tables.next_seat.take(seat)

    i = tables.ends_trick.take(played).nonzero()[0]
    if i.size:
        _end_tricks(state, tables, g[i], best_seat[i], points[i], played[i] // shape.seats - 1)
        g = g[state.phase[g] == Phase.PLAY]  # (only the end of a trick ends the card play)
    # Still in play: only the player, hence the card set, changed (base and pass stay put).
    state._legal_bits[g] = playable(state, tables, g)


def _end_tricks(state: State, tables: RuleTables, g: np.ndarray, winner: np.ndarray,
                points: np.ndarray, trick: np.ndarray) -> None:
    """The winner takes the trick and leads the next one (after the call, if the trick was the blind
    first one); after the last trick, scoring."""
    at = g * tables.shape.seats + winner
    state.captured_points.reshape(-1)[at] += points
    state.tricks_won.reshape(-1)[at] += 1
    tricks = tables.shape.tricks
    state.trick_winners.reshape(-1)[g * tricks + trick] = winner
    state._best_card[g] = -1
    state._best_seat[g] = -1
    state._trick_points[g] = 0
    state.current_player[g] = winner
    more = trick + 1 < tricks
    state.trick_leaders.reshape(-1)[g[more] * tricks + trick[more] + 1] = winner[more]
    if state.rules.blind_first_trick:
        begin_call(state, tables, g[trick == 0])  # the blind first trick is over: now the call
    last = g[~more]
    if last.size:
        score(state, tables, last)
        finish(state, last)


def finish(state: State, g: np.ndarray) -> None:
    state.phase[g] = Phase.DONE
    state.terminated[g] = True
    state.current_player[g] = -1
    clear_legal(state, g)
