"""Four players (``RulesConfig(players=4)``, preset ``four_players``, 004): 10 cards each, 10 tricks
of 4, the partner called among the three others, 2 against 2, RULES.md's zero-sum table for four.
One test per rule, each played through the engine and the reference at once (support.Table)."""

import numpy as np
import pytest

from briscola_env import engine, raw_env
from briscola_env.cards import NUM_CARDS
from briscola_env.engine import Phase
from briscola_env.observation import encode, observation_spec
from briscola_env.rules import PayoffTable, RulesConfig, preset
from support import Table, cards, play_out

FOUR = preset("four_players")
SEATS = 4
DEALER = 3  # seat 0 speaks first and leads the first trick


def four_hands(dealt: dict) -> list[list[int]]:
    """Four hands of 10: the cards given per seat, the rest of the deck filled in card-id order."""
    hands = [cards(dealt.get(seat, "")) for seat in range(SEATS)]
    rest = [c for c in range(NUM_CARDS) if all(c not in h for h in hands)]
    for hand in hands:
        while len(hand) < 10:
            hand.append(rest.pop(0))
    return hands


# Seat 0 holds nine Coppe and the Asso di Denari; the 2 di Coppe, which he calls, is seat 2's.
STRONG = {0: "Ac 3c Rc Cc Fc 7c 6c 5c 4c Ad", 2: "2c"}


def strong_hand(rules=FOUR) -> Table:
    table = Table(rules, four_hands(STRONG), DEALER).act("bid 2", "pass", "pass", "pass", "call 2c")
    return play_out(table, "Ac 3c Rc Cc Fc 7c 6c 5c 4c Ad")


def test_ten_cards_each_dealt_to_four_seats():
    deals, dealers = engine.deal_from_seeds(np.arange(200), FOUR)
    counts = (deals[:, :, None] == np.arange(5)).sum(axis=1)
    assert (counts[:, :4] == 10).all() and (counts[:, 4] == 0).all()
    assert set(dealers.tolist()) == {0, 1, 2, 3}
    state = engine.init(np.arange(200), FOUR)
    assert state.hidden.hand_bits.shape == (200, 4) and state.rewards.shape == (200, 4)
    assert (state.current_player == (dealers + 1) % 4).all()  # the player after the dealer speaks first


def test_the_auction_goes_round_four_seats():
    table = Table(FOUR, four_hands({}), DEALER).act("bid A", "pass", "pass")
    assert table.state.phase[0] == Phase.AUCTION and table.state.current_player[0] == 3
    table.act("pass")  # three passes: seat 0 holds the bid
    assert table.state.phase[0] == Phase.CALL and table.state.caller[0] == 0


def test_ten_tricks_of_four_cards():
    table = strong_hand()
    assert table.state.trick_cards.shape[1:] == (10, 4)
    assert len(table.game.trick_winners) == 10 and table.state.tricks_won[0].sum() == 10
    leaders, cards_ = table.state.trick_leaders[0], table.state.trick_cards[0]
    assert (leaders[1:] == table.state.trick_winners[0, :-1]).all()  # each trick's winner leads the next
    assert sorted(cards_.reshape(-1).tolist()) == list(range(NUM_CARDS))


def test_the_partner_is_called_among_the_three_others_two_against_two():
    table = Table(FOUR, four_hands(STRONG), DEALER).act("bid 2", "pass", "pass", "pass", "call 2c")
    assert table.state.hidden.partner[0] == 2 and table.state.trump[0] == 0
    assert not table.state.partner_revealed[0]


def test_four_player_payoffs_made_with_a_cappotto():
    table = strong_hand()
    assert table.state.team_points[0] == 120 and table.state.multiplier[0] == 2  # every trick: cappotto
    assert table.payoffs == [2, -2, 2, -2]  # +1 to caller and partner, -1 to each defender, doubled


def test_four_player_payoffs_made_without_a_cappotto():
    assert strong_hand(FOUR.replace(cappotto="off")).payoffs == [1, -1, 1, -1]


def test_four_player_payoffs_failed_at_a_points_bid_multiply():
    rules = RulesConfig(players=4, bidding="points_only", cappotto="off")
    weak = four_hands({0: "2c 2d 2b 2s 4c 4d 4b 4s 5c 5d", 1: "3c Rc Cc Fc 7c 6c", 2: "Ac"})  # seat 1: trumps
    table = Table(rules, weak, DEALER).act("bid 120", "pass", "pass", "pass", "call Ac")
    play_out(table)
    assert not table.state.contract_made[0] and table.state.multiplier[0] == 5  # 101..120: x5
    partner = int(table.state.hidden.partner[0])
    assert partner not in (0, -1)
    assert table.payoffs == [-5 if s in (0, partner) else 5 for s in range(SEATS)]


def test_a_solo_at_four_pays_three_against_one_each():
    table = Table(FOUR.replace(cappotto="off"), four_hands(STRONG), DEALER)
    table.act("bid A", "pass", "pass", "pass", "call Ac")  # his own Asso: alone against three
    play_out(table, "Ac 3c Rc Cc Fc 7c 6c 5c 4c Ad")
    assert table.state.hidden.partner[0] == 0 and table.state.contract_made[0]
    assert table.payoffs == [3, -1, -1, -1]


def test_the_table_for_four_is_zero_sum_and_the_default():
    pay = FOUR.payoff_table
    assert pay == PayoffTable.standard(players=4) == PayoffTable(1, 1, -1, 3, -1)
    assert pay.caller + pay.partner + 2 * pay.defender == 0 and pay.solo_caller + 3 * pay.solo_defender == 0


def test_the_views_are_sized_for_four():
    spec = observation_spec(FOUR)
    assert spec.sections["dealer"].size == 4 and spec.sections["current_trick"].shape == (3, NUM_CARDS)
    assert spec.sections["played_in_trick"].shape == (NUM_CARDS, 10) and spec.sections["trick_index"].size == 11
    assert spec.sections["auction_bids"].shape == (70, 4) and spec.sections["auction_passes"].shape == (4, 71)
    table = strong_hand()
    view = encode(table.state, np.array([1]))[0]
    assert spec.view(view, "captured_points").tolist() == [0, 0, 0, 120]  # seat 1 sees seat 0 as relative 3
    assert spec.view(view, "tricks_won").tolist() == [0, 0, 0, 10]


@pytest.mark.parametrize("bad, word", [(4, "a seat 0..3"), (-1, "a seat 0..3")])
def test_the_aec_env_has_four_agents_and_checks_seats_0_to_3(bad, word):
    e = raw_env(rules="four_players")
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    with pytest.raises(ValueError, match=word):
        e.reset(options={"hands": four_hands({}), "dealer": bad})


def test_the_four_player_layout_is_documented_with_its_sizes():
    import briscola_env.observation as observation
    from briscola_env.observation import privileged_spec

    assert f"(``RulesConfig(players=4)``, {observation_spec(FOUR).size} entries)" in observation.__doc__
    assert f"the\nprivileged view is {privileged_spec(FOUR).size} entries" in observation.__doc__
