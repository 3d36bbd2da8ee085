"""Faults a hostile user could hit in the engine (issue 13, items 2.4 and 2.11):
every in-place function checks its input before it changes anything, payoffs
stay finite in float32, and hands or deals that are not ints give a clear
ValueError instead of an IndexError."""

from dataclasses import fields

import numpy as np
import pytest

from briscola_env import engine
from briscola_env.pettingzoo_env import raw_env
from briscola_env.reference import ReferenceGame
from briscola_env.rules import PayoffTable, RulesConfig


def played_out(seeds=np.arange(6), steps=None) -> engine.State:
    """Games played with random actions, to the end or for ``steps`` steps."""
    state, rng = engine.init(seeds), np.random.default_rng(0)
    step = 0
    while not state.terminated.all() and (steps is None or step < steps):
        engine.step_inplace(state, engine.random_actions(state, rng))
        step += 1
    return state


def arrays(state: engine.State) -> dict:
    """Every array of the state, public, hidden and bookkeeping."""
    found = {f.name: getattr(state, f.name) for f in fields(state)}
    found.update({f"hidden.{f.name}": getattr(state.hidden, f.name) for f in fields(state.hidden)})
    return {name: value for name, value in found.items() if isinstance(value, np.ndarray)}


def assert_unchanged(state: engine.State, before: engine.State) -> None:
    now, then = arrays(state), arrays(before)
    assert len(now) > 20
    for name in now:
        assert np.array_equal(now[name], then[name]), name


@pytest.mark.parametrize("seeds", [
    [0, 1, 2, -1, 4, 5], [0, 1, 2, 2**57, 4, 5], [0.5, 1, 2, 3, 4, 5], [0, True, 2, 3, 4, 5],
    np.array([1, 0, 1, 0, 1, 0], dtype=bool), ["0", "1", "2", "3", "4", "5"]])
def test_reset_done_with_bad_seed_changes_nothing(seeds):
    state = played_out()
    before = state.copy()
    with pytest.raises(ValueError, match="seeds must"):
        engine.reset_done(state, seeds)
    assert_unchanged(state, before)  # the finished games are still finished, with their results
    assert state.terminated.all()


@pytest.mark.parametrize("actions, active", [
    (np.full(6, 150), None), (np.zeros(6), None), (np.zeros((6, 1), dtype=int), None),
    (np.zeros(6, dtype=int), np.ones(6, dtype=int)), (np.zeros(6, dtype=int), np.ones(5, dtype=bool))])
def test_step_inplace_with_bad_actions_or_active_changes_nothing(actions, active):
    state = played_out(steps=3)
    before = state.copy()
    with pytest.raises(ValueError, match="actions|active"):
        engine.step_inplace(state, actions, active)
    assert_unchanged(state, before)


def test_step_inplace_reports_an_illegal_uint64_action_as_given():
    state = engine.init(np.arange(2))
    with pytest.raises(ValueError, match=rf"illegal action {2**64 - 1} \(not an action id 0\.\.150\)"):
        engine.step_inplace(state, np.array([0, 2**64 - 1], dtype=np.uint64))


@pytest.mark.parametrize("index", [np.array([0, 9]), np.array([0.5, 1.0]), np.array([0, 1, 2]), "0,1"])
def test_state_put_with_bad_index_changes_nothing(index):
    state, other = played_out(), engine.init(np.arange(100, 102))
    before = state.copy()
    with pytest.raises(ValueError, match="index"):
        state.put(index, other)
    assert_unchanged(state, before)
    with pytest.raises(ValueError, match="State"):
        state.put(np.array([0, 1]), {"phase": np.zeros(2)})


@pytest.mark.parametrize("entry", [1e39, -1e39, 2e6])
def test_payoff_table_entry_too_large_for_float32_rewards_is_refused(entry):
    bound = r"payoff_table\.solo_caller must be a finite number in -1,000,000\.\.1,000,000"
    with pytest.raises(ValueError, match=bound):
        RulesConfig(payoff_table={"solo_caller": entry})


def test_payoff_table_at_the_bound_keeps_rewards_finite_with_the_largest_multipliers():
    table = PayoffTable(caller=1e6, partner=5e5, defender=-1e6, solo_caller=1e6, solo_defender=-1e6)
    rules = RulesConfig(payoff_table=table, multiplier_table=((61, 100),), cappotto_multiplier=10)
    assert rules.multiplier_for_points(120) * rules.cappotto_multiplier * 1e6 < np.finfo(np.float32).max
    state, rng = engine.init(np.arange(256), rules), np.random.default_rng(1)
    total = np.zeros((256, 5), dtype=np.float32)
    while not state.terminated.all():
        engine.step_inplace(state, engine.random_actions(state, rng))
        total += state.rewards
    assert np.isfinite(total).all() and (np.abs(total) > 0).any()


HANDS = [list(range(8 * seat, 8 * seat + 8)) for seat in range(5)]


@pytest.mark.parametrize("card", [7.5, True, "7", 7.0, None, [7]])
def test_hands_holding_a_card_that_is_not_an_int_give_a_clear_value_error(card):
    hands = [list(hand) for hand in HANDS]
    hands[0][7] = card
    with pytest.raises(ValueError, match=r"seat 0: .* is not a card id 0\.\.39"):
        engine.hands_to_deal(hands)
    env = raw_env()
    with pytest.raises(ValueError, match=r"seat 0: .* is not a card id 0\.\.39"):
        env.reset(options={"hands": hands, "dealer": 0})


@pytest.mark.parametrize("hands", [5, "abcde", [1, 2, 3, 4, 5]])
def test_hands_that_are_not_lists_of_cards_give_a_clear_value_error(hands):
    with pytest.raises(ValueError, match="hand"):
        engine.hands_to_deal(hands)


def test_deals_and_dealers_holding_bools_give_a_clear_value_error():
    deals, dealers = engine.deal_from_seeds(np.arange(2))
    with_bool = deals.tolist()
    with_bool[0][deals[0].tolist().index(1)] = True  # NumPy alone would read True as seat 1
    with pytest.raises(ValueError, match=r"deals must be an int array .* bool values"):
        engine.init_from_deals(with_bool, dealers)
    with pytest.raises(ValueError, match=r"dealers must be an int array .* bool values"):
        engine.init_from_deals(deals, [True, 0])
    with pytest.raises(ValueError, match="dealer must be a seat"):
        ReferenceGame(RulesConfig(), deals[0].tolist(), True)
    with pytest.raises(ValueError, match=r"deal\[\d+\] must be a seat"):
        ReferenceGame(RulesConfig(), with_bool[0], 0)


def env_attributes(env) -> dict:
    """What a failed reset or load must leave as it was: the generator's state, the deal
    seeds, the views' history and every engine array."""
    kept = {key: value for key, value in env.state_dict().items() if key != "engine"}
    kept.update({f"engine.{name}": array.copy() for name, array in arrays(env.state).items()})
    return kept


def assert_env_unchanged(env, before: dict) -> None:
    now = env_attributes(env)
    assert now.keys() == before.keys()
    for name in now:
        assert (now[name] == before[name]) if name == "rng" else np.array_equal(now[name], before[name]), name


def played_env(steps=7):
    from briscola_env.batched_env import BatchedEnv

    env = BatchedEnv(2, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        env.step(engine.random_actions(env.state, rng))
    return env


@pytest.mark.parametrize("deal_seeds", [[-1, 3], [3, 2**57], [True, 3], [3.0, 4.0], [3.7, 4.2], [3], [[3, 4]]])
def test_batched_reset_with_bad_deal_seeds_changes_nothing(deal_seeds):
    env = played_env()
    before = env_attributes(env)
    with pytest.raises(ValueError, match="deal_seeds must be 2 ints in 0 .. 2\\*\\*57 - 1"):
        env.reset(seed=5, deal_seeds=deal_seeds)
    assert_env_unchanged(env, before)


def test_batched_reset_refuses_float_deal_seeds_instead_of_truncating_them():
    env = played_env()
    with pytest.raises(ValueError, match="dtype float64"):
        env.reset(deal_seeds=np.array([3.7, 4.2]))
    assert env.reset(deal_seeds=np.array([3, 4], dtype=np.uint32)).info["deal_seed"].tolist() == [3, 4]


@pytest.mark.parametrize("seed", [-1, 1.5, True, "3"])
def test_batched_reset_with_bad_seed_changes_nothing(seed):
    env = played_env()
    before = env_attributes(env)
    with pytest.raises(ValueError, match="seed must be a non-negative int"):
        env.reset(seed=seed)
    assert_env_unchanged(env, before)


def broken(saved: dict, fault: str) -> dict:
    saved = {**saved, "engine": dict(saved["engine"])}
    if fault == "no rng":
        del saved["rng"]
    elif fault == "no engine field":
        del saved["engine"]["hidden.partner"]
    elif fault == "engine field of another shape":
        saved["engine"]["phase"] = saved["engine"]["phase"][:1]
    elif fault == "engine field of another dtype":
        saved["engine"]["trick_cards"] = saved["engine"]["trick_cards"].astype(np.float64)
    elif fault == "history of another shape":
        saved["seat_records"] = saved["seat_records"][:, :4]
    elif fault == "deal seed out of range":
        saved["deal_seeds"] = np.array([-1, 3])
    elif fault == "rng of another kind":
        saved["rng"] = {"bit_generator": "MT19937", "state": {}}
    return saved


@pytest.mark.parametrize("fault", ["no rng", "no engine field", "engine field of another shape",
                                   "engine field of another dtype", "history of another shape",
                                   "deal seed out of range", "rng of another kind"])
def test_batched_load_state_dict_with_bad_state_changes_nothing(fault):
    source = played_env(steps=12)
    saved = broken(source.state_dict(), fault)
    env = played_env(steps=3)
    before = env_attributes(env)
    with pytest.raises(ValueError, match="env state|deal_seeds|rng"):
        env.load_state_dict(saved)
    assert_env_unchanged(env, before)
    env.load_state_dict(source.state_dict())  # a whole state still loads
    assert_env_unchanged(env, env_attributes(source))
