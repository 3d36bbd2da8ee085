"""The example scripts run end to end with tiny settings."""

import re
import runpy
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_sb3_maskable_ppo_example_trains_and_measures(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["sb3_maskable_ppo.py", "--timesteps", "256", "--hands", "6",
                                      "--opponents", "random"])
    runpy.run_path(str(EXAMPLES / "sb3_maskable_ppo.py"), run_name="__main__")
    printed = capsys.readouterr().out
    assert "against random x4, 6 hands" in printed
    assert re.search(r"MaskablePPO after 256 steps: [+-]\d+\.\d{3}", printed)
    assert re.search(r"random legal actions: +[+-]\d+\.\d{3}", printed)
