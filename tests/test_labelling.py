"""Search labels (briscola label) and distillation (briscola distill), then PPO from the distilled network
(init_from): the labels are the labeller's values at the deciding seat's own view, a chunk is the same
file however and whenever it is computed, a run resumes only its own plan, the targets are the search's
softmax, held-out decisions are whole deals, and the trainer starts from the distilled weights."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.base import Agent
from agents.heuristic import HeuristicAgent
from agents.ppo import load_network
from briscola_cli.main import main
from briscola_env.engine import PHASE_NAMES
from briscola_env.observation import SPEC
from briscola_env.seeds import deal_seeds
from training.config import load_config
from training.distill import DistillSettings, distill, held_out_rows, targets
from training.labelling import CHUNK_FILE, DEFAULT_SEARCH, LabelPlan, label, label_chunk, load_labels, start_labelling
from training.run import training_device
from training.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]
TINY = str(ROOT / "configs" / "tiny.yaml")


class KnownValues(Agent):
    """A labeller whose values are a known function of the view and the action: the labels can be checked
    exactly (PIMC's are random estimates)."""

    name = "known"

    def candidates(self, obs, mask):
        return np.asarray(mask, bool).copy()

    def action_values(self, obs, candidates):
        phase = SPEC.view(obs, "phase").argmax(axis=1)
        return np.where(candidates, np.arange(candidates.shape[1])[None, :] * 0.01 + phase[:, None], 0.0)

    def act(self, obs, mask):
        return self.action_values(obs, self.candidates(obs, mask)).argmax(axis=1)


KNOWN = "tests.test_labelling:KnownValues"  # importable: python -m pytest runs from the repository root
PLAN = LabelPlan(players=("heuristic", "random"), search="pimc:worlds=2", deals=6, chunk=2, share=0.3, seed=3)


def test_labels_are_the_labellers_values_at_the_deciding_seats_view(tmp_path):
    plan = LabelPlan(players=("heuristic", "random"), search=KNOWN, deals=4, chunk=2, share=0.5)
    count = label(plan, tmp_path / "labels")
    labels = load_labels(tmp_path / "labels")
    assert count == len(labels["values"]) > 20
    expected = KnownValues().action_values(labels["views"], labels["candidates"])
    assert np.array_equal(np.isnan(labels["values"]), ~labels["candidates"])
    assert np.allclose(labels["values"][labels["candidates"]], expected[labels["candidates"]])
    assert (labels["candidates"] <= labels["masks"]).all() and (labels["masks"].sum(axis=1) > 1).all()
    assert np.array_equal(SPEC.view(labels["views"], "phase").argmax(axis=1), labels["phases"])
    assert set(labels["deal_seeds"]) <= set(deal_seeds("label", plan.seed, plan.deals))
    # One payoff per game and seat: that seat's at the end of the game played.
    for seed, seat in set(zip(labels["deal_seeds"], labels["seats"])):
        rows = (labels["deal_seeds"] == seed) & (labels["seats"] == seat)
        assert len(set(labels["payoffs"][rows])) == 1


def test_a_chunk_is_the_same_file_wherever_and_whenever_it_is_computed(tmp_path):
    label(PLAN, tmp_path / "a")
    first = {index: (tmp_path / "a" / CHUNK_FILE.format(index)).read_bytes() for index in range(PLAN.chunks)}
    (tmp_path / "a" / CHUNK_FILE.format(1)).unlink()  # an interrupted run: the chunk is done again
    label(PLAN, tmp_path / "a")
    start_labelling(PLAN, tmp_path / "b")
    label_chunk((PLAN, 2, str(tmp_path / "b")))  # the last chunk alone, first
    label(PLAN, tmp_path / "b")
    for where in ("a", "b"):
        assert {index: (tmp_path / where / CHUNK_FILE.format(index)).read_bytes()
                for index in range(PLAN.chunks)} == first


def test_a_folder_of_another_plan_or_of_other_files_is_refused_with_nothing_written(tmp_path, capsys):
    label(PLAN, tmp_path / "labels")
    before = sorted(path.name for path in (tmp_path / "labels").iterdir())
    with pytest.raises(ValueError, match=r"another plan: it differs in share \(0.3, not 0.5\)"):
        label(LabelPlan(**{**PLAN.__dict__, "share": 0.5}), tmp_path / "labels")
    assert sorted(path.name for path in (tmp_path / "labels").iterdir()) == before
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit):
        main(["label", "--players", "heuristic", "--out", str(tmp_path / "other")])
    assert "not empty and holds no labelling run" in capsys.readouterr().err
    assert [path.name for path in (tmp_path / "other").iterdir()] == ["notes.txt"]


def test_a_teachers_labels_are_its_actions_valued_at_the_payoff_that_followed(tmp_path):
    plan = LabelPlan(players=("heuristic", "random"), teacher="heuristic", deals=4, chunk=2, share=0.5)
    assert plan.search is None
    label(plan, tmp_path / "labels")
    labels = load_labels(tmp_path / "labels")
    assert (labels["candidates"].sum(axis=1) == 1).all() and (labels["candidates"] <= labels["masks"]).all()
    chosen = labels["candidates"].argmax(axis=1)
    assert np.array_equal(chosen, HeuristicAgent().act(labels["views"], labels["masks"]))  # what it would play there
    assert np.array_equal(labels["values"][labels["candidates"]], labels["payoffs"])
    assert np.isnan(labels["values"][~labels["candidates"]]).all()
    policy, value = targets(labels, temperature=0.25)
    assert np.array_equal(policy.argmax(axis=1), chosen) and (policy.max(axis=1) == 1).all()
    assert np.array_equal(value, labels["payoffs"])
    with pytest.raises(ValueError, match="not both"):
        LabelPlan(players=("heuristic",), search="pimc:worlds=2", teacher="heuristic")
    assert LabelPlan(players=("heuristic",)).search == DEFAULT_SEARCH


@pytest.mark.parametrize("argv, message", [
    (["--players", "heuristic", "--search", "pimc", "--teacher", "heuristic"], "not allowed with argument"),
    (["--players", "heuristic", "--teacher", "nobody"], "unknown agent"),
    (["--players", "nobody"], "unknown agent"),
    (["--players", "heuristic", "--search", "random"], "cannot value actions"),
    (["--players", "heuristic", "--share", "0"], "share (of decisions labelled) must be in (0, 1]"),
    (["--players", "heuristic", "--workers", "-1"], "workers must be 0"),
])
def test_bad_labelling_options_are_refused_before_any_folder_is_created(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        main(["label", *argv, "--out", str(tmp_path / "labels")])
    assert message in capsys.readouterr().err and not (tmp_path / "labels").exists()


def test_the_targets_are_the_searchs_softmax_over_its_candidates_and_its_best_value():
    values = np.array([[1.0, 2.0, np.nan, 0.0], [np.nan, -1.0, np.nan, np.nan]], dtype=np.float32)
    labels = {"values": values, "candidates": ~np.isnan(values)}
    policy, value = targets(labels, temperature=0.5)
    weights = np.exp(np.array([1.0, 2.0, 0.0]) / 0.5)
    assert np.allclose(policy[0], np.array([weights[0], weights[1], 0, weights[2]]) / weights.sum())
    assert np.allclose(policy[1], [0, 1, 0, 0]) and np.allclose(value, [2.0, -1.0])


def test_held_out_decisions_are_whole_deals_the_last_labelled():
    seeds = np.array([7, 7, 3, 3, 3, 9, 7, 9, 5])
    held = held_out_rows(seeds, 0.5)  # deals in labelled order: 7, 3, 9, 5; the last two held out
    assert np.array_equal(held, np.isin(seeds, [9, 5]))
    assert not held_out_rows(seeds, 0.0).any()


def test_distillation_learns_the_labellers_choices_and_ppo_starts_from_the_distilled_network(tmp_path):
    plan = LabelPlan(players=("heuristic", "random"), search=KNOWN, deals=30, chunk=10, share=0.5)
    label(plan, tmp_path / "labels")
    settings = DistillSettings(hidden_sizes=(32, 32), epochs=40, batch_size=64, learning_rate=3e-3, holdout=0.2)
    report = distill(tmp_path / "labels", tmp_path / "net.pt", settings)
    # The known labeller's choice is the highest legal action id: learned well beyond chance on unseen deals.
    labels = load_labels(tmp_path / "labels")
    chance = float(np.mean(1 / labels["masks"].sum(axis=1)))
    assert report["held_out_decisions"] > 50 and report["held_out_agreement"] > max(0.6, 2 * chance)
    held_phases = labels["phases"][held_out_rows(labels["deal_seeds"], settings.holdout)]
    by_phase = report["held_out_agreement_by_phase"]
    assert set(by_phase) == {PHASE_NAMES[phase] for phase in np.unique(held_phases)} and "play" in by_phase
    overall = sum(by_phase[PHASE_NAMES[phase]] * np.sum(held_phases == phase) for phase in np.unique(held_phases))
    assert overall / len(held_phases) == pytest.approx(report["held_out_agreement"])
    assert distill(tmp_path / "labels", tmp_path / "again.pt", settings) == report  # seeded: the same network
    config = load_config(TINY, [f"init_from={tmp_path / 'net.pt'}", "hidden_sizes=[32, 32]", f"run_dir={tmp_path}"])
    trainer = Trainer(config, training_device("cpu"))
    distilled = load_network(tmp_path / "net.pt").state_dict()
    assert all(torch.equal(distilled[key], value) for key, value in trainer.net.state_dict().items())


def test_init_from_must_be_a_network_of_the_configs_sizes(tmp_path):
    label(PLAN, tmp_path / "labels")
    distill(tmp_path / "labels", tmp_path / "net.pt", DistillSettings(hidden_sizes=(16,), epochs=1))
    wider = load_config(TINY, [f"init_from={tmp_path / 'net.pt'}", "hidden_sizes=[32, 32]"])  # read by the trainer
    with pytest.raises(ValueError, match=r"hidden sizes \[16\], not hidden_sizes \[32, 32\]"):
        Trainer(wider, training_device("cpu"))
    with pytest.raises(ValueError, match="init_from' must be a policy or training checkpoint"):
        Trainer(load_config(TINY, [f"init_from={tmp_path / 'missing.pt'}"]), training_device("cpu"))


def test_distillation_can_start_from_a_network_and_refuses_one_of_other_widths(tmp_path):
    label(PLAN, tmp_path / "labels")
    start = DistillSettings(hidden_sizes=(16,), epochs=1, seed=1)
    distill(tmp_path / "labels", tmp_path / "start.pt", start)
    # A step too small to move the weights: the result is the network it started from, not fresh weights.
    still = dataclasses.replace(start, init_from=str(tmp_path / "start.pt"), learning_rate=1e-30, seed=2)
    report = distill(tmp_path / "labels", tmp_path / "tuned.pt", still)
    assert report["settings"]["init_from"] == str(tmp_path / "start.pt")
    first, tuned = load_network(tmp_path / "start.pt").state_dict(), load_network(tmp_path / "tuned.pt").state_dict()
    assert all(torch.equal(first[key], value) for key, value in tuned.items())
    distill(tmp_path / "labels", tmp_path / "fresh.pt", dataclasses.replace(still, init_from=""))
    fresh = load_network(tmp_path / "fresh.pt").state_dict()
    assert not all(torch.equal(first[key], value) for key, value in fresh.items())
    with pytest.raises(ValueError, match="has hidden layers 16, hidden_sizes is 32: give its widths"):
        distill(tmp_path / "labels", tmp_path / "wide.pt", dataclasses.replace(still, hidden_sizes=(32,)))
    with pytest.raises(ValueError, match="init_from .*no checkpoint at"):
        distill(tmp_path / "labels", tmp_path / "none.pt", dataclasses.replace(still, init_from=str(tmp_path / "x.pt")))
    assert not (tmp_path / "wide.pt").exists() and not (tmp_path / "none.pt").exists()


def test_the_cli_labels_and_distills(tmp_path, capsys):
    out = tmp_path / "labels"
    assert main(["label", "--players", "heuristic", "random", "--search", KNOWN, "--deals", "4", "--chunk", "2",
                 "--out", str(out)]) == 0
    assert main(["distill", str(out), "--out", str(tmp_path / "net.pt"), "--hidden-sizes", "16", "--epochs", "1",
                 "--holdout", "0.25"]) == 0
    printed = capsys.readouterr().out
    assert "labelled decisions from 4 deals" in printed and "held_out_agreement" in printed
    assert load_network(tmp_path / "net.pt").hidden == [16]

