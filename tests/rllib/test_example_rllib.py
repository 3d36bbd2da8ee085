"""examples/rllib_ppo.py runs RLlib's PPO end to end with tiny settings; an illegal action would stop it.

Needs ray[rllib], whose Gymnasium pin must stay out of the main environment: ``bash .ci/rllib`` runs
this file in a virtual environment of its own, and the main suite does not collect tests/rllib/.
"""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"
TINY = ["--iterations", "1", "--train-batch-size", "256", "--minibatch-size", "64", "--epochs", "1",
        "--hidden", "32", "--hands", "6"]


def load_example() -> dict:
    return runpy.run_path(str(EXAMPLE), run_name="rllib_ppo")


def test_rllib_ppo_example_trains_one_iteration_and_measures(capsys):
    load_example()["main"](TINY)
    printed = capsys.readouterr().out
    iteration = re.search(r"iteration 1: (\d+) env steps sampled \((\d+) in all\), (\d+) hands finished; "
                          r"over the last 100 hands at most: [\d.]+ steps per hand, "
                          r"mean return by seat((?: [+-]\d+\.\d\d){5}), policy entropy (\d+\.\d{3})", printed)
    assert iteration, printed
    sampled, lifetime, hands = map(int, iteration.group(1, 2, 3))
    assert sampled == lifetime >= 256 and hands >= 1
    # Every hand pays its five seats zero in all (up to the two decimals printed).
    assert abs(sum(map(float, iteration.group(4).split()))) < 0.03
    assert float(iteration.group(5)) > 0
    assert "player_0 against random legal x4, 6 hands" in printed
    assert re.search(rf"shared PPO policy after {lifetime} env steps: [+-]\d+\.\d{{3}} \(±\d+\.\d{{3}}\)", printed)
    assert re.search(r"random legal actions: +[+-]\d+\.\d{3} \(±\d+\.\d{3}\)", printed)


def test_an_illegal_action_stops_the_training(monkeypatch):
    """The passing run above took no illegal action: with the mask hidden from the module, raw_env's error stops it."""
    example = load_example()
    shown = example["ObservationsKey"].observe

    def observe_all_legal(self, agent):
        observed = shown(self, agent)
        return {**observed, "action_mask": np.ones_like(observed["action_mask"])}

    monkeypatch.setattr(example["ObservationsKey"], "observe", observe_all_legal)
    with pytest.raises(RuntimeError) as stopped:
        example["main"](TINY)
    assert isinstance(stopped.value.__cause__, ValueError)
    assert re.search(r"player_\d: illegal action \d+ .* legal actions: ", str(stopped.value.__cause__))
