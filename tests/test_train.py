"""train.py run for real, briefly: it trains, checkpoints, logs, evaluates, and
resumes exactly; its config rejects unknown keys and wrong types."""

import sys
from pathlib import Path

import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from briscola_env import records  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")


def weights(run: Path) -> dict:
    return torch.load(run / "checkpoint.pt", weights_only=True)["model"]


def test_tiny_run_trains_checkpoints_logs_and_evaluates(tmp_path, capsys):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "record_games=true"])
    run = tmp_path / "tiny-1"
    printed = capsys.readouterr().out
    assert "decisions/s end to end" in printed and "| A | B | deals |" in printed
    assert (run / "checkpoint.pt").exists() and list(run.glob("events.out.tfevents.*"))
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["exp_name"] == "tiny" and "git_commit" in saved and "version" in saved
    assert "heuristic" in (run / "summary.md").read_text()
    games = list(records.read(run / "games.jsonl"))  # the final evaluation's games, replayable
    assert len(games) == 2 * 12 * 4 and games[0]["agents"][0].startswith(("ppo:", "random", "heuristic"))
    assert records.replay(games[:3]).terminated.all()
    untrained = train.PolicyValueNet([32, 32]).state_dict()
    assert any(not torch.equal(untrained[k], v) for k, v in weights(run).items() if k != "scale")


@pytest.mark.parametrize("extra", [[], ["belief_coef=0.5", "concealment_coef=0.5", "demo_phases=[auction,play]"]],
                         ids=["default", "belief_head_concealment_demo"])
def test_a_resumed_run_matches_an_uninterrupted_one(tmp_path, extra):
    train.main(["--config", TINY, f"run_dir={tmp_path / 'whole'}", *extra])
    train.main(["--config", TINY, f"run_dir={tmp_path / 'split'}", "stop_after=5", *extra])
    halfway = weights(tmp_path / "split" / "tiny-1")
    train.main(["--resume", str(tmp_path / "split" / "tiny-1")])
    whole, split = weights(tmp_path / "whole" / "tiny-1"), weights(tmp_path / "split" / "tiny-1")
    assert all(torch.equal(whole[k], split[k]) for k in whole)
    assert not all(torch.equal(whole[k], halfway[k]) for k in whole)  # the resumed part did train


def test_config_errors_name_the_key(tmp_path):
    with pytest.raises(ValueError, match="unknown config key.*'lerning_rate'"):
        train.load_config(TINY, ["lerning_rate=0.1"])
    with pytest.raises(ValueError, match="'num_envs' must be int"):
        train.load_config(TINY, ["num_envs=many"])
    with pytest.raises(ValueError, match="rules preset"):
        train.load_config(None, ["rules=nowhere"])
    assert train.load_config(TINY, ["learning_rate=1"]).learning_rate == 1.0
    with pytest.raises(ValueError, match="needs the belief head"):
        train.load_config(TINY, ["concealment_coef=0.5"])
    with pytest.raises(ValueError, match="unknown phase"):
        train.load_config(TINY, ["demo_phases=[bidding]"])
    with pytest.raises(SystemExit):
        train.main(["--config", TINY, "bogus=1"])


def test_every_shipped_config_loads():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        config = train.load_config(str(path), [])
        assert config.num_envs > 0, path
