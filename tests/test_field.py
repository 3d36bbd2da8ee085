"""briscola field: an agent against the fixed field (evaluation.field), on a few deals."""

import json
from pathlib import Path

import pytest

from briscola_cli.main import main
from evaluation.duplicate import evaluate_table
import evaluation.field
from evaluation.field import FIELD, SEARCH_TABLES, Member, field_members, measure_field, same_agent
from agents import make_agent

ROOT = Path(__file__).resolve().parents[1]


SMALL_FIELD = (Member("heuristic:bid=-1", "cautious"), Member("heuristic", "plain"),
               Member("hybrid:auction=heuristic,play=ppo:checkpoints/strong.pt", "hybrid"),
               Member("pimc:worlds=2", "search", search=True))


@pytest.fixture(autouse=True)
def at_the_repository_root(monkeypatch):
    monkeypatch.chdir(ROOT)  # the field's networks are checkpoints/...


@pytest.fixture
def small_field(monkeypatch):
    """A field of a few members of each kind, so that the games stay few."""
    monkeypatch.setattr(evaluation.field, "FIELD", SMALL_FIELD)


def test_the_field_holds_every_kind_of_opponent_and_every_file_is_shipped():
    specs = [member.spec for member in FIELD]
    assert {f"heuristic:bid={level}" for level in (-1, -0.5, 0.5, 1)} <= set(specs) and "heuristic" in specs
    assert sum(spec.startswith("hybrid:auction=heuristic,play=ppo:") for spec in specs) == 3
    assert [member.spec for member in FIELD if member.search] == ["pimc:worlds=32"]
    for spec in specs:
        make_agent(spec)  # every member builds: its networks are in checkpoints/
    assert "heuristic" not in [m.spec for m in field_members("heuristic", 300)]  # not against itself
    assert all(not m.search for m in field_members("random", 0))  # 0 search deals: no search
    # best.pt is a copy of a shipped network of the field: that member is the agent itself, left out
    shipped = [m.spec for m in FIELD if m.spec.startswith("ppo:")]
    left_out = set(shipped) - {m.spec for m in field_members("ppo:checkpoints/best.pt", 0)}
    assert len(left_out) == 1 and same_agent("ppo:checkpoints/best.pt", left_out.pop())


def test_each_row_is_the_table_edge_of_the_pair_on_the_same_deals(small_field):
    rows = measure_field("random", deals=2, search_deals=1, seed=3)
    assert [row.member.spec for row in rows] == [m.spec for m in SMALL_FIELD]
    alone = evaluate_table(make_agent("random", seed=3), make_agent("heuristic", seed=3 + 1 + 1), 2, 3)
    assert rows[1].result.table_edge == alone.table_edge  # the same games: the second member, seeded 3 + 1 + 1
    assert all(row.result.table_edge < 0 for row in rows)  # random loses to every member
    assert [(row.deals, row.tables) for row in rows] == [(2, None)] * 3 + [(1, SEARCH_TABLES)]


def test_the_command_prints_the_table_and_writes_its_folder(tmp_path, capsys, small_field):
    out = tmp_path / "field"
    assert main(["field", "heuristic", "--deals", "2", "--search-deals", "0", "--seed", "4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| member | deals | table edge (95% CI) |" in printed and "minimum table edge over the field" in printed
    saved = json.loads((out / "results.json").read_text())
    assert saved["spec"] == "heuristic" and [m["spec"] for m in saved["members"]] == [
        "heuristic:bid=-1", "hybrid:auction=heuristic,play=ppo:checkpoints/strong.pt"]  # itself and search left out
    assert saved["minimum_table_edge"] == min(m["table_edge"] for m in saved["members"])
    assert "at its own table (five copies, 2 deals)" in printed and saved["own_table"]["hands"] == 2
    assert (out / "field.md").read_text().strip() in printed


def test_bad_settings_are_refused_before_any_game(capsys):
    with pytest.raises(SystemExit):
        main(["field", "nonsense", "--deals", "2"])
    assert "unknown agent spec 'nonsense'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["field", "heuristic", "--search-deals", "-1"])
    assert "--search-deals must be 0" in capsys.readouterr().err
    with pytest.raises(ValueError, match="deals >= 1"):
        measure_field("heuristic", deals=0)
