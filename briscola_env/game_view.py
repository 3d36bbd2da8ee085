"""Every seat's observation of one :class:`~briscola_env.game.Game`, kept up to date an action at a time.

The single-game counterpart of :class:`~briscola_env.batched_env.BatchedEnv`'s views, for the
PettingZoo environment. The game is a batch of one engine state, but a full vectorized encoding
(:func:`briscola_env.observation.encode`) of one game costs several times an engine step, so
the views are written here entry by entry from the state's values read as Python ints: the
history as each action is played, the state of play when a seat observes. The layout is
:func:`briscola_env.observation.observation_spec`'s, and the tests check these views against
:func:`~briscola_env.observation.encode` on the same games.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .actions import PASS, PLAY_OFFSET
from .cards import NUM_CARDS
from .engine.codes import Phase
from .game import Game, card_bits
from .observation import NUM_BIDS, observation_spec


@lru_cache(maxsize=None)
def history_offsets(seats: int, size: int) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """``(by_seat, passes_by_seat)`` for views of ``size`` entries at a table of ``seats``: ``by_seat[s]``
    holds, for each viewer, the flat index of his view's start in a ``(seats, size)`` array plus the
    relative seat ``r`` of ``s``; ``passes_by_seat[s]`` the same with ``r`` times the width of an
    ``auction_passes`` row. Plus a section's offset, the history entries an action of ``s`` sets."""
    viewers = np.arange(seats)
    relative = [(seat - viewers) % seats for seat in range(seats)]
    by_seat = tuple(viewers * size + r for r in relative)
    passes_by_seat = tuple(viewers * size + r * (NUM_BIDS + 1) for r in relative)
    for array in by_seat + passes_by_seat:
        array.setflags(write=False)
    return by_seat, passes_by_seat


class GameViews:
    """Every seat's view of ``game``; call :meth:`step` instead of ``game.step``."""

    def __init__(self, game: Game):
        self.game = game
        self.spec = spec = observation_spec(game.rules)
        shape = game.rules.table_shape
        self.seats, self.tricks, self.has_monte = shape.seats, shape.tricks, bool(shape.monte_size)
        self._start = {name: section.start for name, section in spec.sections.items()}
        # Every seat's view, of which only the history is written: the state of play stays all 0, so that
        # a copy of a row is the start of an observation.
        self._views = np.zeros((self.seats, spec.size), dtype=spec.dtype)
        self._by_seat, self._passes_by_seat = history_offsets(self.seats, spec.size)

    def step(self, action: int) -> None:
        """Play ``action`` in the game and add it to every seat's history."""
        state, start, seats = self.game.state, self._start, self.seats
        seat, phase = state.current_player.item(0), state.phase.item(0)
        standing, trick = state.high_bid.item(0), state.cards_played.item(0) // seats
        self.game.step(action)
        flat = self._views.reshape(-1)
        if phase == Phase.AUCTION and action == PASS:
            flat[self._passes_by_seat[seat] + (start["auction_passes"] + standing)] = 1
        elif phase == Phase.AUCTION:
            flat[self._by_seat[seat] + (start["auction_bids"] + (action - 1) * seats)] = 1
        elif phase == Phase.PLAY:
            card = action - PLAY_OFFSET
            flat[self._by_seat[seat] + (start["played_by"] + card * seats)] = 1
            self._views[:, start["played_in_trick"] + card * self.tricks + trick] = 1

    def observe(self, seat: int) -> np.ndarray:
        """``(spec.size,)`` uint8, a new array: the game as ``seat`` sees it."""
        state, start = self.game.state, self._start
        obs = self._views[seat].copy()  # the history, and zeros for the state of play
        hands = state.hidden.hand_bits[0].tolist()
        mine = hands[seat]
        phase, caller = state.phase.item(0), state.caller.item(0)
        held = 0  # the cards not played yet: the hands, the discards, the monte while nobody has taken it
        for hand in hands:
            held |= hand
        seen = mine
        if self.has_monte:
            hidden = state.hidden
            assert hidden.monte is not None and hidden.discards is not None, "a table with a monte keeps both"
            monte, discards = hidden.monte.item(0), hidden.discards.item(0)
            held |= discards | (monte if caller < 0 else 0)
            if seat == caller or phase == Phase.DONE:  # his own monte and discards; everyone's at the end
                obs[start["monte"]:start["discards"] + NUM_CARDS] = card_bits(monte, discards)
                seen |= monte | discards
        obs[:2 * NUM_CARDS] = card_bits(mine, held & ~seen)  # hand, then unseen
        for at in self._ones(seat, mine, held):  # (a handful: one at a time costs least)
            obs[at] = 1
        for name, values in (("captured_points", state.captured_points), ("tricks_won", state.tricks_won)):
            values = values[0].tolist()
            obs[start[name]:start[name] + self.seats] = values[seat:] + values[:seat]  # by relative seat
        return obs

    def _ones(self, seat: int, mine: int, held: int) -> list[int]:
        """The indices of the state of play's one-hot entries and flags that are 1 for ``seat``, who
        holds ``mine``, while the cards ``held`` are not played yet."""
        state, start, seats = self.game.state, self._start, self.seats
        phase = state.phase.item(0)
        ones = [start["phase"] + phase, start["dealer"] + (state.dealer.item(0) - seat) % seats,
                start["high_bid"] + state.high_bid.item(0)]
        for name, other in (("to_act", state.current_player.item(0)), ("high_bidder", state.high_bidder.item(0))):
            if other >= 0:
                ones.append(start[name] + (other - seat) % seats)
        called = state.called_card.item(0)
        if called >= 0:
            ones += [start["caller"] + (state.caller.item(0) - seat) % seats, start["called_card"] + called,
                     start["trump"] + state.trump.item(0)]
            if mine >> called & 1:
                ones.append(start["i_hold_called"])
            if not held >> called & 1:  # played: everyone has seen who holds it
                ones += [start["partner_revealed"], start["partner"] + (state.hidden.partner.item(0) - seat) % seats]
        trick, placed = divmod(state.cards_played.item(0), seats)
        if phase == Phase.PLAY:
            cards = state.trick_cards[0, trick, :placed].tolist()
            ones += [start["current_trick"] + place * NUM_CARDS + card for place, card in enumerate(cards)]
            ones.append(start["trick_leader"] + (state.trick_leaders.item(trick) - seat) % seats)
        if phase in (Phase.PLAY, Phase.DONE):
            ones.append(start["trick_index"] + trick)
        return ones
