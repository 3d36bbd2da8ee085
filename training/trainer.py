"""PPO self-play for Briscola Chiamata: one policy for all five seats learns the
auction, the call and the play (for all four under ``rules=four_players``: the config's rules
size the network, the storage and the seats; the run's config.yaml and checkpoint record it).

Reads top to bottom in the order of CleanRL's ppo.py: (config: :mod:`training.config`), seeding, environment (and
opponents: :mod:`training.league`), agent, rollout, advantages (:mod:`training.trajectories`, when a hand ends),
update (the loss: ppo_loss), logging (:mod:`training.update_log`); then the trainer's state, which a training
checkpoint saves. The run around it (its folder, the update loop with its evaluations and checkpoints, --resume, the
summary) is :mod:`training.run`; ``python train.py`` is its command line.

PPO follows CleanRL's reference (clipped objective, GAE, optional value clipping, advantage
normalisation, gradient clipping, learning-rate annealing), adapted to five
seats taking turns: each learner seat's decisions in a hand form its own
trajectory, which is completed, with the hand's payoff on its last decision,
when the hand ends; then its GAE is exact. In a configurable share of games
some seats are played by past snapshots of the policy or by the pool's fixed
agents; only the learner's seats produce training data.

A training checkpoint holds what resumes the run exactly, and nothing else (:func:`trainer_state`): the
network, Adam's moments, the games in progress (engine state and records), the trajectory storage's slots
in use (the learner's decisions in hands not yet ended; the views' 0/1 entries and the masks as bits), the
opponent pool's snapshots (up to pool_size; one taken at the checkpoint's update is the network itself,
saved once), the league's statistics, the seats' owners, the online adversary if any (training.adversary) and
every random generator's state. For the
default config that is 7 MB after the first update and about 23 MB once the pool is full (BENCHMARKS.md,
"Checkpoint size"). To play or ship a network alone (2 MB for the default config), `briscola export`
writes just that.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np
import torch

from agents import HeuristicAgent
from agents.ppo import PolicyValueNet, entropy, load_network, sample_actions
from briscola_env import BatchedEnv
from briscola_env.engine import PHASE_NAMES
from briscola_env.observation import observation_spec, privileged_spec
from briscola_env.rules import RulesConfig
from briscola_env.seeds import seed_sequence
from training.adversary import OnlineAdversary
from training.belief_tracker import BeliefTracker, belief_targets
from training.checkpoint import TRAINER_FORMAT, random_state, restore_random_state, same_weights, unpack
from training.config import Config
from training.critic import PrivilegedCritic
from training.league import LEARNER, OPPONENT, Table, built_agent, fixed_agents
from training.trajectories import Trajectories, storage_capacity
from training.update_log import GAME_FACTS


# ----------------------------------------------------------------------------- seeding, environment, agent
class Trainer:
    """A run's state between two updates, which its checkpoint saves, set up from its config in CleanRL's order:
    seeding, environment, agent (and its opponents), each agent built once. :func:`rollout`, :func:`update_policy`
    and :func:`training.update_log.log_update` take it through an update; :func:`trainer_state` is what a checkpoint
    saves of it and :func:`restore` puts it back. ``restoring``: :func:`restore` follows, whose checkpoint holds the
    network, so config.init_from is not read (it may be gone). A config whose agents or init_from cannot be built is
    a ValueError naming the config key. ``streams``: the seed of its random streams (the deals, the seats' players,
    the sampling, the opponents' draws), the config's seed unless it plays a rollout worker's share of the games
    (:mod:`training.rollout_workers`)."""

    def __init__(self, config: Config, device: torch.device, restoring: bool = False,
                 streams: Optional[int] = None):
        self.config, self.device = config, device
        seed = config.seed if streams is None else streams

        # Seeding: every random source comes from the config's seed.
        self.rng = np.random.default_rng(seed)  # the seats' players
        torch.manual_seed(seed)  # the network's initial weights
        self.sampler = torch.Generator().manual_seed(seed)  # the actions sampled, the minibatches
        if config.torch_threads:
            torch.set_num_threads(config.torch_threads)

        # Environment. Deals from a stream of their own (briscola_env.seeds), drawn apart from every
        # evaluation's, whatever its seed.
        self.rules = config.rules
        self.spec = observation_spec(self.rules)  # the views' layout, which sizes the network and the storage
        self.env = BatchedEnv(config.num_envs, self.rules, seed=seed_sequence("train-env", seed),
                              reward=config.reward)
        self.out = self.env.reset()
        self.heuristic = HeuristicAgent(self.rules, seed=seed)  # the default demonstrator and opponent
        self.demonstrator = self.heuristic if config.demonstrator == "heuristic" else \
            built_agent(config.demonstrator, "demonstrator", seed, self.rules)
        self.opponent, *self.league = fixed_agents(config, self.rules, self.heuristic, seed)
        self.demo_phases = [PHASE_NAMES.index(name) for name in config.demo_phases]

        # Agent.
        self.net, self.critic, self.optimizer = learner_networks(config, self.rules, device, restoring)
        self.storage = Trajectories(storage_capacity(config.num_envs, config.num_steps), config.num_envs, self.spec,
                                    privileged_spec(self.rules) if config.privileged_critic else None)
        shape = self.rules.table_shape
        self.belief = BeliefTracker(config.num_envs, shape.seats, shape.tricks)
        self.adversary = (OnlineAdversary(config.num_envs, config.adversary_views, seed, shape.seats, shape.tricks)
                          if config.adversary_views else None)  # the partner's observer (training.adversary)

        # Opponents: the players of the first hands' seats.
        self.table = Table(config, self.rules, self.net, [self.opponent, *self.league], self.rng, self.sampler,
                           [config.opponent, *config.league], seed)
        self.table.seat_new_hands(np.arange(config.num_envs))

        self.num_updates = update_count(config)
        self.update = self.decisions = 0  # updates done and decisions made (by every seat) so far
        self.env_time = 0.0  # seconds this process spent stepping the environment


def update_count(config: Config) -> int:
    """The run's updates: total_decisions in rollouts of num_envs games making num_steps decisions each."""
    return max(1, config.total_decisions // (config.num_envs * config.num_steps))


def learner_networks(config: Config, rules: RulesConfig, device: torch.device, restoring: bool):
    """``(network, privileged critic or None, optimizer)``: the learner's, fresh (from config.init_from, unless
    ``restoring``), on ``device``. Their initial weights draw from PyTorch's global generator."""
    net = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0, rules=rules)
    if config.init_from and not restoring:
        start_from(net, config, rules)
    net = net.to(device)
    critic = PrivilegedCritic(config.hidden_sizes, rules).to(device) if config.privileged_critic else None
    parameters = [*net.parameters(), *(critic.parameters() if critic is not None else ())]
    # fused: one kernel for the whole step (PyTorch 2.4+ on CPU), 6x faster than the default here
    optimizer = torch.optim.Adam(parameters, lr=config.learning_rate, eps=1e-5, fused=True)
    return net, critic, optimizer


def start_from(net: PolicyValueNet, config: Config, rules: RulesConfig) -> None:
    """Load config.init_from's network (a distilled one, say) into ``net``, but for its belief head, which is
    not taken; a file that is no network of the config's hidden_sizes is a ValueError naming the key."""
    try:
        start = load_network(config.init_from, rules)
    except (OSError, ValueError) as error:
        raise ValueError(f"config key 'init_from' must be a policy or training checkpoint: {error}") from None
    if start.hidden != list(config.hidden_sizes):
        raise ValueError(f"config key 'init_from': {config.init_from} holds a network of hidden sizes "
                         f"{start.hidden}, not hidden_sizes {list(config.hidden_sizes)}: set hidden_sizes to match")
    weights = {key: value for key, value in start.state_dict().items() if not key.startswith("belief.")}
    missing = net.load_state_dict(weights, strict=False).missing_keys
    assert all(key.startswith("belief.") for key in missing), missing  # the sizes matched


# ----------------------------------------------------------------------------- rollout and advantages
def rollout(trainer: Trainer) -> list[dict]:
    """Every game makes num_steps decisions; hands that end complete their trajectories and are
    dealt anew. Returns, step by step, the facts of the hands that ended (for :func:`training.update_log.log_games`)."""
    config, table = trainer.config, trainer.table
    games = np.arange(config.num_envs)
    finished = []
    for _ in range(config.num_steps):
        out = trainer.out
        who = table.seat_agents[games, out.seat]
        actions = np.empty(config.num_envs, dtype=np.int64)
        learn = np.flatnonzero(who == LEARNER)
        actions[learn] = learner_acts(trainer, learn)
        if trainer.adversary is not None:
            trainer.adversary.observe(trainer.env.state, out.obs, table.seat_agents)
        for index, agent in enumerate(table.agents[OPPONENT:], start=OPPONENT):
            rows = np.flatnonzero(who == index)
            if rows.size:
                actions[rows] = agent.act(out.obs[rows], out.mask[rows])
        tick = time.time()
        trainer.out = out = trainer.env.step(actions)
        trainer.env_time += time.time() - tick
        trainer.decisions += config.num_envs
        ended = np.flatnonzero(out.done)
        shaped = out.rewards.copy()  # the trajectories' rewards; the league's statistics read the payoffs
        if trainer.adversary is None:
            trainer.belief.finish_hands(shaped, ended, out.info, config.concealment_coef)
        else:  # the concealment reward reads the adversary; the head is measured only
            trainer.belief.finish_hands(shaped, ended, out.info, 0.0)
            shaped = trainer.adversary.shaped_rewards(shaped, ended, out.info, config.concealment_coef)
        trainer.storage.finish(ended, shaped, config.gamma, config.gae_lambda)
        table.record_results(ended, out.rewards)
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
        demo[shown] = trainer.demonstrator.act(obs[shown], mask[shown])
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
    adversary = trainer.adversary.fit() if trainer.adversary is not None else {}
    if not len(ids):
        return adversary
    return ppo_update(trainer.net, trainer.optimizer, trainer.storage, ids, config, trainer.sampler, trainer.device,
                      demo_weight(config, trainer.update - 1, trainer.num_updates), trainer.critic) | adversary


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


# ----------------------------------------------------------------------------- checkpoint
def trainer_state(trainer: Trainer) -> dict:
    """What resumes the run exactly besides the network (the checkpoint's model), NumPy arrays
    included (:func:`training.checkpoint.pack` makes them tensors): :func:`learner_state` and
    :func:`games_state`."""
    return learner_state(trainer) | games_state(trainer)


def learner_state(trainer) -> dict:
    """What resumes the learner's side of the run: the optimizer, the opponent pool (each snapshot once), the
    generators of the update and the counts; ``trainer``: a :class:`Trainer`, or the learner of
    :mod:`training.rollout_workers`."""
    snapshots = trainer.table.snapshots
    # A snapshot taken at this update boundary is the network itself: saved once, as the model.
    newest_is_model = bool(snapshots) and same_weights(snapshots[-1], trainer.net)
    return {"format": TRAINER_FORMAT, "optimizer": trainer.optimizer.state_dict(),
            "pool": [p.state_dict() for p in snapshots[:len(snapshots) - newest_is_model]],
            "pool_ends_with_model": newest_is_model, "exploiters": list(trainer.table.exploiters),
            "torch_rng": torch.get_rng_state(), "sampler": trainer.sampler.get_state(),
            "update": trainer.update, "decisions": trainer.decisions,
            **({"critic": trainer.critic.state_dict()} if trainer.critic is not None else {})}


def games_state(trainer: Trainer) -> dict:
    """What resumes a trainer's games exactly: the games in progress, their trajectories, the belief's running
    sums, the online adversary (if any), the seats' owners, the league's statistics and the random states of the
    seats' draws, of the fixed agents and of the demonstrator."""
    return {"env": trainer.env.state_dict(), "storage": trainer.storage.state_dict(),
            "belief": trainer.belief.state_dict(), "owner": trainer.table.seat_agents,
            "league_win_rates": trainer.table.win_rates,
            "fixed_agents_random": [random_state(agent) for agent in trainer.table.fixed],
            "demonstrator_random": random_state(trainer.demonstrator),
            "rng": trainer.rng.bit_generator.state,
            **({"adversary": trainer.adversary.state_dict()} if trainer.adversary is not None else {})}


def restore(trainer: Trainer, payload: dict, run: Path) -> None:
    """Put a new trainer where the training checkpoint ``payload`` of the run folder ``run`` left its run."""
    saved = unpack(payload["trainer"])
    restore_learner(trainer, payload["model"], saved, run)
    restore_games(trainer, saved)


def restore_learner(trainer, model: dict, saved: dict, run: Path) -> None:
    """Put back the network ``model`` and what :func:`learner_state` saved (``saved``, unpacked) of the run in
    the folder ``run`` into ``trainer`` (a :class:`Trainer`, or the learner of :mod:`training.rollout_workers`)."""
    trainer.net.load_state_dict(model)
    if trainer.critic is not None:
        trainer.critic.load_state_dict(saved["critic"])
    trainer.optimizer.load_state_dict(saved["optimizer"])
    for update in saved["exploiters"]:  # first: adding one renumbers the seats' players
        trainer.table.add_exploiter(run, update)
    for net in pool_networks(saved, model, trainer.config, trainer.rules):
        trainer.table.add_snapshot(net)
    torch.set_rng_state(saved["torch_rng"])  # after the snapshots, whose initial weights drew from it
    trainer.sampler.set_state(saved["sampler"])
    trainer.update, trainer.decisions = saved["update"], saved["decisions"]


def pool_networks(saved: dict, model: dict, config: Config, rules: RulesConfig) -> list[PolicyValueNet]:
    """The opponent pool's snapshots that :func:`learner_state` saved (``model``: the checkpoint's network),
    oldest first."""
    networks = []
    for state in saved["pool"] + ([model] if saved["pool_ends_with_model"] else []):
        snapshot = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0, rules=rules)
        snapshot.load_state_dict(state)
        networks.append(snapshot)
    return networks


def restore_games(trainer: Trainer, saved: dict) -> None:
    """Put back what :func:`games_state` saved (unpacked), once the pool's exploiters are back: the seats'
    owners count them."""
    trainer.out = trainer.env.load_state_dict(saved["env"])
    trainer.storage.load_state_dict(saved["storage"])
    trainer.belief.load_state_dict(saved["belief"])
    if trainer.adversary is not None:
        trainer.adversary.load_state_dict(saved["adversary"])
    trainer.table.seat_agents[...] = saved["owner"]
    trainer.table.win_rates[...] = saved["league_win_rates"]
    for agent, state in zip(trainer.table.fixed, saved["fixed_agents_random"]):
        restore_random_state(agent, state)
    restore_random_state(trainer.demonstrator, saved.get("demonstrator_random", {}))  # older runs: the heuristic
    trainer.rng.bit_generator.state = saved["rng"]
