"""Applying one action in each phase, to the subset ``g`` of games in it.

Each ``apply_*`` takes the state (changed in place), the rule tables, ``g``
(index array of games in that phase) and their actions, and leaves every game
of ``g`` with its next player and legal set, or finished.
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, PASS, PLAY_OFFSET
from ..cards import CARD_SUIT, NUM_SEATS, NUM_TRICKS
from .bits import CARD_BIT, popcount
from .legal import clear_legal, set_auction_legal, set_call_legal, set_play_legal
from .scoring import score
from .state import CALL, DONE, PLAY, State
from .tables import RuleTables


def apply_auction(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    seat = state.current_player[g]
    n = state.auction_length[g]
    state.auction_actions[g, n] = actions
    state.auction_seats[g, n] = seat
    state.auction_length[g] = n + 1

    is_pass = actions == PASS
    passed = state._passed_bits[g] | (is_pass.astype(np.uint8) << seat.astype(np.uint8))
    state._passed_bits[g] = passed
    high_bid = np.where(is_pass, state.high_bid[g], actions).astype(np.int16)
    high_bidder = np.where(is_pass, state.high_bidder[g], seat).astype(np.int8)
    state.high_bid[g] = high_bid
    state.high_bidder[g] = high_bidder

    still_in = NUM_SEATS - popcount(passed)
    void = still_in == 0
    won = (still_in == 1) & (high_bidder >= 0)
    going_on = ~(void | won)

    finish(state, g[void])

    gw = g[won]
    state.phase[gw] = CALL
    state.caller[gw] = high_bidder[won]
    state.current_player[gw] = high_bidder[won]
    set_call_legal(state, tables, gw)

    go = g[going_on]
    state.current_player[go] = tables.next_speaker[seat[going_on], passed[going_on]]
    set_auction_legal(state, tables, go)


def apply_call(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    card = (actions - CALL_OFFSET).astype(np.int8)
    holds = (state.hidden.hand_bits[g] & CARD_BIT[card][:, None]) != 0  # (n, 5), one True per row
    state.called_card[g] = card
    state.trump[g] = CARD_SUIT[card]
    state.hidden.partner[g] = holds.argmax(axis=1)
    state.phase[g] = PLAY
    if state.rules.first_leader == "caller":
        leader = state.caller[g]
    else:
        leader = (state.dealer[g] + 1) % NUM_SEATS
    state.current_player[g] = leader
    state.trick_leaders[g, 0] = leader
    set_play_legal(state, tables, g)


def apply_play(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    card = (actions - PLAY_OFFSET).astype(np.int8)
    seat = state.current_player[g]
    trick = state.trick_index[g]
    size = state.trick_size[g]
    state.hidden.hand_bits[g, seat] &= ~CARD_BIT[card]
    state.trick_cards[g, trick, size] = card
    state.partner_revealed[g] |= card == state.called_card[g]

    # The new card takes the trick if it beats the best so far: a higher card
    # of the same suit, or any trump over a non-trump. Other cards never win.
    best = state._best_card[g]
    suit, best_suit = CARD_SUIT[card], CARD_SUIT[best]
    trump = state.trump[g]
    beats = (size == 0) | np.where(suit == best_suit,
                                   tables.strength[card] > tables.strength[best],
                                   (suit == trump) & (best_suit != trump))
    best = np.where(beats, card, best)
    best_seat = np.where(beats, seat, state._best_seat[g])
    points = state._trick_points[g] + tables.points[card]
    size = size + 1

    full = size == NUM_SEATS
    state._best_card[g] = np.where(full, -1, best)
    state._best_seat[g] = np.where(full, -1, best_seat)
    state._trick_points[g] = np.where(full, 0, points)
    state.trick_size[g] = np.where(full, 0, size)
    state.current_player[g] = np.where(full, best_seat, (seat + 1) % NUM_SEATS)

    gf, winner, trick_f = g[full], best_seat[full], trick[full]
    state.captured_points[gf, winner] += points[full]
    state.tricks_won[gf, winner] += 1
    state.trick_winners[gf, trick_f] = winner
    state.trick_index[gf] = trick_f + 1
    more = trick_f + 1 < NUM_TRICKS
    state.trick_leaders[gf[more], trick_f[more] + 1] = winner[more]

    last = gf[~more]
    score(state, tables, last)
    finish(state, last)
    set_play_legal(state, tables, np.concatenate([g[~full], gf[more]]))


def finish(state: State, g: np.ndarray) -> None:
    state.phase[g] = DONE
    state.terminated[g] = True
    state.current_player[g] = -1
    clear_legal(state, g)
