"""The batched self-play environment: observations kept up to date
incrementally, same-step auto-reset, rewards, seeding and errors."""

import numpy as np
import pytest

from briscola_env import BatchedEnv, engine
from briscola_env.cards import NUM_SEATS, TOTAL_POINTS
from briscola_env.observation import HISTORY, SPEC, encode, encode_history
from briscola_env.rules import RulesConfig, preset
from support import random_actions


def play(env: BatchedEnv, steps: int, seed: int = 0, check=None):
    rng = np.random.default_rng(seed)
    out = env.reset()
    for _ in range(steps):
        actions = random_actions(out.mask, rng, pass_prob=0.5)
        out = env.step(actions)
        if check:
            check(env, out, actions)
    return out


def views_are_full_encodings(env: BatchedEnv, out, actions=None) -> None:
    """The views and every seat's history, kept up to date an action at a time, equal a full encoding:
    the seat to act's in ``out.obs``, every seat's in the env's saved state (what a resumed env shows)."""
    assert np.array_equal(out.obs, encode(env.state, out.seat))
    saved = env.state_dict()
    for seat in range(NUM_SEATS):
        full = np.empty((env.num_envs, HISTORY.stop - HISTORY.start), dtype=np.uint8)
        encode_history(env.state, np.full(env.num_envs, seat), full)
        kept = np.concatenate([saved["seat_records"][:, seat], saved["shared_records"]], axis=1)
        assert np.array_equal(kept, full), f"history of seat {seat}"


@pytest.mark.parametrize("rules", [RulesConfig(), preset("points_only"), preset("follow_suit_endgame")],
                         ids=["standard", "points_only", "follow_suit_endgame"])
def test_observations_equal_a_full_encoding_for_every_seat(rules):
    play(BatchedEnv(96, rules, seed=3), 250, check=views_are_full_encodings)


def test_stepping_some_games_leaves_the_others_and_their_records_as_they_were():
    env = BatchedEnv(64, seed=8)
    rng = np.random.default_rng(1)
    out = env.reset()

    for _ in range(200):
        active = rng.random(env.num_envs) < 0.5
        before = out.obs.copy()
        actions = random_actions(out.mask, rng, pass_prob=0.5)
        out = env.step(actions, active=active)
        views_are_full_encodings(env, out)
        assert np.array_equal(out.obs[~active], before[~active])


def test_outputs_are_the_seat_to_act_and_its_legal_actions():
    env = BatchedEnv(64, seed=1)

    def check(env, out, actions):
        assert np.array_equal(out.seat, env.state.current_player)
        assert np.array_equal(out.mask, env.state.legal_action_mask)
        assert out.mask.any(axis=1).all(), "every slot always has a live game"
        assert out.obs.dtype == np.uint8 and out.obs.shape == (64, SPEC.size) and out.obs.flags.c_contiguous

    play(env, 120, check=check)


def test_same_step_auto_reset_scores_the_game_that_ended():
    """Replay each finished game from its deal seed and the actions taken in its
    slot: the engine must give the payoffs the env reported."""
    n = 32
    env = BatchedEnv(n, seed=11)
    history = [[] for _ in range(n)]
    rng = np.random.default_rng(5)
    out, finished = env.reset(), 0
    seeds = out.info["deal_seed"].copy()
    for _ in range(400):
        actions = random_actions(out.mask, rng, pass_prob=0.5)
        for b in range(n):
            history[b].append(int(actions[b]))
        out = env.step(actions)
        for b in np.flatnonzero(out.done):
            assert out.info["ended"][b] and out.info["ended_deal_seed"][b] == seeds[b]
            replay = engine.init(np.array([seeds[b]]))
            for a in history[b]:
                replay = engine.step(replay, np.array([a]))
            assert replay.terminated[0]
            assert np.allclose(out.rewards[b], replay.rewards[0])
            assert out.info["caller"][b] == replay.caller[0]
            assert out.info["team_points"][b] == replay.team_points[0]
            history[b], seeds[b] = [], out.info["deal_seed"][b]
            finished += 1
        assert not out.rewards[~out.done].any()
        assert np.array_equal(out.info["ended"], out.done)
    assert finished > 100


def test_same_seed_same_games():
    def trace(seed):
        env, rng, log = BatchedEnv(16, seed=seed), np.random.default_rng(0), []
        out = env.reset()
        for _ in range(100):
            out = env.step(random_actions(out.mask, rng))
            log.append((out.obs.copy(), out.rewards.copy()))
        return log

    a, b, c = trace(4), trace(4), trace(5)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


@pytest.mark.parametrize("mode", ["points", "win_loss"])
def test_reward_modes(mode):
    env = BatchedEnv(64, seed=2, reward=mode)

    def check(env, out, actions):
        for b in np.flatnonzero(out.done & (out.info["caller"] >= 0)):
            side = {int(out.info["caller"][b]), int(out.info["partner"][b])}
            team = out.info["team_points"][b]
            for s in range(NUM_SEATS):
                if mode == "points":
                    expected = (team if s in side else TOTAL_POINTS - team) / TOTAL_POINTS
                else:
                    expected = (1 if out.info["contract_made"][b] else -1) * (1 if s in side else -1)
                assert out.rewards[b, s] == pytest.approx(expected)

    play(env, 150, check=check)


def test_privileged_view_is_apart_from_the_observation():
    env = BatchedEnv(8, seed=0)
    out = env.reset()
    priv = env.privileged()
    assert priv.shape[1] != out.obs.shape[1]


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedEnv(0)
    with pytest.raises(ValueError, match="reward"):
        BatchedEnv(4, reward="score")
    env = BatchedEnv(4, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, dtype=np.int64))
    for before_reset in (env.state_dict, env.privileged):  # no games yet
        with pytest.raises(RuntimeError, match=rf"call reset\(\) before {before_reset.__name__}\(\)"):
            before_reset()
    env.reset()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="illegal action"):
        env.step(np.full(4, 150))
