"""Training on Ray rollout workers (config key workers): the games cut into shares, each worker seeded apart;
the same seed and workers give the same scalars and weights, run after run; a stop, a dead worker, Ctrl-C or
a killed trainer, then --resume, give the uninterrupted run. Sweeps on Ray: a seed's task that dies once is
retried and resumes its run, with the same report; a seed's task asks for a GPU when its device needs one.
The slow tests share one local Ray of 2 CPUs (and one GPU that Ray is told of, which no task can use), whose
signal handlers are put back after; the killed trainers run in processes of their own, with a Ray of their own."""

import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from evaluation.parallel import cluster_gpus, run_pieces  # noqa: E402
from training import sweep  # noqa: E402
from training.config import PER_PROCESS, config_values, load_config, resume_config  # noqa: E402
from training.rollout_workers import worker_seed, worker_shares  # noqa: E402
from training.run_folder import RunError  # noqa: E402
from test_train_faults import Trainer as TrainerProcess, scalars, trainer_counts, weights  # noqa: E402
from test_train_faults import one_torch_thread  # noqa: E402, F401 (autouse: the runs here on one thread)

TINY = str(ROOT / "configs" / "tiny.yaml")
# Rollout workers with every part of a worker's state in play: the belief head and the concealment reward,
# the privileged critic, a noisy opponent and a league (random numbers drawn by fixed agents), snapshots,
# and a rolling exploiter after update 3.
EVERYTHING = ["--config", TINY, "workers=2", "torch_threads=1", "belief_coef=0.5", "concealment_coef=0.5",
              "privileged_critic=true", "opponent=heuristic:noise=0.5", "league=[random]", "opponent_share=0.8",
              "exploiter_every=3", "exploiter_decisions=512"]
# 48 updates of 256 decisions on 2 workers, checkpointed every 5 (as test_train_faults' kill -9 test)
LONG = ["--config", TINY, "workers=2", "total_decisions=12288", "eval_every=8", "checkpoint_every=5",
        "torch_threads=1"]


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray of 2 CPUs for the module (train.py and sweeps use a Ray already up as it is), told of one
    GPU; the signal handlers ray.init replaces, and RAY_ADDRESS, put back after."""
    import ray

    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    address = os.environ.pop("RAY_ADDRESS", None)  # a local Ray here, even on a machine of a cluster
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()
    for signum, handler in handlers.items():
        signal.signal(signum, handler)
    if address is not None:
        os.environ["RAY_ADDRESS"] = address


def same_run(one: Path, other: Path) -> None:
    """Scalar for scalar (but the timing; a tag naming a file in the run folder, by its place there) and weight
    for weight."""
    def tagged(run: Path) -> list:
        return [(tag.replace(str(run), "RUN"), step, value) for tag, step, value in scalars(run)]

    assert trainer_counts(one) == trainer_counts(other)
    assert tagged(one) == tagged(other)
    theirs = weights(other)
    assert all(torch.equal(theirs[key], value) for key, value in weights(one).items())


# ----------------------------------------------------------------------------- shares and seeds
def test_the_games_are_cut_into_shares_and_each_worker_has_streams_of_its_own():
    assert worker_shares(16, 2) == [8, 8] and worker_shares(16, 3) == [6, 5, 5] and worker_shares(5, 5) == [1] * 5
    seeds = [worker_seed(1, index) for index in range(4)] + [worker_seed(2, 0)]
    assert len(set(seeds)) == 5 and worker_seed(1, 0) == worker_seed(1, 0)


def test_workers_are_checked_and_are_part_of_the_run(tmp_path):
    with pytest.raises(ValueError, match="'workers' must be at most num_envs \\(16\\)"):
        load_config(TINY, ["workers=17"])
    with pytest.raises(ValueError, match="'workers' must be >= 0"):
        load_config(TINY, ["workers=-1"])
    config = load_config(TINY, ["workers=2"])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {key: value for key, value in config_values(config).items() if key not in PER_PROCESS}))
    assert resume_config(tmp_path, []).workers == 2
    with pytest.raises(ValueError, match="--resume cannot change 'workers'"):
        resume_config(tmp_path, ["workers=1"])


# ----------------------------------------------------------------------------- the same run, again and resumed
@pytest.mark.slow
def test_the_same_seed_and_workers_give_the_same_run_and_a_stop_then_resume_continues_it(tmp_path, local_ray):
    for name, extra in (("one", []), ("two", []), ("split", ["stop_after=4"])):
        train.main([*EVERYTHING, f"run_dir={tmp_path / name}", *extra])
    stopped = tmp_path / "split" / "tiny-1"
    assert trainer_counts(stopped) == (4, 1024)
    train.main(["--resume", str(stopped)])
    same_run(tmp_path / "one" / "tiny-1", tmp_path / "two" / "tiny-1")
    same_run(tmp_path / "one" / "tiny-1", stopped)
    saved = torch.load(stopped / "checkpoint.pt", weights_only=True)["trainer"]
    assert len(saved["workers"]) == 2 and "env" not in saved  # each worker's games, none of the learner's
    assert saved["exploiters"] == [3, 6]  # one trained before the stop, one after the resume
    train.main(["--config", TINY, "torch_threads=1", f"run_dir={tmp_path / 'alone'}"])  # workers=0: other games
    alone = weights(tmp_path / "alone" / "tiny-1")
    assert not all(torch.equal(alone[key], value) for key, value in weights(tmp_path / "one" / "tiny-1").items())


# ----------------------------------------------------------------------------- a dead worker, a killed trainer
def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if stat:  # pid (name) state ppid ...
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


class TrainProcess(TrainerProcess):
    """train.py in a session of its own, with a Ray of its own: what is left of that Ray once train.py dies is
    ended with it."""

    def __init__(self, args: list[str]):
        super().__init__(args, own_session=True)

    def rollout_workers(self) -> list[int]:
        return [pid for pid in descendants(self.process.pid) if command_line(pid).startswith("ray::RolloutWorker")]

    def finish(self) -> tuple[int, str]:
        code, err = super().finish()
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # Ray's agents, which outlive a killed train.py a while
        except ProcessLookupError:
            pass
        return code, err


@pytest.mark.slow
def test_a_dead_worker_ctrl_c_or_a_killed_trainer_then_resume_equals_the_uninterrupted_run(tmp_path, local_ray):
    train.main([*LONG, f"run_dir={tmp_path / 'whole'}"])
    split = tmp_path / "split" / "tiny-1"
    rng = np.random.default_rng(4)

    # A worker killed mid-update: train.py stops with a line saying how to go on; the checkpoint of update 5 stays.
    trainer = TrainProcess([*LONG, f"run_dir={tmp_path / 'split'}"])
    trainer.wait_for_update(7)
    workers = trainer.rollout_workers()
    assert len(workers) == 2, workers
    time.sleep(rng.uniform(0, 0.02))
    os.kill(workers[int(rng.integers(2))], signal.SIGKILL)
    code, err = trainer.finish()
    assert code == 1, err[-2000:]
    assert re.search(rf"WorkerLost: rollout worker \d of 2 died during update \d+ \(\w+\); the run's last checkpoint "
                     rf"resumes it: python train.py --resume {re.escape(str(split))}", err), err[-2000:]
    assert trainer_counts(split) == (5, 1280)

    # Ctrl-C (SIGINT to the whole process group, Ray's processes included) mid-update: a stop at the update's end.
    trainer = TrainProcess(["--resume", str(split)])
    trainer.wait_for_update(8 + int(rng.integers(0, 3)))
    time.sleep(rng.uniform(0, 0.02))
    os.killpg(trainer.process.pid, signal.SIGINT)
    code, err = trainer.finish()
    assert code == 128 + signal.SIGINT and "Traceback" not in err, err[-2000:]
    stopped = re.fullmatch(rf"SIGINT: stopped after update (\d+) of 48, checkpointed; continue: python train.py "
                           rf"--resume {re.escape(str(split))}", err.rstrip().splitlines()[-1])
    assert stopped, err[-2000:]
    update = int(stopped[1])
    assert trainer_counts(split) == (update, 256 * update)

    # The trainer killed mid-update (kill -9), its Ray with it: the work since the last checkpoint is lost.
    trainer = TrainProcess(["--resume", str(split)])
    trainer.wait_for_update(16 + int(rng.integers(0, 3)))
    time.sleep(rng.uniform(0, 0.02))
    trainer.process.kill()
    code, err = trainer.finish()
    assert code == -signal.SIGKILL, err[-2000:]
    assert trainer_counts(split) == (15, 3840)

    code, err = TrainProcess(["--resume", str(split)]).finish()
    assert code == 0, err[-2000:]
    same_run(split, tmp_path / "whole" / "tiny-1")


# ----------------------------------------------------------------------------- sweeps on Ray
SWEEP = ["--config", TINY, "--seeds", "1,2", "--eval-deals", "3", "eval_every=8", "torch_threads=1"]


def killed_once(piece):
    """A sweep's seed task whose first try, anywhere in the sweep, dies (kill -9) at its run's first checkpoint
    (update 4 of 8); a marker file in run_dir says which seed it was."""
    import training.run

    run, _ = piece
    marker = Path(run.config.run_dir) / "killed-once"
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(f"{run.config.seed}\n")
        save = training.run.save_training_checkpoint

        def save_then_die(folder, trainer, writer):
            save(folder, trainer, writer)
            if trainer.update >= 4:
                os.kill(os.getpid(), signal.SIGKILL)

        training.run.save_training_checkpoint = save_then_die
    return sweep.trained_and_scored(piece)


def gpu_ids(piece: int) -> list:
    import ray

    return list(ray.get_gpu_ids())


# Ray's workers import a task's function by its module, and this test module is not importable there.
from ray import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.mark.slow
def test_a_sweeps_task_killed_once_is_retried_and_resumes_its_run_with_the_same_report(tmp_path, local_ray,
                                                                                         monkeypatch, capsys):
    train.main([*SWEEP, f"run_dir={tmp_path / 'calm'}"])
    monkeypatch.setattr(sweep, "trained_and_scored", killed_once)
    train.main([*SWEEP, "--workers", "1", f"run_dir={tmp_path / 'killed'}"])
    seed = int((tmp_path / "killed" / "killed-once").read_text())
    calm, killed = (json.loads((tmp_path / name / "tiny-sweep.json").read_text()) for name in ("calm", "killed"))
    assert killed["per_seed"] == calm["per_seed"] and killed["aggregate"] == calm["aggregate"]
    same_run(tmp_path / "killed" / f"tiny-{seed}", tmp_path / "calm" / f"tiny-{seed}")
    # resumed in its folder (the first try's events kept), not started afresh
    assert len(list((tmp_path / "killed" / f"tiny-{seed}").glob("events.out.tfevents.*"))) == 2


@pytest.mark.slow
def test_a_seed_that_finds_its_first_tries_run_resumes_it(tmp_path):
    """What a retried task finds: the seed planned as new, its folder holding a stopped run (or a run stopped
    before its first checkpoint: then started afresh)."""
    config = load_config(TINY, [f"run_dir={tmp_path}", "torch_threads=1", "seed=3"])
    planned = sweep.seed_run(config)
    assert planned.state == "new"
    train.main(["--config", TINY, f"run_dir={tmp_path}", "torch_threads=1", "seed=3", "stop_after=2"])
    assert sweep.as_found_now(planned).state == "unfinished"
    (planned.folder / "checkpoint.pt").unlink()  # as if it died before its first checkpoint
    afresh = sweep.as_found_now(planned)
    assert afresh.state == "new" and afresh.config.overwrite
    (planned.folder / "summary.md").write_text("done\n")
    assert sweep.as_found_now(planned._replace(state="finished")) == planned._replace(state="finished")


def test_a_seeds_task_asks_for_a_gpu_when_its_device_needs_one():
    assert sweep.seed_task_gpus("cpu", 4) == 0
    assert sweep.seed_task_gpus("auto", 0) == 0 and sweep.seed_task_gpus("auto", 2) == 1
    assert sweep.seed_task_gpus("cuda", 1) == 1
    with pytest.raises(RunError, match="'device' is 'cuda', but the Ray the seeds would run on has no GPU"):
        sweep.seed_task_gpus("cuda", 0)


@pytest.mark.slow
def test_a_seeds_task_gets_the_gpu_it_asks_for_and_a_cuda_sweep_without_one_is_refused(tmp_path, local_ray,
                                                                                         monkeypatch, capsys):
    assert cluster_gpus() == 1
    assert run_pieces(gpu_ids, [0], workers=1, num_gpus=1) == [[0]]
    assert run_pieces(gpu_ids, [0], workers=1) == [[]]  # Ray hides the GPU from a task that asks for none
    monkeypatch.setattr(sweep, "cluster_gpus", lambda: 0)
    with pytest.raises(SystemExit):
        train.main([*SWEEP, "--workers", "1", "device=cuda", f"run_dir={tmp_path}"])
    assert "'device' is 'cuda', but the Ray the seeds would run on has no GPU" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_sweep_on_ray_refuses_rollout_workers(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train.main([*SWEEP, "--workers", "1", "workers=2", f"run_dir={tmp_path}"])
    assert "sweep the seeds one after another (--workers 0)" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
