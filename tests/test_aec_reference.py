"""The PettingZoo AEC environment, which plays by the batched engine (a batch of one), against the scalar
reference, the tests' oracle: for every rules preset, on random hands (dealt from the env's seed and given
as hands) and on the rigged deals of test_differential (whole suits, a 2 in the monte, every Asso or every
2 in one hand) at each table the preset allows. At every step the seat to act, the legal actions and
everything public about the hand agree, and the observation of the seat to act is the engine's vectorized
encoding; at the end, the rewards and the outcome in the infos are the reference's."""

import zlib

import numpy as np
import pytest

from briscola_env import engine, raw_env
from briscola_env.engine import Phase
from briscola_env.game import Game
from briscola_env.observation import encode
from briscola_env.reference import ReferenceGame
from briscola_env.rules import PRESETS, preset
from support import random_actions
from test_differential import RIGGED, hero_policy, rigged_configs, rigged_deals

RANDOM_HANDS = 24  # per preset: half from the env's own seed, half as given hands
RIGGED_HANDS = 3  # per preset, table, self-call rule and kind of deal
# What both games say about the hand at any moment (the multiplier only once the hand is scored: before,
# and in a void hand, the engine holds 0 and the reference 1).
PUBLIC = ("phase", "current_player", "dealer", "hands", "dealt", "monte", "discards", "auction", "high_bid",
          "high_bidder", "caller", "called_card", "trump", "partner", "partner_revealed", "tricks",
          "trick_winners", "captured_points", "tricks_won", "terminated", "void", "team_points", "made")


def hand_of(game) -> dict:
    return {name: getattr(game, name) for name in PUBLIC}


def play_against_reference(env, reference: ReferenceGame, choose, label: str) -> None:
    """Step ``env`` (reset to ``reference``'s deal) and ``reference`` with the same actions, ``choose(game)``
    picking each from the env's game, to the end of the hand, checking them against each other throughout."""
    steps = 0
    while True:
        game, where = env.game, f"{label}, step {steps}"
        assert hand_of(game) == hand_of(reference), where
        if reference.terminated:
            break
        seat = reference.current_player
        assert env.agent_selection == env.possible_agents[seat], where
        observed = env.observe(env.agent_selection)
        assert np.flatnonzero(observed["action_mask"]).tolist() == reference.legal_actions(), where
        assert np.array_equal(observed["observation"], encode(game.state, np.array([seat]))[0]), where
        action = choose(game)
        env.step(action)
        reference.step(action)
        steps += 1
    assert all(env.terminations.values()), label
    void = reference.void
    for seat, agent in enumerate(env.possible_agents):
        info = env.infos[agent]
        assert env.rewards[agent] == pytest.approx(reference.payoffs[seat]), label
        assert info["payoffs"] == pytest.approx(reference.payoffs), label
        assert (info["phase"], info["void"], info["caller"], info["partner"]) == \
            (Phase.DONE, void, reference.caller, reference.partner), label
        assert (info["team_points"], info["made"], info["multiplier"]) == \
            (reference.team_points, reference.made, 0 if void else reference.multiplier), label


def random_choice(rng: np.random.Generator, pass_prob: float):
    """Uniform over the legal actions, but the pass taken with ``pass_prob`` when legal (short and long auctions)."""
    return lambda game: int(random_actions(game.legal_mask()[None].astype(bool), rng, pass_prob)[0])


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_aec_env_plays_random_hands_as_the_reference(name):
    rules = preset(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    env = raw_env(rules=rules)
    deals, dealers = engine.deal_from_seeds(np.arange(RANDOM_HANDS) + 1000, rules)
    monte_holder = rules.table_shape.monte_holder
    for k in range(RANDOM_HANDS):
        if k % 2:
            env.reset(seed=k)
            deal, dealer = env.game.deal, env.game.dealer
        else:
            deal, dealer = deals[k].tolist(), int(dealers[k])
            options = {"hands": [np.flatnonzero(deals[k] == s).tolist() for s in range(rules.table_shape.seats)],
                       "dealer": dealer}
            if rules.monte:
                options["monte"] = np.flatnonzero(deals[k] == monte_holder).tolist()
            env.reset(options=options)
        pass_prob = (0.3, 0.6, 0.9)[k % 3]
        play_against_reference(env, ReferenceGame(rules, deal, dealer), random_choice(rng, pass_prob),
                               f"{name}, hand {k}")


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.slow
def test_the_aec_env_plays_rigged_deals_as_the_reference(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    for label, rules in rigged_configs(name).items():
        shape = rules.table_shape
        env = raw_env(rules=rules)
        for kind in RIGGED:
            if kind == "two_in_monte" and not shape.monte_size:
                continue
            deals, dealers, heroes = rigged_deals(shape, kind, RIGGED_HANDS, rng)
            for deal, dealer, hero in zip(deals, dealers, heroes):
                options = {"hands": [np.flatnonzero(deal == s).tolist() for s in range(shape.seats)],
                           "dealer": int(dealer)}
                if shape.monte_size:
                    options["monte"] = np.flatnonzero(deal == shape.monte_holder).tolist()
                env.reset(options=options)
                choose = hero_policy(np.array([hero]), rng)  # for a batch of games: the env's is a batch of one
                play_against_reference(env, ReferenceGame(rules, deal.tolist(), int(dealer)),
                                       lambda game: int(choose(game.state, game.legal_mask()[None] == 1)[0]),
                                       f"{label}, {kind}, deal {deal.tolist()}, dealer {dealer}")


def test_a_game_refuses_the_deals_the_reference_refuses():
    rules = preset("standard")
    deal = (np.arange(40) // 8).tolist()
    with_bool = [False] + deal[1:]  # seat 0 to NumPy, which would take it silently
    for args in (("standard", deal, 0), (rules, deal, 5), (rules, deal, True), (rules, deal[:39], 0),
                 (rules, with_bool, 0), (rules, [0] * 40, 0)):
        with pytest.raises(ValueError):
            ReferenceGame(*args)
        with pytest.raises(ValueError):
            Game(*args)


def test_a_games_legal_mask_is_its_own_and_the_envs_is_the_callers():
    env = raw_env()
    env.reset(seed=3)
    mask = env.game.legal_mask()
    assert mask.dtype == np.int8 and not mask.flags.writeable and env.game.legal_mask() is mask
    observed = env.observe(env.agent_selection)["action_mask"]
    assert observed.flags.writeable and not np.shares_memory(observed, mask)
    assert np.array_equal(observed, mask) and np.array_equal(mask == 1, env.game.state.legal_action_mask[0])
