"""The demonstrator (config demonstrator): the agent whose decisions demo_coef clones, the heuristic by default or
any agent spec, such as a network whose auction a stage keeps while it learns the card play; checked when the
config is read, built once by the trainer, its random state in the checkpoint so that a run resumes exactly."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from agents.ppo import load_checkpoint  # noqa: E402
from briscola_env.engine import PHASE_NAMES  # noqa: E402
from training.config import load_config  # noqa: E402
from training.run import training_device  # noqa: E402
from training.trainer import Trainer, rollout  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")
NETWORK = str(ROOT / "checkpoints" / "imitation.pt")
AUCTION = ["demo_phases=[auction,call]", "demo_until=1.0", "torch_threads=1"]


class FirstLegal:
    """A demonstrator no other agent plays like: the lowest legal action."""

    def act(self, obs, mask):
        return mask.argmax(axis=1)


def test_the_learners_demonstrated_decisions_are_the_demonstrators_and_only_in_its_phases():
    config = load_config(TINY, ["demonstrator=random", *AUCTION])
    trainer = Trainer(config, training_device("cpu"))
    assert type(trainer.demonstrator).__name__ == "RandomAgent" and trainer.demonstrator is not trainer.heuristic
    trainer.demonstrator = FirstLegal()
    rollout(trainer)
    storage = trainer.storage
    rows = np.flatnonzero(storage.in_use)
    phases = trainer.spec.view(storage.obs[rows], "phase").argmax(axis=1)
    shown = np.isin(phases, [PHASE_NAMES.index("auction"), PHASE_NAMES.index("call")])
    assert shown.any() and (~shown).any()
    assert (storage.demo[rows][shown] == storage.mask[rows][shown].argmax(axis=1)).all()
    assert (storage.demo[rows][~shown] == -1).all()  # the card play is not demonstrated


def test_the_default_demonstrator_is_the_heuristic():
    trainer = Trainer(load_config(TINY, ["torch_threads=1"]), training_device("cpu"))
    assert trainer.demonstrator is trainer.heuristic


@pytest.mark.parametrize("demonstrator", ["random", f"ppo:{NETWORK}"])
def test_a_run_demonstrated_by_an_agent_that_draws_random_numbers_resumes_exactly(tmp_path, demonstrator):
    # 16 updates: a hand demonstrated after the stop ends, and enters an update, before the run does
    demonstrated = [f"demonstrator={demonstrator}", "total_decisions=4096", *AUCTION]
    train.main(["--config", TINY, f"run_dir={tmp_path / 'whole'}", *demonstrated])
    train.main(["--config", TINY, f"run_dir={tmp_path / 'split'}", "stop_after=5", *demonstrated])
    train.main(["--resume", str(tmp_path / "split" / "tiny-1")])
    whole, split = (load_checkpoint(tmp_path / where / "tiny-1" / "checkpoint.pt") for where in ("whole", "split"))
    assert all(torch.equal(whole["model"][key], split["model"][key]) for key in whole["model"])


def test_a_demonstrator_that_does_not_parse_or_build_is_refused_before_the_run_writes(tmp_path, capsys):
    with pytest.raises(ValueError, match="config key 'demonstrator' must be an agent spec"):
        load_config(TINY, ["demonstrator=nobody"])
    missing = tmp_path / "missing.pt"
    with pytest.raises(SystemExit):
        train.main(["--config", TINY, f"run_dir={tmp_path / 'runs'}", f"demonstrator=ppo:{missing}"])
    assert f"config key 'demonstrator' must be an agent spec: agent spec 'ppo:{missing}'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
