"""The table variants (issue 19) beyond the engine: evaluation, the PPO network and the trainer under
al_buio, monte and four_players. Tiny training runs and ``briscola evaluate`` under each; the table
edge at four seats, exactly antisymmetric; a network refused at another table than its own; the
statistics, sessions and single-seat envs sized by the rules."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from agents import HeuristicAgent, RandomAgent, SingleSeatEnv, make_agent  # noqa: E402
from agents.play import play_games  # noqa: E402
from agents.ppo import PolicyValueNet, PPOAgent, load_network, save_checkpoint  # noqa: E402
from briscola_cli.main import main  # noqa: E402
from briscola_env import preset, records  # noqa: E402
from briscola_env.engine import State  # noqa: E402
from briscola_env.observation import SPEC, observation_spec  # noqa: E402
from briscola_env.rules import RulesConfig  # noqa: E402
from evaluation.duplicate import evaluate_table, games_per_deal  # noqa: E402
from evaluation.session import play_sessions  # noqa: E402
from evaluation.stats import agent_stats  # noqa: E402
from evaluation.table_edge import check_tables  # noqa: E402
from training.trajectories import Trajectories  # noqa: E402

pytestmark = pytest.mark.slow  # training runs under each variant

TINY = str(ROOT / "configs" / "tiny.yaml")
VARIANTS = ("al_buio", "monte", "four_players")
SEATS = {"al_buio": 5, "monte": 5, "four_players": 4}
TABLES = {"al_buio": 30, "monte": 30, "four_players": 14}  # every seating of A and B at the rules' table


def mirrored(ci):
    return (-ci[1], -ci[0])


@pytest.mark.parametrize("rules", VARIANTS)
def test_a_tiny_training_run_under_each_variant_trains_and_writes_its_final_evaluation(tmp_path, rules, capsys):
    train.main(["--config", TINY, f"run_dir={tmp_path}", f"rules={rules}", "belief_coef=0.5", "record_games=true"])
    run = tmp_path / "tiny-1"
    assert "| A | B | deals |" in capsys.readouterr().out
    summary = (run / "summary.md").read_text()
    assert "| ppo:" in summary and "| random |" in summary and "| heuristic |" in summary
    assert yaml.safe_load((run / "config.yaml").read_text())["rules"] == preset(rules).to_dict()  # every field
    payload = torch.load(run / "checkpoint.pt", weights_only=True)
    assert payload["config"]["rules"] == preset(rules).to_dict()
    spec = observation_spec(preset(rules))
    assert payload["model"]["trunk.0.weight"].shape[1] == spec.size
    assert payload["model"]["belief.weight"].shape[0] == SEATS[rules]
    games = list(records.read(run / "games.jsonl"))  # the final evaluation's games, under the run's rules
    assert len(games) == 2 * 2 * (1 + SEATS[rules]) * 4
    assert all(RulesConfig.from_dict(game["rules"]) == preset(rules) for game in games)
    assert records.replay(games[:3]).terminated.all()
    agent = make_agent(f"ppo:{run / 'checkpoint.pt'}", rules=preset(rules))
    assert agent.net.rules == preset(rules)


def test_a_resumed_four_player_run_matches_an_uninterrupted_one(tmp_path):
    extra = ["rules=four_players", "belief_coef=0.5", "opponent_share=0.8"]
    train.main(["--config", TINY, f"run_dir={tmp_path / 'whole'}", *extra])
    train.main(["--config", TINY, f"run_dir={tmp_path / 'split'}", "stop_after=5", *extra])
    train.main(["--resume", str(tmp_path / "split" / "tiny-1")])
    whole, split = (torch.load(tmp_path / part / "tiny-1" / "checkpoint.pt", weights_only=True)["model"]
                    for part in ("whole", "split"))
    assert all(torch.equal(whole[k], split[k]) for k in whole)


@pytest.mark.parametrize("rules", VARIANTS)
def test_briscola_evaluate_heuristic_random_under_each_variant(tmp_path, rules, capsys):
    out = tmp_path / "eval"
    assert main(["evaluate", "heuristic", "random", "--rules", rules, "--deals", "4", "--out", str(out),
                 "--record"]) == 0
    others = SEATS[rules] - 1
    assert f"alone among {others} B's" in capsys.readouterr().out
    saved = json.loads((out / "results.json").read_text())
    [pair] = saved["pairs"]
    assert saved["rules"] == preset(rules).to_dict()  # every field
    assert saved["tables"] == TABLES[rules] and pair["tables"] == TABLES[rules]
    assert [s["k"] for s in pair["table_edge_by_k"]] == list(range(1, SEATS[rules]))
    assert np.isfinite(pair["table_edge"]) and pair["stats_a"]["hands"] == 4 * SEATS[rules]
    games = list(records.read(out / "games.jsonl")) + list(records.read(out / "mixed_games.jsonl"))
    assert len(games) == 4 * games_per_deal(None, SEATS[rules])
    assert all(len(game["agents"]) == SEATS[rules] for game in games) and records.replay(games[::7]).terminated.all()


def test_at_four_seats_the_table_edge_is_exactly_antisymmetric_and_its_slices_fit_the_lone_edges():
    rules = preset("four_players")
    other = HeuristicAgent(rules, bid_base=20, take_from=5)
    ab = evaluate_table(HeuristicAgent(rules), other, 16, seed=3, rules=rules, chunk=5)
    ba = evaluate_table(other, HeuristicAgent(rules), 16, seed=3, rules=rules, chunk=5)
    assert ab.table.tables == 14 and [(s.k, s.tables) for s in ab.table_edge_by_k] == [(1, 4), (2, 6), (3, 4)]
    assert ab.table_edge != 0 and ab.table_edge == -ba.table_edge and ab.table_edge_ci == mirrored(ba.table_edge_ci)
    assert np.array_equal(ab.table.per_deal, -ba.table.per_deal)
    assert ab.edge_a == ba.edge_b and ab.edge_b == ba.edge_a
    for mine, theirs in zip(ab.table_edge_by_k, ba.table_edge_by_k[::-1]):  # k copies of A: 4 - k of B
        assert mine.k == 4 - theirs.k and mine.tables == theirs.tables
        assert mine.edge == -theirs.edge and mine.seat_gain == -theirs.seat_gain
        assert mine.edge_ci == mirrored(theirs.edge_ci)
    # Zero-sum payoffs: a side of m seats averaging a leaves -m a / (4 - m) to the other, so edge_k = 4 / (4 - m) gain.
    one, two, three = ab.table_edge_by_k
    assert one.seat_gain == ab.edge_a and three.seat_gain == -ab.edge_b
    assert np.allclose(one.per_deal_edge, 4 / 3 * ab.per_seat_a.mean(axis=1))
    assert np.allclose(two.per_deal_edge, 2 * two.per_deal_seat_gain)
    assert np.isclose(ab.table_edge, (4 * (one.edge + three.edge) + 6 * two.edge) / 14)
    same = evaluate_table(HeuristicAgent(rules), HeuristicAgent(rules), 6, seed=4, rules=rules)
    assert same.table_edge == 0 and not same.table.per_deal.any()


def test_the_subset_of_twenty_tables_is_refused_at_four_seats_before_any_game(capsys):
    assert check_tables(None, 4) == 14 and games_per_deal(None, 4) == 16 and check_tables(20) == 20
    with pytest.raises(ValueError, match="tables must be 14 at a table of 4"):
        check_tables(20, 4)
    with pytest.raises(SystemExit):
        main(["evaluate", "heuristic", "random", "--rules", "four_players", "--deals", "2", "--tables", "20"])
    assert "a design of five seats" in capsys.readouterr().err


@pytest.mark.parametrize("trained, played", [("monte", "standard"), ("standard", "monte"),
                                             ("four_players", "standard"), ("monte", "four_players")])
def test_a_network_is_refused_at_another_table_than_the_one_it_was_trained_at(tmp_path, trained, played):
    path = tmp_path / "net.pt"
    save_checkpoint(path, PolicyValueNet([8], belief=True, rules=preset(trained)), config={"rules": trained})
    with pytest.raises(ValueError, match=f"trained at another table.*that of the {trained} rules"):
        PPOAgent(path, rules=preset(played))
    with pytest.raises(ValueError, match="trained at another table"):
        make_agent(f"ppo:{path}", rules=preset(played))
    assert load_network(path, preset(trained)).belief.out_features == preset(trained).table_shape.seats


def test_the_standard_checkpoints_load_for_rules_of_their_table_only():
    for name in ("strong", "distilled"):
        path = ROOT / "checkpoints" / f"{name}.pt"
        assert load_network(path).trunk[0].in_features == SPEC.size
        assert load_network(path, preset("al_buio")).rules == preset("al_buio")  # the same table's layout
        with pytest.raises(ValueError, match="trained at another table"):
            load_network(path, preset("four_players"))


def _with_tricks(state: State, caller_tricks: int, team_points: int) -> State:
    """``state`` (one finished hand with a caller and a partner) with the caller's seat holding ``caller_tricks``
    of the tricks and his side ``team_points``, every other trick to a defender."""
    arrays = state.to_arrays()
    caller, partner = int(state.caller[0]), int(state.hidden.partner[0])
    defender = min(set(range(state.tables.shape.seats)) - {caller, partner})
    arrays["tricks_won"][0] = 0
    arrays["tricks_won"][0, caller] = caller_tricks
    arrays["tricks_won"][0, defender] = state.tables.shape.tricks - caller_tricks
    arrays["team_points"][0] = team_points
    return State.from_arrays(state.rules, arrays)


@pytest.mark.parametrize("rules, every_trick", [("monte", 7), ("four_players", 10), ("standard", 8)])
def test_a_cappotto_of_tricks_is_every_trick_of_the_rules_hand(rules, every_trick):
    rules = preset(rules)
    seeds = np.arange(40)
    state, _ = play_games([HeuristicAgent(rules)], np.zeros((len(seeds), rules.table_shape.seats), int), seeds, rules)
    state = state.take(np.flatnonzero((state.caller >= 0) & (state.hidden.partner != state.caller))[:1])
    caller = state.caller[:1].astype(np.int64)
    dealt = np.zeros((1, 40), bool)

    def cappotto_rate(tricks: int) -> float:
        hands = _with_tricks(state, tricks, team_points=100)
        return agent_stats(hands, caller, np.zeros(1, int), np.random.default_rng(0), dealt).cappotto_rate

    assert cappotto_rate(every_trick) == 1.0  # every trick of a hand of these rules, not of eight
    assert cappotto_rate(every_trick - 1) == 0.0
    assert cappotto_rate(0) == 0.0  # the defenders took every trick: the caller's side did not
    if every_trick > 8:
        assert cappotto_rate(8) == 0.0  # eight of ten is no cappotto


def test_four_player_tables_seat_four_and_refuse_five():
    rules = preset("four_players")
    result = play_sessions([HeuristicAgent(rules), RandomAgent()], np.array([[0, 1, 0, 1]]), hands=3, rules=rules)
    assert result.totals.shape == (1, 4) and result.hands.tolist() == [3]
    assert np.isclose(result.totals.sum(), 0)  # the table for four is zero-sum
    with pytest.raises(ValueError, match=r"players must be \(sessions, 4\).*nobody sits out"):
        play_sessions([RandomAgent()], np.zeros((1, 5), int), hands=1, rules=rules)
    with pytest.raises(ValueError, match=r"seat_agents must be \(2, 4\)"):
        play_games([RandomAgent()], np.zeros((2, 5), int), np.arange(2), rules)


def test_the_single_seat_env_at_four_seats_has_three_opponents_and_the_four_player_view():
    env = SingleSeatEnv(opponents=["heuristic", "random", "heuristic"], rules="four_players")
    assert env.observation_space.shape == (observation_spec(preset("four_players")).size,)
    obs, info = env.reset(seed=3)
    done, rng = False, np.random.default_rng(0)
    while not done:
        assert env.observation_space.contains(obs) and 0 <= info["seat"] < 4
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    with pytest.raises(ValueError, match="a list of 3 of them"):
        SingleSeatEnv(opponents=["heuristic"] * 4, rules="four_players")
    with pytest.raises(ValueError, match="seat 0..3"):
        SingleSeatEnv(seat=4, rules="four_players")


def test_the_trajectory_storage_keeps_monte_views_whole():
    spec = observation_spec(preset("monte"))
    rng = np.random.default_rng(0)
    storage, restored = Trajectories(64, 4, spec), Trajectories(64, 4, spec)
    views = rng.integers(0, spec.high.astype(np.int64) + 1, size=(6, spec.size)).astype(np.uint8)
    masks = rng.random((6, storage.mask.shape[1])) < 0.3
    storage.add(np.arange(6) % 4, np.arange(6) % 5, views, masks, np.zeros(6, int), np.zeros(6), np.zeros(6),
                np.full(6, -1), np.full(6, -1))
    restored.load_state_dict(storage.state_dict())
    assert np.array_equal(restored.obs[:6], views) and np.array_equal(restored.mask[:6], masks)


@pytest.mark.parametrize("rules_name", ["monte", "four_players"])
def test_the_belief_model_refuses_a_table_whose_view_it_cannot_read(tmp_path, capsys, rules_name):
    with pytest.raises(SystemExit):
        main(["belief", "heuristic", "--games", "20", "--rules", rules_name, "--out", str(tmp_path / "b.pt")])
    assert "cannot learn under monte or four players" in capsys.readouterr().err and not (tmp_path / "b.pt").exists()


def test_sweeps_and_exploits_run_under_a_variant(tmp_path):
    tiny = str(ROOT / "configs" / "tiny.yaml")
    small = ["rules=monte", "total_decisions=2048", "eval_every=8", "torch_threads=1", f"run_dir={tmp_path}"]
    train.main(["--config", tiny, "--seeds", "1,2", "--eval-deals", "2", *small])
    train.main(["--config", tiny, "--exploit", "random", "--decisions", "2048", "--eval-deals", "2", *small])
    assert (tmp_path / "tiny-sweep.json").is_file() and (tmp_path / "exploit-random-1" / "exploit.json").is_file()
