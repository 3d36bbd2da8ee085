"""benchmarks/own_table.py: five copies of an agent on the deals `briscola evaluate --seed` plays, the contract
figures agreeing with `briscola field`'s own-table line, a hybrid's parts moving the caller's side's points, and
bad input refused."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import own_table  # noqa: E402
from evaluation import evaluate_table  # noqa: E402
from evaluation.field import own_table as field_own_table  # noqa: E402
from agents import make_agent  # noqa: E402


def test_the_figures_are_those_of_the_all_copies_games_of_an_evaluation():
    row = own_table.measure("heuristic", deals=30, seed=3)
    result = evaluate_table(make_agent("heuristic"), make_agent("random"), 30, 3)
    assert 0 < row["made"] < 1  # some contracts fail: the same figure means the same games, not a ceiling
    assert row["contract"] == field_own_table(result)["contract_rate"]
    assert row["made"] == field_own_table(result)["contracts_made"]
    for key in ("contract", "made", "points", "caller_payoff", "defender_payoff"):
        low, high = row[f"{key}_ci"]
        assert low <= row[key] <= high


def test_random_card_play_for_the_callers_loses_them_points(tmp_path, capsys):
    out = tmp_path / "own.json"
    own_table.main(["heuristic", "hybrid:auction=heuristic,play=random,defend=heuristic",
                    "--deals", "30", "--seed", "1", "--out", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert [r["agent"] for r in rows] == ["heuristic", "hybrid:auction=heuristic,play=random,defend=heuristic"]
    assert rows[1]["points"] < rows[0]["points"] - 10  # the same auction and defence, the callers' play random
    assert rows[1]["caller_payoff"] < rows[0]["caller_payoff"]
    assert rows[1]["defender_payoff"] > rows[0]["defender_payoff"]
    assert capsys.readouterr().out.count("| heuristic |") == 2  # the row as it is done, then the table


def test_too_few_deals_is_refused():
    with pytest.raises(SystemExit):
        own_table.main(["heuristic", "--deals", "1"])
