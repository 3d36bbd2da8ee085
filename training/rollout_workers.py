"""Rollout workers (config ``workers`` > 0): the rollout played by Ray actors, the PPO update in this process.

Each :class:`RolloutWorker` is a Ray actor holding a :class:`training.trainer.Trainer` of its share of the run's
games: its own BatchedEnv, its opponents (the pool's fixed agents and its copy of the snapshots), its trajectory
storage and a CPU copy of the policy, with random streams of its own, seeded from the run's seed and the
worker's index. Each update the :class:`Learner` sends every worker the current weights (and what joined the
opponent pool since), each plays :func:`training.trainer.rollout` on its games, the same function a single
process plays, and hands back its completed decisions; the learner puts them together, worker by worker, and
runs the same update (:func:`training.trainer.update_policy`) on its device. This is synchronous PPO, the
algorithm of a single process, with its rollout cut into shares, as DouZero's actors, RLlib's EnvRunners and
TorchRL's collectors cut theirs. The same seed and number of workers give the same run, bit for bit; another
number of workers deals other games, so it is another run (``workers`` is part of the run's config).

A training checkpoint holds the learner's state (:func:`training.trainer.learner_state`) and, under
``workers``, every worker's games, trajectories and random states (:func:`training.trainer.games_state`, with its
sampler): --resume starts the workers afresh and puts each back where it was.

Ray: :func:`evaluation.parallel.ray_for` starts a local Ray of ``workers`` CPUs for the run (one a worker; the
learner is this process), or joins the cluster at ``RAY_ADDRESS`` (``ray start --head`` on one node,
``ray start --address=HEAD:6379`` on the others, the package installed on every node and the run folder on a
file system they share, since a worker reads the pool's exploiters from it).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import torch

from agents import HeuristicAgent
from agents.ppo import PolicyValueNet
from evaluation.parallel import piece_seed
from training.belief_tracker import BeliefTracker
from training.config import Config
from training.league import Table, fixed_agents
from training.trainer import (Trainer, games_state, learner_networks, learner_state, restore_games,
                              restore_learner, rollout, update_count)
from training.checkpoint import unpack
from training.run_folder import RunError

WORKER_STREAM = "rollout-worker"
"""The key of the workers' random streams: worker ``i`` seeds its own from (run seed, this, ``i``)."""
UPDATE_FIELDS = ("obs", "mask", "action", "logprob", "value", "advantage", "ret", "demo", "partner")
"""What the update reads of each completed decision (:func:`training.trainer.ppo_update`), and ``privileged``
with a privileged critic."""


class WorkerLost(RuntimeError):
    """A rollout worker died (its process killed, its node lost): the run stops; its last checkpoint resumes it."""


def worker_shares(num_envs: int, workers: int) -> list[int]:
    """The games each worker plays: ``num_envs`` cut into ``workers`` shares, the first ones a game larger."""
    return [len(share) for share in np.array_split(np.arange(num_envs), workers)]


def worker_seed(seed: int, index: int) -> int:
    """The seed of worker ``index``'s random streams in the run of ``seed``."""
    return piece_seed(seed, WORKER_STREAM, index)


# ----------------------------------------------------------------------------- a worker
class RolloutWorker:
    """Worker ``index`` of the run of ``config`` in the folder ``run``: a :class:`training.trainer.Trainer` of its
    share of the games on CPU, whose network and critic are the learner's copies and whose opponent pool follows
    the learner's (:meth:`rollout`). A plain class: the learner makes it a Ray actor."""

    def __init__(self, config: Config, index: int, run: str):
        torch.set_num_threads(config.torch_threads or 1)  # one CPU a worker, unless the config says otherwise
        share = dataclasses.replace(config, num_envs=worker_shares(config.num_envs, config.workers)[index],
                                    device="cpu")
        self.trainer = Trainer(share, torch.device("cpu"), restoring=True, streams=worker_seed(config.seed, index))
        self.run = Path(run)
        self.snapshot_keys: list[int] = []  # the learner's numbers of the snapshots in the trainer's table

    def rollout(self, weights: dict, pool: dict, update: int, num_updates: int) -> dict:
        """One rollout of the worker's games with the learner's ``weights`` and opponent ``pool``
        (:meth:`PoolTable.message`) at the learner's ``update`` of ``num_updates``: its completed decisions
        (``batch``) and what the learner logs of it."""
        trainer = self.trainer
        start, env_time = time.perf_counter(), trainer.env_time
        trainer.net.load_state_dict(weights["net"])
        if trainer.critic is not None:
            trainer.critic.load_state_dict(weights["critic"])
        self.follow(pool)
        trainer.update, trainer.num_updates = update, num_updates
        finished = rollout(trainer)
        ids = trainer.storage.take_ready()
        fields = UPDATE_FIELDS + (("privileged",) if trainer.critic is not None else ())
        batch = {name: getattr(trainer.storage, name)[ids] for name in fields}
        return {"batch": batch, "finished": finished, "owner": trainer.table.seat_agents.copy(),
                "win_rates": trainer.table.win_rates.copy(), "belief": trainer.belief.take_statistics(),
                "decisions": trainer.config.num_envs * trainer.config.num_steps,
                "env_time": trainer.env_time - env_time, "seconds": time.perf_counter() - start}

    def follow(self, pool: dict) -> None:
        """Bring the table's pool to the learner's ``pool``: the exploiters it lacks, then the snapshots it lacks,
        in the order the learner added them (the oldest beyond pool_size are dropped as the learner's were)."""
        import ray

        table, config = self.trainer.table, self.trainer.config
        for update in pool["exploiters"][len(table.exploiters):]:
            table.add_exploiter(self.run, update)
        newest = self.snapshot_keys[-1] if self.snapshot_keys else 0
        for key, ref in pool["snapshots"]:
            if key > newest:
                net = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0, rules=self.trainer.rules)
                net.load_state_dict(ray.get(ref))
                table.add_snapshot(net)
                self.snapshot_keys.append(key)
        del self.snapshot_keys[:-config.pool_size]

    def state(self) -> dict:
        """What resumes the worker's games exactly (:func:`training.trainer.games_state`, and its sampler)."""
        return games_state(self.trainer) | {"sampler": self.trainer.sampler.get_state()}

    def restore(self, saved: dict, pool: dict) -> None:
        """Put a fresh worker where :meth:`state` saved it (``saved``), in the learner's restored ``pool``."""
        self.follow(pool)  # first: the exploiters renumber the seats' players
        restore_games(self.trainer, saved)
        self.trainer.sampler.set_state(saved["sampler"])

    def pid(self) -> int:
        """The worker's process id (for a test that kills it)."""
        import os

        return os.getpid()


# ----------------------------------------------------------------------------- the learner
class PoolTable(Table):
    """The learner's table: it plays no game. It holds the opponent pool (the fixed agents, the rolling
    exploiters and the snapshots), which the workers' tables follow, each snapshot numbered as it joins and its
    weights put in Ray's object store once (:meth:`message`); after each rollout it holds the workers' seats
    and their mean league win rates, for :meth:`training.league.Table.log`."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.joined = 0  # snapshots added so far
        self.refs: list[tuple] = []  # (number, weights in the object store) of each snapshot kept

    def add_snapshot(self, net: PolicyValueNet) -> None:
        """Add ``net`` to the pool, as :class:`training.league.Table` does, and its weights to the object store."""
        import ray

        super().add_snapshot(net)
        self.joined += 1
        self.refs.append((self.joined, ray.put({name: value.cpu() for name, value in net.state_dict().items()})))
        del self.refs[:-self.config.pool_size]

    def message(self) -> dict:
        """The pool as a worker follows it (:meth:`RolloutWorker.follow`)."""
        return {"exploiters": list(self.exploiters), "snapshots": list(self.refs)}

    def gather(self, reports: list[dict]) -> None:
        """The workers' seats, game by game in the workers' order, and their mean win rates."""
        self.seat_agents = np.concatenate([report["owner"] for report in reports])
        self.win_rates = np.mean([report["win_rates"] for report in reports], axis=0)


class GatheredDecisions:
    """The completed decisions of one rollout of every worker, worker by worker, read by
    :func:`training.trainer.update_policy` as it reads the ready slots of a trainer's storage."""

    def __init__(self, batches: list[dict]):
        self.privileged = None
        for name in batches[0] if batches else UPDATE_FIELDS:
            setattr(self, name, np.concatenate([batch[name] for batch in batches]) if batches else np.zeros(0))
        self.count = len(self.action)

    def take_ready(self) -> np.ndarray:
        """Every decision, once: the update takes them all."""
        ids, self.count = np.arange(self.count), 0
        return ids


class Learner:
    """A run's state between two updates when ``workers`` > 0: the network, the critic and the optimizer on
    ``device``, the update's sampler, the opponent pool (:class:`PoolTable`) and the Ray actors playing the
    games (:class:`RolloutWorker`), started here for the run folder ``run``; what :func:`training.trainer.update_policy`
    and :func:`training.update_log.log_update` read of a :class:`training.trainer.Trainer` is here under the same
    names. Seeded from the config's seed, as a Trainer is; ``restoring``: as a Trainer's. Ray must be up
    (:func:`evaluation.parallel.ray_for`)."""

    def __init__(self, config: Config, device: torch.device, run: Path, restoring: bool = False):
        self.config, self.device = config, device
        torch.manual_seed(config.seed)  # the network's initial weights
        self.sampler = torch.Generator().manual_seed(config.seed)  # the minibatches
        if config.torch_threads:
            torch.set_num_threads(config.torch_threads)
        self.rules = config.rules
        fixed = fixed_agents(config, self.rules, HeuristicAgent(self.rules, seed=config.seed))  # their errors here
        self.net, self.critic, self.optimizer = learner_networks(config, self.rules, device, restoring)
        self.table = PoolTable(config, self.rules, self.net, fixed, np.random.default_rng(config.seed), self.sampler,
                               [config.opponent, *config.league])
        shape = self.rules.table_shape
        self.belief = BeliefTracker(0, shape.seats, shape.tricks)  # the workers' statistics, logged here
        self.adversary = None  # the online adversary watches a single process only (config.check_partner_keys)
        self.storage = GatheredDecisions([])
        self.run = run
        self.workers = start_workers(config, run)
        self.num_updates = update_count(config)
        self.update = self.decisions = 0
        self.env_time = 0.0  # the workers' mean seconds stepping their environments
        self.rollout_time = self.playing_time = 0.0  # seconds in rollouts here, and the workers' mean of theirs


def start_workers(config: Config, run: Path) -> list:
    """The run's :class:`RolloutWorker` actors, one CPU each (the run folder given whole, as a worker on another
    node must find it), once they are up: their start is not counted in the training's time. A Ray of fewer
    CPUs than workers, or a worker that does not start, is a :class:`RunError` (with the first line of its error)."""
    import ray

    cpus = ray.cluster_resources().get("CPU", 0)
    if cpus < config.workers:  # the workers would wait for CPUs for ever
        raise RunError(f"config key 'workers' is {config.workers}, but the Ray this run joined has {cpus:g} CPUs: "
                         "start more nodes (ray start --address=HEAD:6379), or train with fewer workers")
    actor = ray.remote(num_cpus=1, max_restarts=0)(RolloutWorker)
    workers = [actor.remote(config, index, str(Path(run).resolve())) for index in range(config.workers)]
    try:
        ray.get([worker.pid.remote() for worker in workers])
    except ray.exceptions.RayActorError as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise RunError(f"config key 'workers': a rollout worker did not start: {reason}") from None
    return workers


def stop_workers(learner: Learner) -> None:
    """End the learner's workers (on a Ray that stays up, their CPUs go back to it)."""
    import ray

    for worker in learner.workers:
        ray.kill(worker)


def play(learner: Learner) -> list[dict]:
    """One rollout on the workers (the current weights sent, the pool followed), their decisions gathered for
    the update; returns, step by step and worker by worker, the facts of the hands that ended (as
    :func:`training.trainer.rollout` does)."""
    import ray

    start = time.perf_counter()
    weights = {"net": cpu_weights(learner.net)}
    if learner.critic is not None:
        weights["critic"] = cpu_weights(learner.critic)
    weights, pool = ray.put(weights), learner.table.message()
    reports = gathered(learner, [worker.rollout.remote(weights, pool, learner.update, learner.num_updates)
                                 for worker in learner.workers])
    learner.storage = GatheredDecisions([report["batch"] for report in reports])
    learner.table.gather(reports)
    for report in reports:
        learner.belief.add_statistics(report["belief"])
    learner.decisions += sum(report["decisions"] for report in reports)
    learner.env_time += float(np.mean([report["env_time"] for report in reports]))
    learner.playing_time += float(np.mean([report["seconds"] for report in reports]))
    learner.rollout_time += time.perf_counter() - start
    return [facts for report in reports for facts in report["finished"]]


def cpu_weights(module: torch.nn.Module) -> dict:
    """``module``'s weights on the CPU, as the workers load them (the learner's may be on a GPU)."""
    return {name: value.detach().cpu() for name, value in module.state_dict().items()}


def gathered(learner: Learner, refs: list) -> list:
    """``ray.get(refs)``, the workers' answers; a worker that died is a :class:`WorkerLost` naming it."""
    import ray

    try:
        return ray.get(refs)
    except ray.exceptions.RayActorError as error:
        lost = ", ".join(str(index) for index, ref in enumerate(refs) if ref_failed(ref)) or "?"
        raise WorkerLost(f"rollout worker {lost} of {len(refs)} died during update {learner.update + 1} "
                         f"({type(error).__name__}); the run's last checkpoint resumes it: "
                         f"python train.py --resume {learner.run}") from None


def ref_failed(ref) -> bool:
    """Whether the answer ``ref`` is an error already (its worker died), without waiting for it."""
    import ray

    try:
        ray.get(ref, timeout=0)
        return False
    except ray.exceptions.GetTimeoutError:
        return False
    except ray.exceptions.RayError:
        return True


# ----------------------------------------------------------------------------- checkpoints
def workers_state(learner: Learner) -> dict:
    """What resumes the run exactly besides the network: the learner's state and, under ``workers``, each
    worker's (:meth:`RolloutWorker.state`)."""
    return learner_state(learner) | {"workers": gathered(learner, [w.state.remote() for w in learner.workers])}


def restore_workers(learner: Learner, payload: dict, run: Path) -> None:
    """Put a new learner and its fresh workers where the training checkpoint ``payload`` of ``run`` left them."""
    saved = unpack(payload["trainer"])
    restore_learner(learner, payload["model"], saved, run)
    pool = learner.table.message()
    gathered(learner, [worker.restore.remote(state, pool) for worker, state in zip(learner.workers, saved["workers"])])


def time_shares(learner: Learner, elapsed: float) -> str:
    """Where this process's ``elapsed`` seconds of training went, as the run's summary says it."""
    def share(seconds: float) -> str:
        return f"{seconds / max(elapsed, 1e-9):.0%}"

    workers = f"{len(learner.workers)} worker{'s' if len(learner.workers) > 1 else ''}"
    return (f"{share(learner.rollout_time)} of the time in rollouts on {workers} "
            f"({share(learner.playing_time)} the workers playing, {share(learner.env_time)} in their environments; "
            f"the rest sending weights and gathering decisions), {share(elapsed - learner.rollout_time)} in the "
            "updates, evaluations and checkpoints here")
