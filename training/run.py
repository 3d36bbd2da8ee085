"""A training run's life around the trainer (:mod:`training.trainer`): its folder, the update loop with its
snapshots, evaluations and checkpoints, --resume, the rolling exploiters' runs, and the summary.

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
is :mod:`training.exploit`. What a run needs besides PPO lives beside it in the training package: the
checkpoint's trainer state (:mod:`training.checkpoint`), the run folder's lock (:mod:`training.run_folder`)
and the stop signals (:mod:`training.stop_signals`).
"""

from __future__ import annotations

import contextlib
import copy
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import briscola_env
from agents import HeuristicAgent, RandomAgent, make_agent
from agents.ppo import PPOAgent, load_checkpoint, save_checkpoint
from briscola_env import records
from briscola_env.rules import resolve_rules
from briscola_env.files import replace_atomically, write_atomically
from evaluation import evaluate_pair, evaluate_table
from evaluation.parallel import check_workers, ray_for
from evaluation.report import edges_table
from training import exploiters
from training.checkpoint import check_trainer_format, pack
from training.config import PER_PROCESS, RESUME_OVERRIDES, Config, config_values, read_mapping
from training.rollout_workers import Learner, play, restore_workers, stop_workers, time_shares, workers_state
from training.run_folder import RunError, run_contents, run_lock
from training.stop_signals import Interrupted, StopSignals
from training.trainer import Trainer, restore, rollout, trainer_state, update_policy
from training.update_log import log_update


# ----------------------------------------------------------------------------- starting or resuming a run
def train(config: Config, resume: Optional[Path] = None) -> Path:
    """Train a new run in run_dir/exp_name-seed, or continue the run folder ``resume``; returns the folder.
    ``config`` is checked already (:func:`training.config.make_config`). Everything else is checked, and the
    trainer built with its agents, before a file is written: a folder that already holds a run is refused
    (unless ``overwrite``), one a trainer is using always is, and so is a config whose agents or init_from do
    not build (a :class:`RunError` naming the key). SIGINT and SIGTERM stop at the next update boundary with
    a checkpoint, raising :class:`Interrupted`. A new run that ends before its first checkpoint leaves no
    folder behind."""
    device = training_device(config.device)
    run = Path(config.run_dir) / f"{config.exp_name}-{config.seed}" if resume is None else Path(resume)
    payload = None
    if resume is not None:
        payload = resumable_checkpoint(run, config)
    elif run_contents(run) and not config.overwrite:
        raise RunError(f"{run} already holds a run: resume it (python train.py --resume {run}), "
                       "choose another exp_name, seed or run_dir, or replace it with overwrite=true")
    # Ray up for the rollout workers, if any, before the stop signals' handlers: ray.init replaces them.
    with ray_for(check_rollout_workers(config)), trainer_for(config, device, run, payload is not None) as trainer:
        with StopSignals() as stop:
            run.mkdir(parents=True, exist_ok=True)
            with run_lock(run):
                try:
                    if resume is None:
                        start_run_folder(run, config)
                    return run_training(trainer, run, payload, stop)
                except BaseException:
                    if resume is None and not (run / "checkpoint.pt").exists():
                        shutil.rmtree(run, ignore_errors=True)  # nothing to resume: leave nothing behind
                    raise


@contextlib.contextmanager
def trainer_for(config: Config, device: torch.device, run: Path, restoring: bool):
    """The run's trainer (:func:`new_trainer`), an agent or init_from that does not build a :class:`RunError`
    naming its key; its rollout workers, if any, are ended after it, releasing their CPUs on a Ray that stays
    up (a cluster's)."""
    try:
        trainer = new_trainer(config, device, run, restoring)
    except ValueError as error:
        raise RunError(str(error)) from None
    try:
        yield trainer
    finally:
        if config.workers:
            stop_workers(trainer)


def check_rollout_workers(config: Config) -> int:
    """config.workers, or a :class:`RunError` if it asks for Ray and Ray is not installed."""
    try:
        return check_workers(config.workers)
    except ValueError as error:
        raise RunError(f"config key 'workers': {error}") from None


def new_trainer(config: Config, device: torch.device, run: Path, restoring: bool):
    """The run's trainer: a :class:`Trainer`, or with rollout workers the :class:`training.rollout_workers.Learner`
    and its workers (Ray up)."""
    return Learner(config, device, run, restoring) if config.workers else Trainer(config, device, restoring)


def play_rollout(trainer) -> list[dict]:
    """One rollout: in this process, or on the rollout workers."""
    return play(trainer) if trainer.config.workers else rollout(trainer)


def run_state(trainer) -> dict:
    """What a training checkpoint saves besides the network."""
    return workers_state(trainer) if trainer.config.workers else trainer_state(trainer)


def restore_run(trainer, payload: dict, run: Path) -> None:
    """Put a new trainer (and its workers) where the training checkpoint ``payload`` left the run."""
    if trainer.config.workers:
        restore_workers(trainer, payload, run)
    else:
        restore(trainer, payload, run)


def training_device(name: str) -> torch.device:
    if name == "cuda" and not torch.cuda.is_available():
        raise RunError("config key 'device' is 'cuda', but PyTorch sees no CUDA device here")
    return torch.device("cuda" if name == "auto" and torch.cuda.is_available() else "cpu" if name == "auto" else name)


def resumable_checkpoint(run: Path, config: Config) -> dict:
    """The training checkpoint of the run folder ``run``, read and checked as what resumes the run of ``config``
    (:data:`training.checkpoint.TRAINER_FORMAT`, :func:`check_checkpoint_matches`), or a :class:`RunError`."""
    path = run / "checkpoint.pt"
    try:
        payload = load_checkpoint(path, training=True, rules=config.rules)
    except ValueError as error:
        raise RunError(str(error)) from None
    check_trainer_format(payload, path)
    check_checkpoint_matches(payload, config, path)
    return payload


def check_checkpoint_matches(payload: dict, config: Config, path: Path) -> None:
    """The checkpoint was written by the run its folder's config.yaml describes."""
    theirs = dict(payload.get("config", {}))
    if "rules" in theirs:  # a preset's name, or every field: compared as the rules they name
        theirs["rules"] = resolve_rules(theirs["rules"]).to_dict()
    fixed = [key for key, value in config_values(config).items()
             if key not in (*RESUME_OVERRIDES, *PER_PROCESS, "run_dir") and key in theirs and theirs[key] != value]
    if fixed:
        raise RunError(f"{path} was written by another run than its folder's config.yaml describes "
                       f"(they differ in {', '.join(fixed)}); it cannot be resumed as this run")


def start_run_folder(run: Path, config: Config) -> None:
    """Empty the folder (``overwrite``: checked before) and save the run's resolved config."""
    for path in run_contents(run):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    values = {key: value for key, value in config_values(config).items() if key not in PER_PROCESS}
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
    values = {**saved, **{key: value for key, value in config_values(config).items() if key not in PER_PROCESS}}
    if values != saved:
        write_atomically(run / "config.yaml", yaml.safe_dump(values))


def prepared(trainer: Trainer, run: Path, payload: Optional[dict]) -> bool:
    """Put ``trainer`` where the checkpoint ``payload`` left the run, if any; whether the run goes on (False if
    it is finished, which is said). The folder's final results are removed if the run is to go further."""
    if payload is not None:
        restore_run(trainer, payload, run)
        if trainer.update >= trainer.num_updates and (run / "summary.md").exists():
            print(f"{run} already finished: {trainer.update} updates, {trainer.decisions:,} decisions; "
                  f"its results are in {run / 'summary.md'}", file=sys.stderr)
            return False
        save_resumed_config(run, trainer.config)
    if trainer.update < trainer.num_updates:  # going further than a finished run went: its results are stale
        for stale in (run / "summary.md", run / "games.jsonl"):
            stale.unlink(missing_ok=True)
    return True


# ----------------------------------------------------------------------------- the update loop
def run_training(trainer: Trainer, run: Path, payload: Optional[dict], stop: StopSignals) -> Path:
    """Update after update: rollout, update, logging, then a snapshot, an evaluation and a checkpoint
    when due; until the run's end, stop_after or a stop signal (then :func:`end_of_training`)."""
    if not prepared(trainer, run, payload):
        return run
    config = trainer.config
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
        finished = play_rollout(trainer)
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


def save_training_checkpoint(run: Path, trainer: Trainer, writer) -> None:
    writer.flush()  # every scalar up to this boundary is on disk before the checkpoint says it was reached
    save_checkpoint(run / "checkpoint.pt", trainer.net, config=config_values(trainer.config),
                    trainer=pack(run_state(trainer)))


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
            save_checkpoint(target, copy.deepcopy(trainer.net).cpu(), config=config_values(trainer.config))
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
        trainer.table.add_exploiter(run, update)
        save_training_checkpoint(run, trainer, writer)
    return bool(due)


# ----------------------------------------------------------------------------- evaluation and the run's end
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


def final_evaluation(checkpoint: Path, rules, config: Config) -> str:
    """The final network's table edge over random and over the heuristic (every seating of the two at the
    table, final_eval_deals deals, seed 1), with the one-against-four edges as its slices: summary.md's
    table. With record_games, the lone-agent games in games.jsonl beside the checkpoint."""
    results = [evaluate_table(PPOAgent(checkpoint, seed=1, rules=rules), other, config.final_eval_deals, seed=1,
                              rules=rules, names=(f"ppo:{checkpoint}", name))
               for name, other in (("random", RandomAgent()), ("heuristic", HeuristicAgent(rules)))]
    if config.record_games:  # written whole, then renamed: never a partial or doubled file
        def write_games(temporary: Path) -> None:
            for result in results:
                records.write(temporary, result.records(rules))

        replace_atomically(checkpoint.parent / "games.jsonl", write_games)
    return edges_table(results)


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
    shares = time_shares(trainer, elapsed) if trainer.config.workers else \
        f"{trainer.env_time / max(elapsed, 1e-9):.0%} of the time in the environment"
    summary = f"{done} decisions in {elapsed:.0f} s: {done / max(elapsed, 1e-9):,.0f} decisions/s end to end, {shares}"
    stop.at_once = True
    table = final_evaluation(run / "checkpoint.pt", trainer.rules, trainer.config)
    write_atomically(run / "summary.md", summary + "\n\n" + table + "\n")  # last: the run's mark of completion
    print(summary)
    print(table)
    print(what_next(run / "checkpoint.pt"))
    writer.close()
    return run


def what_next(checkpoint: Path) -> str:
    """The line a finished run ends with: how to measure its network further."""
    spec = f"ppo:{checkpoint}"
    return (f"next: against the shipped agent, briscola evaluate {spec} ppo:best heuristic --deals 300; "
            f"against a wider field, briscola field {spec}; its exploitability, briscola exploit {spec}")
