"""train.py against a hostile user (issue 13, faults 2.1, 2.2, 2.3, 2.6, 2.8, 2.10; issue 14, item 4):
signals, shared or reused run folders, overrides on resume, bad values, wrong files."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from filelock import FileLock, Timeout
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.compat.proto.event_pb2 import SessionLog
from tensorboard.util.tensor_util import make_ndarray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from agents.belief import BeliefNet, save_belief  # noqa: E402
from agents.ppo import export_policy  # noqa: E402
from briscola_env import records  # noqa: E402

pytestmark = pytest.mark.slow  # training runs, signals and resumes in subprocesses

TINY = str(ROOT / "configs" / "tiny.yaml")
# 48 updates of 256 decisions, one thread (so that separate processes compute bit for bit alike)
SIGNALLED = ["--config", TINY, "total_decisions=12288", "eval_every=8", "checkpoint_every=8", "torch_threads=1"]


@pytest.fixture(autouse=True)
def one_torch_thread():
    """The runs in this process on one thread, as SIGNALLED's: for networks this small it is the
    fastest, and on a busy machine PyTorch's default threads spin against the other work (a tiny run
    took 40 s instead of 0.5 s on two loaded cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def weights(run: Path) -> dict:
    return torch.load(run / "checkpoint.pt", weights_only=True)["model"]


def trainer_counts(run: Path) -> tuple:
    trainer = torch.load(run / "checkpoint.pt", weights_only=True)["trainer"]
    return trainer["update"], trainer["decisions"]


def events(run: Path):
    """The run's TensorBoard events, file by file in the order the files were begun."""
    files = [list(EventFileLoader(str(path)).Load()) for path in run.glob("events.out.tfevents.*")]
    for file in sorted(files, key=lambda found: found[0].wall_time if found else 0):
        yield from file


def timeless_scalars(event) -> list:
    """The scalars of one event but the timing (charts/SPS), as (tag, step, value)."""
    return [(value.tag, event.step, make_ndarray(value.tensor).item() if value.HasField("tensor")
             else value.simple_value) for value in event.summary.value if value.tag != "charts/SPS"]


def logged(run: Path) -> list:
    """Every scalar written to the run's event files, whether TensorBoard shows it or not."""
    return [scalar for event in events(run) for scalar in timeless_scalars(event)]


def scalars(run: Path) -> list:
    """The run's scalars but the timing, as TensorBoard shows them: a purge (a SessionLog START at
    step s, which SummaryWriter(purge_step=s) writes first in its file) drops every scalar written
    before it at step s or later."""
    found = []
    for event in events(run):
        if event.HasField("session_log") and event.session_log.status == SessionLog.START:
            found = [scalar for scalar in found if scalar[1] < event.step]
        found.extend(timeless_scalars(event))
    return sorted(found)


def fails(argv, capsys) -> str:
    """train.main(argv) must stop with a usage error; what it printed on stderr."""
    capsys.readouterr()  # what came before
    with pytest.raises(SystemExit) as stopped:
        train.main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err


STALL_LIMIT = 300  # seconds without a new update before a trainer counts as hung
FINISH_LIMIT = 900  # seconds for the rest of a run, start-up included, on a loaded machine


class Trainer:
    """train.py in a subprocess, its stderr gathered as it comes (tqdm writes no newlines). Its
    progress bar is drawn after every update (tqdm takes its defaults from TQDM_* variables), so
    :meth:`wait_for_update` knows how far training got, whatever the machine's speed. ``own_session``: in a
    session of its own (the processes it starts too, which a signal to its group then reaches)."""

    PROGRESS = re.compile(rb"\| (\d+)/48 \[")  # the bar's "n/total [": updates done of SIGNALLED's 48

    def __init__(self, args, own_session: bool = False):
        every_update = {**os.environ, "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"}
        self.process = subprocess.Popen([sys.executable, "train.py", *args], cwd=ROOT, env=every_update,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=own_session)
        self.err = b""
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self) -> None:
        while chunk := self.process.stderr.read1(4096):
            self.err += chunk

    def updates_done(self) -> int:
        return max(map(int, self.PROGRESS.findall(self.err)), default=0)

    def wait_for_update(self, update: int) -> None:
        """Until the bar says ``update`` updates are done (the next one has begun). Only a trainer that
        stops making progress fails the wait: one that shows no new update for STALL_LIMIT seconds
        (an update of this run takes well under a second alone, and any machine's speed is allowed)."""
        seen, last_progress = self.updates_done(), time.monotonic()
        while self.updates_done() < update:
            if self.updates_done() != seen:
                seen, last_progress = self.updates_done(), time.monotonic()
            assert self.process.poll() is None and time.monotonic() - last_progress < STALL_LIMIT, \
                self.err.decode()[-2000:]
            time.sleep(0.005)

    def finish(self) -> tuple[int, str]:
        code = self.process.wait(timeout=FINISH_LIMIT)
        self.reader.join()
        return code, self.err.decode()


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    """SIGNALLED run through without a stop: what every interrupted and resumed run must equal."""
    runs = tmp_path_factory.mktemp("uninterrupted")
    code, err = Trainer([*SIGNALLED, f"run_dir={runs}"]).finish()
    assert code == 0, err[-2000:]
    return runs / "tiny-1"


def assert_same_run(split: Path, whole: Path) -> None:
    """Scalar for scalar (but the timing) and weight for weight."""
    assert trainer_counts(split) == trainer_counts(whole) == (48, 12288)
    assert scalars(split) == scalars(whole)
    whole_weights = weights(whole)
    assert all(torch.equal(whole_weights[k], v) for k, v in weights(split).items())


def test_sigint_or_sigterm_at_any_moment_then_resume_equals_the_uninterrupted_run(tmp_path, uninterrupted):
    split = tmp_path / "tiny-1"
    rng = np.random.default_rng(13)
    update = 0
    for k, signum in enumerate((signal.SIGINT, signal.SIGINT, signal.SIGTERM)):
        trainer = Trainer([*SIGNALLED, f"run_dir={tmp_path}"] if k == 0 else ["--resume", str(split)])
        # A seeded progress point, 1-10 updates past where this process began, then a seeded moment
        # into the next update (mid-rollout or mid-update): at most 33 of 48, so always within training.
        target = update + int(rng.integers(1, 11))
        trainer.wait_for_update(target)
        if k == 0:  # the trainer holds its folder's lock while it runs
            with pytest.raises(Timeout):
                FileLock(split / "train.lock").acquire(timeout=0)
        time.sleep(rng.uniform(0, 0.02))
        trainer.process.send_signal(signum)
        code, err = trainer.finish()
        # One line, its exit status, no traceback; stopped at the boundary of an update of the training.
        assert code == 128 + signum and "Traceback" not in err, err[-2000:]
        stopped = re.fullmatch(rf"{signal.Signals(signum).name}: stopped after update (\d+) of 48, checkpointed; "
                               rf"continue: python train.py --resume {re.escape(str(split))}",
                               err.rstrip().splitlines()[-1])
        assert stopped, err[-2000:]
        update = int(stopped[1])
        assert target <= update < 48 and trainer_counts(split) == (update, 256 * update)
    code, err = Trainer(["--resume", str(split)]).finish()
    assert code == 0, err[-2000:]
    assert_same_run(split, uninterrupted)


def test_kill_9_at_a_seeded_moment_then_resume_equals_the_uninterrupted_run(tmp_path, uninterrupted):
    """SIGKILL loses the work since the last checkpoint (every 5 updates here), scalars it had logged
    included: the resumed run does that work again and its scalars replace them."""
    split = tmp_path / "tiny-1"
    rng = np.random.default_rng(9)
    resumed_from, logged_past_checkpoint = 0, []
    for k in range(3):
        trainer = Trainer([*SIGNALLED, f"run_dir={tmp_path}", "checkpoint_every=5"] if k == 0
                          else ["--resume", str(split)])
        # A seeded progress point 0-4 updates past the next checkpoint (at most 29 of 48; with this
        # seed 7, 14 and 18: the last loses an evaluation), then a seeded moment into the next update.
        target = resumed_from + 5 + int(rng.integers(0, 5))
        trainer.wait_for_update(target)
        time.sleep(rng.uniform(0, 0.02))
        trainer.process.kill()
        code, err = trainer.finish()
        assert code == -signal.SIGKILL, err[-2000:]
        update, decisions = trainer_counts(split)  # killed within training, after a new checkpoint
        assert resumed_from < update and update % 5 == 0 and decisions == 256 * update
        assert trainer.updates_done() < 48
        logged_past_checkpoint.append(max(step for _, step, _ in logged(split)) > decisions)
        resumed_from = update
    assert any(logged_past_checkpoint)  # the test does check that lost scalars are not shown twice
    code, err = Trainer(["--resume", str(split)]).finish()
    assert code == 0, err[-2000:]
    assert_same_run(split, uninterrupted)


def test_a_second_run_into_an_existing_run_folder_is_refused_unless_overwrite(tmp_path, capsys):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    before = {path.name: path.read_bytes() for path in run.iterdir()}
    assert "already holds a run" in fails(["--config", TINY, f"run_dir={tmp_path}", "seed=1"], capsys)
    assert {path.name: path.read_bytes() for path in run.iterdir()} == before  # not a byte changed
    train.main(["--config", TINY, f"run_dir={tmp_path}", "overwrite=true", "num_steps=8"])
    assert len(list(run.glob("events.out.tfevents.*"))) == 1  # the first run's logs went with it
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["num_steps"] == 8 and "overwrite" not in saved and "stop_after" not in saved


def test_two_trainers_never_share_a_run_folder(tmp_path, capsys):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    with FileLock(run / "train.lock"):  # another trainer holding the folder
        assert "in use by another train.py" in fails(["--resume", str(run)], capsys)
        assert trainer_counts(run) == (2, 512)
    train.main(["--resume", str(run)])  # free again
    assert trainer_counts(run) == (8, 2048)


@pytest.mark.parametrize("override", ["rules=points_only", "seed=3", "hidden_sizes=[8]", "num_envs=4",
                                      "belief_coef=0.5", "learning_rate=0.1", "run_dir=elsewhere",
                                      "overwrite=true"])
def test_resume_refuses_overrides_that_change_the_run(tmp_path, capsys, override):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    message = fails(["--resume", str(run), override], capsys)
    assert f"--resume cannot change '{override.split('=')[0]}'" in message and "total_decisions" in message
    assert trainer_counts(run) == (2, 512)


def test_resume_overrides_cadence_and_hardware_without_changing_the_run(tmp_path):
    """The allowed overrides keep the run the same, and config.yaml keeps them for the next resume."""
    train.main(["--config", TINY, f"run_dir={tmp_path / 'whole'}", "total_decisions=3072"])
    train.main(["--config", TINY, f"run_dir={tmp_path / 'split'}", "total_decisions=3072", "stop_after=3"])
    split = tmp_path / "split" / "tiny-1"
    train.main(["--resume", str(split), "total_decisions=3072", "eval_every=1", "eval_deals=2",
                "checkpoint_every=1", "final_eval_deals=2", "device=cpu", "torch_threads=0", "stop_after=2"])
    assert trainer_counts(split) == (5, 1280)
    train.main(["--resume", str(split)])
    assert yaml.safe_load((split / "config.yaml").read_text())["eval_every"] == 1
    whole = weights(tmp_path / "whole" / "tiny-1")
    assert trainer_counts(split) == (12, 3072)
    assert all(torch.equal(whole[k], v) for k, v in weights(split).items())


@pytest.mark.parametrize("overrides, message", [
    (["num_steps=0"], "'num_steps' must be >= 1; got 0"),
    (["update_epochs=0"], "'update_epochs' must be >= 1"),
    (["checkpoint_every=0"], "'checkpoint_every' must be >= 1"),
    (["eval_every=0"], "'eval_every' must be >= 1"),
    (["snapshot_every=0"], "'snapshot_every' must be >= 1"),
    (["pool_size=0"], "'pool_size' must be >= 1"),
    (["opponent_share=5"], r"'opponent_share' must be in \[0, 1\]; got 5.0"),
    (["stop_after=-1"], "'stop_after' must be >= 0"),
    (["learning_rate=0"], "'learning_rate' must be > 0"),
    (["gamma=.nan"], r"'gamma' must be in \[0, 1\]; got nan"),
    (["max_grad_norm=.inf"], "'max_grad_norm' must be > 0; got inf"),
    (["seed=-1"], "'seed' must be in"),
    (["reward=money"], "'reward' must be one of payoff, points, win_loss"),
    (["device=tpu"], "'device' must be one of auto, cpu, cuda"),
    (["exp_name=../escape"], "'exp_name' must be a plain folder name"),
    (["hidden_sizes=[32,"], "override 'hidden_sizes=\\[32,': not valid YAML at line 1"),
])
def test_training_values_are_checked_before_any_run_folder_is_made(tmp_path, capsys, overrides, message):
    runs = tmp_path / "runs"
    err = fails(["--config", TINY, f"run_dir={runs}", *overrides], capsys)
    assert err.count("\n") == 2 and "Traceback" not in err  # usage line, error line
    assert re.search(message, err), err
    assert not runs.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ["", "num_envs: [16\n", "- a list\n"], ids=["empty", "syntax_error", "a_list"])
def test_resume_of_a_malformed_or_empty_config_yaml_is_one_error_naming_the_file(tmp_path, capsys, text):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    (run / "config.yaml").write_text(text)
    err = fails(["--resume", str(run)], capsys)
    assert err.count("\n") == 2 and f"error: {run / 'config.yaml'}: " in err, err


def test_resuming_a_finished_run_with_record_games_keeps_one_complete_set_of_records(tmp_path, capsys):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "record_games=true"])
    run = tmp_path / "tiny-1"
    games, summary = (run / "games.jsonl").read_bytes(), (run / "summary.md").read_bytes()
    capsys.readouterr()
    train.main(["--resume", str(run)])
    train.main(["--resume", str(run)])
    assert len(list(records.read(run / "games.jsonl"))) == 2 * 12 * 4  # as in a run that was never resumed
    assert (run / "games.jsonl").read_bytes() == games and (run / "summary.md").read_bytes() == summary
    assert "already finished" in capsys.readouterr().err and not list(run.glob("*.tmp"))


def write_exported(run: Path, path: Path) -> None:
    export_policy(run / "checkpoint.pt", path)


def write_belief(run: Path, path: Path) -> None:
    save_belief(path, BeliefNet([8]))


def write_junk(run: Path, path: Path) -> None:
    path.write_text("not a checkpoint at all")


@pytest.mark.parametrize("write, named", [
    (write_exported, "is an exported policy network"),
    (write_belief, "is a belief model"),
    (write_junk, "is not a (readable )?checkpoint"),
], ids=["exported_network", "belief_model", "junk"])
def test_resume_names_a_belief_model_or_an_exported_network_given_for_a_training_checkpoint(
        tmp_path, capsys, write, named):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run, given = tmp_path / "tiny-1", tmp_path / "given.pt"
    write(run, given)
    assert re.search(f"error: {given} {named}", fails(["--resume", str(given)], capsys))  # as the run folder
    original = (run / "checkpoint.pt").read_bytes()
    (run / "checkpoint.pt").write_bytes(given.read_bytes())  # or found in the run folder
    assert re.search(f"error: {run / 'checkpoint.pt'} {named}", fails(["--resume", str(run)], capsys))
    (run / "checkpoint.pt").write_bytes(original)
    train.main(["--resume", str(run)])
    assert trainer_counts(run) == (8, 2048)
