"""The league (config league, pfsp_power): more fixed agents in the trainer's pool, each fixed seat drawn by
prioritised fictitious self-play from the learner's win rate against each; a league's specs are checked by
parsing when the config is read, and each agent built once, by the trainer, before a run writes anything."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
import agents.ppo  # noqa: E402
from agents.ppo import PolicyValueNet, load_checkpoint, save_checkpoint  # noqa: E402
from briscola_env import preset  # noqa: E402
from training import trainer as trainer_module  # noqa: E402
from training.config import load_config  # noqa: E402
from training.league import LEARNER, OPPONENT, Table  # noqa: E402
from training.run import training_device  # noqa: E402
from training.trainer import Trainer  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")
LEAGUE = ["league=[random, 'heuristic:noise=0.5']", "opponent_share=0.8", "heuristic_share=0.7"]


def league_table(win_rates, power=2.0) -> Table:
    config = load_config(TINY, ["league=[random]", f"pfsp_power={power}", "num_envs=4"])
    table = Table(config, config.rules, learner=None, fixed=["heuristic", "random", "other"],
                  rng=np.random.default_rng(0), sampler=torch.Generator(), names=["heuristic", "random", "other"])
    table.win_rates[:] = win_rates
    return table


def test_the_agents_the_learner_beats_least_are_drawn_the_most():
    weights = league_table([0.9, 0.5, 0.1]).league_weights()
    assert np.allclose(weights, np.array([0.1, 0.5, 0.9]) ** 2 / (0.01 + 0.25 + 0.81))
    assert np.allclose(league_table([0.9, 0.5, 0.1], power=0).league_weights(), 1 / 3)
    assert (league_table([1.0, 1.0, 0.0]).league_weights() > 0).all()  # none dropped for good


def test_win_rates_move_towards_the_learners_results_where_both_sat():
    table = league_table([0.5, 0.5, 0.5])
    table.seat_agents[:] = [[LEARNER, LEARNER, OPPONENT, OPPONENT, OPPONENT],      # the learner's side wins
                            [LEARNER, OPPONENT + 1, OPPONENT + 1, LEARNER, LEARNER],  # it loses
                            [OPPONENT, OPPONENT, OPPONENT, OPPONENT, OPPONENT],      # no learner: not counted
                            [LEARNER] * 5]
    rewards = np.array([[2, 1, -1, -1, -1], [-1, 2, 1, -1, -1], [2, 1, -1, -1, -1], [0] * 5], dtype=np.float32)
    table.record_results(np.arange(4), rewards)
    assert table.win_rates[0] == pytest.approx(0.5 + 0.01 * (1.0 - 0.5))
    assert table.win_rates[1] == pytest.approx(0.5 + 0.01 * (0.0 - 0.5))
    assert table.win_rates[2] == 0.5  # never sat


def test_a_league_run_seats_every_fixed_agent_and_resumes_exactly(tmp_path):
    train.main(["--config", TINY, f"run_dir={tmp_path / 'whole'}", *LEAGUE])
    train.main(["--config", TINY, f"run_dir={tmp_path / 'split'}", "stop_after=5", *LEAGUE])
    train.main(["--resume", str(tmp_path / "split" / "tiny-1")])
    whole, split = (load_checkpoint(tmp_path / where / "tiny-1" / "checkpoint.pt") for where in ("whole", "split"))
    assert all(torch.equal(whole["model"][key], split["model"][key]) for key in whole["model"])
    config = load_config(TINY, [*LEAGUE, "torch_threads=1"])
    trainer = Trainer(config, training_device("cpu"))
    assert [type(agent).__name__ for agent in trainer.table.fixed] == ["HeuristicAgent", "RandomAgent",
                                                                       "HeuristicAgent"]
    seated = set()
    for _ in range(20):
        trainer.table.seat_new_hands(np.arange(config.num_envs))
        seated |= set(np.unique(trainer.table.seat_agents).tolist())
    assert {OPPONENT, OPPONENT + 1, OPPONENT + 2} <= seated


def test_a_league_spec_that_does_not_build_is_refused():
    with pytest.raises(ValueError, match="config key 'league': 'nobody' is not an agent spec"):
        load_config(TINY, ["league=[nobody]"])
    with pytest.raises(ValueError, match="config key 'league' must list agent specs"):
        load_config(TINY, ["league=[1]"])


def test_a_league_spec_that_parses_but_does_not_build_is_refused_before_the_run_writes(tmp_path, capsys):
    missing = tmp_path / "missing.pt"
    load_config(TINY, [f"league=[ppo:{missing}]"])  # parsed only: the file is not read
    with pytest.raises(SystemExit) as stopped:
        train.main(["--config", TINY, f"run_dir={tmp_path / 'runs'}", f"league=[ppo:{missing}]"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"config key 'league': 'ppo:{missing}' is not an agent spec" in last
    assert not (tmp_path / "runs").exists()


def test_each_network_a_config_names_is_read_once_when_the_trainer_is_built(tmp_path, monkeypatch):
    path = tmp_path / "net.pt"
    save_checkpoint(path, PolicyValueNet([32, 32], rules=preset("standard")))
    reads = []

    def counting(load):
        return lambda *args, **kwargs: reads.append(args[0]) or load(*args, **kwargs)

    monkeypatch.setattr(agents.ppo, "load_network", counting(agents.ppo.load_network))
    monkeypatch.setattr(trainer_module, "load_network", counting(trainer_module.load_network))
    config = load_config(TINY, [f"opponent=ppo:{path}", f"league=[ppo:{path}, heuristic]", f"init_from={path}"])
    assert reads == []
    Trainer(config, training_device("cpu"))
    assert [str(read) for read in reads] == [str(path)] * 3  # the opponent, the league's, init_from
