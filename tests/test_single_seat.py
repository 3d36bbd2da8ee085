"""SingleSeatEnv: one seat against four agents, as a Gymnasium env that Gymnasium's and SB3's checkers
accept and MaskablePPO trains on without an illegal action, and that ``gymnasium.make`` and
``gymnasium.make_vec`` build from its registered id."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

from agents import SINGLE_SEAT_ENV_ID, AECPolicy, HeuristicAgent, SingleSeatEnv, SingleSeatVectorEnv
from briscola_env import ENV_ID, raw_env
from briscola_env.actions import NUM_ACTIONS
from briscola_env.engine import deal_from_seeds

HAND_SEED = 11


def play(env: SingleSeatEnv, seed, options=None, choose=lambda mask: int(np.flatnonzero(mask)[0])):
    """One episode with the learner's ``choose(mask)``: its observations, actions, last reward and info."""
    obs, info = env.reset(seed=seed, options=options)
    views, actions, done, reward = [obs], [], False, 0.0
    while not done:
        action = choose(env.action_masks())
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        views.append(obs)
        actions.append(action)
    return views, actions, reward, info


def test_gymnasium_check_env_passes():
    from gymnasium.utils.env_checker import check_env

    # Its determinism check steps an action drawn before a seeded reset: illegal ones must end the hand.
    for obs_dtype in ("uint8", "float32"):
        check_env(SingleSeatEnv(opponents="random", obs_dtype=obs_dtype, illegal_reward=-1.0), skip_render_check=True)


def test_sb3_check_env_passes():
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleSeatEnv(opponents="random"))
    check_env(SingleSeatEnv(opponents="heuristic", obs_dtype="float32"))


class IllegalCounter(gymnasium.Wrapper):
    """Counts the actions stepped that the env's mask did not allow."""

    def __init__(self, env):
        super().__init__(env)
        self.illegal = self.steps = 0

    def step(self, action):
        self.steps += 1
        self.illegal += not self.env.unwrapped.action_masks()[int(action)]
        return self.env.step(action)

    def action_masks(self):
        return self.env.unwrapped.action_masks()


def test_maskable_ppo_trains_2048_steps_with_zero_illegal_actions():
    from sb3_contrib import MaskablePPO

    counter = IllegalCounter(SingleSeatEnv(opponents="random"))
    model = MaskablePPO("MlpPolicy", counter, n_steps=256, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    model.learn(2048)
    assert counter.steps >= 2048 and counter.illegal == 0


def test_the_seat_is_the_given_one_or_varies_when_none():
    fixed = SingleSeatEnv(opponents="random", seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(10)} == {2}
    drawn = SingleSeatEnv(opponents="random")
    assert len({drawn.reset(seed=s)[1]["seat"] for s in range(20)}) > 1


def test_the_same_seed_gives_the_same_episode():
    first = play(SingleSeatEnv(opponents="random"), seed=5)
    second = play(SingleSeatEnv(opponents="random"), seed=5)
    assert first[1] == second[1] and first[2] == second[2]
    assert all(np.array_equal(a, b) for a, b in zip(first[0], second[0], strict=True))


@pytest.mark.parametrize("seat", [0, 3])
def test_the_final_reward_is_the_learners_payoff_in_the_aec_env(seat):
    deals, dealers = deal_from_seeds(np.array([HAND_SEED]))
    hands = [np.flatnonzero(deals[0] == s).tolist() for s in range(5)]  # a deal gives each card's seat
    options = {"hands": hands, "dealer": int(dealers[0])}
    rng = np.random.default_rng(seat)
    _, actions, reward, info = play(SingleSeatEnv(opponents="heuristic", seat=seat), seed=1, options=options,
                                    choose=lambda mask: int(rng.choice(np.flatnonzero(mask))))
    # The same hand in the AEC env: the learner's actions replayed, the (deterministic) heuristic elsewhere.
    aec, heuristic, replay = raw_env(), AECPolicy(HeuristicAgent()), iter(actions)
    aec.reset(options=options)
    learner = aec.possible_agents[seat]
    for agent in aec.agent_iter():
        observation, aec_reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            if agent == learner:
                assert reward == aec_reward
            aec.step(None)
        else:
            aec.step(next(replay) if agent == learner else heuristic(observation))
    assert next(replay, None) is None
    assert info["payoffs"][seat] == reward and info["phase"] == 3


def test_an_illegal_action_is_a_value_error_and_changes_nothing():
    env = SingleSeatEnv(opponents="random", seat=1)
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    assert np.array_equal(env.action_masks(), mask)
    env.step(int(np.flatnonzero(mask)[0]))  # play goes on


def test_illegal_reward_ends_the_episode_with_it():
    env = SingleSeatEnv(opponents="random", illegal_reward=-2)
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal"]) == (-2.0, True, True)
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_action_space_sample_draws_legal_actions():
    env = SingleSeatEnv(opponents="random")
    views, _, _, _ = play(env, seed=7, choose=lambda mask: int(env.action_space.sample()))
    assert len(views) > 1  # every sampled action was legal, or step would have raised


def test_opponents_one_spec_or_four_and_bad_arguments_refused():
    SingleSeatEnv(opponents=["random", "heuristic", "random", "heuristic"]).reset(seed=0)
    for kwargs, message in [({"opponents": ["random"] * 3}, "opponents"), ({"opponents": 3}, "opponents"),
                            ({"opponents": "nobody"}, "unknown agent"), ({"seat": 5}, "seat"),
                            ({"seat": True}, "seat"), ({"illegal_reward": "x"}, "illegal_reward"),
                            ({"obs_dtype": "int16"}, "obs_dtype"), ({"reward": "gold"}, "reward")]:
        with pytest.raises(ValueError, match=message):
            SingleSeatEnv(**kwargs)


def test_importing_briscola_env_does_not_import_agents():
    import subprocess
    import sys

    code = "import sys, briscola_env; assert 'agents' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_mean_payoff_plays_the_same_seeded_hands_for_every_policy():
    from agents.single_seat import mean_payoff

    env = SingleSeatEnv(opponents="random")
    first_legal = lambda obs, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    mean, half_width = mean_payoff(env, first_legal, hands=6, seed=40)
    rewards = [play(env, seed=40 + hand)[2] for hand in range(6)]
    assert mean == pytest.approx(np.mean(rewards))
    assert half_width == pytest.approx(1.96 * np.std(rewards, ddof=1) / np.sqrt(6))
    assert mean_payoff(env, first_legal, hands=6, seed=40) == (mean, half_width)
    with pytest.raises(ValueError, match="at least 2"):
        mean_payoff(env, first_legal, hands=1, seed=0)


# --- Gymnasium's registry ---------------------------------------------------------------------

def test_the_id_is_the_pettingzoo_envs_in_gymnasiums_versioned_form():
    assert SINGLE_SEAT_ENV_ID == "briscola/briscola_chiamata_single_seat-v0"
    assert SINGLE_SEAT_ENV_ID == ENV_ID.replace("_v0", "_single_seat-v0")
    spec = gymnasium.spec(SINGLE_SEAT_ENV_ID)
    assert (spec.namespace, spec.name, spec.version) == ("briscola", "briscola_chiamata_single_seat", 0)
    assert spec.max_episode_steps is None  # a hand ends by itself: no time limit wrapper


def test_gymnasium_make_plays_the_env_the_keyword_arguments_build():
    kwargs = {"opponents": ["random", "heuristic", "random"], "rules": "four_players", "seat": 2,
              "reward": "points", "obs_dtype": "float32", "call_rule": "at_least"}
    made = gymnasium.make(SINGLE_SEAT_ENV_ID, **kwargs)
    inner = made.unwrapped
    assert isinstance(inner, SingleSeatEnv) and made.spec.id == SINGLE_SEAT_ENV_ID
    assert (inner.rules.players, inner.rules.call_rule, inner.fixed_seat) == (4, "at_least", 2)
    assert made.observation_space == inner.observation_space and made.observation_space.dtype == np.float32
    direct = SingleSeatEnv(**kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's passive checker finds nothing to warn about
        obs, info = made.reset(seed=9)
        expected, _ = direct.reset(seed=9)
        done = False
        while not done:
            assert np.array_equal(obs, expected) and made.observation_space.contains(obs)
            mask = made.get_wrapper_attr("action_masks")()  # Gymnasium's wrappers pass no other method on
            assert np.array_equal(mask, info["action_mask"])
            action = int(np.flatnonzero(mask)[-1])
            obs, reward, terminated, truncated, info = made.step(action)
            expected, expected_reward, *_ = direct.step(action)
            done = terminated or truncated
    assert terminated and not truncated and reward == expected_reward and info["seat"] == 2


def test_gymnasium_make_refuses_bad_keyword_arguments_as_the_constructor_does():
    with pytest.raises(ValueError, match="opponents"):
        gymnasium.make(SINGLE_SEAT_ENV_ID, opponents=["random"] * 3)  # four are needed at a table of five
    with pytest.raises(ValueError, match="unknown"):
        gymnasium.make(SINGLE_SEAT_ENV_ID, rules="nonesuch")


def test_gymnasium_make_vec_builds_the_vector_env_or_gymnasiums_own():
    envs = gymnasium.make_vec(SINGLE_SEAT_ENV_ID, num_envs=3, opponents="random", rules="monte", seat=0)
    assert isinstance(envs, SingleSeatVectorEnv) and envs.num_envs == 3 and envs.rules.monte
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (3,) + envs.single_observation_space.shape and (infos["seat"] == 0).all()
    envs.step(envs.action_space.sample())
    sync = gymnasium.make_vec(SINGLE_SEAT_ENV_ID, num_envs=2, vectorization_mode="sync", opponents="random")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    assert all(isinstance(env.unwrapped, SingleSeatEnv) for env in sync.envs)
    obs, infos = sync.reset(seed=1)
    assert obs.shape == (2,) + sync.single_observation_space.shape and infos["action_mask"].shape == (2, NUM_ACTIONS)


def test_maskable_ppo_reads_the_mask_of_a_made_env():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: gymnasium.make(SINGLE_SEAT_ENV_ID, opponents="random", seat=1)])
    vec.seed(4)
    vec.reset()
    assert is_masking_supported(vec)
    masks = get_action_masks(vec)
    assert masks.shape == (1, NUM_ACTIONS) and np.array_equal(masks[0], vec.envs[0].unwrapped.action_masks())


def test_registering_again_keeps_the_registered_spec_without_a_warning():
    from agents.single_seat import _register

    spec = gymnasium.spec(SINGLE_SEAT_ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _register()  # as a reloaded module does
    assert gymnasium.spec(SINGLE_SEAT_ENV_ID) is spec
