"""Sampled worlds (briscola_env.worlds) and the PIMC search agent (agents.pimc).

A sampled world is consistent with a player's view when the engine accepts
the whole public history replayed on it (every action legal) and the replay
shows that player exactly the same observation. Both are checked on
thousands of random positions, in every phase and under the rule variants
that constrain the hidden cards (follow suit, no self-call).
"""

import itertools

import numpy as np
import pytest

from agents import HeuristicAgent, PIMCAgent, make_agent
from briscola_env import BatchedEnv, RulesConfig, engine, preset
from briscola_env import worlds as W
from briscola_env.actions import NUM_ACTIONS
from briscola_env.cards import NUM_CARDS, NUM_SEATS
from briscola_env.observation import SPEC, encode
from evaluation import evaluate_pair

from support import random_positions

CONSTRAINING_RULES = {
    "standard": preset("standard"),
    "follow_suit": RulesConfig(follow_suit=True),
    "follow_suit_last_2": RulesConfig(follow_suit=True, follow_suit_last_k=2),
    "no_self_call": preset("no_self_call"),
    "no_self_call_at_least": RulesConfig(allow_self_call=False, call_rule="at_least"),
    "points_only": preset("points_only"),
    "seven_caller_leads": RulesConfig(ten_card="seven", first_leader="caller"),
}


@pytest.mark.parametrize("name", list(CONSTRAINING_RULES))
@pytest.mark.slow
def test_every_sampled_world_replays_legally_to_the_same_view(name):
    rules = CONSTRAINING_RULES[name]
    rng = np.random.default_rng(1)
    phases, positions = set(), 0
    for obs, state in random_positions(rules):
        me = np.zeros(len(obs), dtype=np.int64)
        public = W.decode(obs, rules)
        deals = W.sample_deals(public, 4, rng)
        for k in range(deals.shape[1]):
            replayed = W.replay(public, deals[:, k])  # raises if a replayed action is illegal
            assert np.array_equal(encode(replayed, me), obs)
            # The world's hands: mine as dealt to me, nobody holds a played card.
            assert np.array_equal(replayed.hidden.hand_bits[:, 0], W.hand_bits(
                np.where(public.hand, 0, -1).astype(np.int8))[:, 0])
        worlds = W.world_states(W.replay(public, deals[:, 0]), public, deals.reshape(-1, NUM_CARDS),
                                np.repeat(np.arange(len(obs)), deals.shape[1]))
        assert np.array_equal(encode(worlds, np.zeros(worlds.batch_size, np.int64)),
                              np.repeat(obs, deals.shape[1], axis=0))
        held = np.bitwise_or.reduce(worlds.hidden.hand_bits, axis=1)
        assert np.array_equal(held, np.repeat(np.bitwise_or.reduce(state.hidden.hand_bits, axis=1), 4))
        phases |= set(state.phase.tolist())
        positions += len(obs)
    assert positions >= 3000 and {0, 1, 2} <= phases


def test_the_checks_catch_a_world_that_ignores_a_void(monkeypatch):
    rules = CONSTRAINING_RULES["follow_suit"]
    monkeypatch.setattr(W, "_voids", lambda public: np.zeros((len(public.dealer), NUM_SEATS, 4), bool))
    failures = 0
    for obs, _ in random_positions(rules, games=32):
        public = W.decode(obs, rules)
        try:
            W.replay(public, W.sample_deals(public, 1, np.random.default_rng(0))[:, 0])
        except ValueError as error:
            assert "illegal action" in str(error)
            failures += 1
    assert failures > 0


def test_sampling_is_uniform_over_the_seats_that_may_hold_a_card():
    # With no constraint on a card, it is in each other seat in proportion to the cards that
    # seat still holds; the called card, with self-calls off, never in the caller's hand.
    for rules in (preset("standard"), preset("no_self_call")):
        for obs, state in random_positions(rules, games=256, steps=30, seed=4):
            pass
        public = W.decode(obs, rules)
        row = int(np.flatnonzero((public.called >= 0) & ~public.hand[np.arange(len(obs)), public.called]
                                 & (public.played_by[np.arange(len(obs)), public.called] < 0))[0])
        one = W.PublicView(**{key: value[row:row + 1] if isinstance(value, np.ndarray) else value
                              for key, value in vars(public).items()})
        deals = W.sample_deals(one, 20_000, np.random.default_rng(2))[0]  # (20000, 40)
        seats = deals[:, public.called[row]]
        need = one.still_held[0].astype(float)
        need[0] = 0
        if not rules.allow_self_call:
            need[public.caller[row]] = 0
        expected = need / need.sum()
        observed = np.bincount(seats, minlength=NUM_SEATS) / len(seats)
        assert np.abs(observed - expected).max() < 0.015, (observed, expected)


def exact_action_values(agent, obs, rules):
    """The exact mean payoff of each legal action over every deal of the unseen cards (heuristic
    rollouts, which are deterministic). Under the standard rules every such deal is consistent:
    the engine replays the history on all of them."""
    public = W.decode(obs[None], rules)
    unseen = np.flatnonzero(public.unseen[0])
    need = public.still_held[0]
    labels = [s for s in range(1, NUM_SEATS) for _ in range(need[s])]
    deals = np.where(public.hand, 0, public.played_by).astype(np.int8)  # (1, 40), -1 where unseen
    every = np.array(sorted(set(itertools.permutations(labels))), dtype=np.int8)
    deals = np.repeat(deals, len(every), axis=0)
    deals[:, unseen] = every
    many = W.PublicView(**{key: np.repeat(value, len(deals), axis=0) if isinstance(value, np.ndarray) else value
                           for key, value in vars(public).items()})
    state = W.replay(many, deals)  # raises if any deal were inconsistent
    values = {}
    for action in np.flatnonzero(state.legal_action_mask[0]):
        games = state.copy()
        engine.step_inplace(games, np.full(len(deals), action))
        values[int(action)] = float(agent.play_out(games)[:, 0].mean())
    return values


def test_with_many_worlds_pimc_picks_an_action_that_is_clearly_best():
    rules = preset("standard")
    agent = PIMCAgent(rules, worlds=400, seed=0)
    checked = 0
    env = BatchedEnv(64, rules, seed=5)
    out, heuristic = env.reset(), HeuristicAgent(rules)
    while checked < 6 and not env.state.terminated.all():
        late = np.flatnonzero((env.state.trick_index >= 6) & (out.mask.sum(axis=1) > 1))
        for g in late[:4]:
            values = exact_action_values(agent, out.obs[g], rules)
            best, second = sorted(values.values(), reverse=True)[:2]
            if best - second >= 1.0:
                choice = agent.act(out.obs[g:g + 1], out.mask[g:g + 1])[0]
                assert values[int(choice)] == best, (values, choice)
                checked += 1
        out = env.step(heuristic.act(out.obs, out.mask))
    assert checked >= 3


def test_pimc_decides_in_every_phase_with_legal_actions_and_is_seeded():
    rules = preset("standard")
    rows = {0: [], 1: [], 2: []}
    for obs, state in random_positions(rules, games=48, steps=45, seed=2):
        for phase in rows:
            picked = np.flatnonzero(state.phase == phase)[:2]
            rows[phase] += [(obs[g], state.legal_action_mask[g]) for g in picked]
    assert all(len(found) >= 4 for found in rows.values())
    obs = np.array([o for found in rows.values() for o, _ in found[:6]])
    masks = np.array([m for found in rows.values() for _, m in found[:6]])
    first = PIMCAgent(rules, worlds=4, seed=3).act(obs, masks)
    assert masks[np.arange(len(obs)), first].all()
    assert np.array_equal(first, PIMCAgent(rules, worlds=4, seed=3).act(obs, masks))
    result = evaluate_pair(PIMCAgent(rules, worlds=2, rollout="random", seed=0), HeuristicAgent(rules), 2, seed=0)
    assert np.isfinite(result.edge_a)


def test_candidates_keep_the_pass_and_the_cheapest_bids():
    agent = PIMCAgent(worlds=1, bids=2)
    obs = np.zeros((1, SPEC.size), dtype=np.uint8)
    obs[0, SPEC["phase"].start] = 1  # auction
    mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
    mask[0, [0, 3, 4, 5, 20]] = True
    assert np.flatnonzero(agent.candidates(obs, mask)[0]).tolist() == [0, 3, 4]


def test_pimc_specs_and_bad_options():
    agent = make_agent("pimc:worlds=8,rollout=random,bids=2", seed=1, rules=preset("seven"))
    assert isinstance(agent, PIMCAgent) and agent.worlds == 8 and agent.rules == preset("seven")
    assert agent.rollout.name == "random"
    with pytest.raises(ValueError, match="worlds must be an int >= 1"):
        make_agent("pimc:worlds=0")
    with pytest.raises(ValueError, match="cannot itself be pimc"):
        make_agent("pimc:rollout=pimc")
    with pytest.raises(ValueError, match="belief must return"):
        PIMCAgent(worlds=2, belief=lambda obs, deals: np.zeros(3), seed=0).action_values(
            *_two_card_position())


def _two_card_position():
    obs, state = next(itertools.islice(random_positions(preset("standard"), games=8, steps=40), 30, None))
    row = int(np.flatnonzero(state.legal_action_mask.sum(axis=1) > 1)[0])
    return obs[row:row + 1], state.legal_action_mask[row:row + 1]


# --- policy-based inference (pimc weights=policy) -------------------------------------------------------


def _recorded_games(rules, games=24, steps=30, seed=3):
    """Random games with every action kept: (the state at each step, the actions so far per game)."""
    env = BatchedEnv(games, rules, seed=seed, auto_reset=False)
    env.reset()
    rng, history, dealers = np.random.default_rng(seed), [], env.state.dealer.astype(np.int64).copy()
    dealt = env.state.hidden.hand_bits.copy()
    for _ in range(steps):
        yield env.state, history, dealt, dealers
        actions = engine.random_actions(env.state, rng)
        history = history + [actions]
        env.step(actions)


def test_policy_weights_score_each_world_as_an_independent_replay_of_the_history():
    import torch

    from agents.ppo import PolicyValueNet, PPOAgent

    torch.manual_seed(0)
    rules = RulesConfig()
    policy = PPOAgent.from_network(PolicyValueNet((32,)), seed=0)
    agent = PIMCAgent(rules, worlds=3, rollout=policy, weights="policy", weight_power=1.0, seed=0)
    views, positions = [], []  # positions at every step in one batch: the histories' lengths differ
    for state, history, _, dealers in _recorded_games(rules):
        live = np.flatnonzero(~state.terminated)[:6]
        if history and live.size:
            seat = state.current_player[live].astype(np.int64)
            views.append(encode(state.take(live), seat))
            positions += [(int(game), int(me), history, dealers) for game, me in zip(live, seat)]
    public = W.decode(np.concatenate(views), rules)
    sampled = W.sample_worlds(public, 3, np.random.default_rng(0))
    weights = agent.policy_weights(public, sampled.deals, sampled.discards)
    for row, (game, me, history, dealers) in enumerate(positions):
        expected = []
        for k in range(3):  # the world's deal in the table's own seats, then the recorded actions on it
            deal = np.where(sampled.deals[row, k] < NUM_SEATS, (sampled.deals[row, k] + me) % NUM_SEATS, -1)
            world = engine.init_from_deals(deal[None], dealers[[game]], rules)
            total = 0.0
            for step in history:
                mover = int(world.current_player[0])
                if mover != me and world.legal_action_mask[0].sum() > 1:
                    view = encode(world, np.array([mover]))
                    total += policy.log_probabilities(view, world.legal_action_mask)[0, step[game]]
                engine.step_inplace(world, np.array([step[game]]))
            expected.append(total)
        expected = np.array(expected)
        assert np.allclose(np.log(weights[row]), expected - expected.max(), atol=1e-4)
    assert len(positions) >= 100 and len({len(history) for _, _, history, _ in positions}) > 10


def test_policy_weights_at_power_zero_search_as_uniform_worlds():
    import torch

    from agents.ppo import PolicyValueNet, PPOAgent

    torch.manual_seed(0)
    rules = RulesConfig()
    obs, mask = next(((o, s.legal_action_mask) for i, (o, s) in enumerate(random_positions(rules, 16)) if i == 20))
    policy = PPOAgent.from_network(PolicyValueNet((16,)), seed=0)
    values = [PIMCAgent(rules, worlds=4, rollout=policy, seed=5, **options).action_values(
        obs, PIMCAgent(rules).candidates(obs, mask)) for options in ({}, {"weights": "policy", "weight_power": 0.0})]
    assert np.allclose(values[0], values[1])
    sharp = PIMCAgent(rules, worlds=4, rollout=policy, weights="policy", seed=5)
    assert not np.allclose(values[0], sharp.action_values(obs, sharp.candidates(obs, mask)))


def test_a_belief_multiplies_the_policy_weights_and_stands_alone_where_they_leave_nothing():
    import torch

    from agents.ppo import PolicyValueNet, PPOAgent

    torch.manual_seed(0)
    rules = RulesConfig()
    obs, mask = next(((o, s.legal_action_mask) for i, (o, s) in enumerate(random_positions(rules, 4)) if i == 20))
    net = PolicyValueNet((16,))
    candidates = PIMCAgent(rules).candidates(obs, mask)
    policy_rows = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5], [1.0, 0.0, 0.0, 0.0]])
    belief_rows = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    # the product where it leaves some weight (rows 1 to 3); the belief alone where it leaves none (row 0)
    combined = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
    searched = PIMCAgent(rules, worlds=4, rollout=PPOAgent.from_network(net), weights="policy",
                         belief=lambda o, d: belief_rows, seed=5)
    searched.policy_weights = lambda public, deals, discards: policy_rows
    expected = PIMCAgent(rules, worlds=4, rollout=PPOAgent.from_network(net), belief=lambda o, d: combined, seed=5)
    assert np.allclose(searched.action_values(obs, candidates), expected.action_values(obs, candidates))


def test_policy_weights_need_a_policy_with_probabilities_and_valid_options(tmp_path):
    from agents.ppo import PolicyValueNet, save_checkpoint

    save_checkpoint(tmp_path / "net.pt", PolicyValueNet((8,)))
    searcher = make_agent(f"pimc:worlds=2,weights=policy,weight_power=0.5,model=ppo:{tmp_path / 'net.pt'}")
    assert isinstance(searcher.rollout, HeuristicAgent) and searcher.model.name == "ppo"
    obs, mask = next(((o, s.legal_action_mask) for i, (o, s) in enumerate(random_positions(RulesConfig(), 8))
                      if i == 25))
    assert mask[np.arange(len(obs)), searcher.act(obs, mask)].all()
    with pytest.raises(ValueError, match="weights=policy needs a policy model"):
        PIMCAgent(weights="policy")
    with pytest.raises(ValueError, match="weights=policy needs a policy model"):
        make_agent("pimc:weights=policy,model=random")
    with pytest.raises(ValueError, match="the model policy cannot itself be pimc"):
        make_agent("pimc:model=pimc")
    with pytest.raises(ValueError, match="weights must be one of uniform, policy"):
        PIMCAgent(weights="bayes")
    with pytest.raises(ValueError, match="weight_power"):
        make_agent("pimc:weight_power=-1")
