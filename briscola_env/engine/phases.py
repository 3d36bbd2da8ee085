"""Applying one action in each phase, to the subset ``g`` of games in it.

Each ``apply_*`` takes the state (changed in place), the rule tables, ``g``
(index array of games in that phase) and their actions, and leaves every game
of ``g`` with its next player and legal set, or finished. Per-game updates
use flat indices and integer arithmetic rather than 2-D fancy indexing and
masked ``np.where``: they are the engine's hot path.
"""

from __future__ import annotations

import numpy as np

from ..actions import CALL_OFFSET, PASS, PLAY_OFFSET
from ..cards import CARD_SUIT, NUM_SEATS, NUM_TRICKS
from .bits import CARD_BIT, popcount
from .legal import clear_legal, set_auction_legal, set_call_legal, set_play_legal
from .scoring import score
from .state import CALL, DONE, MAX_AUCTION_LENGTH, PLAY, State
from .tables import RuleTables


def apply_auction(state: State, tables: RuleTables, g: np.ndarray, actions: np.ndarray) -> None:
    seat = state.current_player[g].astype(np.int64)
    n = state.auction_length[g]
    at = g * MAX_AUCTION_LENGTH + n
    state.auction_actions.reshape(-1)[at] = actions
    state.auction_seats.reshape(-1)[at] = seat
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
    card = actions - CALL_OFFSET
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
    card = actions - PLAY_OFFSET
    seat = state.current_player[g].astype(np.int64)
    trick = state.trick_index[g].astype(np.int64)
    size = state.trick_size[g].astype(np.int64)
    hands = state.hidden.hand_bits.reshape(-1)
    at = g * NUM_SEATS + seat
    hands[at] = hands[at] & ~CARD_BIT[card]
    state.trick_cards.reshape(-1)[(g * NUM_TRICKS + trick) * NUM_SEATS + size] = card
    state.partner_revealed[g] |= card == state.called_card[g]

    # The new card takes the trick if it beats the best so far: a higher card
    # of the same suit, or any trump over a non-trump. Other cards never win.
    best = state._best_card[g].astype(np.int64)
    suit, best_suit = CARD_SUIT[card], CARD_SUIT[best]
    trump = state.trump[g]
    beats = ((size == 0)
             | ((suit == best_suit) & (tables.strength[card] > tables.strength[best]))
             | ((suit == trump) & (best_suit != trump)))
    best += beats * (card - best)
    best_seat = state._best_seat[g].astype(np.int64)
    best_seat += beats * (seat - best_seat)
    points = state._trick_points[g] + tables.points[card]
    size += 1

    open_ = size < NUM_SEATS  # trick still open after this card; if not, reset to the empty trick (-1, 0)
    state._best_card[g] = best * open_ - ~open_
    state._best_seat[g] = best_seat * open_ - ~open_
    state._trick_points[g] = points * open_
    state.trick_size[g] = size * open_
    next_seat = seat + 1
    next_seat -= NUM_SEATS * (next_seat == NUM_SEATS)
    state.current_player[g] = next_seat + ~open_ * (best_seat - next_seat)

    i = np.flatnonzero(~open_)
    gf, winner, trick_f = g[i], best_seat[i], trick[i]
    at = gf * NUM_SEATS + winner
    state.captured_points.reshape(-1)[at] += points[i]
    state.tricks_won.reshape(-1)[at] += 1
    state.trick_winners.reshape(-1)[gf * NUM_TRICKS + trick_f] = winner
    state.trick_index[gf] = trick_f + 1
    more = trick_f + 1 < NUM_TRICKS
    state.trick_leaders.reshape(-1)[gf[more] * NUM_TRICKS + trick_f[more] + 1] = winner[more]

    last = gf[~more]
    if last.size:
        score(state, tables, last)
        finish(state, last)
        playing_on = np.ones(len(g), dtype=bool)
        playing_on[i[~more]] = False
        g = g[playing_on]
    set_play_legal(state, tables, g)


def finish(state: State, g: np.ndarray) -> None:
    state.phase[g] = DONE
    state.terminated[g] = True
    state.current_player[g] = -1
    clear_legal(state, g)
