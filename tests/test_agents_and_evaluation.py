"""Agents (interface, random agent, spec strings, the AEC adapter) and the
duplicate evaluation harness's arithmetic."""

import json

import numpy as np
import pytest

import briscola_env
from agents import AECPolicy, Agent, HeuristicAgent, RandomAgent, make_agent
from briscola_env.actions import NUM_ACTIONS
from briscola_env.cards import NUM_SEATS
from evaluation import evaluate_pair, play_games
from briscola_cli.main import main
from evaluation.bootstrap import bootstrap_ci
from evaluation.duplicate import A, B, GAMES_PER_DEAL, duplicate_layout


class FirstLegal(Agent):
    """Deterministic: always the lowest legal action id."""

    name = "first"

    def act(self, obs, mask):
        return mask.argmax(axis=1)


def test_random_agent_is_uniform_over_legal_actions_and_seeded():
    mask = np.zeros((20000, NUM_ACTIONS), dtype=bool)
    mask[:, [0, 7, 111, 150]] = True
    actions = RandomAgent(seed=1).act(np.zeros((20000, 4)), mask)
    values, counts = np.unique(actions, return_counts=True)
    assert values.tolist() == [0, 7, 111, 150]
    assert np.all(np.abs(counts / 20000 - 0.25) < 0.02)
    again = RandomAgent(seed=1).act(np.zeros((20000, 4)), mask)
    assert np.array_equal(actions, again)
    with pytest.raises(ValueError, match="legal action"):
        RandomAgent().act(np.zeros((1, 4)), np.zeros((1, NUM_ACTIONS), dtype=bool))


def test_agent_specs():
    assert isinstance(make_agent("random"), RandomAgent)
    a, b = make_agent("random:seed=5"), make_agent("random", seed=5)
    mask = np.ones((50, NUM_ACTIONS), dtype=bool)
    assert np.array_equal(a.act(None, mask), b.act(None, mask))
    assert isinstance(make_agent("agents.random_agent:RandomAgent"), RandomAgent)
    for bad, message in [("heuristicx", "unknown agent spec"), ("random:seed", "key=value"),
                         ("random:speed=3", "random:speed=3"), ("agents.random_agent:Nope", "cannot import"),
                         ("briscola_env.rules:RulesConfig", "not a subclass")]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad)


def test_any_agent_plays_in_the_pettingzoo_env():
    env = briscola_env.env()
    env.reset(seed=3)
    policy, steps = AECPolicy(RandomAgent(seed=0)), 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else policy(observation))
        steps += 1
    assert steps > NUM_SEATS and not env.agents


def test_duplicate_layout_puts_each_agent_alone_at_every_seat():
    layout = duplicate_layout(3).reshape(3, 2, 1 + NUM_SEATS, NUM_SEATS)
    assert layout.shape[0] * GAMES_PER_DEAL == 36
    for deal in layout:
        assert (deal[0, 0] == B).all() and (deal[1, 0] == A).all()  # the two reference games
        for seat in range(NUM_SEATS):
            assert deal[0, 1 + seat, seat] == A and (np.delete(deal[0, 1 + seat], seat) == B).all()
            assert deal[1, 1 + seat, seat] == B and (np.delete(deal[1, 1 + seat], seat) == A).all()


def test_play_games_gives_each_seat_its_agent():
    seeds = np.arange(40)
    layout = np.zeros((40, NUM_SEATS), dtype=np.int64)
    layout[:, 2] = 1  # a random player at seat 2 among deterministic ones

    class Counting(RandomAgent):
        decisions = 0

        def act(self, obs, mask):
            Counting.decisions += len(mask)
            return super().act(obs, mask)

    state, actions = play_games([FirstLegal(), Counting(seed=0)], layout, seeds)
    assert state.terminated.all()
    seat_2_decisions = ((state.auction_seats == 2).sum() + (state.caller == 2).sum()
                        + (state.trick_cards >= 0).sum() // NUM_SEATS)  # seat 2 plays one card per trick
    assert Counting.decisions == seat_2_decisions
    assert (actions >= 0).sum() == state.auction_length.sum() + (state.caller >= 0).sum() + 40 * (
        state.caller >= 0).sum()  # every decision of every game is in the history
    replay, _ = play_games([FirstLegal()], np.zeros((40, NUM_SEATS), dtype=np.int64), seeds)
    assert not np.array_equal(state.rewards, replay.rewards)
    with pytest.raises(ValueError, match="seat_agents"):
        play_games([FirstLegal()], layout, seeds)


def test_an_agent_against_copies_of_itself_scores_zero():
    exact = evaluate_pair(FirstLegal(), FirstLegal(), 60, seed=2)
    assert exact.edge_a == 0 and exact.edge_b == 0 and exact.edge_a_ci == (0.0, 0.0)
    noisy = evaluate_pair(RandomAgent(), RandomAgent(), 600, seed=3)
    for edge, (low, high) in [(noisy.edge_a, noisy.edge_a_ci), (noisy.edge_b, noisy.edge_b_ci)]:
        assert low < 0 < high and abs(edge) < 0.4


def test_confidence_intervals_shrink_with_more_deals():
    rng = np.random.default_rng(0)
    values = rng.normal(0.3, 2.0, 4000)
    narrow = bootstrap_ci(values, np.random.default_rng(1))
    wide = bootstrap_ci(values[:250], np.random.default_rng(1))
    assert narrow[0] < 0.3 < narrow[1]
    assert narrow[1] - narrow[0] < (wide[1] - wide[0]) / 2
    small = evaluate_pair(RandomAgent(), FirstLegal(), 60, seed=4)
    large = evaluate_pair(RandomAgent(), FirstLegal(), 480, seed=4)
    width = lambda ci: ci[1] - ci[0]  # noqa: E731
    assert width(large.edge_a_ci) < width(small.edge_a_ci)


def test_evaluate_pair_is_reproducible():
    a = evaluate_pair(RandomAgent(), FirstLegal(), 40, seed=9)
    b = evaluate_pair(RandomAgent(), FirstLegal(), 40, seed=9)
    assert a.as_dict() == b.as_dict()
    with pytest.raises(ValueError, match="deals"):
        evaluate_pair(RandomAgent(), FirstLegal(), 0)


def test_briscola_evaluate_command(tmp_path, capsys):
    assert main(["evaluate", "random", "random:seed=1", "--deals", "30", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "| random | random:seed=1 | 30 |" in printed
    record = json.loads((tmp_path / "results.json").read_text())
    assert record["deals"] == 30 and len(record["pairs"]) == 1
    assert set(record["ratings"]) == {"random", "random:seed=1"}
    assert record["pairs"][0]["stats_a"]["hands"] == 30 * NUM_SEATS
    assert (tmp_path / "results.md").read_text().startswith("| A | B |")
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {"edges.png", "contracts.png", "roles.png"}
    with pytest.raises(SystemExit):
        main(["evaluate", "random"])
    with pytest.raises(SystemExit):
        main(["evaluate", "random", "nosuch"])


def test_statistics_of_the_lone_agent():
    from evaluation.stats import ROLES

    result = evaluate_pair(HeuristicAgent(), RandomAgent(), 80, seed=6)
    for stats in (result.stats_a, result.stats_b):
        assert stats.hands == 80 * NUM_SEATS
        assert stats.mean_payoff_ci[0] < stats.mean_payoff < stats.mean_payoff_ci[1]
        assert abs(sum(stats.role_share.values()) - 1) < 0.05  # void hands have no role
        assert set(stats.role_payoff) == set(ROLES)
    assert result.stats_a.mean_payoff == pytest.approx(result.edge_a + result.games.rewards.reshape(
        80, 12, NUM_SEATS)[:, 0].mean(), abs=1e-4)  # alone = the all-B payoff at his seat + his edge
    assert result.stats_b.auction_win_rate > result.stats_a.auction_win_rate  # random bids wildly


def test_ratings_follow_the_paired_duels():
    from evaluation.report import ratings

    rated = ratings([evaluate_pair(HeuristicAgent(), RandomAgent(), 100, seed=7, names=("h", "r"))])
    assert rated["h"]["mu"] > rated["r"]["mu"]


def test_bid_strength_correlation_tells_a_bidder_that_reads_his_hand():
    result = evaluate_pair(HeuristicAgent(), RandomAgent(), 150, seed=2)
    assert result.stats_a.bid_strength_correlation > 0.3  # the heuristic bids on its hand value
    assert abs(result.stats_b.bid_strength_correlation) < 0.15  # the random agent does not
    assert result.stats_a.mean_top_bid > 0
    passer = evaluate_pair(FirstLegal(), RandomAgent(), 5, seed=2)  # the pass is action 0: it never bids
    assert passer.stats_a.mean_top_bid == 0 and passer.stats_a.bid_strength_correlation is None


def test_one_sided_evaluation_gives_the_same_edge_as_the_full_one_for_deterministic_agents(capsys, tmp_path):
    from evaluation import evaluate_one_sided

    full = evaluate_pair(HeuristicAgent(), FirstLegal(), 40, seed=5, chunk=16)
    half = evaluate_one_sided(HeuristicAgent(), FirstLegal(), 40, seed=5, chunk=16)
    assert half.edge_a == pytest.approx(full.edge_a) and np.allclose(half.per_seat_a, full.per_seat_a)
    assert half.stats_a.as_dict() == full.stats_a.as_dict()
    out = str(tmp_path / "eval")
    assert main(["evaluate", "heuristic", "random", "--deals", "5", "--one-sided", "--out", out]) == 0
    printed = capsys.readouterr().out
    assert "| heuristic | random | 5 |" in printed and "bid vs hand value" in printed
    with pytest.raises(SystemExit):
        main(["evaluate", "heuristic", "random", "random", "--one-sided"])
