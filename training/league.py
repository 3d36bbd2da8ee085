"""The trainer's opponent pool and who plays each seat (:class:`Table`): the learner, the pool's fixed
agents (config.opponent, the heuristic unless it says otherwise, then config.league's, then the rolling
exploiters of :mod:`training.exploiters`) and past snapshots of the learner. With a league (more than one
fixed agent), each fixed seat goes to one of them by prioritised fictitious self-play: AlphaStar's
``(1 - win rate) ** pfsp_power`` of the learner's moving-average win rate against each."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np
import torch

from agents import HeuristicAgent, make_agent
from agents.ppo import PolicyValueNet, sample_actions
from briscola_env.rules import RulesConfig
from training import exploiters
from training.config import Config

LEARNER, OPPONENT = 0, 1
"""Places in :attr:`Table.agents`: the learner, then the pool's fixed agents (config.opponent first, then the
league's), then its snapshots (from :attr:`Table.first_snapshot`)."""
LEAGUE_RATE = 0.01
"""The weight of each hand in the league's moving average of the learner's win rate against an agent."""


def fixed_agents(config: Config, rules: RulesConfig, heuristic: HeuristicAgent, seed: Optional[int] = None) -> list:
    """The pool's fixed agents, each built once from its spec and seeded with ``seed`` (default: the run's
    seed; a rollout worker's own streams otherwise): config.opponent
    (``heuristic`` itself when it is the heuristic, so that the demonstrator plays those seats), then
    config.league's. A spec that does not build (a checkpoint missing or of other rules, a value an agent
    refuses) is a ValueError naming its config key."""
    seed = config.seed if seed is None else seed
    opponent = heuristic if config.opponent == "heuristic" else built_agent(config.opponent, "opponent", seed, rules)
    return [opponent, *(built_agent(spec, "league", seed, rules) for spec in config.league)]


def built_agent(spec: str, key: str, seed: int, rules: RulesConfig):
    """The agent ``spec`` of the config key ``key``, seeded with ``seed``; a spec that does not build is a
    ValueError naming the key."""
    try:
        return make_agent(spec, seed=seed, rules=rules)
    except ValueError as error:
        if key == "league":
            raise ValueError(f"config key 'league': {spec!r} is not an agent spec: {error}") from None
        raise ValueError(f"config key {key!r} must be an agent spec: {error}") from None


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
    The seats are those of the table of ``rules``. ``seed`` seeds the rolling exploiters it adds (default:
    the run's seed)."""

    def __init__(self, config: Config, rules: RulesConfig, learner: PolicyValueNet, fixed: list,
                 rng: np.random.Generator, sampler: torch.Generator, names: list[str], seed: Optional[int] = None):
        self.config, self.rules, self.rng, self.sampler = config, rules, rng, sampler
        self.seed = config.seed if seed is None else seed
        self.learner, self.fixed, self.names = learner, fixed, names
        self.exploiters: list[int] = []  # the updates after which the rolling exploiters among the fixed were trained
        self.first_snapshot = OPPONENT + len(fixed)
        self.win_rates = np.full(len(fixed), 0.5)  # the learner's against each fixed agent (the league's statistic)
        self.snapshots: list[PolicyValueNet] = []
        self.seats = rules.table_shape.seats
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
        if len(self.fixed) == 1 or not games.size:  # no league: nothing to weigh
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
                else:  # a fixed agent: drawn by the league's weights when there is more than one
                    player = OPPONENT + (int(rng.choice(len(weights), p=weights)) if len(weights) > 1 else 0)
                self.seat_agents[g, s] = player

    def add_fixed(self, agent, name: str) -> None:
        """One more fixed agent, after the others, at the league's neutral win rate. Seats of
        snapshots keep their players: their indices into :attr:`agents` move up by one."""
        self.seat_agents[self.seat_agents >= self.first_snapshot] += 1
        self.first_snapshot += 1
        self.fixed.append(agent)
        self.names.append(name)
        self.win_rates = np.append(self.win_rates, 0.5)

    def add_exploiter(self, run: Path, update: int) -> None:
        """The rolling exploiter trained after ``update`` in the run folder ``run`` joins the fixed agents."""
        spec = exploiters.exploiter_spec(self.config, run, update)
        self.add_fixed(make_agent(spec, seed=self.seed, rules=self.rules), spec)
        self.exploiters.append(update)

    def add_snapshot(self, net: PolicyValueNet) -> None:
        """Add ``net`` to the pool, dropping the oldest snapshot beyond pool_size. Seats keep their index
        into :attr:`agents`: a hand in progress at a seat of a dropped snapshot goes on with the next
        newer one."""
        self.snapshots.append(net)
        del self.snapshots[:-self.config.pool_size]

    def seat_shares(self) -> dict[str, float]:
        """The share of all seats that each kind of player holds now."""
        kinds = np.select([self.seat_agents == LEARNER, self.seat_agents < self.first_snapshot], [0, 1], 2)
        counts = np.bincount(kinds.ravel(), minlength=3)
        fixed = "heuristic" if self.config.opponent == "heuristic" and not self.config.league else "opponent"
        return dict(zip(("learner", fixed, "snapshot"), counts / self.seat_agents.size))  # the default's tags

    def log(self, writer, step: int) -> None:
        """pool/ and league/: the seats' shares, the snapshots kept, and each fixed agent's win rate and
        weight when there is a league."""
        for name, share in self.seat_shares().items():
            writer.add_scalar(f"pool/{name}_seats", share, step)
        writer.add_scalar("pool/snapshots", len(self.snapshots), step)
        if len(self.fixed) > 1:
            for spec, win_rate, weight in zip(self.names, self.win_rates, self.league_weights()):
                writer.add_scalar(f"league/win_rate_vs_{spec}", win_rate, step)
                writer.add_scalar(f"league/weight_of_{spec}", weight, step)
