"""Properties of the batched engine on random legal games, under rules configs
drawn by hypothesis. Each example plays a small batch of games to the end."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from briscola_env import engine
from briscola_env.actions import PASS, PLAY_OFFSET
from briscola_env.cards import TEN_CARD_VARIANTS, card_tables
from briscola_env.engine import Phase
from briscola_env.rules import (ALL_PASS_RULES, BIDDING_MODES, CALL_RULES, CAPPOTTO_MODES,
                                DEFAULT_MULTIPLIER_TABLE, FIRST_LEADERS, PARTNER_PAYOFFS, TARGETS,
                                PayoffTable, RulesConfig)
from support import random_actions

BATCH = 48
MAX_STEPS = 2000  # a hand takes at most 75 + 1 + 40 steps; games sit out some steps
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

MULTIPLIER_TABLES = (DEFAULT_MULTIPLIER_TABLE, ((61, 1), (80, 3), (100, 7)), ((61, 2),))


@st.composite
def payoff_tables(draw, partner_payoff):
    caller = draw(st.sampled_from([1, 2, 3, 5]))
    partner = caller if partner_payoff == "equal" else caller / 2
    return PayoffTable(caller=caller, partner=partner, defender=-draw(st.sampled_from([0.5, 1, 2])),
                       solo_caller=draw(st.sampled_from([3, 4, 8])), solo_defender=-draw(st.sampled_from([1, 2])))


@st.composite
def rules_configs(draw, default_payoffs=False, partner_payoff=None, all_pass=None):
    """Any valid RulesConfig: min_point_bid only with points_only, follow_suit_last_k only
    with follow_suit, a custom payoff table consistent with partner_payoff."""
    bidding = draw(st.sampled_from(BIDDING_MODES))
    follow_suit = draw(st.booleans())
    partner_payoff = partner_payoff or draw(st.sampled_from(PARTNER_PAYOFFS))
    return RulesConfig(
        bidding=bidding,
        min_point_bid=draw(st.sampled_from([61, 70, 95, 120])) if bidding == "points_only" else 61,
        all_pass=all_pass or draw(st.sampled_from(ALL_PASS_RULES)),
        call_rule=draw(st.sampled_from(CALL_RULES)),
        allow_self_call=draw(st.booleans()),
        first_leader=draw(st.sampled_from(FIRST_LEADERS)),
        follow_suit=follow_suit,
        follow_suit_last_k=draw(st.one_of(st.none(), st.integers(1, 8))) if follow_suit else None,
        target=draw(st.sampled_from(TARGETS)),
        point_multipliers=draw(st.booleans()),
        multiplier_table=draw(st.sampled_from(MULTIPLIER_TABLES)),
        cappotto=draw(st.sampled_from(CAPPOTTO_MODES)),
        cappotto_multiplier=draw(st.integers(1, 10)),
        ten_card=draw(st.sampled_from(TEN_CARD_VARIANTS)),
        partner_payoff=partner_payoff,
        payoff_table=None if default_payoffs else draw(st.one_of(st.none(), payoff_tables(partner_payoff))),
    )


seeds = st.integers(0, 2**40)
# "engine": engine.random_actions (uniform, pass included); a float: support.random_actions
# passing with that probability (low = long auctions up to 120 points, high = short or void).
policies = st.sampled_from(["engine", 0.0, 0.2, 0.5, 0.8, 0.95])


def play_games(rules, seed, policy, on_step=None, batch=BATCH):
    """Play ``batch`` random games to the end, some games sitting out some steps.

    ``on_step(before, actions, stepped, after)`` runs after every step; ``stepped``
    marks the games that were live and active. Returns (initial state, final state)."""
    rng = np.random.default_rng(seed)
    state = engine.init(seed + np.arange(batch), rules)
    start = state.copy()
    for _ in range(MAX_STEPS):
        if state.terminated.all():
            return start, state
        if policy == "engine":
            actions = engine.random_actions(state, rng)
        else:
            actions = random_actions(state.legal_action_mask, rng, policy)
        active = rng.random(batch) < 0.85
        after = engine.step(state, actions, active)
        if on_step is not None:
            on_step(state, actions, active & ~state.terminated, after)
        state = after
    raise AssertionError(f"games did not finish in {MAX_STEPS} steps")


def is_void(state):
    """Finished games whose auction holds only passes."""
    bids = (state.auction_actions > PASS).any(axis=1)
    return state.terminated & ~bids


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_each_card_is_played_exactly_once(rules, seed, policy):
    start, end = play_games(rules, seed, policy)
    start_hands = start.hidden.hands
    played = ~is_void(end)
    assert played.any() or policy == 0.95
    for b in np.flatnonzero(played):
        cards = end.trick_cards[b]
        assert np.array_equal(np.sort(cards.ravel()), np.arange(40)), cards
        seats = (end.trick_leaders[b][:, None] + np.arange(5)) % 5  # the i-th card of a trick is seat leader+i
        assert start_hands[b, seats, cards].all(), "a seat played a card it was not dealt"
    assert not end.hidden.hands[played].any(), "cards left in hand at the end"


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_captured_points_add_up_to_120_and_tricks_won_to_8(rules, seed, policy):
    _, end = play_games(rules, seed, policy)
    played = np.flatnonzero(~is_void(end))
    points = card_tables(rules.ten_card).points
    for b in played:
        assert end.captured_points[b].sum() == 120
        assert end.tricks_won[b].sum() == 8
        # Each seat's points are those of the tricks it won.
        winners = end.trick_winners[b]
        per_trick = points[end.trick_cards[b]].sum(axis=1)
        assert np.array_equal(end.captured_points[b], np.bincount(winners, weights=per_trick, minlength=5))
        assert np.array_equal(end.tricks_won[b], np.bincount(winners, minlength=5))


@pytest.mark.parametrize("partner_payoff", PARTNER_PAYOFFS)
@SETTINGS
@given(data=st.data(), seed=seeds, policy=st.sampled_from(["engine", 0.0, 0.3, 0.6]))
def test_payoffs_sum_to_zero_under_default_payoff_table(partner_payoff, data, seed, policy):
    rules = data.draw(rules_configs(default_payoffs=True, partner_payoff=partner_payoff))
    _, end = play_games(rules, seed, policy)
    assert np.allclose(end.rewards.sum(axis=1), 0, atol=1e-3), end.rewards.sum(axis=1)
    played = ~is_void(end)
    assert played.any()
    assert end.rewards[played].any(axis=1).all(), "a played hand must pay someone"


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_live_game_always_has_a_legal_action(rules, seed, policy):
    def check(state):
        mask = state.legal_action_mask
        live = ~state.terminated
        assert mask[live].any(axis=1).all(), np.flatnonzero(live & ~mask.any(axis=1))
        assert not mask[~live].any()
        assert ((state.current_player[live] >= 0) & (state.current_player[live] < 5)).all()
        assert (state.phase[~live] == Phase.DONE).all() and (state.phase[live] != Phase.DONE).all()

    start, _ = play_games(rules, seed, policy, lambda before, actions, stepped, after: check(after))
    check(start)


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_partner_is_the_holder_of_the_called_card(rules, seed, policy):
    start, end = play_games(rules, seed, policy)
    played = np.flatnonzero(~is_void(end))
    holder = start.hidden.hands[played, :, end.called_card[played]].argmax(axis=1)
    assert start.hidden.hands[played, holder, end.called_card[played]].all()
    assert np.array_equal(end.hidden.partner[played], holder)
    if not rules.allow_self_call:
        assert (end.hidden.partner[played] != end.caller[played]).all()
    assert (end.hidden.partner[is_void(end)] == -1).all()


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=st.sampled_from([0.9, 0.95, 1.0]))
def test_void_hand_pays_nothing_and_plays_no_trick(rules, seed, policy):
    _, end = play_games(rules, seed, policy)
    void = is_void(end)
    if rules.all_pass == "last_forced":
        assert not void.any(), "with all_pass='last_forced' the last to speak must bid"
        return
    assert void.any()
    assert (end.auction_length[void] == 5).all()
    assert not end.rewards[void].any()
    assert (end.trick_cards[void] == -1).all() and (end.trick_winners[void] == -1).all()
    assert not end.captured_points[void].any() and not end.tricks_won[void].any()
    assert (end.caller[void] == -1).all() and (end.called_card[void] == -1).all()
    assert not end.partner_revealed[void].any()
    assert (end.hidden.hands[void].sum(axis=2) == 8).all()


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_partner_revealed_becomes_true_exactly_when_the_called_card_is_played(rules, seed, policy):
    def check(before, actions, stepped, after):
        plays_called = (stepped & (before.phase == Phase.PLAY)
                        & (actions == PLAY_OFFSET + before.called_card.astype(np.int64)))
        assert not (before.partner_revealed & plays_called).any()
        assert np.array_equal(after.partner_revealed, before.partner_revealed | plays_called)
        assert not after.partner_revealed[after.phase < Phase.PLAY].any()

    _, end = play_games(rules, seed, policy, check)
    assert end.partner_revealed[~is_void(end)].all()


@SETTINGS
@given(rules=rules_configs(), seed=seeds, policy=policies)
def test_legal_play_actions_are_a_subset_of_the_current_players_hand(rules, seed, policy):
    def check(state):
        mask = state.legal_action_mask
        plays = mask[:, PLAY_OFFSET:]
        in_play = state.phase == Phase.PLAY
        assert not plays[~in_play].any()
        assert not mask[in_play, :PLAY_OFFSET].any()
        b = np.flatnonzero(in_play)
        hand = state.hidden.hands[b, state.current_player[b]]
        assert not (plays[b] & ~hand).any(), "a card not in hand is legal"
        assert plays[b].any(axis=1).all()
        if not rules.follow_suit:
            assert np.array_equal(plays[b], hand)

    play_games(rules, seed, policy, lambda before, actions, stepped, after: check(after))


def test_rules_strategy_covers_every_field_value():
    """The strategy above must reach every value of every variant field (else the
    properties silently skip a variant)."""
    seen = {}

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(rules_configs())
    def collect(rules):
        for name, value in rules.to_dict().items():
            seen.setdefault(name, set()).add(repr(value))

    collect()
    for name, values in {"bidding": BIDDING_MODES, "all_pass": ALL_PASS_RULES, "call_rule": CALL_RULES,
                         "first_leader": FIRST_LEADERS, "target": TARGETS, "cappotto": CAPPOTTO_MODES,
                         "ten_card": TEN_CARD_VARIANTS, "partner_payoff": PARTNER_PAYOFFS,
                         "allow_self_call": (True, False), "follow_suit": (True, False),
                         "point_multipliers": (True, False)}.items():
        assert seen[name] >= {repr(v) for v in values}, name
    assert len(seen["min_point_bid"]) > 1 and len(seen["follow_suit_last_k"]) > 2
    assert len(seen["payoff_table"]) > 2

