"""The ``obs_dtype`` option (issue 15): ``"float32"`` views scaled to [0, 1] by the
observation spec, on ``raw_env``, ``env`` and ``BatchedEnv``; ``"uint8"`` stays the
default; anything else is refused."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

from briscola_env import BatchedEnv, env, raw_env
from briscola_env.observation import PRIVILEGED_SPEC, SPEC
from support import random_actions

# The two warnings api_test gives any env with Dict observations, whatever their dtype.
KNOWN_DICT_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def unit_box(size: int) -> spaces.Box:
    return spaces.Box(low=0.0, high=1.0, shape=(size,), dtype=np.float32)


def check_scaled(scaled: np.ndarray, raw: np.ndarray, spec) -> None:
    """``scaled`` is ``raw`` / ``spec.high`` as float32: exactly ``raw * spec.scale`` (the product
    the PPO network takes), within a rounding of the quotient, and inside [0, 1]."""
    assert raw.dtype == np.uint8 and scaled.dtype == np.float32 and scaled.shape == raw.shape
    np.testing.assert_array_equal(scaled, raw.astype(np.float32) * spec.scale)
    np.testing.assert_allclose(scaled, raw / spec.high, rtol=1e-6, atol=0)
    assert scaled.min() >= 0 and scaled.max() <= 1


def test_scaled_views_reach_exactly_one_at_each_entrys_high():
    highest = np.broadcast_to(SPEC.high, (3, SPEC.size))
    np.testing.assert_array_equal(SPEC.scaled(highest), np.ones((3, SPEC.size), np.float32))
    check_scaled(SPEC.scaled(highest), highest, SPEC)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float32_observations_and_state_are_the_uint8_ones_scaled_and_lie_in_their_spaces(seed):
    raw, scaled = raw_env(), raw_env(obs_dtype="float32")  # the default stays uint8
    assert raw.observation_space("player_0")["observation"].dtype == np.uint8
    space = scaled.observation_space("player_0")
    assert space["observation"] == unit_box(SPEC.size) and scaled.state_space == unit_box(PRIVILEGED_SPEC.size)
    assert space["action_mask"] == raw.observation_space("player_0")["action_mask"]  # masks are unchanged
    raw.reset(seed=seed)
    scaled.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not raw.game.terminated:
        for agent in raw.agents:
            a, b = raw.observe(agent), scaled.observe(agent)
            check_scaled(b["observation"], a["observation"], SPEC)
            np.testing.assert_array_equal(b["action_mask"], a["action_mask"])
            assert space.contains(b)
        check_scaled(scaled.state(), raw.state(), PRIVILEGED_SPEC)
        assert scaled.state_space.contains(scaled.state())
        mask = raw.observe(raw.agent_selection)["action_mask"].astype(bool)
        action = int(random_actions(mask[None], rng)[0])
        raw.step(action)
        scaled.step(action)
    check_scaled(scaled.observe("player_3")["observation"], raw.observe("player_3")["observation"], SPEC)


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_api_test_passes_with_float32_observations(make):
    made = make(obs_dtype="float32")
    assert made.observation_space("player_0")["observation"].dtype == np.float32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            api_test(made, num_cycles=300)
    assert "Passed API test" in out.getvalue()
    unexpected = [str(w.message) for w in caught if str(w.message) not in KNOWN_DICT_WARNINGS]
    assert unexpected == [], unexpected


def test_batched_env_float32_obs_and_privileged_match_the_uint8_ones_scaled():
    raw, scaled = BatchedEnv(64, seed=5), BatchedEnv(64, seed=5, obs_dtype="float32")
    a, b = raw.reset(), scaled.reset()
    rng = np.random.default_rng(5)
    ended = 0
    for _ in range(60):  # past the end of most games: auto-reset slots are scaled too
        check_scaled(b.obs, a.obs, SPEC)
        assert b.obs.flags.c_contiguous
        check_scaled(scaled.privileged(), raw.privileged(), PRIVILEGED_SPEC)
        np.testing.assert_array_equal(b.mask, a.mask)
        actions = random_actions(a.mask, rng)
        a, b = raw.step(actions), scaled.step(actions)
        np.testing.assert_array_equal(b.rewards, a.rewards)
        ended += int(a.done.sum())
    assert ended > 0


@pytest.mark.parametrize("bad", ["float64", "int8", "uint16", None, 1.5, "floats"])
@pytest.mark.parametrize("make", [raw_env, env, lambda **kw: BatchedEnv(4, **kw)], ids=["raw_env", "env", "BatchedEnv"])
def test_bad_obs_dtype_is_refused_naming_both_choices(make, bad):
    with pytest.raises(ValueError, match=r"obs_dtype must be one of 'uint8', 'float32'; got "):
        make(obs_dtype=bad)


@pytest.mark.parametrize("name", ["uint8", "float32"])
def test_obs_dtype_accepts_each_choice_by_name_or_numpy_type(name):
    for given in (name, np.dtype(name).type):
        assert raw_env(obs_dtype=given).observation_space("player_0")["observation"].dtype == np.dtype(name)
        assert BatchedEnv(2, obs_dtype=given).reset().obs.dtype == np.dtype(name)
