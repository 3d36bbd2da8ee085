"""Whole games under each table variant with the heuristic, the random agent and a small PIMC at
the seats, through BatchedEnv: every decision legal, every game to its end, payoffs zero-sum."""

import numpy as np
import pytest

from agents import HeuristicAgent, PIMCAgent, RandomAgent, make_agent
from briscola_env import BatchedEnv
from briscola_env.engine import Phase
from briscola_env.rules import RulesConfig, preset

VARIANTS = {
    "al_buio": preset("al_buio"),
    "monte": preset("monte"),
    "four_players": preset("four_players"),
    "monte_al_buio_no_self_call": RulesConfig(monte=True, blind_first_trick=True, allow_self_call=False),
}


def play(rules, agents, seating: np.ndarray, seed: int = 0):
    """Play ``len(seating)`` games, ``agents[seating[g, s]]`` at seat ``s``; the final state and the phases seen."""
    env = BatchedEnv(len(seating), rules, seed=seed, auto_reset=False)
    out = env.reset()
    games, phases = np.arange(len(seating)), set()
    while not env.state.terminated.all():
        live = ~env.state.terminated
        phases |= set(env.state.phase[live].tolist())
        who = seating[games, out.seat]
        actions = np.full(len(seating), -1, dtype=np.int64)
        for i, agent in enumerate(agents):
            mine = np.flatnonzero(live & (who == i))
            if mine.size:
                actions[mine] = agent.act(out.obs[mine], out.mask[mine])
                assert out.mask[mine, actions[mine]].all(), f"{agent!r} chose an illegal action"
        out = env.step(actions)
    return env.state, phases


@pytest.mark.parametrize("name", list(VARIANTS))
def test_heuristic_random_and_pimc_play_whole_games(name):
    rules = VARIANTS[name]
    seats = rules.table_shape.seats
    agents = [HeuristicAgent(rules), RandomAgent(seed=1), PIMCAgent(rules, worlds=2, seed=2)]
    seating = np.random.default_rng(0).integers(0, len(agents), (24, seats))
    state, phases = play(rules, agents, seating)
    assert state.terminated.all() and state.rewards.shape == (24, seats)
    assert np.allclose(state.rewards.sum(axis=1), 0, atol=1e-5)
    assert {Phase.AUCTION, Phase.CALL, Phase.PLAY} <= phases
    assert (Phase.DISCARD in phases) == rules.monte


@pytest.mark.parametrize("name", ["monte", "four_players"])
def test_the_heuristic_beats_random_under_the_variant(name):
    """Four (or three) heuristic seats against random ones: the heuristic's seats earn more, on average."""
    rules = VARIANTS[name]
    seats = rules.table_shape.seats
    seating = np.tile(np.arange(seats) % 2, (200, 1))  # seats 0, 2, (4): heuristic; 1, 3: random
    state, _ = play(rules, [HeuristicAgent(rules), RandomAgent(seed=5)], seating, seed=7)
    heuristic = state.rewards[:, ::2].sum() / state.rewards[:, ::2].size
    random_ = state.rewards[:, 1::2].sum() / state.rewards[:, 1::2].size
    assert heuristic > random_


def test_agent_specs_take_the_variant_rules():
    agent = make_agent("pimc:worlds=2,rollout=random", seed=0, rules=preset("monte"))
    assert agent.rules.monte and agent.rollout.name == "random"


def test_the_heuristic_discards_points_outside_its_best_suit():
    rules = preset("monte")
    agent = HeuristicAgent(rules)
    env = BatchedEnv(256, rules, seed=4)
    out = env.reset()
    checked = 0
    for _ in range(40):
        discarding = np.flatnonzero(env.state.phase == Phase.DISCARD)
        if discarding.size:
            choice = agent.act(out.obs[discarding], out.mask[discarding]) - 111
            hand = agent.spec.view(out.obs[discarding], "hand").astype(bool)
            points = agent.points
            in_suit = np.arange(40) // 10 == np.arange(4)[:, None]  # (4, 40)
            best = (hand.astype(int) @ in_suit.T * 100 + (hand * points) @ in_suit.T).argmax(axis=1)  # its best suit
            outside = hand & ~in_suit[best]
            most = np.where(outside.any(axis=1), np.where(outside, points, -1).max(axis=1), -1)
            rows = outside.any(axis=1)
            assert (points[choice[rows]] == most[rows]).all()
            checked += int(rows.sum())
        out = env.step(agent.act(out.obs, out.mask))
    assert checked > 100
