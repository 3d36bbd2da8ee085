"""Sampled worlds (briscola_env.worlds) under the table variants: every world replays the public
history legally to the same view, the monte's face-down cards included (the caller's discards,
and which of his twelve cards were the monte, for everyone else)."""

import numpy as np
import pytest

from briscola_env import RulesConfig, preset
from briscola_env import worlds as W
from briscola_env.cards import NUM_CARDS
from briscola_env.engine import Phase
from briscola_env.engine.state import not_played
from briscola_env.observation import encode

from support import random_positions

VARIANT_RULES = {
    "al_buio": preset("al_buio"),
    "al_buio_follow_suit": RulesConfig(blind_first_trick=True, follow_suit=True),
    "monte": preset("monte"),
    "monte_no_self_call": RulesConfig(monte=True, allow_self_call=False),
    "monte_follow_suit_at_least": RulesConfig(monte=True, follow_suit=True, call_rule="at_least"),
    "monte_al_buio": RulesConfig(monte=True, blind_first_trick=True),
    "four_players": preset("four_players"),
    "four_no_self_call_follow_suit": RulesConfig(players=4, allow_self_call=False, follow_suit=True),
    "four_al_buio_points_only": RulesConfig(players=4, blind_first_trick=True, bidding="points_only"),
}


@pytest.mark.parametrize("name", list(VARIANT_RULES))
@pytest.mark.slow
def test_every_sampled_world_replays_legally_to_the_same_view(name):
    rules = VARIANT_RULES[name]
    rng = np.random.default_rng(1)
    phases, positions = set(), 0
    for obs, state in random_positions(rules, games=48):
        me = np.zeros(len(obs), dtype=np.int64)
        public = W.decode(obs, rules)
        worlds = W.sample_worlds(public, 3, rng)
        for k in range(worlds.deals.shape[1]):
            replayed = W.replay(public, worlds.deals[:, k], worlds.discards[:, k])  # raises on an illegal action
            assert np.array_equal(encode(replayed, me), obs)
        games = W.world_states(W.replay(public, worlds.deals[:, 0], worlds.discards[:, 0]), public,
                               worlds.deals.reshape(-1, NUM_CARDS), np.repeat(np.arange(len(obs)), 3),
                               worlds.discards.reshape(-1, NUM_CARDS))
        assert np.array_equal(encode(games, np.zeros(games.batch_size, np.int64)), np.repeat(obs, 3, axis=0))
        # The cards not played are public (which of them are face down, with a monte, is not).
        assert np.array_equal(not_played(games), np.repeat(not_played(state), 3))
        if rules.monte:
            assert np.array_equal(games.hidden.discards != 0, np.repeat(state.hidden.discards != 0, 3))
        phases |= set(state.phase.tolist())
        positions += len(obs)
    assert positions >= 2000 and {Phase.AUCTION, Phase.CALL, Phase.PLAY} <= phases
    assert (Phase.DISCARD in phases) == rules.monte


def test_the_discards_of_others_are_dealt_among_the_unseen_cards_uniformly():
    """A defender's worlds put each unseen card among the caller's discards in proportion to the five
    face-down places among all the places unseen cards can be."""
    rules = preset("monte")
    for obs, state in random_positions(rules, games=200, steps=20, seed=3):
        pass
    public = W.decode(obs, rules)
    rows = np.flatnonzero(public.taken & (public.caller != 0) & (public.called >= 0)
                          & (public.played_by < 0).all(axis=1))
    row = int(rows[0])
    one = W.PublicView(**{key: value[row:row + 1] if isinstance(value, np.ndarray) else value
                          for key, value in vars(public).items()})
    worlds = W.sample_worlds(one, 20_000, np.random.default_rng(2))
    card = int(np.flatnonzero(one.unseen[0])[0])
    places = one.still_held[0, 1:].sum() + one.pile[0]
    assert abs(worlds.discards[0, :, card].mean() - 5 / places) < 0.015
    assert (worlds.discards[0].sum(axis=1) == 5).all()
    # The monte's five, once taken, are drawn among the caller's twelve cards: each of them one time in 12/5.
    caller = one.caller[0]
    twelve = (worlds.deals[0] == caller) | (worlds.deals[0] == one.seats)
    assert (twelve.sum(axis=1) == 12).all()
    often = twelve.sum(axis=0) >= 2000  # cards often among his twelve: how often they were the monte's
    share = (worlds.deals[0] == one.seats).sum(axis=0)[often] / twelve.sum(axis=0)[often]
    assert often.sum() > 10 and np.abs(share - 5 / 12).max() < 0.03
