"""benchmarks/secret_partner.py on tiny runs: every figure per arm and seed, the paired differences against control
(zero for an arm that is the control's config), the saved parts reused by a rerun with the same settings and
refused by one with others, summarised alone with --aggregate-only, unfinished runs and missing parts refused."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from benchmarks import secret_partner  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")
SMALL = ["--belief-games", "60", "--games", "40", "--deals", "4", "--seed", "5"]


@pytest.mark.slow
def test_the_ablation_measurement_on_tiny_runs(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    arms = {"sp_control": [], "sp_same": [], "sp_inference": ["belief_coef=0.5"]}
    for arm, extra in arms.items():
        for seed in (1, 2):
            train.main(["--config", TINY, f"exp_name={arm}", f"seed={seed}", f"run_dir={runs}",
                        "final_eval_deals=2", "adversary_views=1024", *extra])
    argv = ["--runs", str(runs), "--arms", ",".join(arms), "--seeds", "1,2", "--out", str(tmp_path / "out"), *SMALL]
    secret_partner.main(argv)
    summary = json.loads((tmp_path / "out" / "results.json").read_text())["summary"]
    same = summary["sp_same"]
    assert same["defender_accuracy_tricks_1_4_minus_control"]["per_seed"] == [0.0, 0.0]
    assert same["edge_over_control"]["per_seed"] == [0.0, 0.0]  # the same network: edge zero on every deal
    inference = summary["sp_inference"]
    for figure in ("defender_accuracy_tricks_1_4", "edge_over_heuristic", "defender_payoff", "edge_over_control"):
        low, high = inference[figure]["mean_ci"][1]
        assert low <= inference[figure]["mean_ci"][0] <= high and len(inference[figure]["per_seed"]) == 2
    assert 0 <= inference["defender_accuracy_tricks_1_4"]["mean_ci"][0] <= 1
    assert (tmp_path / "out" / "results.md").read_text().count("\n| sp_") == 3

    def measured_again(*args):
        raise AssertionError("a saved part was measured again")

    monkeypatch.setattr(secret_partner, "measure_part", measured_again)
    secret_partner.main(argv)  # every part saved: nothing played
    first = json.loads((tmp_path / "out" / "results.json").read_text())["summary"]
    secret_partner.main(["--aggregate-only", *argv[2:]])  # no runs: the saved parts alone
    assert json.loads((tmp_path / "out" / "results.json").read_text())["summary"] == first
    with pytest.raises(SystemExit, match="was measured with"):  # saved parts of other settings are not mixed in
        secret_partner.main([*argv, "--deals", "6"])


def test_a_missing_run_is_refused_before_anything_is_measured(tmp_path):
    with pytest.raises(FileNotFoundError, match="no finished run of arm sp_control, seed 1"):
        secret_partner.main(["--runs", str(tmp_path), "--seeds", "1", "--out", str(tmp_path / "out"), *SMALL])
    assert not (tmp_path / "out").exists()


def test_aggregating_refuses_missing_parts_and_measuring_needs_the_runs(tmp_path, capsys):
    with pytest.raises(SystemExit):
        secret_partner.main(["--aggregate-only", "--seeds", "1", "--out", str(tmp_path / "out")])
    assert "no saved part in" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        secret_partner.main(["--seeds", "1", "--out", str(tmp_path / "out")])
    assert "--runs is required, unless --aggregate-only" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_behind_an_auction_every_network_is_measured_as_the_card_play_of_a_hybrid(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    for arm in ("sp_control", "sp_same"):
        train.main(["--config", TINY, f"exp_name={arm}", "seed=1", f"run_dir={runs}", "final_eval_deals=2",
                    "adversary_views=1024"])
    argv = ["--runs", str(runs), "--arms", "sp_control,sp_same", "--seeds", "1", "--out", str(tmp_path / "out"),
            *SMALL]
    measured = []
    real_agent = secret_partner.make_agent

    def recorded_agent(spec, **options):
        measured.append(spec)
        return real_agent(spec, **options)

    monkeypatch.setattr(secret_partner, "make_agent", recorded_agent)
    secret_partner.main([*argv, "--auction", "heuristic:bid=1"])
    parts = json.loads((tmp_path / "out" / "results.json").read_text())["parts"]
    control = f"ppo:{runs / 'sp_control-1' / 'checkpoint.pt'}"
    assert parts[0]["network"] == f"hybrid:auction=[heuristic:bid=1],play=[{control}]"
    assert parts[0]["measured_with"]["auction"] == "heuristic:bid=1"
    assert f"hybrid:auction=[heuristic:bid=1],play=[{control}]" in measured  # the control behind it too
    assert not any(spec.startswith("ppo:") for spec in measured)  # no network measured on its own
    with pytest.raises(SystemExit, match="was measured with"):  # nor mixed with parts measured without it
        secret_partner.main(argv)


def test_a_bad_auction_is_refused_before_anything_is_measured(tmp_path, capsys):
    runs = tmp_path / "runs"
    for arm in ("sp_control", "sp_same"):
        (runs / f"{arm}-1").mkdir(parents=True)
        (runs / f"{arm}-1" / "summary.md").write_text("")
    with pytest.raises(SystemExit):
        secret_partner.main(["--runs", str(runs), "--arms", "sp_control,sp_same", "--seeds", "1",
                             "--auction", "ppo:nowhere.pt", "--out", str(tmp_path / "out"), *SMALL])
    assert "--auction: agent spec 'ppo:nowhere.pt': no checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
