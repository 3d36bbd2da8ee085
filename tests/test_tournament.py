"""Tournaments (evaluation.tournament): the seating design's balance, the least-squares ratings on
made-up payoffs whose ratings are known, a population whose ranking is known by construction
(heuristic > heuristic with half its decisions random > random), and the command's arguments
refused before any file is written."""

import argparse
import json

import numpy as np
import pytest

from agents import make_agent
from briscola_env.cards import NUM_SEATS
from briscola_env.seeds import deal_seeds
from briscola_cli import tournament as tournament_command
from briscola_cli.main import command_parser
from evaluation.ratings import bootstrap_ratings, check_identified, fit_ratings
from evaluation.tournament import DEAL_PURPOSE, meetings, play_tournament, seat_counts, seating_design

KNOWN_ORDER = ["heuristic", "heuristic:noise=0.5", "random"]


@pytest.mark.parametrize("agents, deals, tables", [(3, 300, 3), (3, 7, 2), (5, 11, 3), (7, 13, 4), (2, 5, 5)])
def test_every_agent_sits_at_every_seat_equally_often(agents, deals, tables):
    seating = seating_design(agents, deals, tables, np.random.default_rng(1))
    assert seating.shape == (deals, tables, NUM_SEATS)
    counts = seat_counts(seating, agents)
    assert counts.sum() == deals * tables * NUM_SEATS
    assert (counts.max(axis=0) - counts.min(axis=0) <= 1).all()  # per seat, to within one table
    # The tables of a deal put different agents in each seat: all of them, with as many tables as agents.
    distinct = [len(set(seating[d, :, s])) for d in range(deals) for s in range(NUM_SEATS)]
    assert distinct == [min(tables, agents)] * len(distinct)


def test_agents_meet_and_tables_mix():
    seating = seating_design(4, 200, 3, np.random.default_rng(0))
    met = meetings(seating, 4)
    assert (met > 0).all() and np.array_equal(met, met.T)
    # A permutation per seat serves four deals here (a cycle of lcm(3, 4) tables); the tables still differ
    # from deal to deal, not the same few seatings over and over.
    tables = [{tuple(table) for table in deal} for deal in seating]
    assert sum(bool(tables[d] & tables[d + 1]) for d in range(len(tables) - 1)) < 10
    assert np.array_equal(seating, seating_design(4, 200, 3, np.random.default_rng(0)))  # seeded


def synthetic(agents: int, deals: int, tables: int, seed: int = 0):
    """A design, true ratings, and payoffs that are those ratings plus a large luck effect per (deal, seat)."""
    rng = np.random.default_rng(seed)
    seating = seating_design(agents, deals, tables, rng)
    truth = rng.normal(0, 2, agents)
    luck = rng.normal(0, 5, (deals, NUM_SEATS))
    return seating, truth, truth[seating] + luck[:, None, :]


@pytest.mark.parametrize("agents, tables, pinned", [(3, 3, 0), (4, 2, 2), (6, 3, 5)])
def test_least_squares_recovers_known_ratings_exactly(agents, tables, pinned):
    seating, truth, payoffs = synthetic(agents, 60, tables)
    fitted = fit_ratings(seating, payoffs, agents, pinned)
    np.testing.assert_allclose(fitted, truth - truth[pinned], atol=1e-9)
    resampled, left_out = bootstrap_ratings(seating, payoffs, agents, pinned, np.random.default_rng(0), samples=50)
    assert left_out == 0 or tables < agents  # resamples of deals that do not link everyone are left out
    np.testing.assert_allclose(resampled, np.tile(truth - truth[pinned], (len(resampled), 1)), atol=1e-9)


def test_least_squares_is_the_luck_corrected_mean_difference():
    # Two agents, two tables per deal, each at one of them at every seat: the rating is the mean over
    # (deal, seat) of the second's payoff minus the first's there, whatever the luck.
    seating, _, _ = synthetic(2, 40, 2)
    payoffs = np.random.default_rng(5).normal(0, 3, seating.shape)
    mine = np.where(seating == 1, payoffs, 0).sum(axis=1) - np.where(seating == 0, payoffs, 0).sum(axis=1)
    assert fit_ratings(seating, payoffs, 2, 0)[1] == pytest.approx(mine.mean(), abs=1e-12)


def test_a_design_that_cannot_identify_the_ratings_is_refused():
    one_table = seating_design(3, 50, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="not identified"):
        check_identified(one_table, 3, 0)
    agents = [make_agent(spec) for spec in ("random", "random")]
    with pytest.raises(ValueError, match="at least 2"):
        play_tournament(agents, ["a", "b"], 10, tables_per_deal=1)


def test_the_tournament_recovers_a_known_ranking():
    agents = [make_agent(spec) for spec in KNOWN_ORDER]
    result = play_tournament(agents, KNOWN_ORDER, 600, seed=0)
    assert [result.names[k] for k in result.order] == KNOWN_ORDER
    assert result.ratings[0] == 0 and result.pinned == 0
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        difference, (low, high) = result.difference(a, b)
        assert 0 < low < difference < high, (KNOWN_ORDER[a], KNOWN_ORDER[b], difference, low)
    assert result.ratings_ci[1][1] < 0 and result.ratings_ci[2][1] < result.ratings_ci[1][0]
    ordinal = {name: skill["ordinal"] for name, skill in result.openskill.items()}
    assert ordinal["random"] < min(ordinal["heuristic"], ordinal["heuristic:noise=0.5"])
    np.testing.assert_array_equal(result.deal_seeds, deal_seeds(DEAL_PURPOSE, 0, 600))


def test_same_seed_same_tournament():
    def run(seed):
        agents = [make_agent(spec) for spec in ("random", "heuristic:noise=0.3")]
        return play_tournament(agents, ["random", "noisy"], 30, seed=seed, chunk=8)

    first, again, other = run(4), run(4), run(5)
    np.testing.assert_array_equal(first.seating, again.seating)
    np.testing.assert_array_equal(first.payoffs, again.payoffs)
    np.testing.assert_array_equal(first.ratings_ci, again.ratings_ci)
    assert first.openskill == again.openskill
    assert not np.array_equal(first.deal_seeds, other.deal_seeds)
    assert not np.array_equal(first.seating, other.seating)
    assert first.pinned == 0  # no heuristic in the population: the first agent is pinned


def parser() -> argparse.ArgumentParser:
    return command_parser(tournament_command, "briscola tournament")


def run_tournament(args: argparse.Namespace) -> int:
    return tournament_command.run(args) or 0


def test_the_command_prints_and_writes_the_run_folder(tmp_path, capsys):
    out = tmp_path / "run"
    args = parser().parse_args(["heuristic", "random", "random", "--deals", "20", "--seed", "3",
                                "--tables-per-deal", "2", "--out", str(out)])
    assert run_tournament(args) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / "results.json").read_text())
    assert (out / "results.md").read_text() == printed
    assert (out / "plots" / "ratings.png").stat().st_size > 0
    assert record["specs"] == ["heuristic", "random", "random"] and record["seed"] == 3
    assert (record["deals"], record["tables_per_deal"], record["pinned"]) == (20, 2, "heuristic")
    names = {agent["name"] for agent in record["agents"]}
    assert names == {"heuristic", "random#1", "random#2"}  # the same spec twice is two agents
    assert np.array(record["design"]["seat_counts"]).sum() == 20 * 2 * NUM_SEATS
    assert len(record["differences"]) == 3
    assert "| random#1 |" in printed and "pinned at 0" in printed


def test_without_the_heuristic_the_first_agent_is_pinned_and_said(tmp_path, capsys):
    args = parser().parse_args(["random", "heuristic:noise=0.9", "--deals", "10",
                                "--out", str(tmp_path / "run")])
    run_tournament(args)
    printed = capsys.readouterr().out
    assert "ratings per hand over random's" in printed and "the first agent is pinned" in printed
    assert json.loads((tmp_path / "run" / "results.json").read_text())["pinned"] == "random"


@pytest.mark.parametrize("argv, message", [
    (["random"], "at least two agent specs"),
    (["random", "random", "--tables-per-deal", "1"], "at least 2"),
    (["random", "nobody"], "unknown agent spec"),
    (["random", "heuristic:noise=2"], "noise must be"),
    (["random", "random", "--seed", "-1"], "run seed"),
])
def test_bad_arguments_are_refused_before_any_file(tmp_path, argv, message):
    out = tmp_path / "run"
    args = parser().parse_args([*argv, "--deals", "5", "--out", str(out)])
    with pytest.raises(ValueError, match=message):
        run_tournament(args)
    assert not out.exists()


@pytest.mark.parametrize("deals", ["0", "-3", "many"])
def test_bad_deals_are_usage_errors(tmp_path, deals, capsys):
    with pytest.raises(SystemExit) as exit_:
        parser().parse_args(["random", "random", "--deals", deals, "--out", str(tmp_path / "run")])
    assert exit_.value.code == 2 and "--deals" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_folder_that_is_not_empty_is_refused(tmp_path):
    (tmp_path / "old.txt").write_text("an earlier run")
    args = parser().parse_args(["random", "random", "--deals", "5", "--out", str(tmp_path)])
    with pytest.raises(ValueError, match="not empty"):
        run_tournament(args)
    assert [path.name for path in tmp_path.iterdir()] == ["old.txt"]
