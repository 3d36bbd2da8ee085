"""`train.py --help` lists every config key, generated from Config itself (issue 15)."""

import dataclasses
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from training import config as run_config  # noqa: E402


def help_text(capsys) -> str:
    with pytest.raises(SystemExit) as stopped:
        train.main(["--help"])
    assert stopped.value.code == 0
    return capsys.readouterr().out


def test_help_lists_every_config_key_with_its_type_and_default(capsys):
    text = help_text(capsys)
    defaults = {**dataclasses.asdict(run_config.Config()), "rules": "standard"}  # the rules by their name
    for field in dataclasses.fields(run_config.Config):
        assert f"  {field.name}=VALUE  ({field.type}, default {json.dumps(defaults[field.name])}" in text, field.name


def test_help_gives_each_key_its_docstring(capsys):
    text = " ".join(help_text(capsys).split())  # the docstrings are wrapped in the help
    docs = run_config.config_docs()
    undocumented = [field.name for field in dataclasses.fields(run_config.Config) if not docs.get(field.name)]
    assert not undocumented, f"Config fields without a docstring: {undocumented}"
    for key, doc in docs.items():
        assert doc in text, key


def test_help_marks_bounds_and_resume_overrides(capsys):
    lines = {line.split("=VALUE")[0].strip(): line for line in help_text(capsys).splitlines() if "=VALUE  (" in line}
    assert set(lines) == {field.name for field in dataclasses.fields(run_config.Config)}
    for key, line in lines.items():
        bound = run_config.BOUNDS.get(key)
        assert (f", {bound}" in line) if bound else not re.search(r", (>|in \[)", line), key
        assert ("--resume may override" in line) == (key in run_config.RESUME_OVERRIDES), key


def test_config_docs_reads_the_literal_after_each_field():
    docs = run_config.config_docs()
    assert docs["seed"] == "Seeds the deals, the sampling, the opponents and the network."
    assert docs["demo_coef"].startswith("Weight of a behaviour-cloning loss") and "\n" not in docs["demo_coef"]
