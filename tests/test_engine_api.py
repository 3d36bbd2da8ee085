"""The batched engine's API contract: seeding, deal checks, action checks,
purity, active masks, auto-reset, take/put, rewards and the random policy."""

import re
from dataclasses import fields

import numpy as np
import pytest

from briscola_env import engine
from briscola_env.actions import NUM_ACTIONS, PASS, PLAY_OFFSET, action_to_text, play, point_bid, rank_bid
from briscola_env.engine import Hidden, Phase, State
from briscola_env.engine.tables import rule_tables
from briscola_env.engine.tricks import trick_winner
from briscola_env.reference import ReferenceGame
from briscola_env.rules import RulesConfig, preset
from support import random_actions

RULES = RulesConfig()


# ---------------------------------------------------------------- helpers

def state_arrays(state: State) -> dict:
    """Every array of a state, hidden ones included, by field name."""
    out = {}
    for f in fields(State):
        value = getattr(state, f.name)
        if isinstance(value, Hidden):
            for h in fields(Hidden):
                if getattr(value, h.name) is not None:  # (the monte's fields are None without one)
                    out[f"hidden.{h.name}"] = getattr(value, h.name)
        elif isinstance(value, np.ndarray):
            out[f.name] = value
    return out


def assert_same_games(a: State, b: State, index_a=None, index_b=None):
    """Games ``a[index_a]`` and ``b[index_b]`` are identical in every field (dtype included)."""
    assert a.rules == b.rules
    arrays_a, arrays_b = state_arrays(a), state_arrays(b)
    assert arrays_a.keys() == arrays_b.keys()
    for name in arrays_a:
        x = arrays_a[name] if index_a is None else arrays_a[name][index_a]
        y = arrays_b[name] if index_b is None else arrays_b[name][index_b]
        assert x.dtype == y.dtype, name
        assert np.array_equal(x, y), f"field {name} differs"


def advance(state: State, rng, steps: int, pass_prob=0.6) -> State:
    """``steps`` random legal steps (finished games are skipped by the engine)."""
    for _ in range(steps):
        state = engine.step(state, random_actions(state.legal_action_mask, rng, pass_prob))
    return state


def mixed_batch(B=64, seed=0, steps=60, rules=RULES):
    """A batch with games in every phase: live auctions, calls, plays and finished games."""
    rng = np.random.default_rng(seed)
    state = engine.init(np.arange(B) + 1000 * seed, rules)
    active_from = rng.integers(0, steps, B)  # games start playing at different steps
    for t in range(steps):
        state = engine.step(state, random_actions(state.legal_action_mask, rng, 0.6), active_from <= t)
    return state


def play_to_end(state: State, rng, pass_prob=0.6) -> State:
    while not state.terminated.all():
        state = engine.step(state, random_actions(state.legal_action_mask, rng, pass_prob))
    return state


# ---------------------------------------------------------------- seeding

def test_deal_and_dealer_depend_only_on_the_games_own_seed():
    alone_deal, alone_dealer = engine.deal_from_seeds(np.array([6]))
    batches = [np.array([5, 6, 7]), np.arange(1000), np.arange(1000)[::-1].copy(), np.array([6, 6]),
               np.array([2**40, 6]), np.array([6], dtype=np.uint64), np.array([6], dtype=np.int32)]
    for seeds in batches:
        deals, dealers = engine.deal_from_seeds(seeds)
        i = int(np.flatnonzero(seeds == 6)[0])
        assert np.array_equal(deals[i], alone_deal[0]), seeds[:5]
        assert dealers[i] == alone_dealer[0]


def test_init_state_of_a_game_depends_only_on_its_own_seed():
    alone = engine.init([6])
    for seeds in ([5, 6, 7], list(range(1000)), [6, 6, 6]):
        batch = engine.init(seeds)
        assert_same_games(batch, alone, index_a=[seeds.index(6)], index_b=[0])


def test_a_game_plays_the_same_alone_and_in_a_batch():
    rng = np.random.default_rng(1)
    batch, alone = engine.init([5, 6, 7]), engine.init([6])
    while not batch.terminated.all():
        actions = random_actions(batch.legal_action_mask, rng, 0.5)
        batch = engine.step(batch, actions)
        alone = engine.step(alone, actions[1:2])
        assert_same_games(batch, alone, index_a=[1], index_b=[0])


def test_different_seeds_give_different_deals():
    deals, dealers = engine.deal_from_seeds(np.arange(1000))
    assert len({d.tobytes() for d in deals}) == 1000
    assert len(set(dealers.tolist())) == 5


def test_seeded_deals_are_valid_deals():
    deals, dealers = engine.deal_from_seeds(np.arange(500))
    assert deals.shape == (500, 40) and dealers.shape == (500,)
    for seat in range(5):
        assert ((deals == seat).sum(axis=1) == 8).all()
    assert ((dealers >= 0) & (dealers < 5)).all()


@pytest.mark.parametrize("bad", [np.array([-1, 3]), np.array([[1, 2]]), np.array([1.5]), 7])
def test_deal_from_seeds_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seeds"):
        engine.deal_from_seeds(bad)


def _chi_square_bound(df):
    """A loose upper bound for a chi-square statistic with ``df`` degrees of freedom (~6 sigma)."""
    return df + 6 * np.sqrt(2 * df)


def test_seeded_deals_are_uniform():
    n = 20_000
    deals, dealers = engine.deal_from_seeds(np.arange(n) + 123_456)
    counts = (deals[:, :, None] == np.arange(5)).sum(axis=0)  # (40 cards, 5 seats)
    expected = n / 5
    sigma = np.sqrt(n * 0.2 * 0.8)
    assert np.abs(counts - expected).max() < 5 * sigma, counts
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < _chi_square_bound(40 * 4), chi2

    dealer_counts = np.bincount(dealers, minlength=5)
    assert np.abs(dealer_counts - expected).max() < 5 * sigma, dealer_counts
    assert ((dealer_counts - expected) ** 2 / expected).sum() < _chi_square_bound(4)

    # Pairs of cards: two given cards share a hand with probability 7/39.
    same = (deals[:, :-1] == deals[:, 1:]).mean(axis=0)  # 39 adjacent pairs
    assert np.abs(same - 7 / 39).max() < 5 * np.sqrt(7 / 39 * 32 / 39 / n), same

    # The dealer is independent of the cards: card 0's seat against the dealer.
    joint = np.zeros((5, 5))
    np.add.at(joint, (deals[:, 0], dealers), 1)
    exp_joint = np.outer(joint.sum(1), joint.sum(0)) / n
    assert ((joint - exp_joint) ** 2 / exp_joint).sum() < _chi_square_bound(16)


# ---------------------------------------------------------------- init_from_deals / hands_to_deal

def good_deals(B=2):
    deals, dealers = engine.deal_from_seeds(np.arange(B))
    return deals.astype(np.int64), dealers.astype(np.int64)


def test_init_from_deals_matches_init_from_seeds():
    seeds = np.arange(20)
    deals, dealers = engine.deal_from_seeds(seeds)
    assert_same_games(engine.init_from_deals(deals, dealers), engine.init(seeds))


def test_init_from_deals_hands_and_first_speaker():
    deals, dealers = good_deals(3)
    state = engine.init_from_deals(deals, dealers, RULES)
    for seat in range(5):
        assert np.array_equal(state.hidden.hands[:, seat, :], deals == seat)
    assert np.array_equal(state.current_player, (dealers + 1) % 5)
    assert (state.phase == Phase.AUCTION).all() and (state.hidden.partner == -1).all()


def test_init_from_deals_rejects_wrong_shape():
    deals, dealers = good_deals()
    with pytest.raises(ValueError, match=re.escape("shape (B, 40)")):
        engine.init_from_deals(deals[:, :39], dealers)
    with pytest.raises(ValueError, match=re.escape("shape (B, 40)")):
        engine.init_from_deals(deals[0], dealers[:1])
    with pytest.raises(ValueError, match=re.escape("shape (B, 40)")):
        engine.init_from_deals(deals.astype(float), dealers)
    with pytest.raises(ValueError, match=re.escape("dealers must be an int array of shape (2,)")):
        engine.init_from_deals(deals, dealers[:1])


def test_init_from_deals_rejects_a_seat_with_seven_cards():
    deals, dealers = good_deals()
    card = int(np.flatnonzero(deals[1] == 0)[0])
    deals[1, card] = 1  # seat 0 now has 7 cards, seat 1 has 9
    with pytest.raises(ValueError, match=re.escape("deal of game 1 gives the seats [7, 9, 8, 8, 8] cards; "
                                                   "each needs 8")):
        engine.init_from_deals(deals, dealers)


def test_init_from_deals_rejects_seat_5():
    deals, dealers = good_deals()
    deals[1, 0] = 5
    with pytest.raises(ValueError, match=r"deal of game 1 names a seat outside 0\.\.4"):
        engine.init_from_deals(deals, dealers)
    deals[1, 0] = -1
    with pytest.raises(ValueError, match=r"deal of game 1 names a seat outside 0\.\.4"):
        engine.init_from_deals(deals, dealers)


def test_init_from_deals_rejects_dealer_7():
    deals, dealers = good_deals()
    dealers[1] = 7
    with pytest.raises(ValueError, match=r"dealer of game 1 is 7; a dealer is a seat 0\.\.4"):
        engine.init_from_deals(deals, dealers)


def test_init_from_deals_rejects_non_rules_config():
    deals, dealers = good_deals()
    with pytest.raises(ValueError, match="RulesConfig"):
        engine.init_from_deals(deals, dealers, {"bidding": "rank_only"})


def test_hands_to_deal_round_trip():
    deals, _ = engine.deal_from_seeds(np.arange(50))
    for deal in deals:
        hands = [np.flatnonzero(deal == seat).tolist() for seat in range(5)]
        back = engine.hands_to_deal(hands)
        assert np.array_equal(back, deal)
        assert np.array_equal(engine.hands_to_deal([h[::-1] for h in hands]), deal)  # order within a hand is free


def _hands():
    return [list(range(8 * s, 8 * s + 8)) for s in range(5)]


def test_hands_to_deal_rejects_wrong_number_of_hands():
    with pytest.raises(ValueError, match="expected five hands.*got 4"):
        engine.hands_to_deal(_hands()[:4])


def test_hands_to_deal_rejects_non_card_id():
    hands = _hands()
    hands[2][3] = 40
    with pytest.raises(ValueError, match=r"seat 2: 40 is not a card id 0\.\.39"):
        engine.hands_to_deal(hands)


def test_hands_to_deal_rejects_a_card_dealt_twice():
    hands = _hands()
    hands[3][0] = 0  # card 0 is also in seat 0's hand; card 24 goes to nobody
    with pytest.raises(ValueError, match=r"card 0 is dealt twice \(seats 0 and 3\)"):
        engine.hands_to_deal(hands)


def test_hands_to_deal_rejects_missing_cards():
    hands = _hands()
    hands[4] = hands[4][:7]
    with pytest.raises(ValueError, match=r"cards \[39\] are dealt to nobody"):
        engine.hands_to_deal(hands)


def test_hands_to_deal_rejects_unequal_hands():
    hands = _hands()
    hands[0].append(hands[1].pop())
    with pytest.raises(ValueError, match=re.escape("[9, 7, 8, 8, 8]")):
        engine.hands_to_deal(hands)


# ---------------------------------------------------------------- action checks

def _play_phase_state():
    """Three games; game 1 in the play phase with its leader to play."""
    state = engine.init([5, 6, 7])
    for a in (rank_bid(1), PASS, PASS, PASS, PASS):
        state = engine.step(state, np.full(3, a))
    assert (state.phase == Phase.CALL).all()
    state = engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
    assert (state.phase == Phase.PLAY).all()
    return state


def test_illegal_action_error_names_game_action_phase_and_legal_actions():
    state = engine.init([5, 6, 7])
    actions = np.array([PASS, play(10), PASS])
    with pytest.raises(ValueError) as info:
        engine.step(state, actions)
    message = str(info.value)
    assert message.startswith("game 1:")
    assert "play A♦" in message
    assert "'auction'" in message
    assert f"player {state.current_player[1]}" in message
    assert "legal actions: pass, bid A, bid 3, bid R, bid C, bid F, bid 7, bid 6, bid 5, bid 4, bid 2" in message


def test_illegal_play_error_lists_the_players_cards():
    state = _play_phase_state()
    seat = state.current_player[1]
    hand = np.flatnonzero(state.hidden.hands[1, seat])
    not_held = int(np.flatnonzero(~state.hidden.hands[1, seat])[0])
    actions = engine.random_actions(state, np.random.default_rng(0))
    actions[1] = play(not_held)
    with pytest.raises(ValueError) as info:
        engine.step(state, actions)
    message = str(info.value)
    assert message.startswith("game 1:") and "'play'" in message
    assert action_to_text(play(not_held)) in message
    legal = message.split("legal actions: ")[1].split(", ")
    assert sorted(legal) == sorted(action_to_text(PLAY_OFFSET + c) for c in hand)


@pytest.mark.parametrize("bad", [151, -3, 1000, -1])
def test_out_of_range_action_id_raises(bad):
    state = engine.init([5, 6, 7])
    with pytest.raises(ValueError, match=rf"game 2: illegal action {bad} \(not an action id 0\.\.150\)"):
        engine.step(state, np.array([PASS, PASS, bad]))


def test_illegal_action_leaves_every_game_unchanged():
    """The check comes before any change: a bad action in one game stops the whole step."""
    state = mixed_batch()
    before = state.copy()
    actions = engine.random_actions(state, np.random.default_rng(3))
    live = np.flatnonzero(~state.terminated)
    actions[live[-1]] = 151
    with pytest.raises(ValueError):
        engine.step_inplace(state, actions)
    assert_same_games(state, before)


@pytest.mark.parametrize("actions", [
    np.zeros(4, dtype=np.int64), np.zeros(2, dtype=np.int64), np.zeros((3, 1), dtype=np.int64),
    np.zeros(3, dtype=np.float64), np.zeros(3, dtype=bool), [0.0, 0.0, 0.0], 0,
])
def test_wrong_actions_shape_or_dtype_raises(actions):
    state = engine.init([5, 6, 7])
    with pytest.raises(ValueError, match=re.escape("actions must be an int array of shape (3,)")):
        engine.step(state, actions)


@pytest.mark.parametrize("active", [np.ones(2, dtype=bool), np.ones(3, dtype=np.int64), np.ones((3, 1), bool)])
def test_wrong_active_shape_or_dtype_raises(active):
    state = engine.init([5, 6, 7])
    with pytest.raises(ValueError, match=re.escape("active must be a bool array of shape (3,)")):
        engine.step(state, np.zeros(3, dtype=np.int64), active)


def test_actions_of_any_int_dtype_and_lists_are_accepted():
    state = engine.init([5, 6, 7])
    reference = engine.step(state, np.array([PASS, rank_bid(3), PASS]))
    for actions in ([PASS, rank_bid(3), PASS], np.array([0, 3, 0], dtype=np.uint8),
                    np.array([0, 3, 0], dtype=np.int16)):
        assert_same_games(engine.step(state, actions), reference)


# ---------------------------------------------------------------- purity, active, finished games

def test_step_does_not_modify_its_input_state():
    rng = np.random.default_rng(4)
    state = engine.init(np.arange(64))
    while not state.terminated.all():
        before = state.copy()
        actions = random_actions(state.legal_action_mask, rng, 0.6)
        active = rng.random(64) < 0.8
        new = engine.step(state, actions, active)
        assert_same_games(state, before)
        for name, array in state_arrays(new).items():
            assert not np.shares_memory(array, state_arrays(state)[name]), name
        state = new


def test_inactive_games_are_left_unchanged():
    rng = np.random.default_rng(5)
    state = mixed_batch(seed=5)
    for _ in range(30):
        active = rng.random(state.batch_size) < 0.5
        actions = random_actions(state.legal_action_mask, rng, 0.6)
        actions[~active] = rng.choice([-7, 151, 0, 121], size=int((~active).sum()))  # anything at all
        new = engine.step(state, actions, active)
        idle = np.flatnonzero(~active)
        assert_same_games(new, state, index_a=idle, index_b=idle)
        moved = np.flatnonzero(active & ~state.terminated)
        def progress(st: State) -> np.ndarray:  # actions taken: bids and passes, the call, cards played
            return (st.auction_length + (st.phase >= Phase.PLAY) + (st.trick_cards >= 0).sum(axis=(1, 2)))[moved]

        assert (progress(new) > progress(state)).all(), "active games must move"
        state = new


def test_finished_games_are_left_unchanged_whatever_their_action():
    state = mixed_batch(seed=6, steps=120)
    done = np.flatnonzero(state.terminated)
    assert 0 < done.size < state.batch_size
    rng = np.random.default_rng(6)
    for junk in (-1, 0, 151, 10**9, PLAY_OFFSET + 10):
        actions = engine.random_actions(state, rng)
        actions[done] = junk
        for active in (None, np.ones(state.batch_size, dtype=bool)):
            new = engine.step(state, actions, active)
            assert_same_games(new, state, index_a=done, index_b=done)


def test_finished_game_fields():
    state = play_to_end(engine.init(np.arange(50)), np.random.default_rng(7))
    assert (state.phase == Phase.DONE).all() and (state.current_player == -1).all()
    assert not state.legal_action_mask.any()


def test_step_inplace_and_step_give_identical_results():
    rng = np.random.default_rng(8)
    pure = engine.init(np.arange(64), preset("follow_suit_endgame"))
    inplace = pure.copy()
    while not pure.terminated.all():
        actions = random_actions(pure.legal_action_mask, rng, 0.6)
        active = rng.random(64) < 0.8
        pure = engine.step(pure, actions, active)
        returned = engine.step_inplace(inplace, actions, active)
        assert returned is inplace
        assert_same_games(inplace, pure)


@pytest.mark.parametrize("rules_name", ["standard", "follow_suit_endgame", "no_self_call", "al_buio", "monte",
                                        "four_players"])
def test_step_one_plays_a_batch_of_one_as_step_inplace_does(rules_name):
    rules, rng = preset(rules_name), np.random.default_rng(11)
    for seed in range(8):
        one = engine.init([seed], rules)
        batch = one.copy()
        while not one.terminated[0]:
            legal = engine.legal_set_one(one)
            assert [a for a in range(NUM_ACTIONS) if legal >> a & 1] == np.flatnonzero(one.legal_action_mask).tolist()
            assert one.cards_played[0] == (one.trick_cards >= 0).sum()
            action = int(random_actions(one.legal_action_mask, rng, 0.6)[0])
            assert engine.step_one(one, action) is one
            engine.step_inplace(batch, np.array([action]))
            assert_same_games(one, batch)


def test_step_one_refuses_an_illegal_action_as_step_does_and_changes_nothing():
    state = engine.init([5])
    before = state.copy()
    for bad in (play(10), 151, -3, 10**30, np.int16(play(10))):
        assert not engine.is_legal_one(state, int(bad))
        with pytest.raises(ValueError, match=r"^game 0: illegal action ") as one:
            engine.step_one(state, bad)
        if -2**63 <= bad < 2**63:
            with pytest.raises(ValueError) as batch:
                engine.step(state, np.array([bad]))
            assert str(one.value) == str(batch.value)
    for bad in (True, np.True_, 1.0, "1", None):
        with pytest.raises(ValueError, match="action must be an int"):
            engine.step_one(state, bad)
    assert_same_games(state, before)


def test_step_one_takes_a_batch_of_one_and_no_action_once_it_is_over():
    with pytest.raises(ValueError, match="a batch of one game; this state holds 2"):
        engine.step_one(engine.init([1, 2]), PASS)
    state = play_to_end(engine.init([3]), np.random.default_rng(12))
    over = r"illegal action 0 \('pass'\) for player -1 in phase 'done'; legal actions: $"
    with pytest.raises(ValueError, match=over):
        engine.step_one(state, PASS)


# ---------------------------------------------------------------- reset_done

def test_reset_done_redeals_only_finished_games():
    state = mixed_batch(seed=9, steps=120)
    done = np.flatnonzero(state.terminated)
    live = np.flatnonzero(~state.terminated)
    assert done.size and live.size
    before = state.copy()
    new_seeds = np.arange(state.batch_size) + 777_000
    returned = engine.reset_done(state, new_seeds)
    assert returned is state
    assert_same_games(state, before, index_a=live, index_b=live)
    assert_same_games(state, engine.init(new_seeds[done]), index_a=done)
    for b in done[:5]:
        assert_same_games(state, engine.init([new_seeds[b]]), index_a=[b])


def test_reset_done_games_can_be_played_on():
    rng = np.random.default_rng(10)
    state = engine.init(np.arange(32))
    finished = 0
    for t in range(400):
        state = engine.step(state, engine.random_actions(state, rng))
        finished += int(state.terminated.sum())
        engine.reset_done(state, np.arange(32) + 100 * (t + 1))
        assert not state.terminated.any()
    assert finished > 32


def test_reset_done_rejects_wrong_seed_shape():
    state = engine.init(np.arange(4))
    with pytest.raises(ValueError, match=re.escape("seeds must have shape (4,)")):
        engine.reset_done(state, np.arange(3))


# ---------------------------------------------------------------- take / put

def test_take_put_round_trip():
    state = mixed_batch(seed=11)
    index = np.array([3, 0, 17, 40])
    part = state.take(index)
    assert part.batch_size == 4
    assert_same_games(part, state, index_b=index)
    mask = np.zeros(state.batch_size, dtype=bool)
    mask[index] = True
    assert_same_games(state.take(mask), state, index_b=np.sort(index))

    target = engine.init(np.arange(state.batch_size) + 5000)
    untouched = np.setdiff1d(np.arange(state.batch_size), index)
    fresh = target.copy()
    target.put(index, part)
    assert_same_games(target, state, index_a=index, index_b=index)
    assert_same_games(target, fresh, index_a=untouched, index_b=untouched)

    copy = state.copy()
    copy.put(index, copy.take(index))
    assert_same_games(copy, state)


def test_take_returns_an_independent_copy():
    state = mixed_batch(seed=12)
    before = state.copy()
    part = state.take(np.arange(5))
    part.phase[:] = Phase.DONE
    part.hidden.hand_bits[:] = 0
    assert_same_games(state, before)


def test_put_rejects_games_of_other_rules():
    state = engine.init(np.arange(4))
    other = engine.init(np.arange(2), preset("seven"))
    with pytest.raises(ValueError, match="other rules"):
        state.put(np.array([0, 1]), other)


# ---------------------------------------------------------------- rewards

def expected_payoffs(state: State, b: int) -> np.ndarray:
    """The payoff table applied to a finished game's result."""
    out = np.zeros(5)
    caller, partner = state.caller[b], state.hidden.partner[b]
    if caller < 0:
        return out
    t = state.rules.payoff_table
    solo = partner == caller
    out[:] = t.solo_defender if solo else t.defender
    if not solo:
        out[partner] = t.partner
    out[caller] = t.solo_caller if solo else t.caller
    return out * state.multiplier[b] * (1 if state.contract_made[b] else -1)


@pytest.mark.parametrize("rules", [RULES, preset("points_only"), preset("equal_partner"),
                                   RulesConfig(payoff_table={"caller": 3, "partner": 1.5, "defender": -0.5,
                                                             "solo_caller": 5, "solo_defender": -2})],
                         ids=["standard", "points_only", "equal_partner", "custom_table"])
def test_rewards_are_zero_except_on_the_step_that_ends_the_hand(rules):
    rng = np.random.default_rng(13)
    state = engine.init(np.arange(128), rules)
    assert not state.rewards.any()
    scored = 0
    while not state.terminated.all():
        active = rng.random(128) < 0.8
        new = engine.step(state, random_actions(state.legal_action_mask, rng, 0.5), active)
        stepped = active & ~state.terminated
        ending = stepped & new.terminated
        assert not new.rewards[stepped & ~new.terminated].any()
        for b in np.flatnonzero(ending):
            assert np.allclose(new.rewards[b], expected_payoffs(new, b)), b
            if new.caller[b] >= 0:
                assert new.multiplier[b] >= 1 and new.rewards[b].any()
                scored += 1
        state = new
    assert scored > 50


def test_large_multipliers_are_rejected_or_scored_exactly():
    try:
        rules = RulesConfig(bidding="points_only", multiplier_table=((61, 4000),), cappotto_multiplier=10)
    except ValueError:
        return  # rejecting them is fine too
    rng = np.random.default_rng(20)
    state = engine.init(np.arange(1000), rules)
    while not state.terminated.all():
        state = engine.step(state, engine.random_actions(state, rng))
    played = state.caller >= 0
    cappotto = played & ((state.team_points == 0) | (state.team_points == 120))
    assert cappotto.any(), "test setup: want at least one cappotto"
    assert (state.multiplier[played & ~cappotto] == 4000).all()
    assert (state.multiplier[cappotto] == 40_000).all()
    caller_reward = state.rewards[np.flatnonzero(played), state.caller[played]]
    assert ((caller_reward > 0) == state.contract_made[played]).all()


# ---------------------------------------------------------------- engine.random_actions

def test_random_actions_are_legal_and_minus_one_for_finished_games():
    rng = np.random.default_rng(14)
    state = engine.init(np.arange(256), preset("no_self_call"))
    while not state.terminated.all():
        actions = engine.random_actions(state, rng)
        live = ~state.terminated
        assert (actions[~live] == -1).all()
        assert state.legal_action_mask[np.flatnonzero(live), actions[live]].all()
        state = engine.step(state, actions)


def _assert_uniform(actions, legal):
    n, k = len(actions), len(legal)
    counts = np.array([(actions == a).sum() for a in legal])
    assert counts.sum() == n, "an action outside the legal set was drawn"
    expected = n / k
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected * (1 - 1 / k)), counts
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < (k - 1) + 6 * np.sqrt(2 * (k - 1)), chi2


def _same_position(n, prefix):
    """``n`` copies of seed 6's game after the actions ``prefix``."""
    state = engine.init(np.full(n, 6))
    for a in prefix:
        state = engine.step(state, np.full(n, a))
    return state


def test_random_actions_are_uniform_on_opening_bid():
    state = _same_position(20_000, [])
    legal = np.flatnonzero(state.legal_action_mask[0])
    assert legal.tolist() == list(range(11))
    _assert_uniform(engine.random_actions(state, np.random.default_rng(15)), legal)


def test_random_actions_are_uniform_on_points_after_the_two():
    """Pass plus the 59 point bids 62..120: ids 0 and 12..70, across the 64-bit word boundary."""
    state = _same_position(30_000, [rank_bid(10)])
    legal = np.flatnonzero(state.legal_action_mask[0])
    assert legal.tolist() == [PASS] + [point_bid(p) for p in range(62, 121)]
    _assert_uniform(engine.random_actions(state, np.random.default_rng(16)), legal)


def test_random_actions_are_uniform_on_a_play_position():
    probe = _same_position(1, [rank_bid(1), PASS, PASS, PASS, PASS])
    call = int(np.flatnonzero(probe.legal_action_mask[0])[0])
    state = _same_position(20_000, [rank_bid(1), PASS, PASS, PASS, PASS, call])
    assert state.phase[0] == Phase.PLAY
    legal = np.flatnonzero(state.legal_action_mask[0])
    assert len(legal) == 8
    assert (legal < 128).any() and (legal >= 128).any(), "want a hand across the 64-bit word boundary"
    _assert_uniform(engine.random_actions(state, np.random.default_rng(17)), legal)


def test_random_actions_depend_on_the_generator():
    state = _same_position(1000, [])
    a = engine.random_actions(state, np.random.default_rng(18))
    b = engine.random_actions(state, np.random.default_rng(18))
    c = engine.random_actions(state, np.random.default_rng(19))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_seat_roles_name_every_seat_and_index_the_payoffs():
    # Game 0: seat 1 called seat 3's card; game 1: seat 2 called his own (a solo).
    roles = engine.seat_roles(np.array([1, 2], dtype=np.int8), np.array([3, 2], dtype=np.int8))
    R = engine.Role
    assert roles.tolist() == [[R.DEFENDER, R.CALLER, R.DEFENDER, R.PARTNER, R.DEFENDER],
                              [R.SOLO_DEFENDER, R.SOLO_DEFENDER, R.SOLO_CALLER, R.SOLO_DEFENDER, R.SOLO_DEFENDER]]
    pay = RulesConfig().payoff_table
    payoffs = engine.init([0], RULES).tables.payoff_by_role[roles]
    assert payoffs.tolist() == [[pay.defender, pay.caller, pay.defender, pay.partner, pay.defender],
                                [pay.solo_defender] * 2 + [pay.solo_caller] + [pay.solo_defender] * 2]
    assert engine.ROLE_NAMES == ("caller", "partner", "defender", "solo_caller", "solo_defender")
    assert engine.PHASE_NAMES == ("auction", "call", "play", "done", "discard")  # discard: with a monte only
    assert [getattr(Phase, name.upper()) for name in engine.PHASE_NAMES] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("rules_name", ["standard", "seven"])
def test_trick_winner_agrees_with_the_reference_on_random_tricks(rules_name):
    """The engine's one trick-winner walk, on tricks of 1 to 5 cards, against the reference's rule."""
    rules = preset(rules_name)
    rng = np.random.default_rng(11)
    n = 400
    cards = np.argsort(rng.random((n, 40)), axis=1)[:, :5]
    sizes = rng.integers(1, 6, n)
    cards[np.arange(5) >= sizes[:, None]] = -1  # not played yet
    trump = rng.integers(0, 4, n)
    best, place = trick_winner(rule_tables(rules), trump, cards)
    game = ReferenceGame(rules, np.arange(40) // 8, dealer=0)
    for b in range(n):
        game.trump = int(trump[b])
        expected = game.trick_winner([(i, int(card)) for i, card in enumerate(cards[b, :sizes[b]])])
        assert (place[b], best[b]) == (expected, cards[b, expected]), b
    assert (trick_winner(rule_tables(rules), trump[:3], np.full((3, 5), -1)) == np.array([[-1] * 3, [0] * 3])).all()


def test_to_arrays_gives_every_field_and_from_arrays_takes_them_back():
    state = engine.init(np.arange(6), RULES)
    rng = np.random.default_rng(3)
    for _ in range(12):
        engine.step_inplace(state, random_actions(state.legal_action_mask, rng))
    arrays = state.to_arrays()
    assert list(arrays) == list(engine.state.LAYOUT)
    expected = state_arrays(state)
    assert arrays.keys() == expected.keys() and all(arrays[name] is expected[name] for name in arrays)
    rebuilt = State.from_arrays(RULES, {name: array.copy() for name, array in arrays.items()})
    assert_same_games(rebuilt, state)
