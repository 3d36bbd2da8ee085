"""The privileged critic (training.critic): the values read every hand, the policy never does.

The policy's action distribution is the same, bit for bit, when the cards its player cannot see are
re-dealt (worlds consistent with its view, as search samples them), while the critic's values change;
a run with it trains, resumes exactly and keeps its critic in the checkpoint."""

import sys
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from briscola_env import engine, preset  # noqa: E402
from briscola_env.batched_env import BatchedEnv  # noqa: E402
from briscola_env.observation import encode, encode_privileged  # noqa: E402
from briscola_env.worlds import decode, replay, sample_worlds, world_states  # noqa: E402
from training.config import make_config  # noqa: E402
from training.critic import PrivilegedCritic  # noqa: E402
from training.trainer import Trainer, policy_and_value  # noqa: E402
from support import whole_and_resumed_runs  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")


def views_mid_hand(rules, games=64, steps=25, seed=4):
    """Views, masks and privileged views of the seats to act after ``steps`` random decisions."""
    env, rng = BatchedEnv(games, rules, seed=seed, auto_reset=False), np.random.default_rng(seed)
    out = env.reset()
    for _ in range(steps):
        out = env.step(engine.random_actions(env.state, rng))
    live = np.flatnonzero(~env.state.terminated)
    return out.obs[live], out.mask[live], env.privileged()[live]


def redealt_privileged(obs, rules, seed=9):
    """The privileged views of worlds re-dealt consistently with each view ``obs`` (the observer at
    seat 0 of each world, as search replays them), with the observer's own view of each world."""
    public = decode(obs, rules)
    sampled = sample_worlds(public, 1, np.random.default_rng(seed))
    deals, discards = sampled.deals[:, 0], sampled.discards[:, 0]
    state = replay(public, deals, discards)
    worlds = world_states(state, public, deals, np.arange(len(obs)), discards)
    seats = np.zeros(len(obs), dtype=np.int64)
    return encode(worlds, seats), encode_privileged(worlds, seats)


def test_the_policy_ignores_the_hidden_cards_and_the_critic_reads_them():
    config = make_config({"num_envs": 8, "hidden_sizes": [32, 32], "privileged_critic": True})
    trainer = Trainer(config, torch.device("cpu"))
    obs, mask, privileged = views_mid_hand(trainer.rules)
    seen, redealt = redealt_privileged(obs, trainer.rules)
    assert np.array_equal(seen, obs)  # the same view: only the hidden cards moved
    moved = (redealt != privileged).any(axis=1)
    assert moved.mean() > 0.8
    log_probs, value, _ = policy_and_value(trainer, obs, mask, privileged)
    log_probs_redealt, value_redealt, _ = policy_and_value(trainer, obs, mask, redealt)
    assert torch.equal(log_probs, log_probs_redealt)
    assert not torch.allclose(value[moved], value_redealt[moved])


def test_the_critic_reads_the_sparse_view_as_the_dense_one():
    rules = preset("standard")
    obs, _, privileged = views_mid_hand(rules, games=16)
    critic = PrivilegedCritic([32, 16], rules)
    obs_t, privileged_t = torch.from_numpy(obs), torch.from_numpy(privileged)
    dense = critic(obs_t.float() * critic.scale, privileged_t)  # the scaled floats a GPU update passes
    assert torch.allclose(critic(obs_t, privileged_t), dense, atol=1e-5)


def test_a_run_with_the_privileged_critic_resumes_exactly(tmp_path):
    whole, split = whole_and_resumed_runs(train.main, TINY, tmp_path, 5, ["privileged_critic=true"])
    assert all(torch.equal(whole["model"][k], split["model"][k]) for k in whole["model"])
    critic_whole, critic_split = whole["trainer"]["critic"], split["trainer"]["critic"]
    assert critic_whole.keys() == critic_split.keys() and critic_whole
    assert all(torch.equal(critic_whole[k], critic_split[k]) for k in critic_whole)
    untrained = PrivilegedCritic([32, 32], preset("standard")).state_dict()
    assert any(not torch.equal(untrained[k], critic_whole[k]) for k in untrained if k != "scale")
