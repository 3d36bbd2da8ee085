"""The Python examples of the README and the documentation pages run as written."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # the landing page and the docs' own pages
VARIANTS = ROOT / "docs" / "variants.md"

BLOCKS = [(page, block) for page in PAGES
          for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)]


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("page, block", BLOCKS, ids=[f"{page.stem}_{i}" for i, (page, _) in enumerate(BLOCKS)])
def test_each_readme_python_example_runs_alone_as_printed(page, block, capsys):
    """Each example is copied alone into a fresh interpreter namespace, as a reader would paste it."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(block, str(page), "exec"), namespace)
    if "briscola_env.env(" in block:  # the PettingZoo example prints the hand and collects every payoff
        assert "Auction:" in capsys.readouterr().out
        assert sorted(namespace["payoffs"]) == [f"player_{s}" for s in range(5)]


def test_the_docs_list_every_rules_field_and_preset():
    from dataclasses import fields

    from briscola_env.rules import PRESETS, RulesConfig

    text = VARIANTS.read_text(encoding="utf-8")
    missing = [f.name for f in fields(RulesConfig) if f"| `{f.name}` |" not in text]
    missing += [name for name in PRESETS if f"| `{name}` |" not in text]
    assert not missing, f"{VARIANTS.name}'s tables lack {missing}"
