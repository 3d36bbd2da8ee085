"""Training, sweeps and exploitability audits against a careless user: a run started from a network file
resumes from its checkpoint alone, a sweep checks every seed's checkpoint before it trains, a Ray worker's
error reads as the worker's own line, and names, numbers and deal counts the user may well give are taken
or refused clearly."""

import dataclasses
import os
import re
import signal
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import yaml
from ray import cloudpickle

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from agents.ppo import PolicyValueNet, save_checkpoint  # noqa: E402
from briscola_cli.main import run_command  # noqa: E402
from briscola_cli.training_options import run_work  # noqa: E402
from briscola_env import preset  # noqa: E402
from evaluation.evaluate import evaluate  # noqa: E402
from evaluation.parallel import ray_for, run_pieces  # noqa: E402
from evaluation.report import results_markdown  # noqa: E402
from training.config import PER_PROCESS, load_config  # noqa: E402
from training.exploit import exploit_config  # noqa: E402
from training.run_folder import RunError  # noqa: E402
from support import whole_and_resumed_runs  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")
NAME_MAX = 255  # bytes of one file name on Linux's file systems


@pytest.fixture(autouse=True)
def one_torch_thread():
    """One PyTorch thread, the fastest for these tiny networks on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def a_network(path: Path, hidden: list[int], seed: int) -> Path:
    """A fresh policy network of ``hidden`` sizes written to ``path`` (a file ``init_from`` or ``ppo:`` takes)."""
    torch.manual_seed(seed)
    save_checkpoint(path, PolicyValueNet(hidden, rules=preset("standard")))
    return path


# ----------------------------------------------------------------------------- init_from and --resume
@pytest.mark.parametrize("then", ["moved", "rewritten"])
@pytest.mark.slow
def test_a_run_started_from_init_from_resumes_from_its_checkpoint_alone(tmp_path, monkeypatch, then):
    """init_from given relative to the folder the run started in; before the resume the file is moved away, or
    rewritten with a network of other sizes, and the resume runs from another folder: bit-identical anyway."""
    start = tmp_path / "start"
    a_network(start / "net.pt", [32, 32], seed=5)
    monkeypatch.chdir(start)

    def move_or_rewrite_then_leave() -> None:
        if then == "moved":
            (start / "net.pt").rename(tmp_path / "elsewhere.pt")
        else:
            a_network(start / "net.pt", [16], seed=6)
        monkeypatch.chdir(tmp_path)

    whole, split = whole_and_resumed_runs(train.main, TINY, tmp_path, 3, ["init_from=net.pt"],
                                          before_resume=move_or_rewrite_then_leave)
    assert whole["trainer"]["update"] == split["trainer"]["update"] == 8
    assert whole["model"].keys() == split["model"].keys()
    assert all(torch.equal(whole["model"][key], split["model"][key]) for key in whole["model"])


# ----------------------------------------------------------------------------- every seed's folder up front
def write_run_folder(folder: Path, config, finished: bool) -> None:
    """A run folder as train.py leaves it, its config.yaml ``config``'s, but with a checkpoint.pt no loader
    reads (and, if ``finished``, the summary.md that marks a finished run)."""
    folder.mkdir(parents=True)
    values = {key: value for key, value in dataclasses.asdict(config).items() if key not in PER_PROCESS}
    (folder / "config.yaml").write_text(yaml.safe_dump(values))
    (folder / "checkpoint.pt").write_bytes(b"not a checkpoint at all")
    if finished:
        (folder / "summary.md").write_text("done\n")


def test_a_sweep_checks_every_seeds_checkpoint_before_it_trains_one_line_each(tmp_path, capsys):
    runs = tmp_path / "runs"
    config = load_config(TINY, [f"run_dir={runs}"])
    write_run_folder(runs / "tiny-2", dataclasses.replace(config, seed=2), finished=False)
    write_run_folder(runs / "tiny-3", dataclasses.replace(config, seed=3), finished=True)
    with pytest.raises(SystemExit) as stopped:
        train.main(["--config", TINY, f"run_dir={runs}", "--seeds", "1,2,3", "--eval-deals", "2"])
    assert stopped.value.code == 2
    assert not (runs / "tiny-1").exists()  # seed 1 was not trained first
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    for seed in (2, 3):
        mine = [line for line in lines if str(runs / f"tiny-{seed}" / "checkpoint.pt") in line]
        assert len(mine) == 1, err


def test_an_exploit_refuses_its_runs_unreadable_checkpoint_in_one_line(tmp_path, capsys):
    runs = tmp_path / "runs"
    config = exploit_config(load_config(TINY, [f"run_dir={runs}"]), "random", 256, [])
    write_run_folder(runs / "exploit-random-1", config, finished=True)
    with pytest.raises(SystemExit) as stopped:
        train.main(["--config", TINY, f"run_dir={runs}", "--exploit", "random", "--decisions", "256",
                    "--eval-deals", "2"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(runs / "exploit-random-1" / "checkpoint.pt") in err
    assert len(err.strip().splitlines()[-1]) < 400 and "error:" in err.strip().splitlines()[-1]


# ----------------------------------------------------------------------------- a Ray worker's error
def refused(piece: int):
    raise RunError(f"piece {piece}: refused, and this line says why")


def broken(piece: int):
    raise ValueError(f"piece {piece}: a value the work cannot take")


def negated(piece: int) -> int:
    return -piece


# Ray's workers import a task's function by its module, and this test module is not importable there.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.mark.slow
def test_a_ray_workers_error_is_the_workers_own_one_line_message(capsys):
    command = SimpleNamespace(__doc__=None, add_arguments=lambda parser: None,  # a command whose work is refused
                              run=lambda args: run_work(lambda: run_pieces(refused, [6], workers=1)))
    with ray_for(1):
        with pytest.raises(RunError) as error:
            run_pieces(refused, [4], workers=1)
        assert str(error.value) == "piece 4: refused, and this line says why"
        with pytest.raises(ValueError) as error:
            run_pieces(broken, [5], workers=1)
        assert str(error.value) == "piece 5: a value the work cannot take"
        with pytest.raises(SystemExit):
            run_command(command, [], prog="train.py")
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == "train.py: error: piece 6: refused, and this line says why"
    assert "\x1b[" not in err and "pid=" not in err and "ray::" not in err


@pytest.mark.slow
def test_a_local_ray_leaves_the_signal_handlers_as_it_found_them():
    """ray.init installs its own SIGTERM handler in the driver and ray.shutdown leaves it: a process that
    used a local Ray would then no longer stop on SIGTERM as it did (a trainer checkpoints on it)."""
    def on_term(signum, frame):  # pragma: no cover - never delivered
        raise AssertionError("not delivered in this test")

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
        with ray_for(1):
            assert run_pieces(negated, [3], workers=1) == [-3]
        assert {signum: signal.getsignal(signum) for signum in before} == before
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------------- names, numbers, deal counts
def test_an_exp_name_too_long_for_a_folder_name_is_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        train.main(["--config", TINY, f"run_dir={tmp_path / 'runs'}", "exp_name=" + "x" * 300])
    assert stopped.value.code == 2
    assert "config key 'exp_name'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_an_exploit_of_a_long_ppo_path_gets_a_short_folder_name_of_its_own(tmp_path):
    deep = tmp_path / ("d" * 200) / ("e" * 200)
    specs = [f"ppo:{a_network(deep / name, [32, 32], seed=1)}" for name in ("one.pt", "two.pt")]
    config = load_config(TINY, [f"run_dir={tmp_path / 'runs'}"])
    names = [exploit_config(config, spec, 256, []).exp_name for spec in specs]
    assert names[0] != names[1]  # each audited agent its own folder
    assert exploit_config(config, specs[0], 256, []).exp_name == names[0]  # the same again: resumable
    for name in names:
        assert len(os.fsencode(f"{name}-{2**63 - 1}")) <= NAME_MAX and name.startswith("exploit-ppo")
        (tmp_path / "runs" / f"{name}-1").mkdir(parents=True)
    assert exploit_config(config, "heuristic", 256, []).exp_name == "exploit-heuristic"  # short names as they were


def test_float_keys_take_the_exponent_notation_yaml_reads_as_text(tmp_path):
    (tmp_path / "config.yaml").write_text("learning_rate: 3e-4\nclip_coef: 2E-1\nent_coef: 1.5e-2\n")
    config = load_config(str(tmp_path / "config.yaml"), ["vf_coef=5e-1"])
    assert (config.learning_rate, config.clip_coef, config.ent_coef, config.vf_coef) == (3e-4, 0.2, 0.015, 0.5)
    assert load_config(TINY, ["learning_rate=1e-4"]).learning_rate == 1e-4
    with pytest.raises(ValueError, match="config key 'learning_rate' must be float; got 'fast'"):
        load_config(TINY, ["learning_rate=fast"])
    with pytest.raises(ValueError, match="config key 'learning_rate' must be > 0; got -0.001"):
        load_config(TINY, ["learning_rate=-1e-3"])
    with pytest.raises(ValueError, match="config key 'num_envs' must be int"):
        load_config(TINY, ["num_envs=1e3"])


ZERO_WIDTH = re.compile(r"\(([+-]\d+\.\d+), \1\)")


@pytest.mark.parametrize("one_sided", [False, True])
def test_one_deal_says_it_gives_no_interval(one_sided):
    results, rated, _ = evaluate(["random", "heuristic"], 1, 0, "standard", None, one_sided=one_sided)
    text = results_markdown(results, rated)
    assert not ZERO_WIDTH.search(text), text
    assert "no CI: 1 deal" in text
    results, rated, _ = evaluate(["random", "heuristic"], 2, 0, "standard", None, one_sided=one_sided)
    assert "no CI" not in results_markdown(results, rated)
