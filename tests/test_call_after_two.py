"""The call after the 2 (RULES.md, "The call"; ``RulesConfig.call_after_two``).

Once a rank auction reaches the 2, with or without points bid after it, the
winning rank is the 2: under ``call_rule="exact"`` the caller calls a 2 of any
suit or, holding the 2 of a suit, the weakest card of that suit he does not
hold. Every position is played through the engine and the reference at once
(support.Table), and the sampled worlds of PIMC must agree with such a call.
"""

import numpy as np
import pytest

from briscola_env import engine
from briscola_env import worlds as W
from briscola_env.actions import text_to_action
from briscola_env.cards import NUM_SEATS
from briscola_env.observation import encode
from briscola_env.rules import RulesConfig
from support import Table, cards, deal_with

DEALER = 4  # so seat 0 speaks first
THE_TWO_WINS = ("bid 2", "pass", "pass", "pass", "pass")  # seat 0 wins the auction on the 2
POINTS_AFTER_THE_TWO = ("bid A", "bid 3", "bid 2", "pass", "pass", "bid 70", "pass", "pass")  # seat 0 on 70
NO_TWO = "Ad 3d Rd Cb Fb 7s 6s 5s"
ALL_TWOS = "2c 2d 2b 2s"


def called(rules: RulesConfig, hand: str, auction=THE_TWO_WINS) -> set[int]:
    """The cards seat 0, holding ``hand``, may call after ``auction``."""
    table = Table(rules, deal_with({0: hand}), DEALER).act(*auction)
    assert table.state.phase[0] == engine.Phase.CALL and table.state.caller[0] == 0
    return {a - text_to_action("call Ac") for a in table.legal}


def test_call_after_the_two_without_points_names_a_two():
    assert called(RulesConfig(), NO_TWO) == set(cards(ALL_TWOS))


def test_call_after_the_two_after_points_still_names_a_two():
    assert called(RulesConfig(), NO_TWO, POINTS_AFTER_THE_TWO) == set(cards(ALL_TWOS))
    assert called(RulesConfig(bidding="rank_only"), NO_TWO) == set(cards(ALL_TWOS))


@pytest.mark.parametrize("auction", [THE_TWO_WINS, POINTS_AFTER_THE_TWO])
def test_call_after_the_two_holding_the_2_and_the_4_calls_the_5(auction):
    hand = "2c 4c Ad 3d Rd Cb Fb 7s"
    assert called(RulesConfig(), hand, auction) == set(cards("2c 5c 2d 2b 2s"))
    assert called(RulesConfig(), "2c 4c 5c 6c 2d Ab 3b 7s", auction) == set(cards("2c 7c 2d 4d 2b 2s"))


def test_call_after_the_two_of_the_weakest_missing_card_names_trump_and_partner():
    hands = deal_with({0: "2c 4c Ad 3d Rd Cb Fb 7s", 3: "5c"})
    table = Table(RulesConfig(), hands, DEALER).act(*THE_TWO_WINS, "call 5c")
    assert table.state.trump[0] == 0 and table.state.hidden.partner[0] == 3
    solo = Table(RulesConfig(), hands, DEALER).act(*THE_TWO_WINS, "call 2c")  # the 2 he holds: a solo
    assert solo.state.hidden.partner[0] == 0


def test_call_after_the_two_in_the_seven_order():
    # Weakest first, the seven order runs 2, 3, 4, 5, 6, Fante: the 3 comes right after the 2.
    seven = RulesConfig(ten_card="seven")
    assert called(seven, "2c 4c Ad Rd Cb Fb 7s 6s") == set(cards("2c 3c 2d 2b 2s"))
    assert called(seven, "2c 3c 4c 5c 6c 2d Ab 7s") == set(cards("2c Fc 2d 3d 2b 2s"))
    assert called(RulesConfig(), "2c 3c 4c 5c 6c 2d Ab 7s") == set(cards("2c 7c 2d 4d 2b 2s"))


@pytest.mark.parametrize("auction", [THE_TWO_WINS, POINTS_AFTER_THE_TWO])
def test_call_after_the_two_at_least_any_card(auction):
    assert len(called(RulesConfig(call_rule="at_least"), "2c 4c Ad 3d Rd Cb Fb 7s", auction)) == 40


def test_call_after_the_two_without_self_calls_keeps_the_weakest_missing_cards():
    rules = RulesConfig(allow_self_call=False)
    assert called(rules, "2c 4c 2d Ad 3b Rb Cs Fs") == set(cards("5c 4d 2b 2s"))
    # Holding every 2, a bid of the 2 still lets him call the weakest card he lacks of each suit ...
    table = Table(rules, deal_with({0: ALL_TWOS + " 4c 5c 4d 3b"}), DEALER)
    assert text_to_action("bid 2") in table.legal
    table.act(*THE_TWO_WINS)
    assert {a - text_to_action("call Ac") for a in table.legal} == set(cards("6c 5d 4b 4s"))
    # ... whereas under the earlier reading it would let him call only his own cards: hopeless.
    earlier = Table(rules.replace(call_after_two="any"), deal_with({0: ALL_TWOS + " 4c 5c 4d 3b"}), DEALER)
    assert text_to_action("bid 2") not in earlier.legal


def test_call_after_two_any_keeps_the_earlier_reading():
    rules = RulesConfig(call_after_two="any")
    hand = "2c 4c Ad 3d Rd Cb Fb 7s"
    assert called(rules, hand) == set(cards(ALL_TWOS))  # at the 2: a 2 and nothing else
    assert len(called(rules, hand, POINTS_AFTER_THE_TWO)) == 40  # after points: any card
    assert len(called(RulesConfig(bidding="points_only"), hand, ("bid 61",) + ("pass",) * 4)) == 40


# --- Worlds ------------------------------------------------------------------

WEAKEST_MISSING_CALLER = 2  # seat 2 wins on the 2 holding the 2, 4, 5, 6 of Coppe and calls the 7
CALLER_HAND = "2c 4c 5c 6c Ad 3d Rb Cs"
OBSERVER_HAND = "Ac 3c Rc 2d 4d 5d 6d 7d"  # seat 0, who leads the first trick


def weakest_missing_call_view():
    hands = deal_with({0: OBSERVER_HAND, WEAKEST_MISSING_CALLER: CALLER_HAND, 4: "7c"})
    table = Table(RulesConfig(), hands, DEALER).act("pass", "pass", "bid 2", "pass", "pass", "call 7c")
    obs = encode(table.state, np.zeros(1, dtype=np.int64))
    return obs, W.decode(obs, table.rules)


def test_worlds_are_consistent_with_a_weakest_missing_call():
    obs, public = weakest_missing_call_view()
    deals = W.sample_deals(public, 20_000, np.random.default_rng(3))[0]  # (20000, 40)
    # The caller held the 2 of Coppe and every Coppe weaker than the called 7, not the 7 itself.
    assert (deals[:, cards("2c 4c 5c 6c")] == WEAKEST_MISSING_CALLER).all()
    assert (deals[:, cards("7c")[0]] != WEAKEST_MISSING_CALLER).all()
    many = W.PublicView(**{key: np.repeat(value, 500, axis=0) if isinstance(value, np.ndarray) else value
                           for key, value in vars(public).items()})
    replayed = W.replay(many, deals[:500])  # raises if the call were illegal in a world
    assert np.array_equal(encode(replayed, np.zeros(500, dtype=np.int64)), np.repeat(obs, 500, axis=0))
    # Still uniform: a card nothing constrains lies in the caller's 4 open places one time in 27
    # (the 7 of Coppe may not take them), else evenly with the three other seats.
    seats = np.bincount(deals[:, cards("Fb")[0]], minlength=NUM_SEATS) / len(deals)
    expected = np.array([0, 23 / 81, 4 / 27, 23 / 81, 23 / 81])
    assert np.abs(seats - expected).max() < 0.01, (seats, expected)


def test_worlds_ignoring_a_weakest_missing_call_fail_the_replay(monkeypatch):
    monkeypatch.setattr(W, "_weakest_missing_calls", lambda public: None)
    _, public = weakest_missing_call_view()
    many = W.PublicView(**{key: np.repeat(value, 64, axis=0) if isinstance(value, np.ndarray) else value
                           for key, value in vars(public).items()})
    with pytest.raises(ValueError, match="illegal action"):
        W.replay(many, W.sample_deals(many, 1, np.random.default_rng(0))[:, 0])
