"""Multi-seed experiments (issue 17): the aggregation over seeds (evaluation.sweep) on made-up per-seed
numbers, against hand-computed values and rliable's definitions; and `train.py --seeds` on the tiny config,
end to end: it trains each seed, reuses finished runs, resumes unfinished ones, and refuses bad input before
it creates anything."""

import contextlib
import io
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from briscola_env import preset  # noqa: E402
from training import sweep  # noqa: E402
from agents import RandomAgent  # noqa: E402
from briscola_env.seeds import deal_seeds  # noqa: E402
from evaluation import evaluate_pair  # noqa: E402
from evaluation.sweep import (aggregate, aggregate_mean, bootstrap_ci, interquartile_mean,  # noqa: E402
                              seeds_table, stratified_resamples)

pytestmark = pytest.mark.slow  # sweeps of training runs

TINY = str(ROOT / "configs" / "tiny.yaml")


# ----------------------------------------------------------------------------- aggregation over seeds
@pytest.mark.parametrize("scores, expected", [
    ([1, 2, 3, 4], 2.5),  # int(0.25 * 4) = 1 off each end: the mean of 2 and 3
    ([8, 1, 7, 2, 6, 3, 5, 4], 4.5),  # 2 off each end, whatever the order: the mean of 3, 4, 5, 6
    ([1, 2, 3, 10, 100], 5.0),  # int(1.25) = 1 off each end, whole values as rliable (not 4.8, with 3/4 weights)
    ([100, 1, 10, 2, 3, 0], 4.0),  # int(1.5) = 1 off each end: the mean of 1, 2, 3, 10
    ([3.0, -1.0], 1.0),  # nothing trimmed from 2 or 3 values: the IQM is the mean
    ([0, 9, 3], 4.0),
])
def test_interquartile_mean_of_known_lists(scores, expected):
    assert interquartile_mean(scores) == pytest.approx(expected, abs=1e-12)


def test_interquartile_mean_matches_scipy_trim_mean_which_rliable_calls():
    from scipy.stats import trim_mean
    rng = np.random.default_rng(5)
    for seeds in range(2, 14):
        for tasks in (1, 3):
            scores = rng.standard_cauchy((seeds, tasks))
            assert interquartile_mean(scores) == pytest.approx(trim_mean(scores, 0.25, axis=None), rel=1e-12)


def test_the_mean_is_the_mean_of_each_tasks_mean_and_the_iqm_pools_the_tasks():
    scores = np.array([[0.0, 10.0], [1.0, 20.0], [2.0, 30.0], [100.0, 40.0]])  # (seeds, tasks)
    assert aggregate_mean(scores) == pytest.approx((25.75 + 25.0) / 2)
    assert interquartile_mean(scores) == pytest.approx((2 + 10 + 20 + 30) / 4)  # 8 values, 2 off each end
    assert aggregate_mean([1, 2, 6]) == pytest.approx(3.0)


def test_two_seeds_give_the_hand_computed_interval():
    # Resamples of (0, 1): 0 with chance 1/4, 0.5 with 1/2, 1 with 1/4; the 2.5% and 97.5% points are 0 and 1.
    assert bootstrap_ci([0.0, 1.0], "mean", seed=0) == (0.0, 1.0)
    assert bootstrap_ci([0.0, 1.0], "iqm", seed=0) == (0.0, 1.0)
    assert bootstrap_ci([2.0, 2.0, 2.0], "mean", seed=0) == (2.0, 2.0)


def test_the_bootstrap_resamples_each_tasks_seeds_within_that_task():
    scores = np.array([[0.0, 10.0], [1.0, 11.0]])
    resamples = stratified_resamples(scores, np.random.default_rng(0), 4000)
    assert resamples.shape == (4000, 2, 2)
    assert np.isin(resamples[:, :, 0], [0.0, 1.0]).all() and np.isin(resamples[:, :, 1], [10.0, 11.0]).all()
    # Each task's seeds are drawn on their own: task 1 does not just follow task 0's choice of run.
    assert {(0.0, 11.0), (1.0, 10.0)} <= set(map(tuple, resamples[:, 0, :].tolist()))
    assert np.mean(resamples[:, :, 0]) == pytest.approx(0.5, abs=0.02)


def test_the_interval_holds_the_estimate_and_narrows_with_more_seeds():
    rng = np.random.default_rng(1)
    widths = []
    for seeds in (4, 16, 64):
        scores = rng.normal(0.3, 1.0, seeds)
        result = aggregate(scores, seed=3, reps=5000)
        assert result.seeds == seeds
        assert result.mean_ci[0] <= result.mean <= result.mean_ci[1]
        assert result.iqm_ci[0] <= result.iqm <= result.iqm_ci[1]
        widths.append(result.mean_ci[1] - result.mean_ci[0])
    assert widths[0] > widths[1] > widths[2] > 0


def test_the_interval_is_determined_by_its_seed():
    scores = np.random.default_rng(2).normal(0, 1, 12)  # enough distinct resample means for the seed to show
    assert aggregate(scores, seed=7, reps=2000) == aggregate(scores, seed=7, reps=2000)
    assert aggregate(scores, seed=7, reps=2000).mean_ci != aggregate(scores, seed=8, reps=2000).mean_ci
    assert aggregate(scores, seed=7).as_dict()["iqm_ci"] == list(aggregate(scores, seed=7).iqm_ci)


@pytest.mark.parametrize("scores, message", [
    ([0.5], "at least 2 seeds; got 1"),
    ([[0.5, 0.2]], "at least 2 seeds; got 1"),
    ([], "at least 2 seeds; got 0"),
    ([0.5, float("nan")], "finite"),
    (np.zeros((2, 2, 2)), "shape"),
])
def test_aggregating_fewer_than_two_seeds_or_bad_scores_is_an_error(scores, message):
    for compute in (aggregate, interquartile_mean, aggregate_mean, lambda s: bootstrap_ci(s, "mean", 0)):
        with pytest.raises(ValueError, match=message):
            compute(scores)


def test_bootstrap_arguments_are_checked():
    with pytest.raises(ValueError, match="unknown statistic 'median'"):
        bootstrap_ci([1, 2], "median", 0)
    with pytest.raises(ValueError, match="reps"):
        bootstrap_ci([1, 2], "mean", 0, reps=0)
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1, 2], "mean", 0, level=1.0)


def test_seeds_table_has_a_row_per_seed_then_the_aggregates():
    scores = {"vs heuristic": [(0.25, (0.0, 0.5)), (-0.75, (-1.0, -0.5))]}
    aggregates = {"vs heuristic": aggregate([0.25, -0.75], seed=0, reps=100)}
    rows = seeds_table([3, 9], ["runs/x-3", "runs/x-9"], scores, aggregates).splitlines()
    assert rows[0] == "| seed | run | vs heuristic |"
    assert rows[2] == "| 3 | runs/x-3 | +0.250 (+0.000, +0.500) |"
    assert rows[3] == "| 9 | runs/x-9 | -0.750 (-1.000, -0.500) |"
    assert rows[4].startswith("| **mean over seeds** | (95% CI over seeds) | -0.250 (")
    assert rows[5].startswith("| **IQM over seeds** |") and len(rows) == 6
    with pytest.raises(ValueError, match="one score per seed"):
        seeds_table([3], ["runs/x-3"], scores, aggregates)


# ----------------------------------------------------------------------------- train.py --seeds
SWEEP = ["--config", TINY, "--seeds", "1,2", "--eval-deals", "3", "eval_every=8", "torch_threads=1"]


def sweep_files(run_dir: Path) -> tuple[Path, Path]:
    return run_dir / "tiny-sweep.md", run_dir / "tiny-sweep.json"


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The tiny config swept over seeds 1 and 2 in a fresh run_dir: (run_dir, what the sweep printed)."""
    run_dir = tmp_path_factory.mktemp("sweep")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        train.main([*SWEEP, f"run_dir={run_dir}"])
    return run_dir, printed.getvalue()


def test_a_sweep_trains_every_seed_and_aggregates_their_scores(swept):
    run_dir, printed = swept
    markdown, record = sweep_files(run_dir)
    report = json.loads(record.read_text())
    assert report["seeds"] == [1, 2] and report["runs"] == [str(run_dir / "tiny-1"), str(run_dir / "tiny-2")]
    assert all((run_dir / f"tiny-{seed}" / "summary.md").is_file() for seed in (1, 2))
    assert report["deals"] == 3 and report["deal_seed"] == sweep.SWEEP_EVAL_SEED
    assert set(report["per_seed"]) == {"vs heuristic", "vs random"}
    rules = preset("standard")
    for title, column in report["per_seed"].items():
        scores = [row["score"] for row in column]
        # Each seed's score is its final network's, on the sweep's deals; the aggregate is over those scores.
        for seed, score in zip((1, 2), scores):
            checkpoint = run_dir / f"tiny-{seed}" / "checkpoint.pt"
            assert sweep.seed_score(checkpoint, title.removeprefix("vs "), rules, 3)[0] == score
        assert report["aggregate"][title] == aggregate(scores, seed=sweep.SWEEP_BOOTSTRAP_SEED).as_dict()
        assert report["aggregate"][title]["mean"] == pytest.approx(np.mean(scores))
    table = markdown.read_text()
    assert "| **IQM over seeds** |" in table and f"| 2 | {run_dir / 'tiny-2'} |" in table
    assert table.strip() in printed


def test_a_second_sweep_reuses_the_finished_runs_and_gives_the_same_aggregate(swept, capsys):
    run_dir, _ = swept
    checkpoints = [run_dir / f"tiny-{seed}" / "checkpoint.pt" for seed in (1, 2)]
    before = [path.stat().st_mtime_ns for path in checkpoints]
    first = sweep_files(run_dir)[1].read_text()
    sweep_files(run_dir)[1].unlink()
    train.main([*SWEEP, f"run_dir={run_dir}"])
    assert [path.stat().st_mtime_ns for path in checkpoints] == before  # not trained again
    assert sweep_files(run_dir)[1].read_text() == first
    assert "0 trained or resumed, 2 reused" in capsys.readouterr().err
    train.main([*SWEEP, f"run_dir={run_dir}", "--aggregate-only"])
    assert sweep_files(run_dir)[1].read_text() == first


def test_aggregate_only_refuses_a_missing_or_unfinished_seed(swept, tmp_path, capsys):
    run_dir, _ = swept
    record = sweep_files(run_dir)[1]
    written = record.stat().st_mtime_ns
    with pytest.raises(SystemExit):
        train.main([*SWEEP[:2], "--seeds", "1,2,7", f"run_dir={run_dir}", "--aggregate-only"])
    assert f"{run_dir / 'tiny-7'} (no run)" in capsys.readouterr().err
    assert not (run_dir / "tiny-7").exists() and record.stat().st_mtime_ns == written
    shutil.copytree(run_dir / "tiny-1", tmp_path / "tiny-1")
    shutil.copytree(run_dir / "tiny-2", tmp_path / "tiny-2")
    (tmp_path / "tiny-2" / "summary.md").unlink()  # as if stopped before its end
    with pytest.raises(SystemExit):
        train.main([*SWEEP, f"run_dir={tmp_path}", "--aggregate-only"])
    assert f"{tmp_path / 'tiny-2'} (unfinished)" in capsys.readouterr().err
    assert not sweep_files(tmp_path)[1].exists()


def test_a_sweep_resumes_an_unfinished_run_exactly(swept, tmp_path):
    run_dir, _ = swept
    shutil.copytree(run_dir / "tiny-1", tmp_path / "tiny-1")  # finished: reused
    train.main(["--config", TINY, "seed=2", "stop_after=3", "eval_every=8", "torch_threads=1", f"run_dir={tmp_path}"])
    assert not (tmp_path / "tiny-2" / "summary.md").exists()
    first_part = list((tmp_path / "tiny-2").glob("events.out.tfevents.*"))
    train.main([*SWEEP, f"run_dir={tmp_path}"])
    assert first_part and all(path.exists() for path in first_part)  # resumed in its folder, not started afresh
    whole = torch.load(run_dir / "tiny-2" / "checkpoint.pt", weights_only=True)["model"]
    resumed = torch.load(tmp_path / "tiny-2" / "checkpoint.pt", weights_only=True)["model"]
    assert all(torch.equal(whole[key], resumed[key]) for key in whole)  # as if never stopped
    ours, theirs = (json.loads(sweep_files(folder)[1].read_text()) for folder in (tmp_path, run_dir))
    assert ours["aggregate"] == theirs["aggregate"] and ours["per_seed"] == theirs["per_seed"]


@pytest.mark.parametrize("seeds, message", [
    ("1", "at least 2 seeds"), ("1,1", "each seed once: 1 repeated"), ("1,-2", "got '-2'"), ("1,x", "got 'x'"),
    ("1,2.5", "got '2.5'"), ("1,,2", "got ''"), ("1,²", "got '²'"), (f"1,{2**63}", f"got '{2**63}'"),
])
def test_bad_seeds_are_refused_before_any_folder_is_created(tmp_path, capsys, seeds, message):
    run_dir = tmp_path / "runs"
    with pytest.raises(SystemExit) as stopped:
        train.main(["--config", TINY, "--seeds", seeds, f"run_dir={run_dir}"])
    assert stopped.value.code == 2 and message in capsys.readouterr().err
    assert not run_dir.exists()


@pytest.mark.parametrize("arguments, message", [
    (["--seeds", "1,2", "seed=3"], "a seed= override does not go with it"),
    (["--seeds", "1,2", "stop_after=2"], "stop_after and overwrite do not go with --seeds"),
    (["--seeds", "1,2", "overwrite=true"], "stop_after and overwrite do not go with --seeds"),
    (["--seeds", "1,2", "num_envs=0"], "config key 'num_envs' must be >= 1"),
    (["--seeds", "1,2", "--eval-deals", "0"], "a whole number of at least 1"),
    (["--aggregate-only"], "--aggregate-only goes with --seeds"),
    (["--eval-deals", "5"], "--eval-deals goes with --seeds or --exploit"),
])
def test_bad_sweeps_are_refused_before_any_folder_is_created(tmp_path, capsys, arguments, message):
    run_dir = tmp_path / "runs"
    with pytest.raises(SystemExit):
        train.main(["--config", TINY, *arguments, f"run_dir={run_dir}"])
    assert message in capsys.readouterr().err and not run_dir.exists()


def test_a_folder_holding_another_run_is_refused_before_any_training(swept, capsys):
    run_dir, _ = swept
    with pytest.raises(SystemExit):
        train.main([*SWEEP[:2], "--seeds", "1,2,5", "num_envs=8", f"run_dir={run_dir}"])
    error = capsys.readouterr().err
    assert f"{run_dir / 'tiny-1'} holds another run than this sweep asks for" in error
    assert "differs in num_envs (16, not 8)" in error and not (run_dir / "tiny-5").exists()


def test_the_sweeps_deals_are_held_out_from_training_and_from_train_pys_evaluations():
    def evaluation_deals(seed: int) -> np.ndarray:
        return evaluate_pair(RandomAgent(), RandomAgent(), 50, seed=seed).deal_seeds

    held_out = evaluation_deals(sweep.SWEEP_EVAL_SEED)
    others = [evaluation_deals(1), *(evaluation_deals(10_000 + update) for update in (1, 25, 100)),
              *(deal_seeds("train-env", seed, 5000) for seed in (1, 2, 3))]
    assert all(np.intersect1d(held_out, other).size == 0 for other in others)
