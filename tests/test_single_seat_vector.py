"""SingleSeatVectorEnv: N hands of one seat against four agents over the batched engine, as a Gymnasium
VectorEnv, and its SB3 adapter that MaskablePPO trains on."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from agents import Agent, HeuristicAgent, SingleSeatVectorEnv
from briscola_env.cards import NUM_SEATS
from agents.play import play_games

GAMES = 48


class FirstLegal(Agent):
    """The lowest legal action id: a deterministic learner the tests can replay anywhere."""

    def act(self, obs, mask):
        return np.argmax(mask, axis=1)


def run(env: SingleSeatVectorEnv, seed: int, steps: int, choose=lambda mask: np.argmax(mask, axis=1)):
    """``steps`` vector steps from a seeded reset; the observations, rewards and the ended hands' outcomes."""
    obs, infos = env.reset(seed=seed)
    views, rewards, ended = [obs], [], []
    for _ in range(steps):
        assert (infos["action_mask"] == env.action_masks()).all() and infos["action_mask"].any(axis=1).all()
        obs, reward, terminated, truncated, infos = env.step(choose(env.action_masks()))
        assert not truncated.any()
        views.append(obs)
        rewards.append(reward)
        if terminated.any():
            final = infos["final_info"]
            assert (infos["_final_info"] == terminated).all() and (final["_seat"] == terminated).all()
            for g in np.flatnonzero(terminated):
                ended.append((int(final["deal_seed"][g]), int(final["seat"][g]), float(reward[g]),
                              int(final["caller"][g])))
        assert (reward[~terminated] == 0).all()
    return np.stack(views), np.stack(rewards), ended


@pytest.mark.parametrize("seat", [None, 3])
def test_every_ended_hand_is_the_game_play_games_plays_from_its_deal(seat):
    """The learner's reward, and the caller, of each hand that ended equal those of the same deal
    played by agents.play.play_games with the same agents at the same seats."""
    env = SingleSeatVectorEnv(GAMES, opponents="heuristic", seat=seat)
    _, _, ended = run(env, seed=5, steps=60)
    assert len(ended) > GAMES  # every slot finished a hand, many a second one
    seeds = np.array([deal for deal, *_ in ended])
    seats = np.array([learner_seat for _, learner_seat, *_ in ended])
    if seat is None:
        assert set(seats) == set(range(NUM_SEATS))
    else:
        assert (seats == seat).all()
    seat_agents = np.ones((len(ended), NUM_SEATS), dtype=np.int64)
    seat_agents[np.arange(len(ended)), seats] = 0
    state, _ = play_games([FirstLegal(), HeuristicAgent()], seat_agents, seeds)
    assert np.allclose(state.rewards[np.arange(len(ended)), seats], [reward for *_, reward, _ in ended])
    assert (state.caller == [caller for *_, caller in ended]).all()


def test_the_same_seed_gives_the_same_hands_and_another_seed_others():
    first = run(SingleSeatVectorEnv(16, opponents="random"), seed=3, steps=30)
    again = run(SingleSeatVectorEnv(16, opponents="random"), seed=3, steps=30)
    other = run(SingleSeatVectorEnv(16, opponents="random"), seed=4, steps=30)
    assert (first[0] == again[0]).all() and (first[1] == again[1]).all() and first[2] == again[2]
    assert not (first[0] == other[0]).all()


def test_spaces_dtypes_and_sampled_actions_are_legal():
    for obs_dtype in ("uint8", "float32"):
        env = SingleSeatVectorEnv(8, opponents="random", obs_dtype=obs_dtype)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.shape == (8, env.single_observation_space.shape[0])
        for _ in range(40):
            assert obs in env.observation_space and obs.dtype == np.dtype(obs_dtype)
            action = env.action_space.sample()
            assert action in env.action_space and env.action_masks()[np.arange(8), action].all()
            obs, *_ = env.step(action)
    if hasattr(gymnasium.vector, "AutoresetMode"):
        assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP


def test_an_illegal_action_is_a_value_error_and_changes_nothing():
    env, twin = SingleSeatVectorEnv(6, opponents="random"), SingleSeatVectorEnv(6, opponents="random")
    env.reset(seed=1)
    twin.reset(seed=1)
    legal = np.argmax(env.action_masks(), axis=1)
    bad = legal.copy()
    bad[4] = int(np.flatnonzero(~env.action_masks()[4])[0])
    with pytest.raises(ValueError, match="game 4: illegal action"):
        env.step(bad)
    with pytest.raises(ValueError, match="6 ints, one per game"):
        env.step(legal[:5])
    after, twin_after = env.step(legal), twin.step(legal)
    assert (after[0] == twin_after[0]).all() and (after[1] == twin_after[1]).all()


def test_bad_arguments_are_refused_with_what_is_allowed():
    for kwargs, message in [({"num_envs": 0}, "num_envs must be a positive int"),
                            ({"seat": 5}, "seat must be a seat 0..4"),
                            ({"opponents": ["random"] * 3}, "list of 4"),
                            ({"reward": "gold"}, "reward"),
                            ({"obs_dtype": "int8"}, "obs_dtype must be one of"),
                            ({"rules": "nowhere"}, "unknown rules preset")]:
        with pytest.raises(ValueError, match=message):
            SingleSeatVectorEnv(**{"num_envs": 4, **kwargs})
    env = SingleSeatVectorEnv(4)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"deal": 3})


def test_maskable_ppo_trains_on_the_sb3_adapter_with_zero_illegal_actions():
    """An illegal action would raise in step (see above): learning 4096 steps is 4096 legal ones."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.sb3 import SB3VecEnv

    env = VecMonitor(SB3VecEnv(SingleSeatVectorEnv(64, opponents="random")))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=512, n_epochs=2, seed=0, device="cpu")
    model.learn(64 * 32 * 2)
    assert model.num_timesteps == 4096
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw whole hands end, with their payoffs
    assert all(np.isfinite(episode["r"]) for episode in model.ep_info_buffer)
    masks = np.stack(env.env_method("action_masks"))
    assert masks.shape == (64, 151) and masks.any(axis=1).all()
