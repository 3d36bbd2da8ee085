"""Evaluation deals are never training deals: a belief model is measured by
``briscola concealment`` on other deals than it was fitted on, and ``train.py``'s evaluations
(and ``briscola evaluate`` of its checkpoint) on other deals than its environment dealt. The
default commands are checked on the deal seeds they actually draw; a model trained on the
deals to be measured, or that does not say what it was trained on, is refused."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import evaluation.concealment  # noqa: F401 (imported now, so that it binds the real collect_views)
from agents import HeuristicAgent, RandomAgent
from agents.belief import BeliefModel, collect_views, save_belief, train_belief
from briscola_env import BatchedEnv
from briscola_env.cards import NUM_SEATS
from evaluation import evaluate_pair
from briscola_cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def uniform_over_others(obs):
    p = np.full((len(obs), NUM_SEATS), 0.25)
    p[:, 0] = 0
    return p


def record_deals(monkeypatch, target):
    """Replace the collect_views named ``target`` by one that also keeps the deal seeds it is given."""
    dealt = []

    def recording(agents, seat_agents, deal_seeds, rules=None):
        dealt.append(np.asarray(deal_seeds).copy())
        return collect_views(agents, seat_agents, deal_seeds, rules)

    monkeypatch.setattr(target, recording)
    return dealt


def argparse_error(capsys, argv) -> str:
    with pytest.raises(SystemExit):
        main(argv)
    return capsys.readouterr().err


def heuristic_belief(deal_seeds):
    views = collect_views([HeuristicAgent()], np.zeros((len(deal_seeds), NUM_SEATS), dtype=np.int64), deal_seeds)
    return BeliefModel(train_belief(views, hidden=(16,), epochs=1))


def test_readme_belief_then_concealment_measure_on_deals_the_model_never_saw(tmp_path, monkeypatch):
    """The README's two commands (fewer games): with the default seed, the old code's 30
    concealment deals were all among the belief model's training deals."""
    trained = record_deals(monkeypatch, "training.belief_model.collect_views")
    main(["belief", "heuristic", "--games", "60", "--epochs", "1", "--out", str(tmp_path / "belief.pt")])
    measured = record_deals(monkeypatch, "evaluation.concealment.collect_views")
    main(["concealment", "heuristic", "--belief", str(tmp_path / "belief.pt"), "--games", "30",
          "--out", str(tmp_path / "conceal")])
    (belief_deals,), (concealment_deals,) = trained, measured
    fit, held_out = belief_deals[:60], belief_deals[60:]
    assert len(held_out) == 6 and not np.isin(held_out, fit).any()  # the held-out accuracy is held out too
    assert len(concealment_deals) == 30 and not np.isin(concealment_deals, belief_deals).any()
    recorded = BeliefModel.load(tmp_path / "belief.pt").trained_on  # what the file says it was fitted on
    assert len(recorded) > 0 and np.isin(recorded, fit).all()


def test_concealment_refuses_a_belief_model_trained_on_its_deals(tmp_path, monkeypatch, capsys):
    from evaluation.concealment import concealment

    measured = record_deals(monkeypatch, "evaluation.concealment.collect_views")
    concealment(uniform_over_others, HeuristicAgent(), "heuristic", 30, seed=5)  # a hand-made belief: no deals
    (deals,) = measured
    elsewhere = heuristic_belief(np.arange(30))
    concealment(elsewhere.probabilities, HeuristicAgent(), "heuristic", 30, seed=5)  # trained on other deals
    leaky = heuristic_belief(np.concatenate([np.arange(30), deals[7:8]]))  # one of them is enough
    for belief in (leaky.probabilities, leaky):
        with pytest.raises(ValueError, match="1 of the 30 deals to measure on are among the 31 deals the belief "
                                             "model was trained on"):
            concealment(belief, HeuristicAgent(), "heuristic", 30, seed=5)
    save_belief(tmp_path / "leaky.pt", leaky.net)
    out = tmp_path / "conceal"
    error = argparse_error(capsys, ["concealment", "heuristic", "--belief", str(tmp_path / "leaky.pt"),
                                    "--games", "30", "--seed", "5", "--out", str(out)])
    assert f"among the 31 deals the belief model {tmp_path / 'leaky.pt'} was trained on" in error
    assert not out.exists()  # refused before any folder or game


def test_concealment_refuses_a_belief_file_without_a_record_of_its_training_deals(tmp_path, capsys):
    """A file written before belief models kept the record (this test writes one the old way):
    refused, since it could have been trained on any deals; it still loads for other uses."""
    from evaluation.concealment import concealment

    save_belief(tmp_path / "old.pt", heuristic_belief(np.arange(20)).net)
    payload = torch.load(tmp_path / "old.pt", weights_only=True)
    payload.pop("trained_on", None)
    torch.save(payload, tmp_path / "old.pt")
    old = BeliefModel.load(tmp_path / "old.pt")
    for belief in (old.probabilities, old):
        with pytest.raises(ValueError, match=r"old.pt does not record the deals it was trained on .* briscola belief"):
            concealment(belief, HeuristicAgent(), "heuristic", 10)
    assert old.trained_on is None and old.probabilities(np.zeros((2, old.net.body[0].in_features), np.uint8)).shape \
        == (2, NUM_SEATS)
    save_belief(tmp_path / "again.pt", old.net)
    assert BeliefModel.load(tmp_path / "again.pt").trained_on is None  # saved again, still unknown
    out = tmp_path / "conceal"
    error = argparse_error(capsys, ["concealment", "heuristic", "--belief", str(tmp_path / "old.pt"),
                                    "--games", "10", "--out", str(out)])
    assert "does not record the deals it was trained on" in error and not out.exists()


class RecordingEnv(BatchedEnv):
    """The training environment, keeping every deal seed it deals."""

    dealt: list = []

    def reset(self, *args, **kwargs):
        out = super().reset(*args, **kwargs)
        RecordingEnv.dealt.append(self.deal_seeds.copy())
        return out

    def step(self, actions):
        out = super().step(actions)
        RecordingEnv.dealt.append(self.deal_seeds[out.done].copy())  # the games re-dealt
        return out


def test_train_py_evaluates_on_deals_its_environment_never_dealt(tmp_path, monkeypatch):
    """The tiny run, seed 1 (the default): its final evaluation (seed 1), like ``briscola evaluate --seed 1``
    of its checkpoint, would play the first deals of the training environment (seeded 1 too) if the two
    streams were not drawn apart."""
    sys.path.insert(0, str(ROOT))
    import train
    from training import run, trainer

    evaluated = []

    def recording_evaluate_pair(*args, **kwargs):
        result = evaluate_pair(*args, **kwargs)
        evaluated.append(result.deal_seeds)
        return result

    RecordingEnv.dealt = []
    monkeypatch.setattr(trainer, "BatchedEnv", RecordingEnv)
    monkeypatch.setattr(run, "evaluate_pair", recording_evaluate_pair)
    train.main(["--config", str(ROOT / "configs" / "tiny.yaml"), f"run_dir={tmp_path}"])
    trained = np.concatenate(RecordingEnv.dealt)
    assert len(trained) > 16 and len(evaluated) > 2  # re-deals, periodic and final evaluations were seen
    for seed in (0, 1):  # briscola evaluate's default seed, and the run's
        evaluated.append(evaluate_pair(RandomAgent(), RandomAgent(), 4, seed=seed).deal_seeds)
    assert not np.isin(np.concatenate(evaluated), trained).any()


def test_deal_streams_refuse_an_unknown_purpose_or_a_bad_seed_or_count():
    from briscola_env.seeds import PURPOSES, deal_seeds

    with pytest.raises(ValueError, match="unknown deal purpose 'evaluation'; the purposes are train-env, "):
        deal_seeds("evaluation", 0, 3)
    for seed in (-1, 1.5, True):
        with pytest.raises(ValueError, match="a run seed is a whole number of at least 0"):
            deal_seeds("concealment", seed, 3)
    with pytest.raises(ValueError, match="a count of deals is a whole number of at least 0; got -1"):
        deal_seeds("concealment", 0, -1)
    streams = [deal_seeds(purpose, seed, 1000) for purpose in PURPOSES for seed in (0, 1)]
    assert len(np.unique(np.concatenate(streams))) == 1000 * len(streams)
    assert np.array_equal(deal_seeds("concealment", 3, 10), deal_seeds("concealment", 3, 20)[:10])
