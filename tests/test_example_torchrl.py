"""The AEC env under TorchRL's own PettingZooWrapper (issue 15), and examples/torchrl_ppo.py with tiny settings.

Needs torchrl (in the ``test`` extra; not skipped without it, so that a CI missing it fails). The env
is wrapped as it is, with no adapter: ``use_mask=True``, the five seats in one group ``"agents"``,
categorical actions.
"""

from __future__ import annotations

import re
import runpy
import sys
import warnings
from pathlib import Path

import pytest
import torch
from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs

import briscola_env

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "torchrl_ppo.py"
ILLEGAL_REWARD = -1000.0  # far from every payoff, so that a reward equal to it can only mean an illegal action
ACTING, ACTION, ACTION_MASK = ("agents", "mask"), ("agents", "action"), ("agents", "action_mask")

# The env's end-of-hand infos add keys (void, caller, partner, team_points, made, multiplier, payoffs)
# that the reset infos lack; TorchRL builds the info spec from the reset infos only, so the step that ends
# a played hand fails inside PettingZooWrapper._step. Strict: once the env is fixed these tests pass
# and the marker must go.
def wrapped(aec_env) -> PettingZooWrapper:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")  # it names 1.24.3 only
        return PettingZooWrapper(env=aec_env, use_mask=True, categorical_actions=True,
                                 group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=0)


def penalised_env() -> PettingZooWrapper:
    """``env()`` (PettingZoo's wrappers): an illegal action ends the hand with ILLEGAL_REWARD for the
    offender, which TorchRL passes on as his reward, instead of raising."""
    return wrapped(briscola_env.env(illegal_reward=ILLEGAL_REWARD, obs_dtype="float32"))


def acting_seats(rollout) -> torch.Tensor:
    acting = rollout[ACTING]
    assert (acting.sum(-1) == 1).all(), "each frame of an AEC game has exactly one seat to act"
    return acting.float().argmax(-1)


def illegal_counts(rollout) -> tuple[int, int]:
    """Illegal actions counted twice: the chosen action against the mask the env gave the acting seat,
    and the rewards equal to ILLEGAL_REWARD that the env gave for them."""
    seat = acting_seats(rollout)
    frames = torch.arange(len(seat))
    chosen = rollout[ACTION][frames, seat]
    against_mask = int((~rollout[ACTION_MASK][frames, seat, chosen]).sum())
    penalised = int((rollout["next", "agents", "reward"] == ILLEGAL_REWARD).sum())
    return against_mask, penalised


@pytest.fixture
def one_torch_thread():
    """A decision is a batch of five views: with more threads, torch spends its time syncing them."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def masked_actor(env: PettingZooWrapper):
    """The example's untrained actor: a MaskedCategorical over each seat's legal actions."""
    example = runpy.run_path(str(EXAMPLE), run_name="torchrl_ppo")  # its definitions, without running main()
    torch.manual_seed(0)
    return example["make_actor"](env, hidden=32)


def test_check_env_specs_passes_on_the_wrapped_env():
    for aec_env in (briscola_env.raw_env(obs_dtype="float32"), briscola_env.env(obs_dtype="float32")):
        env = wrapped(aec_env)
        check_env_specs(env, seed=0)
        assert env.group_map == {"agents": [f"player_{seat}" for seat in range(5)]}
        assert env.full_action_spec[ACTION].space.n == 151
        assert env.observation_spec["agents", "observation", "observation"].shape == (5, 1635)
        assert env.observation_spec["agents", "observation", "observation"].dtype == torch.float32


def test_illegal_actions_are_counted_when_a_policy_plays_them():
    # The next test's counter does see illegal actions: a policy that always picks the first action
    # outside the acting seat's mask ends every hand at its first decision, with the penalty.
    def first_illegal(action_mask: torch.Tensor) -> torch.Tensor:
        return (~action_mask).float().argmax(-1)

    env = penalised_env()
    policy = TensorDictModule(first_illegal, in_keys=[ACTION_MASK], out_keys=[ACTION])
    rollout = env.rollout(8, policy, break_when_any_done=False)
    assert int(rollout["next", "done"].sum()) == 8
    assert illegal_counts(rollout) == (8, 8)


@pytest.mark.parametrize("policy", ["torchrl_random", "masked_categorical"])
def test_masked_rollout_of_whole_hands_plays_no_illegal_action(policy, one_torch_thread):
    torch.manual_seed(0)  # TorchRL's random policy draws with torch's generator
    env = penalised_env()
    # No policy: TorchRL's random policy draws from the action spec, whose mask the wrapper updates each step.
    actor = masked_actor(env) if policy == "masked_categorical" else None
    rollout = env.rollout(400, actor, break_when_any_done=False)  # a played hand: the auction, the call, 40 cards
    done = rollout["next", "done"].squeeze(-1)
    assert int(done.sum()) >= 5, int(done.sum())
    assert illegal_counts(rollout) == (0, 0)
    # Each finished hand pays all five seats at its last frame, and the payoffs sum to zero.
    final_rewards = rollout["next", "agents", "reward"][done].squeeze(-1)
    assert torch.allclose(final_rewards.sum(-1), torch.zeros(len(final_rewards)))
    assert (final_rewards != 0).any()


def test_torchrl_ppo_example_trains_and_measures(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["torchrl_ppo.py", "--frames", "400", "--frames-per-batch", "200",
                                      "--minibatch", "100", "--epochs", "1", "--hidden", "32",
                                      "--hands", "6", "--opponents", "random"])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    printed = capsys.readouterr().out
    match = re.search(r"self-play: 400 frames, (\d+) hands in \d+ s; illegal actions: 0 of 400", printed)
    assert match and int(match.group(1)) >= 5
    assert "against random x4, 6 hands" in printed
    assert re.search(r"TorchRL PPO after 400 frames: [+-]\d+\.\d{3}", printed)
    assert re.search(r"random legal actions: +[+-]\d+\.\d{3}", printed)
