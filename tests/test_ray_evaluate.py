"""briscola evaluate, briscola tournament and briscola sweep as Ray tasks (--workers): the same run folder
(a sweep: the same networks and report), byte for byte, as in one process, agents that draw random
numbers included (each chunk of deals seeded from the run seed and its index, not from a generator
carried across chunks), and bad --workers refused before any folder is written. One local Ray of 2
CPUs serves the whole module."""

import json
import os
from pathlib import Path

import numpy as np
import pytest
import ray
import torch

from agents import HeuristicAgent, RandomAgent
from agents.ppo import load_checkpoint
from evaluation import evaluate_one_sided, evaluate_pair, evaluate_table
from briscola_cli.main import main
from evaluation.parallel import restore_signal_handlers, saved_signal_handlers
from evaluation.tournament import play_tournament

pytestmark = pytest.mark.slow  # a local Ray

# heuristic:noise=0.5 and random draw random numbers; the heuristic draws none.
SPECS = ["heuristic", "random", "heuristic:noise=0.5"]
RUN_FILES = ["results.json", "results.md"]


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray of 2 CPUs, started once: run_pieces uses a Ray already running as it is."""
    address = os.environ.pop("RAY_ADDRESS", None)  # a local Ray here, even on a machine of a cluster
    handlers = saved_signal_handlers()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()
    restore_signal_handlers(handlers)  # pytest stops on SIGTERM again as it did before Ray
    if address is not None:
        os.environ["RAY_ADDRESS"] = address


def run_folder(tmp_path, name: str, argv: list[str], files: list[str]) -> dict[str, bytes]:
    out = tmp_path / name
    assert main([*argv, "--out", str(out)]) == 0
    return {file: (out / file).read_bytes() for file in files}


def test_evaluate_writes_the_same_files_with_and_without_ray(tmp_path, capsys):
    argv = ["evaluate", *SPECS, "--deals", "10", "--seed", "4", "--record"]  # 3 pairs, chunks of 3 deals
    files = RUN_FILES + ["games.jsonl", "mixed_games.jsonl"]
    alone = run_folder(tmp_path, "alone", argv + ["--workers", "0"], files)
    printed_alone = capsys.readouterr().out
    on_ray = run_folder(tmp_path, "ray", argv + ["--workers", "2"], files)
    assert on_ray == alone
    assert capsys.readouterr().out == printed_alone
    assert b'"chunk": 3' in alone["results.json"]  # the cut that decides the games, recorded


def test_one_sided_evaluate_writes_the_same_files_with_and_without_ray(tmp_path):
    argv = ["evaluate", "random", "heuristic", "--deals", "9", "--one-sided", "--chunk", "2"]
    assert run_folder(tmp_path, "ray", argv + ["--workers", "2"], RUN_FILES) == \
        run_folder(tmp_path, "alone", argv, RUN_FILES)


def test_tournament_writes_the_same_files_with_and_without_ray(tmp_path):
    argv = ["tournament", *SPECS, "--deals", "12", "--seed", "2"]
    alone = run_folder(tmp_path, "alone", argv + ["--workers", "0"], RUN_FILES)
    assert run_folder(tmp_path, "ray", argv + ["--workers", "2"], RUN_FILES) == alone


def test_an_agent_that_draws_plays_the_same_games_whatever_the_workers():
    """Each chunk's agents are seeded from the chunk alone: a chunk played in a Ray worker from a fresh
    copy of the agents plays the games it plays in this process after the chunks before it."""
    def pair(workers):
        return evaluate_pair(RandomAgent(), HeuristicAgent(noise=0.5), 12, seed=3, chunk=4, workers=workers)

    alone, one, two = pair(0), pair(1), pair(2)
    for other in (one, two):
        assert other.as_dict() == alone.as_dict()
        assert np.array_equal(other.games.rewards, alone.games.rewards)
        assert all(np.array_equal(x, y) for x, y in zip(other.actions, alone.actions))
    table = evaluate_table(RandomAgent(), HeuristicAgent(noise=0.5), 12, seed=3, chunk=4)
    on_ray = evaluate_table(RandomAgent(), HeuristicAgent(noise=0.5), 12, seed=3, chunk=4, workers=2)
    assert on_ray.as_dict() == table.as_dict() and np.array_equal(on_ray.table.per_deal, table.table.per_deal)
    assert all(np.array_equal(x, y) for x, y in zip(on_ray.mixed_actions, table.mixed_actions))
    one_sided = evaluate_one_sided(RandomAgent(), HeuristicAgent(noise=0.5), 12, seed=3, chunk=4, workers=2)
    assert np.array_equal(one_sided.per_seat_a, alone.per_seat_a)  # A's side: the very games of the pair
    noisy = [play_tournament([RandomAgent(), HeuristicAgent(), HeuristicAgent(noise=0.5)], ["r", "h", "n"], 12,
                             seed=1, chunk=5, workers=workers) for workers in (0, 2)]
    assert np.array_equal(noisy[0].payoffs, noisy[1].payoffs) and noisy[0].as_dict() == noisy[1].as_dict()


@pytest.mark.parametrize("command", [["evaluate", "heuristic", "random"], ["tournament", "heuristic", "random"]])
@pytest.mark.parametrize("bad, words", [(["--workers", "-1"], "workers must be 0"),
                                        (["--workers", "two"], "invalid int value"),
                                        (["--chunk", "0"], "chunk (deals a piece of work) must be")])
def test_bad_workers_and_chunks_are_refused_before_any_folder_is_written(tmp_path, capsys, command, bad, words):
    out = tmp_path / "run"
    with pytest.raises(SystemExit):
        main([*command, "--deals", "4", *bad, "--out", str(out)])
    assert words in capsys.readouterr().err
    assert not out.exists()


def test_a_sweep_on_ray_trains_and_scores_every_seed_as_in_one_process(tmp_path):
    """``briscola sweep --workers 2``, one Ray task a seed, against the same sweep in this process: the same
    networks, bit for bit, and the same report but for the run folders' names."""
    tiny = str(Path(__file__).resolve().parent.parent / "configs" / "tiny.yaml")
    argv = [tiny, "--seeds", "1,2", "--eval-deals", "3"]
    overrides = ["eval_every=8", "torch_threads=1", "exp_name=swept"]
    assert main(["sweep", *argv, "--workers", "2", *overrides, f"run_dir={tmp_path / 'ray'}"]) == 0
    assert main(["sweep", *argv, *overrides, f"run_dir={tmp_path / 'here'}"]) == 0
    on_ray, here = (json.loads((tmp_path / where / "swept-sweep.json").read_text()) for where in ("ray", "here"))
    assert on_ray.pop("runs") == [str(tmp_path / "ray" / f"swept-{seed}") for seed in (1, 2)]
    here.pop("runs")
    assert on_ray == here
    for seed in (1, 2):
        networks = [load_checkpoint(tmp_path / where / f"swept-{seed}" / "checkpoint.pt")["model"]
                    for where in ("ray", "here")]
        assert all(torch.equal(networks[0][key], networks[1][key]) for key in networks[0])


def test_a_sweep_refuses_workers_before_any_folder_is_created(tmp_path, capsys):
    tiny = str(Path(__file__).resolve().parent.parent / "configs" / "tiny.yaml")
    with pytest.raises(SystemExit):
        main(["sweep", tiny, "--seeds", "1,2", "--workers", "-1", f"run_dir={tmp_path / 'runs'}"])
    assert "workers must be 0" in capsys.readouterr().err and not (tmp_path / "runs").exists()
