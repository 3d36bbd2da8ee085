"""Rules as a value: a rules string (a preset, then field=value overrides) or a YAML ``rules:`` mapping is
read once into a RulesConfig, which every command and a training run take, and whose every field the run
folder, the checkpoints and results.json record; a bad field or value is one line naming it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from briscola_env.rules import PRESETS, RulesConfig, parse_rules, preset, resolve_rules, rules_text  # noqa: E402
from training.config import load_config  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_preset_name_is_a_rules_string_and_names_itself(name):
    assert parse_rules(name) == preset(name)
    assert rules_text(preset(name)) == name


@pytest.mark.parametrize("text, fields", [
    ("standard,follow_suit=true,players=4", {"follow_suit": True, "players": 4}),
    ("monte,follow_suit=TRUE", {"monte": True, "follow_suit": True}),
    ("follow_suit=yes,follow_suit_last_k=2", {"follow_suit": True, "follow_suit_last_k": 2}),
    ("points_only, min_point_bid=65", {"bidding": "points_only", "min_point_bid": 65}),
    ("four_players,call_rule=at_least", {"players": 4, "call_rule": "at_least"}),
    ("equal_partner,partner_payoff=half", {"partner_payoff": "half", "cappotto_multiplier": 3}),
])
def test_overrides_apply_to_the_preset_and_the_text_reads_back(text, fields):
    rules = parse_rules(text)
    assert {name: getattr(rules, name) for name in fields} == fields
    assert parse_rules(rules_text(rules)) == rules
    assert resolve_rules(text) == rules and resolve_rules(rules) is rules


def test_a_changed_table_gets_its_standard_payoffs_back():
    assert parse_rules("standard,players=4").payoff_table == preset("four_players").payoff_table
    assert parse_rules("standard,partner_payoff=equal").payoff_table == preset("equal_partner").payoff_table


@pytest.mark.parametrize("text, message", [
    ("standard,follow_suit=maybe", "follow_suit takes true or false; got 'maybe'"),
    ("standard,target=sixty", "target takes an integer; got 'sixty'"),
    ("standard,colour=red", "unknown field 'colour'; fields: bidding, "),
    ("nowhere,follow_suit=true", "unknown rules preset 'nowhere'; presets: standard, "),
    ("standard,players=6", "players must be one of 5, 4; got 6"),
    ("standard,follow_suit", "'follow_suit' is not field=value"),
    ("standard,monte=true,monte=false", "monte is given twice"),
    ("standard,multiplier_table=2", "multiplier_table cannot be written in a rules string"),
    ("monte,players=4", "monte is a variant for five"),
    ("standard,follow_suit_last_k=3", "follow_suit_last_k needs follow_suit=True"),
    ("", "a rules string is PRESET"),
])
def test_a_bad_rules_string_is_one_line_naming_the_field(text, message):
    with pytest.raises(ValueError) as raised:
        parse_rules(text)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_mapping_names_its_preset_and_overrides_it():
    rules = resolve_rules({"preset": "monte", "follow_suit": True, "payoff_table": None})
    assert rules.monte and rules.follow_suit
    assert resolve_rules({"follow_suit": True}) == parse_rules("follow_suit=true")
    assert resolve_rules(preset("monte").to_dict()) == preset("monte")  # the record reads back
    with pytest.raises(ValueError, match="preset must be one of standard"):
        resolve_rules({"preset": "nowhere"})
    with pytest.raises(ValueError, match=r"unknown rules key\(s\) \['colour'\]"):
        resolve_rules({"colour": "red"})


def test_the_record_is_plain_yaml_and_json():
    record = preset("equal_partner").to_dict()
    assert yaml.safe_load(yaml.safe_dump(record)) == record == json.loads(json.dumps(record))
    assert RulesConfig.from_dict(record) == preset("equal_partner")


def test_a_config_reads_a_rules_string_or_a_yaml_mapping(tmp_path):
    assert load_config(None, ["rules=monte,follow_suit=true"]).rules == parse_rules("monte,follow_suit=true")
    (tmp_path / "c.yaml").write_text("rules:\n  preset: four_players\n  follow_suit: true\n")
    assert load_config(str(tmp_path / "c.yaml"), []).rules == parse_rules("four_players,follow_suit=true")
    for override, message in [("rules=standard,follow_suit=maybe", "config key 'rules': rules "),
                              ("rules=", "config key 'rules': give a preset's name"),
                              ("rules=5", "config key 'rules': rules must be a RulesConfig, a rules string")]:
        with pytest.raises(ValueError, match=message):
            load_config(None, [override])


def test_a_run_under_rules_no_preset_names_records_and_resumes_them(tmp_path):
    text = "monte,follow_suit=true"
    train.main(["--config", TINY, f"run_dir={tmp_path}", f"rules={text}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    saved = yaml.safe_load((run / "config.yaml").read_text())["rules"]
    assert saved == parse_rules(text).to_dict() and saved["follow_suit"] is True and saved["monte"] is True
    checkpoint = torch.load(run / "checkpoint.pt", weights_only=True)
    assert checkpoint["config"]["rules"] == saved
    train.main(["--resume", str(run)])  # the recorded fields are the run's rules
    assert (run / "summary.md").is_file()  # the run finished
    assert torch.load(run / "checkpoint.pt", weights_only=True)["config"]["rules"] == saved


def briscola(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "briscola_cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})


def test_evaluate_under_a_rules_string_records_the_resolved_fields(tmp_path):
    done = briscola("evaluate", "heuristic", "random", "--rules", "standard,follow_suit=true", "--deals", "20",
                    "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["rules"] == parse_rules("standard,follow_suit=true").to_dict()


def test_a_bad_rules_option_is_one_line_naming_the_field(tmp_path):
    done = briscola("evaluate", "heuristic", "random", "--rules", "standard,follow_suit=maybe", "--deals", "20",
                    cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert "argument --rules: rules 'standard,follow_suit=maybe': follow_suit takes true or false" in last
