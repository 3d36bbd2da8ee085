"""One test per rule of RULES.md, on hand-built positions. Every position is
played through the engine and the reference at once (support.Table), so each
scenario pins both implementations."""

import numpy as np
import pytest

from briscola_env.actions import PASS, point_bid, text_to_action
from briscola_env.rules import PayoffTable, RulesConfig
from support import Table, cards, deal_with

STANDARD = RulesConfig()
DEALER = 4  # so seat 0 speaks first and leads the first trick

# Eight scripted tricks, (winner, winning card, the other four cards). Coppe
# (hearts) are trump; seat 0 is the caller and seat 1, holding the Asso di
# Coppe, his partner. Seats 0 and 1 win tricks 0-4: 30 points of trumps plus
# 48 points of other cards = 78 for the caller's side, 42 for the defenders.
TRICKS_78 = [
    (0, "3c", "As 3s Rd Rb"),
    (0, "Rc", "Rs Cd Cb Cs"),
    (0, "Cc", "Fd Fb Fs 2d"),
    (1, "Ac", "4d 5d 6d 7d"),
    (1, "Fc", "2b 4b 5b 6b"),
    (2, "7c", "4c Ad 7b 2s"),
    (3, "6c", "2c 3d 4s 5s"),
    (4, "5c", "Ab 3b 6s 7s"),
]
# The same shape with a 60-60 split.
TRICKS_60 = [
    (0, "3c", "3s Rb Rs Cb"),
    (0, "Rc", "Cs Fd Fb Fs"),
    (0, "Cc", "2d 4d 5d 6d"),
    (1, "Ac", "7d 2b 4b 5b"),
    (1, "Fc", "6b 7b 2s 4s"),
    (2, "7c", "4c Ad 3d 5s"),
    (3, "6c", "2c Ab 3b 6s"),
    (4, "5c", "As Rd Cd 7s"),
]
# The caller's side takes all 120 points in seven tricks; seat 4 wins the last,
# pointless trick ...
TRICKS_ALL_POINTS = [
    (0, "3c", "Ad 3d Rd Cd"),
    (0, "Rc", "Fd Ab 3b Rb"),
    (0, "Cc", "Cb Fb As 3s"),
    (1, "Ac", "Rs Cs Fs 5d"),
    (1, "Fc", "6d 7d 2b 4b"),
    (0, "7c", "5b 6b 7b 2s"),
    (1, "6c", "4s 5s 6s 7s"),
    (4, "5c", "4c 2c 2d 4d"),
]
# ... and here all eight tricks.
TRICKS_ALL_TRICKS = TRICKS_ALL_POINTS[:7] + [(1, "5c", "4c 2c 2d 4d")]

RANK_AUCTION_ACE = ("bid A", "pass", "pass", "pass", "pass", "call Ac")  # seat 0 calls the Asso di Coppe
POINTS_AUCTION = ("bid A", "bid 3", "bid 2", "pass", "pass")  # then seat 0 names the points


def scripted(tricks, rules=STANDARD, auction=RANK_AUCTION_ACE) -> Table:
    return Table.scripted(rules, tricks, DEALER).act(*auction).play_tricks()


def points_game(points: int, rules=STANDARD, tricks=TRICKS_78) -> Table:
    # Calling the Asso after points is only legal under the earlier reading of the call after the 2.
    auction = POINTS_AUCTION + (f"bid {points}", "pass", "pass", "call Ac")
    return scripted(tricks, rules.replace(call_after_two="any"), auction)


# --- Cards and tricks -------------------------------------------------------

FIRST_TRICK = {0: "5d", 1: "Rd", 2: "As", 3: "3d", 4: "7d"}  # seat -> card played in trick 0


def first_trick(rules=STANDARD, replace=None) -> Table:
    played = {**FIRST_TRICK, **(replace or {})}
    hands = deal_with({**played, 2: played[2] + " Ac"})  # seat 2 holds the called card
    table = Table(rules, hands, DEALER).act(*RANK_AUCTION_ACE)  # trump: Coppe
    return table.act(*(f"play {played[s]}" for s in range(5)))


def test_trick_without_trump_goes_to_the_strongest_card_of_the_suit_led():
    table = first_trick()  # 5♦ R♦ A♠ 3♦ 7♦: the 3 beats the Re
    assert table.state.trick_winners[0, 0] == 3
    assert table.state.captured_points[0].tolist() == [0, 0, 0, 11 + 4 + 10, 0]


def test_an_off_suit_card_never_wins():
    table = first_trick(replace={1: "Ab", 3: "3b"})  # Asso and 3 of Bastoni: not the suit led
    assert table.state.trick_winners[0, 0] == 4  # 7♦ is the only other Denari: it beats the 5♦


def test_trick_with_trump_goes_to_the_strongest_trump():
    table = first_trick(replace={4: "2c"})  # the lowest trump beats every Denari and the A♠
    assert table.state.trick_winners[0, 0] == 4
    table = first_trick(replace={1: "4c", 4: "2c"})  # the stronger of two trumps
    assert table.state.trick_winners[0, 0] == 1


def test_seven_variant_order_and_points():
    table = first_trick(RulesConfig(ten_card="seven"))  # 3♦ is now a plain card; the 7♦ the ten
    assert table.state.trick_winners[0, 0] == 4
    assert table.state.captured_points[0, 4] == 11 + 4 + 0 + 10


# --- Auction ----------------------------------------------------------------

def test_first_bidder_is_after_the_dealer():
    table = Table(STANDARD, deal_with({}), dealer=2)
    assert table.state.current_player[0] == 3


def test_a_pass_is_final():
    table = Table(STANDARD, deal_with({}), DEALER).act("bid A", "pass", "bid 3", "pass", "pass")
    assert table.state.current_player[0] == 0  # seat 1 passed: skipped from now on
    table.act("bid R")
    assert table.state.current_player[0] == 2
    assert table.state.passed[0].tolist() == [False, True, False, True, True]


def test_any_weaker_rank_may_be_bid():
    table = Table(STANDARD, deal_with({}), DEALER).act("bid R")  # level 3
    assert table.legal == [PASS] + list(range(4, 11))  # Cavallo .. 2, not only the next rank
    table.act("bid 5")  # skipping ranks is fine
    assert table.legal == [PASS] + list(range(9, 11))


def test_points_start_at_62_after_the_2():
    table = Table(STANDARD, deal_with({}), DEALER).act("bid 2")
    assert table.legal == [PASS] + list(range(point_bid(62), point_bid(120) + 1))
    table.act("bid 80")
    assert table.legal == [PASS] + list(range(point_bid(81), point_bid(120) + 1))


def test_rank_only_stops_at_the_2():
    table = Table(RulesConfig(bidding="rank_only"), deal_with({}), DEALER).act("bid 2")
    assert table.legal == [PASS]


def test_points_only_opens_at_min_point_bid():
    for low in (61, 70):
        rules = RulesConfig(bidding="points_only", min_point_bid=low)
        assert Table(rules, deal_with({}), DEALER).legal == [PASS] + list(range(point_bid(low), point_bid(120) + 1))


def test_the_last_player_left_who_has_not_bid_still_chooses():
    table = Table(STANDARD, deal_with({}), DEALER).act("pass", "pass", "pass", "pass")
    assert table.state.current_player[0] == 4
    assert table.legal == list(range(0, 11))


def test_all_pass_void():
    table = Table(STANDARD, deal_with({}), DEALER).act("pass", "pass", "pass", "pass", "pass")
    assert table.state.terminated[0] and table.payoffs == [0.0] * 5
    assert table.state.caller[0] == -1 and table.state.trick_cards[0].max() == -1


def test_all_pass_last_forced():
    table = Table(RulesConfig(all_pass="last_forced"), deal_with({}), DEALER).act("pass", "pass", "pass", "pass")
    assert PASS not in table.legal and table.legal == list(range(1, 11))
    table.act("bid 2")
    assert table.state.phase[0] == 1 and table.state.caller[0] == 4


def test_auction_ends_when_all_but_the_standing_bidder_have_passed():
    table = Table(STANDARD, deal_with({}), DEALER).act("bid C", "bid F", "pass", "pass", "pass")
    assert table.state.current_player[0] == 0
    table.act("pass")
    assert table.state.caller[0] == 1 and table.state.current_player[0] == 1


# --- The call -----------------------------------------------------------------

def call_position(rules, auction=("bid R", "pass", "pass", "pass", "pass"), **dealt) -> Table:
    return Table(rules, deal_with(dealt), DEALER).act(*auction)


def called(table: Table) -> set[int]:
    return {a - text_to_action("call Ac") for a in table.legal}


def test_exact_call_names_the_rank_bid():
    assert called(call_position(STANDARD)) == set(cards("Rc Rd Rb Rs"))


def test_at_least_call_names_that_rank_or_a_stronger_one():
    table = call_position(RulesConfig(call_rule="at_least"))
    assert called(table) == set(cards("Rc Rd Rb Rs 3c 3d 3b 3s Ac Ad Ab As"))


def test_after_a_points_auction_any_card_may_be_called():
    auction = POINTS_AUCTION + ("bid 70", "pass", "pass")
    for rule in ("exact", "at_least"):
        assert len(called(call_position(RulesConfig(call_rule=rule, call_after_two="any"), auction))) == 40
    assert len(called(call_position(RulesConfig(call_rule="at_least"), auction))) == 40


def test_no_self_call_forbids_own_cards_and_hopeless_rank_bids():
    rules = RulesConfig(allow_self_call=False)
    table = Table(rules, deal_with({0: "Ac Ad Ab As Rc"}), DEALER)
    assert text_to_action("bid A") not in table.legal  # every Asso is his own: nobody to call
    table.act("bid R", "pass", "pass", "pass", "pass")
    assert called(table) == set(cards("Rd Rb Rs"))


def test_the_called_suit_is_trump_and_its_holder_the_partner():
    table = Table.scripted(STANDARD, TRICKS_78, DEALER).act(*RANK_AUCTION_ACE)
    assert table.state.trump[0] == 0 and table.state.hidden.partner[0] == 1


def test_the_partner_is_revealed_when_the_called_card_is_played():
    table = Table.scripted(STANDARD, TRICKS_78, DEALER).act(*RANK_AUCTION_ACE)
    table.play_tricks(3, 1)  # seat 0 has led trick 3; seat 1 still holds the Asso di Coppe
    assert not table.state.partner_revealed[0]
    table.play_tricks(3, 5)
    assert table.state.partner_revealed[0] and table.game.partner_revealed


# --- Play -------------------------------------------------------------------

@pytest.mark.parametrize("first_leader, leader", [("after_dealer", 0), ("caller", 2)])
def test_first_leader(first_leader, leader):
    table = Table(RulesConfig(first_leader=first_leader), deal_with({2: "Ac"}), DEALER)
    table.act("pass", "pass", "bid A", "pass", "pass", "call Ad")  # seat 2 is the caller
    assert table.state.current_player[0] == leader and table.state.trick_leaders[0, 0] == leader


def test_no_obligation_to_follow_suit_by_default():
    hands = deal_with({0: "5d Ac", 1: "Rd Ab As"})
    table = Table(STANDARD, hands, DEALER).act(*RANK_AUCTION_ACE, "play 5d")
    assert len(table.legal) == 8


def test_follow_suit_when_holding_the_suit_led():
    hands = deal_with({0: "5d Ac", 1: "Rd 3d Ab As 2b 4b 5s 6s"})
    table = Table(RulesConfig(follow_suit=True), hands, DEALER).act(*RANK_AUCTION_ACE, "play 5d")
    assert {a - text_to_action("play Ac") for a in table.legal} == set(cards("Rd 3d"))


@pytest.mark.parametrize("last_k, must_follow", [(None, True), (2, True), (1, False)])
def test_follow_suit_only_in_the_last_k_tricks(last_k, must_follow):
    # Trick 6 of TRICKS_78 is led by seat 2 with the 4♠; seat 3 then holds 6♥ and 7♠.
    rules = RulesConfig(follow_suit=True, follow_suit_last_k=last_k)
    early = RulesConfig(follow_suit=True, follow_suit_last_k=2)
    table = Table.scripted(early if last_k is None else rules, TRICKS_78, DEALER).act(*RANK_AUCTION_ACE)
    table.play_tricks(6, 1)
    expected = cards("7s") if must_follow else cards("6c 7s")
    assert {a - text_to_action("play Ac") for a in table.legal} == set(expected)


# --- Scoring ------------------------------------------------------------------

def test_example_bid_75_made_with_78():
    table = points_game(75)
    assert table.state.team_points[0] == 78 and table.state.contract_made[0]
    assert table.payoffs == [4, 2, -2, -2, -2]


@pytest.mark.parametrize("bid, multiplier", [
    (62, 1), (70, 1), (71, 2), (78, 2), (80, 2), (81, 3), (90, 3), (91, 4), (100, 4), (101, 5), (120, 5)])
def test_point_bid_multipliers(bid, multiplier):
    table = points_game(bid)
    sign = 1 if bid <= 78 else -1
    assert table.payoffs == [sign * v * multiplier for v in (2, 1, -1, -1, -1)]


def test_point_multipliers_off():
    assert points_game(75, RulesConfig(point_multipliers=False)).payoffs == [2, 1, -1, -1, -1]


def test_rank_contract_made_and_failed_at_target_61():
    assert scripted(TRICKS_78).payoffs == [2, 1, -1, -1, -1]
    table = scripted(TRICKS_60)
    assert table.state.team_points[0] == 60 and table.payoffs == [-2, -1, 1, 1, 1]


def test_target_60_tie_goes_to_the_caller():
    assert scripted(TRICKS_60, RulesConfig(target=60)).payoffs == [2, 1, -1, -1, -1]


def test_a_point_bid_above_61_is_the_target():
    assert points_game(78).payoffs == [4, 2, -2, -2, -2]  # exactly the bid: made
    assert points_game(79).payoffs == [-4, -2, 2, 2, 2]


def test_self_call_plays_solo():
    table = scripted(TRICKS_78, auction=("bid R", "pass", "pass", "pass", "pass", "call Rc"))
    assert table.state.hidden.partner[0] == 0
    assert table.state.team_points[0] == 65  # seat 0's own three tricks
    assert table.payoffs == [4, -1, -1, -1, -1]


def test_solo_failed():
    auction = ("pass", "bid R", "pass", "pass", "pass", "call Rd")  # seat 1 holds the R♦ himself
    table = scripted(TRICKS_60, auction=auction)
    assert table.state.caller[0] == 1 and table.state.hidden.partner[0] == 1
    assert table.payoffs == [1, -4, 1, 1, 1]


@pytest.mark.parametrize("mode, multiplier, all_points, all_tricks", [
    ("points", 2, 2, 2), ("points", 3, 3, 3), ("tricks", 2, 1, 2), ("tricks", 3, 1, 3), ("off", 2, 1, 1)])
def test_cappotto(mode, multiplier, all_points, all_tricks):
    rules = RulesConfig(cappotto=mode, cappotto_multiplier=multiplier)
    table = scripted(TRICKS_ALL_POINTS, rules)
    assert table.state.team_points[0] == 120 and table.state.tricks_won[0, [0, 1]].sum() == 7
    assert table.payoffs == [all_points * v for v in (2, 1, -1, -1, -1)]
    assert scripted(TRICKS_ALL_TRICKS, rules).payoffs == [all_tricks * v for v in (2, 1, -1, -1, -1)]


def test_cappotto_against_the_caller():
    # Seat 3 calls the 2♥ of seat 2 (Coppe stay trump); seats 0 and 1 take every trick.
    auction = ("pass", "pass", "pass", "bid 2", "pass", "call 2c")
    table = scripted(TRICKS_ALL_TRICKS, auction=auction)
    assert table.state.hidden.partner[0] == 2 and table.state.team_points[0] == 0
    assert table.payoffs == [2, 2, -2, -4, 2]


def test_cappotto_multiplies_a_point_bid_multiplier():
    auction = POINTS_AUCTION + ("bid 101", "pass", "pass", "call Ac")
    rules = STANDARD.replace(call_after_two="any")  # the Asso may be called after points
    assert scripted(TRICKS_ALL_POINTS, rules, auction=auction).payoffs == [20, 10, -10, -10, -10]


def test_partner_payoff_equal():
    table = scripted(TRICKS_78, RulesConfig(partner_payoff="equal"))
    assert np.allclose(table.payoffs, [2, 2, -4 / 3, -4 / 3, -4 / 3])


def test_payoff_table_is_config():
    table = PayoffTable(caller=6, partner=3, defender=-2, solo_caller=12, solo_defender=-3)
    assert scripted(TRICKS_78, RulesConfig(payoff_table=table)).payoffs == [6, 3, -2, -2, -2]
