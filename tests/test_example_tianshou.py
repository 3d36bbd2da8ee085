"""Tianshou's own PettingZoo pattern over our env: the example runs end to end with tiny settings, and
a collector rollout with masked policies in all five seats plays whole hands without an illegal action."""

import re
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net

from briscola_env import raw_env
from briscola_env.actions import CALL_OFFSET, PLAY_OFFSET

pytestmark = pytest.mark.slow  # trains through Tianshou

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_tianshou_dqn_example_trains_and_measures(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["tianshou_dqn.py", "--steps", "600", "--epochs", "1", "--envs", "2",
                                      "--batch", "64", "--buffer", "2000", "--hidden", "32", "--hands", "6"])
    runpy.run_path(str(EXAMPLES / "tianshou_dqn.py"), run_name="__main__")
    printed = capsys.readouterr().out
    print(printed)  # the measured figures, in the test's output with -s or on failure
    assert re.search(r"trained DQN in seat 0 \(player_0\) against random x4: [\d,]+ env steps, \d+ updates", printed)
    assert "seat 0 against random x4, 6 hands" in printed
    assert re.search(r"Tianshou DQN after [\d,]+ env steps: +[+-]\d+\.\d{3} \(±\d+\.\d{3}\)", printed)
    assert re.search(r"random legal actions: +[+-]\d+\.\d{3} \(±\d+\.\d{3}\)", printed)
    assert re.search(r"pass in every auction, else random legal: +[+-]\d+\.\d{3} \(±\d+\.\d{3}\)", printed)


class MaskBlindQPolicy(DiscreteQLearningPolicy):
    """The DQN policy with its Q-value masking taken out: the control that shows an illegal action
    would not go unnoticed."""

    def compute_q_value(self, logits, mask):
        return logits


def five_seat_collector(policy_class, eps: float, envs: int = 2, seed: int = 0) -> Collector:
    """A collector over ``raw_env`` (an illegal action raises) in Tianshou's wrapper, an untrained DQN
    of ``policy_class`` in every seat with epsilon-greedy ``eps``."""
    def make_env():
        return PettingZooEnv(raw_env(obs_dtype="float32"))

    env = make_env()
    observation_space = env.observation_space["observation"]
    algorithms = []
    for _ in env.agents:
        net = Net(state_shape=observation_space.shape, action_shape=env.action_space.n, hidden_sizes=[32])
        policy = policy_class(model=net, action_space=env.action_space, eps_training=eps, eps_inference=eps)
        algorithms.append(DQN(policy=policy, optim=AdamOptimizerFactory(), n_step_return_horizon=1))
    vector_env = DummyVectorEnv([make_env for _ in range(envs)])
    vector_env.seed([seed + i for i in range(envs)])
    np.random.seed(seed)  # the epsilon-greedy draws
    return Collector[CollectStats](MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env), vector_env,
                                   VectorReplayBuffer(4000, envs), exploration_noise=True)


def test_collector_rollout_with_masked_policies_takes_no_illegal_action():
    # Epsilon 0.3: both the masked greedy choice and the masked random draw are exercised.
    collector = five_seat_collector(DiscreteQLearningPolicy, eps=0.3)
    stats = collector.collect(n_episode=8, reset_before_collect=True)
    assert stats.n_collected_episodes >= 8  # raw_env raised on no action of these whole hands

    buffer = collector.buffer
    transitions = buffer[buffer.sample_indices(0)]  # every stored transition, of both envs' sub-buffers
    actions, masks = transitions.act.astype(int), np.asarray(transitions.obs.mask, dtype=bool)
    assert len(actions) == stats.n_collected_steps > 8 * 5
    illegal = int((~masks[np.arange(len(actions)), actions]).sum())
    assert illegal == 0, f"{illegal} of {len(actions)} actions were outside the mask"
    assert masks.sum(axis=1).min() >= 1 and int(buffer.done.sum()) >= 8
    # Every phase was played: bids or passes, calls and cards.
    assert (actions < CALL_OFFSET).any() and ((actions >= CALL_OFFSET) & (actions < PLAY_OFFSET)).any() \
        and (actions >= PLAY_OFFSET).sum() >= 40
    assert set(transitions.obs.agent_id) == {f"player_{s}" for s in range(5)}


def test_collector_rollout_without_masking_is_caught():
    # The same rollout with the Q masking taken out (greedy, no epsilon) soon picks an illegal action,
    # and raw_env's error comes through Tianshou's collector: the check above cannot pass by accident.
    collector = five_seat_collector(MaskBlindQPolicy, eps=0.0)
    with pytest.raises(ValueError, match="illegal action"):
        collector.collect(n_episode=8, reset_before_collect=True)
