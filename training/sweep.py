"""Several training seeds of one config: each seed's run in its folder (reused if finished,
resumed if not), each seed's final network measured on held-out deals, and the mean, interquartile
mean and bootstrap intervals over seeds (:mod:`evaluation.sweep`), in this process or one Ray task a
seed (:mod:`evaluation.parallel`), with the same report either way.

    python train.py --config configs/tiny.yaml --seeds 1,2,3
    briscola sweep configs/tiny.yaml --seeds 1,2,3 --workers 3
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import torch
from tqdm import tqdm

from agents import HeuristicAgent, RandomAgent
from agents.ppo import PPOAgent, load_checkpoint
from briscola_env.files import write_atomically
from evaluation import evaluate_table
from evaluation.duplicate import games_per_deal
from evaluation.parallel import cluster_gpus, ray_for, run_pieces
from evaluation.sweep import BOOTSTRAP_RESAMPLES, aggregate, seeds_table
from training.config import PER_PROCESS, RESUME_OVERRIDES, Config, config_values, make_config, read_mapping
from training.checkpoint import check_trainer_format
from training.run_folder import RunError, run_contents, run_lock
from training.run import check_checkpoint_matches, train

SWEEP_EVAL_SEED = int.from_bytes(b"sweep-eval", "big")
"""evaluate_pair's seed for a sweep's held-out deals: the same deals for every seed of a sweep (the seeds are
compared on equal deals), and for both opponents, as in the final evaluation. Like every evaluation's, they
are drawn apart from the training deals (briscola_env.seeds); keyed by this name, they are also apart from
train.py's own evaluations (seed 1 at the end, 10,000 + update during the run)."""
SWEEP_OPPONENTS = {"heuristic": HeuristicAgent, "random": lambda rules: RandomAgent()}
SWEEP_METRIC = ("table edge per hand of the seed's final network over the opponent: on every seating of the two "
                "with both at the table (evaluate_table, 30 tables a deal), the mean of (its seats' mean payoff - "
                "the opponent's), with its 95% bootstrap CI over deals")
SWEEP_BOOTSTRAP_SEED = 0


class SeedRun(NamedTuple):
    """One seed of a sweep: its config, its run folder and what the folder holds now."""
    config: Config
    folder: Path
    state: str  # "new" (no run), "unfinished" (to resume) or "finished" (summary.md: to reuse)


def seed_run(config: Config) -> SeedRun:
    """The run of ``config`` in its folder, found as train.py leaves it, or a :class:`RunError` when the
    folder holds something a sweep cannot use as that run: no checkpoint to resume, another run's config
    (any key a resume may not change, and total_decisions), a checkpoint that cannot be read as what the
    run needs (:func:`check_checkpoint`), or a run a trainer is using now."""
    folder = Path(config.run_dir) / f"{config.exp_name}-{config.seed}"
    if not run_contents(folder):
        return SeedRun(config, folder, "new")
    if not (folder / "config.yaml").is_file() or not (folder / "checkpoint.pt").is_file():
        raise RunError(f"{folder} holds files but no run to resume (no config.yaml or checkpoint.pt): "
                       "move it away, or start that seed afresh with train.py overwrite=true")
    try:
        saved = read_mapping(folder / "config.yaml")
        theirs = config_values(make_config({key: value for key, value in saved.items()
                                                 if key not in ("version", "git_commit", *PER_PROCESS)}))
    except ValueError as error:
        raise RunError(f"{folder} holds no run config this version reads: {error}") from None
    ours = config_values(config)
    differ = [key for key in ours if (key not in (*RESUME_OVERRIDES, *PER_PROCESS, "run_dir")
                                      or key == "total_decisions") and theirs[key] != ours[key]]
    if differ:
        raise RunError(f"{folder} holds another run than this sweep asks for: its config.yaml differs in "
                       + ", ".join(f"{key} ({theirs[key]!r}, not {ours[key]!r})" for key in differ)
                       + "; use another run_dir or exp_name, or sweep with that config")
    state = "finished" if (folder / "summary.md").is_file() else "unfinished"  # summary.md: written last
    check_checkpoint(config, folder, state)
    if state == "finished":
        return SeedRun(config, folder, state)
    with run_lock(folder):  # refused now, before any training, if a trainer is using the folder
        return SeedRun(config, folder, state)


def check_checkpoint(config: Config, folder: Path, state: str) -> None:
    """The checkpoint of the run of ``config`` in ``folder`` can be used as its ``state`` needs, or a one-line
    :class:`RunError` naming it: a finished run's network is read to be measured, an unfinished run's
    trainer state resumes it (as train.py's --resume checks it). Read now, not when the run's turn comes."""
    path, rules = folder / "checkpoint.pt", config.rules
    try:
        payload = load_checkpoint(path, training=state != "finished", rules=rules)
    except ValueError as error:
        raise RunError(f"{error}; move {folder} away to train that run afresh") from None
    if state != "finished":
        check_trainer_format(payload, path)
        check_checkpoint_matches(payload, config, path)


def plan_sweep(config: Config, seeds: list[int], overrides: list[str], aggregate_only: bool) -> list[SeedRun]:
    """Every seed's run, checked before anything is trained or written: a ValueError (a :class:`RunError`
    for a run folder) says what stops the sweep, a line for each seed whose folder does."""
    if any(item.partition("=")[0] == "seed" for item in overrides):
        raise ValueError("--seeds gives the seeds: a seed= override does not go with it")
    if config.stop_after or config.overwrite:
        raise ValueError("stop_after and overwrite do not go with --seeds: a sweep trains every seed to the end, "
                         "reusing finished runs and resuming unfinished ones (delete a run folder to redo it)")
    runs, refused = [], []
    for seed in seeds:
        try:
            runs.append(seed_run(dataclasses.replace(config, seed=seed)))
        except ValueError as error:  # RunError included
            refused.append(str(error))
    if len(refused) > 1:
        raise RunError(f"{len(refused)} seeds' run folders stop the sweep:\n  " + "\n  ".join(refused))
    if refused:
        raise RunError(refused[0])
    missing = [f"{run.folder} ({'no run' if run.state == 'new' else 'unfinished'})"
               for run in runs if run.state != "finished"]
    if aggregate_only and missing:
        raise RunError(f"--aggregate-only needs every seed's run finished (with its summary.md); not so: "
                       f"{', '.join(missing)}. Train them first (drop --aggregate-only)")
    return runs


def seed_score(checkpoint: Path, opponent: str, rules, deals: int,
               progress: Optional[Callable[[int], None]] = None) -> tuple[float, tuple]:
    """The score a sweep aggregates: :data:`SWEEP_METRIC` of the network in ``checkpoint`` against
    ``opponent`` (a key of :data:`SWEEP_OPPONENTS`) on the sweep's ``deals`` held-out deals, and its
    interval over deals. The one place that says what a seed scores."""
    result = evaluate_table(PPOAgent(checkpoint, seed=1, rules=rules), SWEEP_OPPONENTS[opponent](rules), deals,
                            seed=SWEEP_EVAL_SEED, rules=rules, names=(f"ppo:{checkpoint}", opponent), progress=progress)
    return result.table_edge, result.table_edge_ci


def progress_from(bar: tqdm) -> Callable[[int], None]:
    """evaluate_table's ``progress(games done)`` of one evaluation, moving ``bar`` on from where it is now."""
    before = bar.n
    return lambda done: bar.update(before + done - bar.n)


def trained_and_scored(piece: tuple[SeedRun, int]) -> dict[str, tuple[float, tuple]]:
    """One seed of a sweep, ``(its run, deals)``: the run trained, or resumed, unless finished; then its
    final network's :func:`seed_score` against every opponent of :data:`SWEEP_OPPONENTS`. The same work
    in this process as in a Ray task, so that the scores do not depend on where it ran; a task that Ray
    retries goes on from what its first try left (:func:`as_found_now`)."""
    run, deals = piece
    run = as_found_now(run)
    if run.state != "finished":
        train(run.config, run.folder if run.state == "unfinished" else None)
    if run.config.torch_threads:
        torch.set_num_threads(run.config.torch_threads)
    rules = run.config.rules
    games = len(SWEEP_OPPONENTS) * deals * games_per_deal(None, rules.table_shape.seats)
    with tqdm(total=games, desc=f"seed {run.config.seed}: evaluating", unit="game", file=sys.stderr) as bar:
        return {f"vs {opponent}": seed_score(run.folder / "checkpoint.pt", opponent, rules, deals, progress_from(bar))
                for opponent in SWEEP_OPPONENTS}


def as_found_now(run: SeedRun) -> SeedRun:
    """``run`` as its folder is when its turn comes. A seed's Ray task that Ray retries, its worker having died,
    finds what its first try left in the folder planned as new: it resumes that run from its checkpoint, reuses
    it if it finished, and starts it afresh if the first try died before its first checkpoint (the folder then
    holds nothing to keep). A folder planned as unfinished is looked at again in the same way."""
    if run.state == "finished":
        return run
    if run.state == "new" and run_contents(run.folder) and not (run.folder / "checkpoint.pt").is_file():
        return SeedRun(dataclasses.replace(run.config, overwrite=True), run.folder, "new")
    return seed_run(run.config)


def seed_task_gpus(device: str, gpus: float) -> int:
    """The GPUs a seed's Ray task asks for on a Ray of ``gpus`` GPUs, for config key 'device' ``device``: Ray
    hides the GPUs from a task that asks for none, so that 'auto' would train on CPU and 'cuda' fail. One for
    'cuda', one for 'auto' when the Ray has any, none for 'cpu'; 'cuda' on a Ray without a GPU is a
    :class:`RunError`."""
    if device == "cuda" and gpus < 1:
        raise RunError("config key 'device' is 'cuda', but the Ray the seeds would run on has no GPU: add a node "
                       "with one (ray start --num-gpus=N), or train on device=auto or cpu")
    return 1 if device != "cpu" and gpus >= 1 else 0


def on_any_worker(run: SeedRun) -> SeedRun:
    """``run`` with its folders absolute, as a Ray worker (on another node, or in another working directory)
    must find them; on a cluster, run_dir must then be on a file system every node shares."""
    run_dir = str(Path(run.config.run_dir).resolve())
    return SeedRun(dataclasses.replace(run.config, run_dir=run_dir), run.folder.resolve(), run.state)


def sweep(runs: list[SeedRun], deals: int, workers: int = 0) -> dict:
    """Train (or resume) every seed's run that is not finished, score each seed's final network against
    every opponent of :data:`SWEEP_OPPONENTS` (:func:`trained_and_scored`) and aggregate over seeds;
    writes run_dir/exp_name-sweep.md and .json, prints the table and returns what the JSON holds. With
    ``workers`` > 0 each seed is a Ray task (:func:`evaluation.parallel.run_pieces`), with a GPU when its device
    needs one (:func:`seed_task_gpus`): the same report. Rollout workers (config key 'workers') go with
    ``workers`` = 0 only: a seed's task would wait for CPUs that the other seeds' tasks hold."""
    start, config = time.time(), runs[0].config
    if workers and config.workers:
        raise RunError(f"each seed's training spreads over its own {config.workers} rollout workers (config key "
                       "'workers'): sweep the seeds one after another (--workers 0), or set workers=0")
    to_train = [run for run in runs if run.state != "finished"]
    pieces = [(on_any_worker(run) if workers else run, deals) for run in runs]
    with ray_for(workers), tqdm(total=len(runs), desc="sweep", unit="seed", file=sys.stderr) as bar:
        gpus = seed_task_gpus(config.device, cluster_gpus()) if workers else 0
        per_seed = run_pieces(trained_and_scored, pieces, workers, progress=lambda done: bar.update(done - bar.n),
                              num_gpus=gpus)
    scores = {title: [seed_scores[title] for seed_scores in per_seed] for title in per_seed[0]}
    aggregates = {title: aggregate([score for score, _ in column], seed=SWEEP_BOOTSTRAP_SEED)
                  for title, column in scores.items()}
    seeds, folders = [run.config.seed for run in runs], [str(run.folder) for run in runs]
    table = seeds_table(seeds, folders, scores, aggregates)
    report = {"exp_name": config.exp_name, "seeds": seeds, "runs": folders, "metric": SWEEP_METRIC,
              "deals": deals, "deal_seed": SWEEP_EVAL_SEED, "rules": config.rules.to_dict(),
              "per_seed": {title: [{"seed": seed, "score": score, "ci": list(ci)}
                                   for seed, (score, ci) in zip(seeds, column)] for title, column in scores.items()},
              "aggregate": {title: value.as_dict() for title, value in aggregates.items()},
              "bootstrap": {"over": "seeds", "method": "percentile, stratified (rliable)", "level": 0.95,
                            "resamples": BOOTSTRAP_RESAMPLES, "seed": SWEEP_BOOTSTRAP_SEED}}
    text = (f"# {config.exp_name}: {len(seeds)} seeds\n\nEach seed's final network on the same {deals} held-out "
            f"deals (evaluate_table, seed {SWEEP_EVAL_SEED}): {SWEEP_METRIC}. Over seeds: rliable's mean and "
            f"interquartile mean, with 95% percentile bootstrap intervals ({BOOTSTRAP_RESAMPLES:,} resamples "
            f"of the seeds, seed {SWEEP_BOOTSTRAP_SEED}).\n\n{table}\n")
    markdown, record = (Path(config.run_dir) / f"{config.exp_name}-sweep.{suffix}" for suffix in ("md", "json"))
    write_atomically(record, json.dumps(report, indent=2) + "\n")
    write_atomically(markdown, text)
    print(text)
    print(f"sweep of {len(seeds)} seeds: {len(to_train)} trained or resumed, {len(runs) - len(to_train)} reused; "
          f"{time.time() - start:.1f} s; written to {markdown} and {record}", file=sys.stderr)
    return report
