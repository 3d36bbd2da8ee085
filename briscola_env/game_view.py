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
from .cards import NUM_CARDS
from .engine.codes import Phase
from .observation import NUM_BIDS, observation_spec
from .reference import ReferenceGame


class GameViews:
    """Every seat's view of ``game``; call :meth:`step` instead of ``game.step``."""

    def __init__(self, game: ReferenceGame):
        self.game = game
        self.spec = observation_spec(game.rules)
        self.seats = game.rules.table_shape.seats
        self._start = {name: section.start for name, section in self.spec.sections.items()}
        self._views = np.zeros((self.seats, self.spec.size), dtype=self.spec.dtype)  # only the history kept current

    def step(self, action: int) -> None:
        """Play ``action`` in the game and add it to every seat's history."""
        game, start, seats, tricks = self.game, self._start, self.seats, self.game.rules.table_shape.tricks
        seat, phase, standing, trick = game.current_player, game.phase, game.high_bid, len(game.trick_winners)
        game.step(action)
        views = self._views
        for viewer in range(seats):
            r = (seat - viewer) % seats
            if phase == Phase.AUCTION and action == PASS:
                views[viewer, start["auction_passes"] + r * (NUM_BIDS + 1) + standing] = 1
            elif phase == Phase.AUCTION:
                views[viewer, start["auction_bids"] + (action - 1) * seats + r] = 1
            elif phase == Phase.PLAY:
                card = action - PLAY_OFFSET
                views[viewer, start["played_by"] + card * seats + r] = 1
                views[viewer, start["played_in_trick"] + card * tricks + trick] = 1

    def observe(self, seat: int) -> np.ndarray:
        """``(spec.size,)`` uint8, a new array: the game as ``seat`` sees it."""
        game, start, seats, spec = self.game, self._start, self.seats, self.spec
        obs = np.zeros(spec.size, dtype=spec.dtype)
        obs[spec.history] = self._views[seat, spec.history]

        def one(name: str, index: int) -> None:
            obs[start[name] + index] = 1

        def rel(other: int) -> int:
            return (other - seat) % seats

        mine = game.hands[seat]
        obs[list(mine)] = 1  # hand, at 0..39
        unseen = {c for s in range(seats) if s != seat for c in game.hands[s]} | game.discards
        if game.caller < 0:
            unseen |= game.monte  # nobody has taken it
        if "monte" in start:
            done = game.phase == Phase.DONE
            for name, cards, shown in (("monte", game.monte, (seat == game.caller) or done),
                                       ("discards", game.discards, seat == game.caller or done)):
                if shown:
                    obs[[start[name] + c for c in cards]] = 1
                    unseen -= cards
        obs[[start["unseen"] + c for c in unseen]] = 1
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
            obs[start["i_hold_called"]] = game.called_card in mine
        if game.phase == Phase.PLAY:
            trick = game.tricks[-1] if len(game.tricks) > len(game.trick_winners) else []
            for place, (_, card) in enumerate(trick):
                one("current_trick", place * NUM_CARDS + card)
            one("trick_leader", rel(trick[0][0] if trick else game.current_player))
        if game.phase in (Phase.PLAY, Phase.DONE):
            one("trick_index", len(game.trick_winners))
        for r in range(seats):
            obs[start["captured_points"] + r] = game.captured_points[(seat + r) % seats]
            obs[start["tricks_won"] + r] = game.tricks_won[(seat + r) % seats]
        if game.partner_revealed:
            obs[start["partner_revealed"]] = 1
            one("partner", rel(game.partner))
        return obs
