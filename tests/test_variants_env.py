"""The table variants (RULES.md, "Variants that change the table") in the environments:
PettingZoo's api_test for every variant preset, the AEC env's views and masks against the batched
engine's in lock step, the spaces sized by the rules, and BatchedEnv's views against a full encoding."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from briscola_env import BatchedEnv, engine, env, raw_env
from briscola_env.observation import encode, observation_spec, privileged_spec
from briscola_env.rules import preset

VARIANT_PRESETS = ["al_buio", "monte", "four_players"]
# The two warnings api_test gives any env with Dict observations; nothing else is expected.
KNOWN_DICT_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_api_test_passes_for_every_variant_preset(name, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            api_test(make(rules=name), num_cycles=300)
    assert "Passed API test" in out.getvalue()
    unexpected = [str(w.message) for w in caught if str(w.message) not in KNOWN_DICT_WARNINGS]
    assert unexpected == [], unexpected


@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_spaces_are_sized_by_the_rules(name):
    rules = preset(name)
    e = raw_env(rules=name)
    seats = rules.table_shape.seats
    assert e.possible_agents == [f"player_{s}" for s in range(seats)]
    assert e.observation_space("player_0")["observation"].shape == (observation_spec(rules).size,)
    assert e.state_space.shape == (privileged_spec(rules).size,)


@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_masks_views_and_payoffs_match_the_batched_engine_in_lock_step(name):
    rules = preset(name)
    seats = rules.table_shape.seats
    n_games = 60
    rng = np.random.default_rng(11)
    deals, dealers = engine.deal_from_seeds(np.arange(n_games) + 500, rules)
    envs = []
    for b in range(n_games):
        e = raw_env(rules=name)
        hands = [np.flatnonzero(deals[b] == s).tolist() for s in range(seats)]
        monte = np.flatnonzero(deals[b] == seats).tolist() if rules.monte else None
        e.reset(options={"hands": hands, "dealer": int(dealers[b]), **({"monte": monte} if rules.monte else {})})
        envs.append(e)
    state = engine.init_from_deals(deals, dealers, rules)
    steps = 0
    while not state.terminated.all():
        views = [encode(state, np.full(n_games, s)) for s in range(seats)]
        mask = state.legal_action_mask
        actions = np.zeros(n_games, dtype=np.int64)
        for b, e in enumerate(envs):
            assert e.game.terminated == state.terminated[b] and e.game.phase == state.phase[b]
            for s, agent in enumerate(e.possible_agents):
                assert np.array_equal(e.observe(agent)["observation"], views[s][b]), (b, s, steps)
            if state.terminated[b]:
                continue
            o = e.observe(e.agent_selection)
            assert np.array_equal(o["action_mask"], mask[b].astype(np.int8))
            legal = np.flatnonzero(o["action_mask"])
            actions[b] = legal[0] if legal[0] == 0 and rng.random() < 0.6 else rng.choice(legal)
            e.step(int(actions[b]))
        state = engine.step(state, actions, ~state.terminated)
        steps += 1
    for b, e in enumerate(envs):
        assert [e.rewards[a] for a in e.possible_agents] == pytest.approx(state.rewards[b].tolist())
    assert steps > 40


@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_batched_env_views_equal_a_full_encoding(name):
    rules = preset(name)
    env_ = BatchedEnv(64, rules, seed=3)
    out, rng = env_.reset(), np.random.default_rng(3)
    ended = 0
    for _ in range(120):
        assert np.array_equal(out.obs, encode(env_.state, out.seat))
        assert out.obs.shape == (64, observation_spec(rules).size)
        out = env_.step(engine.random_actions(env_.state, rng))
        ended += int(out.done.sum())
        assert np.allclose(out.rewards.sum(axis=1), 0, atol=1e-5)
    assert ended > 64
