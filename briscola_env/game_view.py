"""Every seat's observation of one scalar game, kept up to date an action at a time.

The single-game counterpart of :class:`~briscola_env.batched_env.BatchedEnv`'s
views, for the PettingZoo environment: NumPy calls on a batch of one cost
more than the rules themselves, so one hand is played by the plain
:class:`~briscola_env.reference.ReferenceGame` and its views are written here
entry by entry. The layout is :data:`briscola_env.observation.SPEC`, and the
tests check these views against :func:`briscola_env.observation.encode` of
the batched engine on the same games.
"""

from __future__ import annotations

import numpy as np

from .actions import PASS, PLAY_OFFSET
from .cards import NUM_CARDS, NUM_SEATS, NUM_TRICKS
from .engine.codes import Phase
from .observation import HISTORY, NUM_BIDS, SPEC
from .reference import ReferenceGame

_START = {name: section.start for name, section in SPEC.sections.items()}


class GameViews:
    """The five seats' views of ``game``; call :meth:`step` instead of ``game.step``."""

    def __init__(self, game: ReferenceGame):
        self.game = game
        self._views = np.zeros((NUM_SEATS, SPEC.size), dtype=SPEC.dtype)  # only HISTORY kept current

    def step(self, action: int) -> None:
        """Play ``action`` in the game and add it to every seat's history."""
        game = self.game
        seat, phase, standing, trick = game.current_player, game.phase, game.high_bid, len(game.trick_winners)
        game.step(action)
        views = self._views
        for viewer in range(NUM_SEATS):
            r = (seat - viewer) % NUM_SEATS
            if phase == Phase.AUCTION and action == PASS:
                views[viewer, _START["auction_passes"] + r * (NUM_BIDS + 1) + standing] = 1
            elif phase == Phase.AUCTION:
                views[viewer, _START["auction_bids"] + (action - 1) * NUM_SEATS + r] = 1
            elif phase == Phase.PLAY:
                card = action - PLAY_OFFSET
                views[viewer, _START["played_by"] + card * NUM_SEATS + r] = 1
                views[viewer, _START["played_in_trick"] + card * NUM_TRICKS + trick] = 1

    def observe(self, seat: int) -> np.ndarray:
        """``(SPEC.size,)`` uint8, a new array: the game as ``seat`` sees it."""
        game = self.game
        obs = np.zeros(SPEC.size, dtype=SPEC.dtype)
        obs[HISTORY] = self._views[seat, HISTORY]

        def one(name: str, index: int) -> None:
            obs[_START[name] + index] = 1

        def rel(other: int) -> int:
            return (other - seat) % NUM_SEATS

        mine = game.hands[seat]
        obs[list(mine)] = 1  # hand, at 0..39
        others = [c for s in range(NUM_SEATS) if s != seat for c in game.hands[s]]
        obs[[_START["unseen"] + c for c in others]] = 1
        one("phase", game.phase)
        one("dealer", rel(game.dealer))
        if game.current_player >= 0:
            one("to_act", rel(game.current_player))
        one("high_bid", game.high_bid)
        if game.high_bidder >= 0:
            one("high_bidder", rel(game.high_bidder))
        if game.called_card >= 0:
            one("caller", rel(game.caller))
            one("called_card", game.called_card)
            one("trump", game.trump)
            obs[_START["i_hold_called"]] = game.called_card in mine
        if game.phase == Phase.PLAY:
            trick = game.tricks[-1] if len(game.tricks) > len(game.trick_winners) else []
            for place, (_, card) in enumerate(trick):
                one("current_trick", place * NUM_CARDS + card)
            one("trick_leader", rel(trick[0][0] if trick else game.current_player))
        if game.phase >= Phase.PLAY:
            one("trick_index", len(game.trick_winners))
        for r in range(NUM_SEATS):
            obs[_START["captured_points"] + r] = game.captured_points[(seat + r) % NUM_SEATS]
            obs[_START["tricks_won"] + r] = game.tricks_won[(seat + r) % NUM_SEATS]
        if game.partner_revealed:
            obs[_START["partner_revealed"]] = 1
            one("partner", rel(game.partner))
        return obs
