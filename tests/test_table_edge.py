"""The mixed-table edge (evaluation.table_edge, evaluation.duplicate.evaluate_table, briscola evaluate):
exact antisymmetry, zero against an agent that plays alike, the k = 1 and k = 4 slices against the
one-against-four edges, the balanced subsets of --tables, and what the command writes and prints."""

import json
from itertools import combinations

import numpy as np
import pytest

from agents import Agent, HeuristicAgent, RandomAgent
from briscola_env import preset, records
from briscola_env.cards import NUM_SEATS
from briscola_cli.main import main
from evaluation.duplicate import (GAMES_PER_DEAL, OneSidedResult, TableResult, duplicate_layout, evaluate_pair,
                                  evaluate_table, games_per_deal, round_robin)
from evaluation.table_edge import a_seats_of_mixed_tables, check_tables, two_seat_sides


def other_heuristic() -> HeuristicAgent:
    """A second deterministic agent that plays differently from the default heuristic."""
    return HeuristicAgent(bid_base=20, take_from=5)


class FirstLegal(Agent):
    """Deterministic: always the lowest legal action id."""

    def act(self, obs, mask):
        return mask.argmax(axis=1)


class MustNotPlay(Agent):
    def act(self, obs, mask):
        raise AssertionError("a game was played before the arguments were checked")


def mirrored(ci):
    return (-ci[1], -ci[0])


@pytest.mark.parametrize("tables", [None, 20])
@pytest.mark.parametrize("rules", ["standard", "equal_partner"])  # equal_partner: payoffs of -4/3, not dyadic
def test_the_table_edge_of_b_over_a_is_exactly_minus_that_of_a_over_b(tables, rules):
    ab = evaluate_table(HeuristicAgent(), other_heuristic(), 24, seed=3, rules=preset(rules), tables=tables, chunk=7)
    ba = evaluate_table(other_heuristic(), HeuristicAgent(), 24, seed=3, rules=preset(rules), tables=tables, chunk=7)
    assert ab.edge_a == ba.edge_b and ab.edge_b == ba.edge_a  # the same games, seen from the other side
    assert ab.table_edge != 0 and ab.table_edge == -ba.table_edge
    assert np.array_equal(ab.table.per_deal, -ba.table.per_deal)
    assert ab.table_edge_ci == mirrored(ba.table_edge_ci)
    for mine, theirs in zip(ab.table_edge_by_k, ba.table_edge_by_k[::-1]):  # k copies of A: 5 - k of B
        assert (mine.k, mine.tables) == (NUM_SEATS - theirs.k, theirs.tables)
        assert mine.edge == -theirs.edge and mine.edge_ci == mirrored(theirs.edge_ci)
        assert mine.seat_gain == -theirs.seat_gain and mine.seat_gain_ci == mirrored(theirs.seat_gain_ci)
        assert np.array_equal(mine.per_deal_edge, -theirs.per_deal_edge)


@pytest.mark.parametrize("tables", [None, 20])
def test_the_antisymmetry_and_the_zero_are_exact_for_agents_that_draw_random_numbers(tables):
    """The agents are seeded by their role in each group of games, not by their order in the call: the
    two evaluations play the same games, and two instances of one stochastic agent the same moves."""
    def noisy():
        return HeuristicAgent(noise=0.5)

    ab = evaluate_table(RandomAgent(), noisy(), 12, seed=6, tables=tables, chunk=5)
    ba = evaluate_table(noisy(), RandomAgent(), 12, seed=6, tables=tables, chunk=5)
    assert ab.edge_a == ba.edge_b and ab.edge_b == ba.edge_a
    assert ab.table_edge != 0 and ab.table_edge == -ba.table_edge and ab.table_edge_ci == mirrored(ba.table_edge_ci)
    assert np.array_equal(ab.table.per_deal, -ba.table.per_deal)
    for mine, theirs in zip(ab.table_edge_by_k, ba.table_edge_by_k[::-1]):
        assert mine.edge == -theirs.edge and mine.seat_gain == -theirs.seat_gain
    same = evaluate_table(RandomAgent(seed=1), RandomAgent(seed=2), 12, seed=6, tables=tables, chunk=5)
    assert same.table_edge == 0 and same.table_edge_ci == (0.0, 0.0) and not same.table.per_deal.any()
    assert same.per_seat_a.any()  # a random agent alone still plays other cards than the one it replaced


@pytest.mark.parametrize("tables", [None, 20])
@pytest.mark.parametrize("rules", ["standard", "equal_partner"])
def test_an_agent_against_one_that_plays_as_it_does_scores_exactly_zero(tables, rules):
    result = evaluate_table(HeuristicAgent(), HeuristicAgent(), 20, seed=8, rules=preset(rules), tables=tables)
    assert result.table_edge == 0 and result.table_edge_ci == (0.0, 0.0)
    assert not result.table.per_deal.any()
    for k1, k4 in [(0, 3), (1, 2)]:
        assert result.table_edge_by_k[k1].edge == -result.table_edge_by_k[k4].edge


def test_the_slices_k_1_and_k_4_are_the_one_against_four_edges_on_the_same_games():
    """``seat_gain`` at k = 1 is edge_a itself, at k = 4 minus edge_b; in the headline's units, on a
    zero-sum payoff table, the slice is 5 / (5 - m) times it (m: the smaller side's seats)."""
    table = evaluate_table(HeuristicAgent(), RandomAgent(), 40, seed=11, chunk=16)
    pair = evaluate_pair(HeuristicAgent(), RandomAgent(), 40, seed=11, chunk=16)
    measured_before = {key: value for key, value in table.as_dict().items() if not key.startswith("table")}
    assert measured_before == {key: value for key, value in pair.as_dict().items() if not key.startswith("table")}
    assert np.array_equal(table.games.rewards, pair.games.rewards)  # the twelve games a deal, unchanged
    one, two, three, four = table.table_edge_by_k
    assert one.seat_gain == pair.edge_a and four.seat_gain == -pair.edge_b
    assert np.array_equal(one.per_deal_seat_gain, pair.per_seat_a.mean(axis=1))
    assert np.array_equal(four.per_deal_seat_gain, -pair.per_seat_b.mean(axis=1))
    for piece, smaller_side in [(one, 1), (two, 2), (three, 2), (four, 1)]:
        assert np.allclose(piece.per_deal_edge, NUM_SEATS / (NUM_SEATS - smaller_side) * piece.per_deal_seat_gain,
                           rtol=1e-12, atol=1e-12)
    assert one.edge == pytest.approx(1.25 * pair.edge_a, abs=1e-12)
    weighted = (5 * one.per_deal_edge + 10 * two.per_deal_edge + 10 * three.per_deal_edge + 5 * four.per_deal_edge)
    assert np.allclose(table.table.per_deal, weighted / 30, rtol=1e-12, atol=1e-12)


def seatings_and_payoffs(result: TableResult):
    """Per deal, every game played with its seating (the agents' names) and payoffs, read back from
    the game records, the tables with two or three copies of A after the twelve duplicate games."""
    games = list(result.records()) + list(result.mixed_records())
    every = len(games) // result.deals
    assert every == GAMES_PER_DEAL + result.mixed_games // result.deals
    twelve = [games[d * GAMES_PER_DEAL:(d + 1) * GAMES_PER_DEAL] for d in range(result.deals)]
    mixed_per_deal = result.mixed_games // result.deals
    mixed = games[result.deals * GAMES_PER_DEAL:]
    return [twelve[d] + mixed[d * mixed_per_deal:(d + 1) * mixed_per_deal] for d in range(result.deals)]


def test_the_table_edge_is_the_mean_over_every_seating_of_a_seats_minus_b_seats():
    """Recomputed the plain way from the game records: each deal plays each of the 30 seatings with both
    agents present once, and the edge is the mean over them of A's seats' mean payoff minus B's."""
    result = evaluate_table(HeuristicAgent(), RandomAgent(), 12, seed=5, chunk=5)
    names = (result.a, result.b)
    every_seating = {seats for k in range(1, NUM_SEATS) for seats in combinations(range(NUM_SEATS), k)}
    per_deal = []
    for games in seatings_and_payoffs(result):
        assert records.replay(games).rewards.tolist() == [g["outcome"]["payoffs"] for g in games]
        edges, seen = [], []
        for game in games:
            a_seats = tuple(s for s in range(NUM_SEATS) if game["agents"][s] == names[0])
            if 0 < len(a_seats) < NUM_SEATS:
                pay = np.array(game["outcome"]["payoffs"])
                a_here = np.isin(np.arange(NUM_SEATS), a_seats)
                edges.append(pay[a_here].mean() - pay[~a_here].mean())
                seen.append(a_seats)
        assert sorted(seen) == sorted(every_seating)  # each seating once
        per_deal.append(np.mean(edges))
    assert np.allclose(result.table.per_deal, per_deal, rtol=0, atol=1e-6)  # the records' payoffs are float32
    assert result.table_edge == pytest.approx(np.mean(per_deal), abs=1e-6)


def test_twenty_tables_are_a_seeded_balanced_subset_kept_in_complementary_pairs():
    sides = two_seat_sides(400, 7, 20)
    assert sides.shape == (400, 5, 2)
    a_here = a_seats_of_mixed_tables(sides)  # (deals, pairs, 2, 5)
    assert (a_here[:, :, 0].sum(axis=2) == 2).all() and (a_here[:, :, 1] == ~a_here[:, :, 0]).all()
    assert (a_here[:, :, 0].sum(axis=1) == 2).all()  # k = 2: A at every seat twice a deal
    assert (a_here[:, :, 1].sum(axis=1) == 3).all()  # k = 3: three times
    assert all(len({tuple(s) for s in deal}) == 5 for deal in sides)  # five different sides a deal
    assert np.array_equal(sides, two_seat_sides(400, 7, 20))  # seeded
    assert not np.array_equal(sides, two_seat_sides(400, 8, 20))
    assert len({deal.tobytes() for deal in sides}) == 12  # every one of the 12 five-cycles of the seats is drawn
    drawn = np.zeros((NUM_SEATS, NUM_SEATS))
    np.add.at(drawn, (sides[..., 0], sides[..., 1]), 1)
    assert np.allclose(drawn[np.triu_indices(NUM_SEATS, 1)] / 400, 0.5, atol=0.08)  # each side in half the deals
    full = two_seat_sides(3, 7, None)
    assert (full == np.array(list(combinations(range(NUM_SEATS), 2)))).all()
    result = evaluate_table(HeuristicAgent(), RandomAgent(), 6, seed=7, tables=20)
    assert result.table.tables == 20 and [s.tables for s in result.table_edge_by_k] == [5, 5, 5, 5]
    assert result.mixed_games == 6 * 10 and games_per_deal(20) == 22 and games_per_deal() == 32
    seating = result.mixed_seating.reshape(6, 5, 2, NUM_SEATS)
    assert np.array_equal(seating == 0, a_seats_of_mixed_tables(two_seat_sides(6, 7, 20)))
    again = evaluate_table(HeuristicAgent(), RandomAgent(), 6, seed=7, tables=20)
    assert again.as_dict() == result.as_dict()


@pytest.mark.parametrize("tables", [0, 10, 25, 31, 2.0, True])
def test_table_counts_that_break_the_balance_are_refused_before_a_game(tables):
    with pytest.raises(ValueError, match="tables must be 30 .* or 20 .*equally often within each k"):
        evaluate_table(MustNotPlay(), MustNotPlay(), 3, tables=tables)
    assert check_tables(None) == 30 and check_tables(20) == 20


def test_briscola_evaluate_refuses_tables_it_cannot_balance_and_tables_one_sided(capsys, tmp_path):
    for argv, words in [(["--tables", "25"], "tables must be 30"),
                        (["--tables", "20", "--one-sided"], "--one-sided plays none"),
                        (["--tables", "x"], "invalid int value")]:
        with pytest.raises(SystemExit):
            main(["evaluate", "heuristic", "random", "--deals", "2", "--out", str(tmp_path / "run"), *argv])
        assert words in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # refused before the run folder was claimed


def test_briscola_evaluate_prints_and_writes_the_table_edge(capsys, tmp_path):
    out = tmp_path / "run"
    assert main(["evaluate", "heuristic", "random", "--deals", "3", "--tables", "20", "--record", "--out",
                 str(out)]) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / "results.json").read_text())
    assert record["tables"] == 20
    [pair] = record["pairs"]
    assert pair["tables"] == 20 and len(pair["table_edge_ci"]) == 2
    assert pair["table_edge_ci"][0] <= pair["table_edge"] <= pair["table_edge_ci"][1]
    assert [s["k"] for s in pair["table_edge_by_k"]] == [1, 2, 3, 4]
    for piece in pair["table_edge_by_k"]:
        assert set(piece) == {"k", "tables", "edge", "edge_ci", "seat_gain", "seat_gain_ci"}
    assert pair["table_edge_by_k"][0]["seat_gain"] == pair["edge_a"]
    header, rule, row = printed.splitlines()[:3]
    assert header.startswith("| A | B | deals | tables per deal | A's table edge per hand (95% CI) | k = 1: ")
    ci = pair["table_edge_ci"]
    assert row.startswith(f"| heuristic | random | 3 | 20 | {pair['table_edge']:+.3f} ({ci[0]:+.3f}, {ci[1]:+.3f}) | "
                          f"{pair['edge_a']:+.3f} ")
    assert "A's table edge at k = 1: 1 A + 4 B" in printed
    assert (out / "results.md").read_text().strip() in printed
    games = list(records.read(out / "games.jsonl"))
    mixed = list(records.read(out / "mixed_games.jsonl"))
    assert len(games) == 3 * GAMES_PER_DEAL and len(mixed) == 3 * 10
    assert records.replay(mixed).rewards.tolist() == [g["outcome"]["payoffs"] for g in mixed]
    assert {sum(name == "heuristic" for name in g["agents"]) for g in mixed} == {2, 3}


def test_round_robins_and_one_sided_runs_say_what_they_measured(capsys, tmp_path):
    results = round_robin([HeuristicAgent(), RandomAgent(), FirstLegal()], ["h", "r", "f"], 3, seed=2)
    assert [(r.a, r.b) for r in results] == [("h", "r"), ("h", "f"), ("r", "f")]
    assert all(isinstance(r, TableResult) and r.table.tables == 30 for r in results)
    assert main(["evaluate", "heuristic", "random", "--deals", "2", "--one-sided", "--out", str(tmp_path / "one")]) == 0
    [pair] = json.loads((tmp_path / "one" / "results.json").read_text())["pairs"]
    assert pair["table_edge"] is None and pair["table_edge_by_k"] is None
    assert pair["table_edge_note"] == OneSidedResult.TABLE_EDGE_NOTE
    printed = capsys.readouterr().out
    assert printed.startswith("| A | B | deals | A's edge per hand (95% CI) |")  # the one-sided table, as before
    assert evaluate_pair(HeuristicAgent(), RandomAgent(), 2).as_dict()["table_edge"] is None


def test_progress_counts_every_game_of_the_pair():
    seen = []
    evaluate_table(HeuristicAgent(), RandomAgent(), 9, seed=1, chunk=4, progress=seen.append)
    assert seen == [4 * 32, 8 * 32, 9 * 32] and games_per_deal() == 32  # each chunk plays all its deals' games
    assert len(duplicate_layout(9)) == 9 * GAMES_PER_DEAL
