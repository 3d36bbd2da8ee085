"""PPO self-play for Briscola Chiamata: one policy for all five seats learns the
auction, the call and the play (for all four under ``rules=four_players``: the config's rules
preset sizes the network, the storage and the seats; the run's config.yaml and checkpoint record it).

    python train.py                                   # configs/default.yaml
    python train.py --config configs/tiny.yaml num_envs=16 seed=3
    python train.py --resume runs/default-1           # continue exactly where it stopped
    python train.py --resume runs/default-1 total_decisions=6000000 eval_every=50

A run lives in its folder, run_dir/exp_name-seed: config.yaml (the resolved config),
checkpoint.pt, TensorBoard events, and at the end summary.md (written last) and, with
record_games, games.jsonl. A folder that already holds a run is refused (overwrite=true
replaces it), and a trainer locks its folder (train.lock) while it runs. --resume may change
only what cannot change the run (RESUME_OVERRIDES: how far to go, evaluation and checkpoint
cadence, device, threads); resuming a finished run says so and does nothing. SIGINT (Ctrl-C)
and SIGTERM stop at the end of the current update with a checkpoint, so that --resume then
equals an uninterrupted run; a second signal stops at once. A kill (kill -9) loses the work since
the last checkpoint: --resume does it again, and TensorBoard shows its scalars once (purge_step).

Several seeds of a config (--seeds) are :mod:`training.sweep`; the exploitability audit (--exploit)
is :mod:`training.exploit`.

checkpoint.pt holds what resumes the run exactly, and nothing else: the network, Adam's moments,
the games in progress (engine state and records), the trajectory storage's slots in use (the
learner's decisions in hands not yet ended; the views' 0/1 entries and the masks as bits), the
opponent pool's snapshots (up to pool_size; one taken at the checkpoint's update is the network
itself, saved once), the seats' owners and every random generator's state. For the default
config that is 7 MB after the first update and about 23 MB once the pool is full (it was 186 MB
before, with every slot of the storage: BENCHMARKS.md, "Checkpoint size"). To play or ship a
network alone (2 MB for the default config), `briscola export` writes just that.

Reads top to bottom in the order of CleanRL's ppo.py: (config: :mod:`training.config`),
seeding, environment (and opponents), agent, rollout, update (the loss: ppo_loss), logging,
checkpoint; then evaluation and the run itself. What a run needs besides PPO lives beside it
in the training package: the trajectory storage, the belief head's targets and tracker, the
checkpoint's trainer state, the run folder's lock and the stop signals. PPO follows CleanRL's
reference (clipped objective, GAE, optional value clipping, advantage
normalisation, gradient clipping, learning-rate annealing), adapted to five
seats taking turns: each learner seat's decisions in a hand form its own
trajectory, which is completed, with the hand's payoff on its last decision,
when the hand ends; then its GAE is exact. In a configurable share of games
some seats are played by past snapshots of the policy or by the heuristic
agent; only the learner's seats produce training data.
"""

from __future__ import annotations

import copy
import dataclasses
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import briscola_env
from agents import HeuristicAgent, RandomAgent, make_agent
from agents.ppo import (PolicyValueNet, PPOAgent, entropy, load_checkpoint, load_network, sample_actions,
                        save_checkpoint)
from briscola_env import BatchedEnv, preset, records
from briscola_env.actions import MIN_POINTS, POINT_BID_OFFSET
from briscola_env.engine import PHASE_NAMES, WITHOUT_SOLO, Role, seat_roles
from briscola_env.files import replace_atomically, write_atomically
from briscola_env.observation import observation_spec, privileged_spec
from briscola_env.seeds import seed_sequence
from evaluation import evaluate_pair
from evaluation.report import edges_table
from training.config import Config, PER_PROCESS, RESUME_OVERRIDES, read_mapping, check_config
from training.belief_tracker import BeliefTracker, belief_targets
from training import exploiters
from training.critic import PrivilegedCritic
from training.checkpoint import (TRAINER_FORMAT, check_trainer_format, pack, random_state, restore_random_state,
                                 same_weights, unpack)
from training.run_folder import RunError, run_contents, run_lock
from training.stop_signals import Interrupted, StopSignals
from training.trajectories import Trajectories, storage_capacity




# ----------------------------------------------------------------------------- seeding, environment, agent
class Trainer:
    """A run's state between two updates, which its checkpoint saves, set up from its config in
    CleanRL's order: seeding, environment, agent (and its opponents). :func:`rollout`,
    :func:`update_policy`, :func:`log_update` and :func:`save_training_checkpoint` take it through
    an update; :func:`restore` puts it back where a checkpoint left it. ``restoring``: :func:`restore`
    follows, whose checkpoint holds the network, so config.init_from is not read (it may be gone)."""

    def __init__(self, config: Config, device: torch.device, restoring: bool = False):
        self.config, self.device = config, device

        # Seeding: every random source comes from the config's seed.
        self.rng = np.random.default_rng(config.seed)  # the seats' players
        torch.manual_seed(config.seed)  # the network's initial weights
        self.sampler = torch.Generator().manual_seed(config.seed)  # the actions sampled, the minibatches
        if config.torch_threads:
            torch.set_num_threads(config.torch_threads)

        # Environment. Deals from a stream of their own (briscola_env.seeds), drawn apart from every
        # evaluation's, whatever its seed.
        self.rules = preset(config.rules)
        self.spec = observation_spec(self.rules)  # the views' layout, which sizes the network and the storage
        self.env = BatchedEnv(config.num_envs, self.rules, seed=seed_sequence("train-env", config.seed),
                              reward=config.reward)
        self.out = self.env.reset()
        self.heuristic = HeuristicAgent(self.rules, seed=config.seed)  # the demonstrator, and by default the opponent
        self.opponent = self.heuristic if config.opponent == "heuristic" else \
            make_agent(config.opponent, seed=config.seed, rules=self.rules)
        self.league = [make_agent(spec, seed=config.seed, rules=self.rules) for spec in config.league]
        self.demo_phases = [PHASE_NAMES.index(name) for name in config.demo_phases]

        # Agent.
        self.net = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0, rules=self.rules)
        if config.init_from and not restoring:  # a distilled network, say; a belief head of its own is not taken
            start = {key: value for key, value in load_network(config.init_from, self.rules).state_dict().items()
                     if not key.startswith("belief.")}
            missing = self.net.load_state_dict(start, strict=False).missing_keys
            assert all(key.startswith("belief.") for key in missing), missing  # check_config matched the sizes
        self.net = self.net.to(device)
        self.critic = PrivilegedCritic(config.hidden_sizes, self.rules).to(device) if config.privileged_critic \
            else None
        parameters = [*self.net.parameters(), *(self.critic.parameters() if self.critic is not None else ())]
        # fused: one kernel for the whole step (PyTorch 2.4+ on CPU), 6x faster than the default here
        self.optimizer = torch.optim.Adam(parameters, lr=config.learning_rate, eps=1e-5, fused=True)
        self.storage = Trajectories(storage_capacity(config.num_envs, config.num_steps), config.num_envs, self.spec,
                                    privileged_spec(self.rules) if config.privileged_critic else None)
        shape = self.rules.table_shape
        self.belief = BeliefTracker(config.num_envs, shape.seats, shape.tricks)

        # Opponents: the players of the first hands' seats.
        self.table = Table(config, self.net, [self.opponent, *self.league], self.rng, self.sampler,
                           [config.opponent, *config.league])
        self.table.seat_new_hands(np.arange(config.num_envs))

        self.num_updates = max(1, config.total_decisions // (config.num_envs * config.num_steps))
        self.update = self.decisions = 0  # updates done and decisions made (by every seat) so far
        self.env_time = 0.0  # seconds this process spent stepping the environment


# ----------------------------------------------------------------------------- opponents
LEARNER, OPPONENT = 0, 1
"""Places in :attr:`Table.agents`: the learner, then the pool's fixed agents (config.opponent first, then the
league's), then its snapshots (from :attr:`Table.first_snapshot`)."""
LEAGUE_RATE = 0.01
"""The weight of each hand in the league's moving average of the learner's win rate against an agent."""


class SnapshotPlayer:
    """A past snapshot of the policy as an opponent: it samples its actions with the trainer's sampler."""

    def __init__(self, net: PolicyValueNet, sampler: torch.Generator):
        self.net, self.sampler = net, sampler

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(obs), torch.from_numpy(mask))
        return sample_actions(torch.log_softmax(logits, 1), self.sampler).numpy()


class Table:
    """Who plays each seat of the games in progress, handed out as :func:`agents.play.play_games`
    does: ``agents[seat_agents[g, s]]`` plays seat ``s`` of game ``g``. The agents are the learner
    (the network being trained: only its decisions are stored), the pool's fixed agents (config.opponent,
    the heuristic unless it says otherwise, then config.league's), then the
    opponent pool's snapshots of the learner, oldest first (up to pool_size: the oldest is dropped).
    The seats are those of the table of config.rules."""

    def __init__(self, config: Config, learner: PolicyValueNet, fixed: list,
                 rng: np.random.Generator, sampler: torch.Generator, names: list[str]):
        self.config, self.rng, self.sampler = config, rng, sampler
        self.learner, self.fixed, self.names = learner, fixed, names
        self.exploiters: list[int] = []  # the updates after which the rolling exploiters among the fixed were trained
        self.first_snapshot = OPPONENT + len(fixed)
        self.win_rates = np.full(len(fixed), 0.5)  # the learner's against each fixed agent (the league's statistic)
        self.snapshots: list[PolicyValueNet] = []
        self.seats = preset(config.rules).table_shape.seats
        self.seat_agents = np.zeros((config.num_envs, self.seats), dtype=np.int64)

    @property
    def agents(self) -> list:
        return [self.learner, *self.fixed, *(SnapshotPlayer(net, self.sampler) for net in self.snapshots)]

    def league_weights(self) -> np.ndarray:
        """How often each fixed agent takes a fixed seat: prioritised fictitious self-play's
        ``(1 - win rate) ** pfsp_power``, normalised, with a floor so that none is dropped for good."""
        weights = np.maximum(1 - self.win_rates, 1e-3) ** self.config.pfsp_power
        return weights / weights.sum()

    def record_results(self, games: np.ndarray, rewards: np.ndarray) -> None:
        """Move each fixed agent's win rate towards the learner's results in the hands just ended in ``games``
        where both sat (the share of the learner's seats with a positive payoff, hand by hand)."""
        if len(self.fixed) == 1 or not games.size:  # no league: nothing to weigh, and the runs stay as they were
            return
        owners = self.seat_agents[games]
        learner = owners == LEARNER
        won = ((rewards[games] > 0) & learner).sum(axis=1) / np.maximum(learner.sum(axis=1), 1)
        for i in range(len(self.fixed)):
            rows = (owners == OPPONENT + i).any(axis=1) & learner.any(axis=1)
            if rows.any():
                step = 1 - (1 - LEAGUE_RATE) ** rows.sum()
                self.win_rates[i] += step * (won[rows].mean() - self.win_rates[i])

    def seat_new_hands(self, games: np.ndarray) -> None:
        """Seat the hands just dealt in ``games``: the learner everywhere, except that in a share
        (opponent_share) of them 1 to 4 seats (1 to 3 of four) go to the pool, each to its fixed agent with
        probability heuristic_share and otherwise to a snapshot drawn at random (once there are any)."""
        config, rng, snapshots = self.config, self.rng, self.snapshots
        weights = self.league_weights()
        self.seat_agents[games] = LEARNER
        for g in games[rng.random(len(games)) < config.opponent_share]:
            for s in rng.choice(self.seats, size=rng.integers(1, self.seats), replace=False):
                if snapshots and rng.random() >= config.heuristic_share:
                    player = self.first_snapshot + int(rng.integers(len(snapshots)))
                else:  # a fixed agent; with no league, config.opponent without a draw, as before
                    player = OPPONENT + (int(rng.choice(len(weights), p=weights)) if len(weights) > 1 else 0)
                self.seat_agents[g, s] = player

    def add_fixed(self, agent, name: str) -> None:
        """One more fixed agent (a rolling exploiter), after the others, at the league's neutral win rate. Seats of
        snapshots keep their players: their indices into :attr:`agents` move up by one."""
        self.seat_agents[self.seat_agents >= self.first_snapshot] += 1
        self.first_snapshot += 1
        self.fixed.append(agent)
        self.names.append(name)
        self.win_rates = np.append(self.win_rates, 0.5)

    def add_snapshot(self, net: PolicyValueNet) -> None:
        """Add ``net`` to the pool, dropping the oldest snapshot beyond pool_size. Seats keep their index
        into :attr:`agents`: a hand in progress at a seat of a dropped snapshot goes on with the next
        newer one (as the pool always did: changing it would change the runs)."""
        self.snapshots.append(net)
        del self.snapshots[:-self.config.pool_size]

    def seat_shares(self) -> dict[str, float]:
        """The share of all seats that each kind of player holds now."""
        kinds = np.select([self.seat_agents == LEARNER, self.seat_agents < self.first_snapshot], [0, 1], 2)
        counts = np.bincount(kinds.ravel(), minlength=3)
        fixed = "heuristic" if self.config.opponent == "heuristic" and not self.config.league else "opponent"
        return dict(zip(("learner", fixed, "snapshot"), counts / self.seat_agents.size))  # the default's tags


# ----------------------------------------------------------------------------- rollout
def rollout(trainer: Trainer) -> list[dict]:
    """Every game makes num_steps decisions; hands that end complete their trajectories and are
    dealt anew. Returns, step by step, the facts of the hands that ended (for :func:`log_games`)."""
    config, table = trainer.config, trainer.table
    games = np.arange(config.num_envs)
    finished = []
    for _ in range(config.num_steps):
        out = trainer.out
        who = table.seat_agents[games, out.seat]
        actions = np.empty(config.num_envs, dtype=np.int64)
        learn = np.flatnonzero(who == LEARNER)
        actions[learn] = learner_acts(trainer, learn)
        for index, agent in enumerate(table.agents[OPPONENT:], start=OPPONENT):
            rows = np.flatnonzero(who == index)
            if rows.size:
                actions[rows] = agent.act(out.obs[rows], out.mask[rows])
        tick = time.time()
        trainer.out = out = trainer.env.step(actions)
        trainer.env_time += time.time() - tick
        trainer.decisions += config.num_envs
        ended = np.flatnonzero(out.done)
        rewards = out.rewards.copy()
        trainer.belief.finish_hands(rewards, ended, out.info, config.concealment_coef)
        trainer.storage.finish(ended, rewards, config.gamma, config.gae_lambda)
        table.record_results(ended, rewards)
        finished.append({key: out.info[key][ended] for key in GAME_FACTS}
                        | {"learner": table.seat_agents[ended] == LEARNER})
        table.seat_new_hands(ended)
    return finished


def learner_acts(trainer: Trainer, games: np.ndarray) -> np.ndarray:
    """The learner's actions in ``games``, sampled from the network; each is stored as a decision with
    what the update needs: its log-probability and value, the heuristic's action where the phase is
    demonstrated, and the belief head's target."""
    out = trainer.out
    obs, mask = out.obs[games], out.mask[games]
    privileged = trainer.env.privileged()[games] if trainer.critic is not None else None
    log_probs, value, belief_logits = policy_and_value(trainer, obs, mask, privileged)
    with torch.no_grad():
        action = sample_actions(log_probs, trainer.sampler)
        logprob = log_probs.gather(1, action[:, None]).squeeze(1)
        action = action.cpu().numpy()
    partner = belief_targets(trainer.env.state, out, games)
    if belief_logits is not None:
        trainer.belief.observe(trainer.env.state, games, partner, torch.softmax(belief_logits, 1).cpu().numpy())
    demo = np.full(len(games), -1, dtype=np.int64)
    if demo_weight(trainer.config, trainer.update, trainer.num_updates) > 0:
        shown = np.flatnonzero(trainer.spec.view(obs, "phase")[:, trainer.demo_phases].any(axis=1))
        demo[shown] = trainer.heuristic.act(obs[shown], mask[shown])
    trainer.storage.add(games, out.seat[games], obs, mask, action, logprob.cpu().numpy(), value.cpu().numpy(),
                        demo, partner, privileged)
    return action


@torch.no_grad()
def policy_and_value(trainer: Trainer, obs: np.ndarray, mask: np.ndarray, privileged: Optional[np.ndarray]):
    """``(log-probabilities, values, belief logits or None)`` of the learner on views ``obs``: the policy
    from the network alone; the values from the privileged critic on ``privileged`` when the run has one
    (the network's value head is then unused), else from the network's value head."""
    device = trainer.device
    obs_t = torch.from_numpy(obs).to(device)
    logits, value, belief_logits = trainer.net.heads(obs_t, torch.from_numpy(mask).to(device))
    if trainer.critic is not None:
        value = trainer.critic(obs_t, torch.from_numpy(privileged).to(device))
    return torch.log_softmax(logits, dim=1), value, belief_logits


# ----------------------------------------------------------------------------- update
def update_policy(trainer: Trainer) -> dict:
    """The next update: the learning rate annealed, then PPO on every completed learner decision
    (:func:`ppo_update`); its statistics (none if no hand has ended yet)."""
    config = trainer.config
    trainer.update += 1
    if config.anneal_lr:
        done = (trainer.update - 1) / trainer.num_updates
        trainer.optimizer.param_groups[0]["lr"] = config.learning_rate * (1 - done)
    ids = trainer.storage.take_ready()
    if not len(ids):
        return {}
    return ppo_update(trainer.net, trainer.optimizer, trainer.storage, ids, config, trainer.sampler, trainer.device,
                      demo_weight(config, trainer.update - 1, trainer.num_updates), trainer.critic)


def demo_weight(config: Config, update: int, num_updates: int) -> float:
    """The demonstration's weight at ``update`` (counted from 0): linear fade to 0."""
    until = config.demo_until * num_updates
    return config.demo_coef * max(0.0, 1 - update / until) if until > 0 else 0.0


class PPOLoss(NamedTuple):
    """What :func:`ppo_loss` returns: scalar tensors, each to be minimised."""

    total: torch.Tensor
    """What a gradient step minimises: policy - ent_coef * entropy + vf_coef * value."""
    policy: torch.Tensor
    """The clipped surrogate objective, negated."""
    value: torch.Tensor
    """Half the mean squared error of the value (clipped with clip_vloss)."""
    entropy: torch.Tensor
    """The policy's mean entropy over the legal actions."""


def ppo_loss(ratio: torch.Tensor, advantages: torch.Tensor, value: torch.Tensor, old_value: torch.Tensor,
             returns: torch.Tensor, log_probs: torch.Tensor, legal: torch.Tensor, config: Config) -> PPOLoss:
    """CleanRL's PPO loss on one minibatch, from the probability ratios of its actions (new policy over
    the one that chose them), their advantages, the new and the old values, the returns, and the new
    policy's log-probabilities over the legal actions ``legal``. Only clip_coef, clip_vloss, norm_adv,
    ent_coef and vf_coef are read from ``config``. A pure function: it changes nothing it is given."""
    if config.norm_adv and len(advantages) > 1:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

    # Policy loss: the mean of max(-A * ratio, -A * ratio clipped to [1 - clip_coef, 1 + clip_coef]): moving
    # the ratio past the clip in the direction the advantage A favours earns nothing (and gets no gradient).
    policy_loss = torch.max(-advantages * ratio,
                            -advantages * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef)).mean()

    # Value loss: with clip_vloss, the larger of the errors of the new value and of the new value kept
    # within clip_coef of the old one.
    if config.clip_vloss:
        clipped = old_value + torch.clamp(value - old_value, -config.clip_coef, config.clip_coef)
        value_loss = 0.5 * torch.max((value - returns) ** 2, (clipped - returns) ** 2).mean()
    else:
        value_loss = 0.5 * ((value - returns) ** 2).mean()

    # Entropy bonus: over the legal actions only.
    mean_entropy = entropy(log_probs, legal).mean()
    total = policy_loss - config.ent_coef * mean_entropy + config.vf_coef * value_loss
    return PPOLoss(total, policy_loss, value_loss, mean_entropy)


def ppo_update(net, optimizer, storage: Trajectories, ids: np.ndarray, config: Config, sampler,
               device, demo_coef: float, critic: Optional[PrivilegedCritic] = None) -> dict:
    """update_epochs passes over the decisions ``ids`` in shuffled minibatches, a gradient step on
    each: :func:`ppo_loss`, plus the demonstration's cross-entropy (weight ``demo_coef``) and the
    belief head's (belief_coef). The values are ``critic``'s when there is one (its gradients clipped
    apart from the policy's), else the network's value head's. Returns the last minibatch's losses
    and the update's statistics."""
    obs = torch.from_numpy(storage.obs[ids]).to(device)
    if device.type != "cpu":  # scaled once, not in every epoch; on CPU the network reads the uint8 views sparsely
        obs = net.scaled(obs)
    mask = torch.from_numpy(storage.mask[ids]).to(device)
    actions = torch.from_numpy(storage.action[ids]).to(device)
    old_logprob = torch.from_numpy(storage.logprob[ids]).to(device)
    old_value = torch.from_numpy(storage.value[ids]).to(device)
    advantages = torch.from_numpy(storage.advantage[ids]).to(device)
    returns = torch.from_numpy(storage.ret[ids]).to(device)
    demo = torch.from_numpy(storage.demo[ids]).to(device)
    partner = torch.from_numpy(storage.partner[ids]).to(device)
    privileged = torch.from_numpy(storage.privileged[ids]).to(device) if critic is not None else None
    demo_loss = belief_loss = torch.tensor(0.0)
    clipfracs, approx_kl = [], torch.tensor(0.0)
    for _ in range(config.update_epochs):
        order = torch.randperm(len(ids), generator=sampler)
        for mb in torch.tensor_split(order, min(config.num_minibatches, len(ids))):
            mb = mb.to(device)
            legal = mask[mb]
            logits, value, belief_logits = net.heads(obs[mb], legal)
            if critic is not None:
                value = critic(obs[mb], privileged[mb])
            log_probs = torch.log_softmax(logits, dim=1)
            logprob = log_probs.gather(1, actions[mb, None]).squeeze(1)
            log_ratio = logprob - old_logprob[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
            losses = ppo_loss(ratio, advantages[mb], value, old_value[mb], returns[mb], log_probs, legal, config)
            loss = losses.total
            shown = demo[mb] >= 0
            if demo_coef > 0 and shown.any():
                demo_loss = -log_probs.gather(1, demo[mb, None].clamp(min=0)).squeeze(1)[shown].mean()
                loss = loss + demo_coef * demo_loss
            asked = partner[mb] >= 0
            if belief_logits is not None and asked.any():
                belief_loss = torch.nn.functional.cross_entropy(belief_logits[asked], partner[mb][asked])
                loss = loss + config.belief_coef * belief_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
            if critic is not None:
                torch.nn.utils.clip_grad_norm_(critic.parameters(), config.max_grad_norm)
            optimizer.step()
    variance = returns.var()
    explained = (1 - (returns - old_value).var() / variance).item() if variance > 0 else float("nan")
    stats = {"policy_loss": losses.policy.item(), "value_loss": losses.value.item(), "entropy": losses.entropy.item(),
             "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)), "explained_variance": explained,
             "demo": demo_loss.item(), "demo_coef": demo_coef}
    if net.belief is not None:
        stats["belief/loss"] = belief_loss.item()
    return stats


# ----------------------------------------------------------------------------- logging
GAME_FACTS = ("caller", "partner", "contract", "contract_made", "called_trick", "captured_points")


def log_update(writer, trainer: Trainer, stats: dict, finished: list[dict], sps: int) -> None:
    """charts/, losses/, game/, belief/ and pool/: the update's scalars, at the decisions made so far."""
    step = trainer.decisions
    writer.add_scalar("charts/SPS", sps, step)
    writer.add_scalar("charts/learning_rate", trainer.optimizer.param_groups[0]["lr"], step)
    for name, value in stats.items():
        writer.add_scalar(name if "/" in name else f"losses/{name}", value, step)
    log_games(writer, finished, step)
    trainer.belief.log(writer, step)
    for name, share in trainer.table.seat_shares().items():
        writer.add_scalar(f"pool/{name}_seats", share, step)
    writer.add_scalar("pool/snapshots", len(trainer.table.snapshots), step)
    if len(trainer.table.fixed) > 1:
        for spec, win_rate, weight in zip(trainer.table.names, trainer.table.win_rates, trainer.table.league_weights()):
            writer.add_scalar(f"league/win_rate_vs_{spec}", win_rate, step)
            writer.add_scalar(f"league/weight_of_{spec}", weight, step)


def log_games(writer, finished: list[dict], step: int) -> None:
    """game/: how the learner's auctions and hands go, over the hands that ended in this rollout."""
    if not finished:
        return
    facts = {key: np.concatenate([f[key] for f in finished]) for key in GAME_FACTS + ("learner",)}
    caller, partner, learner = facts["caller"], facts["partner"], facts["learner"]
    if not len(caller):
        return
    played = caller >= 0
    writer.add_scalar("game/void_rate", float((~played).mean()), step)
    rows = np.arange(len(caller))
    learner_called = played & learner[rows, np.maximum(caller, 0)]
    # Per learner seat: the share of its hands in which it won the auction (0.2 at a table of five equals).
    writer.add_scalar("game/learner_auction_win_rate", float(learner_called.sum() / learner.sum()), step)
    if learner_called.any():
        contract = facts["contract"][learner_called]
        point_bid = contract >= POINT_BID_OFFSET
        target = np.where(point_bid, contract - POINT_BID_OFFSET + MIN_POINTS, MIN_POINTS)
        writer.add_scalar("game/learner_mean_contract_points", float(target.mean()), step)
        writer.add_scalar("game/learner_points_bid_rate", float(point_bid.mean()), step)
        writer.add_scalar("game/learner_contract_success_rate",
                          float(facts["contract_made"][learner_called].mean()), step)
        writer.add_scalar("game/learner_solo_rate", float((partner == caller)[learner_called].mean()), step)
    shown = facts["called_trick"][played & (partner != caller)]
    if shown.size:
        writer.add_scalar("game/called_card_trick", float(shown.mean() + 1), step)  # 1..8
    # Captured points of the learner's seats, by role (a solo caller, his own partner, counts as caller).
    roles = np.full(learner.shape, -1)  # -1: no role in a void hand
    roles[played] = WITHOUT_SOLO[seat_roles(caller[played], partner[played], learner.shape[1])]
    for name, role in (("caller", Role.CALLER), ("partner", Role.PARTNER), ("defender", Role.DEFENDER)):
        mine = learner & (roles == role)
        if mine.any():
            writer.add_scalar(f"game/learner_points_as_{name}", float(facts["captured_points"][mine].mean()), step)


def evaluate(net, rules, config: Config, writer, step: int, deals: int, update: int) -> str:
    """eval/: the current policy's paired edge against random and heuristic (and config.opponent when it is
    another agent), with 95% CIs."""
    agent = PPOAgent.from_network(copy.deepcopy(net).cpu(), seed=0)
    parts = []
    opponents = [("random", RandomAgent()), ("heuristic", HeuristicAgent(rules))]
    if config.opponent != "heuristic":
        opponents.append(("opponent", make_agent(config.opponent, rules=rules)))
    for name, other in opponents:
        # Deals of their own at each update's evaluation (the final one's seed is 1).
        result = evaluate_pair(agent, other, deals, seed=10_000 + update, rules=rules, chunk=deals)
        writer.add_scalar(f"eval/edge_vs_{name}", result.edge_a, step)
        writer.add_scalar(f"eval/edge_vs_{name}_ci_low", result.edge_a_ci[0], step)
        writer.add_scalar(f"eval/edge_vs_{name}_ci_high", result.edge_a_ci[1], step)
        parts.append(f"vs {name} {result.edge_a:+.2f}")
    return ", ".join(parts)


# ----------------------------------------------------------------------------- checkpoint
def trainer_state(trainer: Trainer) -> dict:
    """What resumes the run exactly besides the network (the checkpoint's model), NumPy arrays
    included (:func:`training.checkpoint.pack` makes them tensors)."""
    snapshots = trainer.table.snapshots
    # A snapshot taken at this update boundary is the network itself: saved once, as the model.
    newest_is_model = bool(snapshots) and same_weights(snapshots[-1], trainer.net)
    return {"format": TRAINER_FORMAT, "optimizer": trainer.optimizer.state_dict(), "env": trainer.env.state_dict(),
            "storage": trainer.storage.state_dict(), "belief": trainer.belief.state_dict(),
            "owner": trainer.table.seat_agents,
            "pool": [p.state_dict() for p in snapshots[:len(snapshots) - newest_is_model]],
            "pool_ends_with_model": newest_is_model, "league_win_rates": trainer.table.win_rates,
            "exploiters": list(trainer.table.exploiters),
            "fixed_agents_random": [random_state(agent) for agent in trainer.table.fixed],
            "rng": trainer.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(), "sampler": trainer.sampler.get_state(),
            "update": trainer.update, "decisions": trainer.decisions,
            **({"critic": trainer.critic.state_dict()} if trainer.critic is not None else {})}


def save_training_checkpoint(run: Path, trainer: Trainer, writer) -> None:
    writer.flush()  # every scalar up to this boundary is on disk before the checkpoint says it was reached
    save_checkpoint(run / "checkpoint.pt", trainer.net, config=dataclasses.asdict(trainer.config),
                    trainer=pack(trainer_state(trainer)))


def restore(trainer: Trainer, payload: dict, run: Path) -> None:
    """Put a new trainer where the training checkpoint ``payload`` of the run folder ``run`` left its run."""
    config, saved = trainer.config, unpack(payload["trainer"])
    trainer.net.load_state_dict(payload["model"])
    if trainer.critic is not None:
        trainer.critic.load_state_dict(saved["critic"])
    trainer.optimizer.load_state_dict(saved["optimizer"])
    trainer.out = trainer.env.load_state_dict(saved["env"])
    trainer.storage.load_state_dict(saved["storage"])
    trainer.belief.load_state_dict(saved["belief"])
    for update in saved.get("exploiters", []):  # first: adding one renumbers the seats' players
        add_exploiter(trainer, run, update)
    trainer.table.seat_agents[...] = saved["owner"]
    for state in saved["pool"] + ([payload["model"]] if saved["pool_ends_with_model"] else []):
        snapshot = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0, rules=trainer.rules)
        snapshot.load_state_dict(state)
        trainer.table.add_snapshot(snapshot)
    trainer.table.win_rates[...] = saved.get("league_win_rates", 0.5)  # checkpoints from before the league: 0.5
    for agent, state in zip(trainer.table.fixed, saved.get("fixed_agents_random", [])):  # (before: not saved)
        restore_random_state(agent, state)
    trainer.rng.bit_generator.state = saved["rng"]
    torch.set_rng_state(saved["torch_rng"])  # after the snapshots, whose initial weights drew from it
    trainer.sampler.set_state(saved["sampler"])
    trainer.update, trainer.decisions = saved["update"], saved["decisions"]


# ----------------------------------------------------------------------------- evaluation
def final_evaluation(checkpoint: Path, rules, config: Config) -> str:
    results = [evaluate_pair(PPOAgent(checkpoint, seed=1, rules=rules), other, config.final_eval_deals, seed=1,
                             rules=rules,
                             names=(f"ppo:{checkpoint}", name))
               for name, other in (("random", RandomAgent()), ("heuristic", HeuristicAgent(rules)))]
    if config.record_games:  # written whole, then renamed: never a partial or doubled file
        def write_games(temporary: Path) -> None:
            for result in results:
                records.write(temporary, result.records(rules))

        replace_atomically(checkpoint.parent / "games.jsonl", write_games)
    return edges_table(results)


# ----------------------------------------------------------------------------- the run
def train(config: Config, resume: Optional[Path] = None) -> Path:
    """Train a new run in run_dir/exp_name-seed, or continue the run folder ``resume``; returns
    the folder. Everything is checked before a file is written: a folder that already holds a run
    is refused (unless ``overwrite``), and one a trainer is using always is. SIGINT and SIGTERM
    stop at the next update boundary with a checkpoint, raising :class:`Interrupted`. A new run
    that ends before its first checkpoint leaves no folder behind."""
    check_config(config, resuming=resume is not None)
    device = training_device(config.device)
    run = Path(config.run_dir) / f"{config.exp_name}-{config.seed}" if resume is None else Path(resume)
    payload = None
    if resume is not None:
        try:
            payload = load_checkpoint(run / "checkpoint.pt", training=True, rules=preset(config.rules))
        except ValueError as error:
            raise RunError(str(error)) from None
        check_trainer_format(payload, run / "checkpoint.pt")
        check_checkpoint_matches(payload, config, run / "checkpoint.pt")
    elif run_contents(run) and not config.overwrite:
        raise RunError(f"{run} already holds a run: resume it (python train.py --resume {run}), "
                       "choose another exp_name, seed or run_dir, or replace it with overwrite=true")
    with StopSignals() as stop:
        run.mkdir(parents=True, exist_ok=True)
        with run_lock(run):
            try:
                if resume is None:
                    start_run_folder(run, config)
                return run_training(config, run, payload, device, stop)
            except BaseException:
                if resume is None and not (run / "checkpoint.pt").exists():
                    shutil.rmtree(run, ignore_errors=True)  # nothing to resume: leave nothing behind
                raise


def training_device(name: str) -> torch.device:
    if name == "cuda" and not torch.cuda.is_available():
        raise RunError("config key 'device' is 'cuda', but PyTorch sees no CUDA device here")
    return torch.device("cuda" if name == "auto" and torch.cuda.is_available() else "cpu" if name == "auto" else name)


def check_checkpoint_matches(payload: dict, config: Config, path: Path) -> None:
    """The checkpoint was written by the run its folder's config.yaml describes."""
    theirs = payload.get("config", {})
    fixed = [key for key, value in dataclasses.asdict(config).items()
             if key not in (*RESUME_OVERRIDES, *PER_PROCESS, "run_dir") and key in theirs and theirs[key] != value]
    if fixed:
        raise RunError(f"{path} was written by another run than its folder's config.yaml describes "
                       f"(they differ in {', '.join(fixed)}); it cannot be resumed as this run")


def start_run_folder(run: Path, config: Config) -> None:
    """Empty the folder (``overwrite``: checked before) and save the run's resolved config."""
    for path in run_contents(run):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    values = {key: value for key, value in dataclasses.asdict(config).items() if key not in PER_PROCESS}
    write_atomically(run / "config.yaml", yaml.safe_dump(
        {**values, "version": briscola_env.__version__, "git_commit": git_commit()}))


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def save_resumed_config(run: Path, config: Config) -> None:
    """Keep config.yaml the run's own after a resume with overrides (how far, cadence, hardware),
    so that the next resume goes on with them."""
    saved = read_mapping(run / "config.yaml")
    values = {**saved, **{key: value for key, value in dataclasses.asdict(config).items() if key not in PER_PROCESS}}
    if values != saved:
        write_atomically(run / "config.yaml", yaml.safe_dump(values))


def prepared_trainer(config: Config, run: Path, payload: Optional[dict], device: torch.device) -> Optional[Trainer]:
    """A new trainer, or one where the checkpoint ``payload`` left the run (None if that run is finished,
    which is said); the folder's final results are removed if the run is to go further."""
    trainer = Trainer(config, device, restoring=payload is not None)
    if payload is not None:
        restore(trainer, payload, run)
        if trainer.update >= trainer.num_updates and (run / "summary.md").exists():
            print(f"{run} already finished: {trainer.update} updates, {trainer.decisions:,} decisions; "
                  f"its results are in {run / 'summary.md'}", file=sys.stderr)
            return None
        save_resumed_config(run, config)
    if trainer.update < trainer.num_updates:  # going further than a finished run went: its results are stale
        for stale in (run / "summary.md", run / "games.jsonl"):
            stale.unlink(missing_ok=True)
    return trainer


def run_training(config: Config, run: Path, payload: Optional[dict], device: torch.device,
                 stop: StopSignals) -> Path:
    """Update after update: rollout, update, logging, then a snapshot, an evaluation and a checkpoint
    when due; until the run's end, stop_after or a stop signal (then :func:`end_of_training`)."""
    trainer = prepared_trainer(config, run, payload, device)
    if trainer is None:
        return run
    # A process killed (kill -9) after its last checkpoint may have logged scalars of updates that the
    # resumed run does again: purge_step makes TensorBoard drop what earlier files hold past the checkpoint.
    writer = SummaryWriter(str(run), purge_step=trainer.decisions + 1 if payload is not None else None)
    start, start_decisions = time.time(), trainer.decisions
    bar = tqdm(total=trainer.num_updates, initial=trainer.update, desc=config.exp_name, file=sys.stderr)
    latest_eval = ""
    stop_at = min(trainer.num_updates, trainer.update + config.stop_after) if config.stop_after else trainer.num_updates
    while trainer.update < stop_at and stop.received is None:
        if train_due_exploiters(trainer, run, writer):
            continue  # a stop signal may have come while they trained
        finished = rollout(trainer)
        stats = update_policy(trainer)
        sps = int((trainer.decisions - start_decisions) / max(time.time() - start, 1e-9))
        log_update(writer, trainer, stats, finished, sps)
        update = trainer.update
        if update % config.snapshot_every == 0:
            trainer.table.add_snapshot(copy.deepcopy(trainer.net).cpu().eval())
        if update % config.eval_every == 0 or update == trainer.num_updates:
            latest_eval = evaluate(trainer.net, trainer.rules, config, writer, trainer.decisions, config.eval_deals,
                                   update)
        if update % config.checkpoint_every == 0:
            save_training_checkpoint(run, trainer, writer)
        bar.set_postfix_str(f"SPS {sps} {latest_eval}")
        bar.update(1)
    bar.close()
    save_training_checkpoint(run, trainer, writer)
    return end_of_training(trainer, run, writer, stop, time.time() - start, trainer.decisions - start_decisions)


def train_due_exploiters(trainer: Trainer, run: Path, writer) -> bool:
    """Train the rolling exploiters due by now (:mod:`training.exploiters`), each after a checkpoint of the
    run, and add them to the league; whether there were any. The exploiter's run draws from PyTorch's
    global generator: the learner's is put back after it."""
    due = [u for u in exploiters.due_updates(trainer.config, trainer.update, trainer.num_updates)
           if u not in trainer.table.exploiters]
    for update in due:
        save_training_checkpoint(run, trainer, writer)
        target = exploiters.target_path(run, update)
        if not target.exists():
            save_checkpoint(target, copy.deepcopy(trainer.net).cpu(), config=dataclasses.asdict(trainer.config))
        folder = exploiters.exploiter_folder(trainer.config, run, update)
        if not (folder / "summary.md").exists():
            generator = torch.get_rng_state()
            try:
                train(exploiters.exploiter_config(trainer.config, run, update),
                      folder if (folder / "checkpoint.pt").exists() else None)
            except Interrupted as stopped:
                raise Interrupted(stopped.signum, f"stopped while training the exploiter after update {update}, "
                                                  f"checkpointed; continue: python train.py --resume {run}") from None
            torch.set_rng_state(generator)
            if trainer.config.torch_threads:  # the exploiter's run set them too; the same value
                torch.set_num_threads(trainer.config.torch_threads)
        add_exploiter(trainer, run, update)
        save_training_checkpoint(run, trainer, writer)
    return bool(due)


def add_exploiter(trainer: Trainer, run: Path, update: int) -> None:
    """The exploiter trained after ``update`` joins the league's fixed agents."""
    spec = exploiters.exploiter_spec(trainer.config, run, update)
    trainer.table.add_fixed(make_agent(spec, seed=trainer.config.seed, rules=trainer.rules), spec)
    trainer.table.exploiters.append(update)


def end_of_training(trainer: Trainer, run: Path, writer, stop: StopSignals, elapsed: float, done: int) -> Path:
    """After this process's last update (checkpointed): :class:`Interrupted` on a stop signal, a note
    after stop_after, and at the run's end the final evaluation, then summary.md, written last (the
    run's mark of completion). ``elapsed``, ``done``: this process's training time and decisions."""
    update, num_updates = trainer.update, trainer.num_updates
    if stop.received is not None:
        writer.close()
        raise Interrupted(stop.received, f"{signal.Signals(stop.received).name}: stopped after update {update} "
                                         f"of {num_updates}, checkpointed; continue: python train.py --resume {run}")
    if update < num_updates:
        print(f"stopped after update {update} of {num_updates}: python train.py --resume {run}", file=sys.stderr)
        writer.close()
        return run
    summary = (f"{done} decisions in {elapsed:.0f} s: {done / max(elapsed, 1e-9):,.0f} decisions/s end to end, "
               f"{trainer.env_time / max(elapsed, 1e-9):.0%} of the time in the environment")
    stop.at_once = True
    table = final_evaluation(run / "checkpoint.pt", trainer.rules, trainer.config)
    write_atomically(run / "summary.md", summary + "\n\n" + table + "\n")  # last: the run's mark of completion
    print(summary)
    print(table)
    writer.close()
    return run
