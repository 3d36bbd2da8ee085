"""The README's Python examples run as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_examples_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:  # in order: later blocks may use names from earlier ones
        exec(compile(block, str(README), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "Auction:" in printed and "player_0" in printed
    assert sorted(namespace["payoffs"]) == [f"player_{s}" for s in range(5)]


def test_readme_lists_every_rules_field_and_preset():
    from dataclasses import fields

    from briscola_env.rules import PRESETS, RulesConfig

    text = README.read_text(encoding="utf-8")
    missing = [f.name for f in fields(RulesConfig) if f"| `{f.name}` |" not in text]
    missing += [name for name in PRESETS if f"| `{name}` |" not in text]
    assert not missing, f"README tables lack {missing}"
