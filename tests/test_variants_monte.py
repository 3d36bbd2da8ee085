"""Briscola col monte (``RulesConfig.monte``, preset ``monte``): 7 cards each and a monte of 5 the
caller takes after the auction and discards 5 from, one decision each, then he calls; 7 tricks.
One test per rule of RULES.md's reading, each played through the engine and the reference at
once (support.Table), and what the views show of the monte."""

import numpy as np
import pytest

from briscola_env.actions import CALL_OFFSET, PLAY_OFFSET, text_to_action
from briscola_env.cards import NUM_CARDS, card_str
from briscola_env.engine import Phase
from briscola_env.observation import encode, observation_spec
from briscola_env.rules import RulesConfig, preset
from support import Table, cards, play_out

MONTE = preset("monte")
SPEC = observation_spec(MONTE)
DEALER = 4  # seat 0 speaks first and leads the first trick
SEATS = 5


def monte_deal(dealt: dict, monte: str) -> tuple[list[list[int]], list[int]]:
    """Five hands of 7 (the cards given per seat, the rest of the deck filled in card-id order) and the monte."""
    hands = [cards(dealt.get(seat, "")) for seat in range(SEATS)]
    pile = cards(monte)
    rest = [c for c in range(NUM_CARDS) if all(c not in h for h in hands) and c not in pile]
    for hand in hands:
        while len(hand) < 7:
            hand.append(rest.pop(0))
    return hands, pile


# Seat 0 holds the top seven Coppe; the monte brings him five Denari worth 30 points.
TOP_COPPE = "Ac 3c Rc Cc Fc 7c 6c"
MONTE_CARDS = "Ad 3d Rd Cd Fd"


def won_auction(rules=MONTE, dealt=None, monte=MONTE_CARDS, bid="bid A") -> Table:
    """Seat 0 wins the auction on ``bid`` (the Asso: he may call the other Assi; the 5: the 5 di Coppe
    makes his seven Coppe trump)."""
    hands, pile = monte_deal(dealt or {0: TOP_COPPE}, monte)
    return Table(rules, hands, DEALER, monte=pile).act(bid, "pass", "pass", "pass", "pass")


def discard(table: Table, texts: str) -> Table:
    return table.act(*(f"play {card_str(c)}" for c in cards(texts)))


def test_the_caller_takes_the_monte_and_discards_five():
    table = won_auction()
    state = table.state
    assert state.phase[0] == Phase.DISCARD and state.current_player[0] == 0
    hand = set(cards(TOP_COPPE + " " + MONTE_CARDS))
    assert table.legal == sorted(PLAY_OFFSET + c for c in hand)  # any of his twelve cards
    discard(table, "Ad 3d Rd Cd")
    assert table.state.phase[0] == Phase.DISCARD and len(table.legal) == 8
    discard(table, "Fd")
    assert table.state.phase[0] == Phase.CALL and table.state.current_player[0] == 0
    assert table.game.hands[0] == set(cards(TOP_COPPE)) and table.game.discards == set(cards(MONTE_CARDS))
    assert int(table.state.hidden.discards[0]) == sum(1 << c for c in cards(MONTE_CARDS))


def test_the_discards_use_the_play_card_ids_and_text():
    assert text_to_action("discard Ad") == text_to_action("play Ad") == PLAY_OFFSET + 10


def test_seven_tricks_of_five_cards():
    table = play_out(discard(won_auction(bid="bid 5"), MONTE_CARDS).act("call 5c"), TOP_COPPE)
    assert table.state.trick_cards.shape[1:] == (7, 5)
    assert (table.state.trick_winners[0] >= 0).all() and len(table.game.trick_winners) == 7
    assert table.state.tricks_won[0].sum() == 7


def test_discards_count_for_the_callers_side():
    # He banks the monte's 30 points and discards nothing else; the tricks bring the other 90.
    table = play_out(discard(won_auction(bid="bid 5"), MONTE_CARDS).act("call 5c"), TOP_COPPE)
    partner = table.state.hidden.partner[0]
    tricks = table.state.captured_points[0, 0] + table.state.captured_points[0, partner]
    assert table.state.captured_points[0].sum() == 90
    assert table.state.team_points[0] == tricks + 30 == table.game.team_points


@pytest.mark.parametrize("mode", ["points", "tricks"])
def test_cappotto_is_every_point_or_all_seven_tricks(mode):
    rules = MONTE.replace(cappotto=mode)
    table = play_out(discard(won_auction(rules, bid="bid 5"), MONTE_CARDS).act("call 5c"), TOP_COPPE)
    assert table.state.tricks_won[0, 0] == 7 and table.state.team_points[0] == 120
    assert table.state.multiplier[0] == 2
    partner = int(table.state.hidden.partner[0])
    assert partner != 0
    assert table.payoffs == [4 if s == 0 else 2 if s == partner else -2 for s in range(SEATS)]


def test_without_cappotto_the_same_hand_pays_single():
    table = play_out(discard(won_auction(MONTE.replace(cappotto="off"), bid="bid 5"), MONTE_CARDS).act("call 5c"),
                     TOP_COPPE)
    assert table.state.multiplier[0] == 1 and table.payoffs[0] == 2


def test_calling_a_discarded_card_is_a_solo():
    table = discard(won_auction(), "Ac 3d Rd Cd Fd")  # he discards his own Asso di Coppe ...
    assert CALL_OFFSET + 0 in table.legal
    table.act("call Ac")  # ... and calls it: he plays alone, and nobody sees it
    assert table.state.hidden.partner[0] == 0 and table.game.partner == 0
    play_out(table, "3c Rc Cc Fc 7c 6c Ad")
    assert not table.state.partner_revealed[0] and not table.game.partner_revealed
    sign = 1 if table.state.contract_made[0] else -1
    m = int(table.state.multiplier[0])
    assert table.payoffs == [sign * 4 * m] + [-sign * m] * 4  # the solo's table: +4 / -1 each


def test_without_self_calls_a_discarded_card_cannot_be_called():
    table = discard(won_auction(RulesConfig(monte=True, allow_self_call=False)), "Ac 3d Rd Cd Fd")
    assert CALL_OFFSET + 0 not in table.legal  # the discarded Asso di Coppe
    assert CALL_OFFSET + 10 not in table.legal  # the Asso di Denari in his hand
    assert sorted(table.legal) == [CALL_OFFSET + 20, CALL_OFFSET + 30]  # the others' Assi


def test_without_self_calls_he_calls_his_own_when_the_monte_left_him_nothing_else():
    # He bids the Asso holding two; the monte brings the other two: every Asso is his.
    rules = RulesConfig(monte=True, allow_self_call=False)
    table = won_auction(rules, dealt={0: "Ac Ad 3c Rc Cc Fc 7c"}, monte="Ab As 3d Rd Cd")
    discard(table, "3d Rd Cd Ab As")
    assert sorted(table.legal) == [CALL_OFFSET + c for c in cards("Ac Ad Ab As")]
    table.act("call Ab")
    assert table.state.hidden.partner[0] == 0


def test_nobody_but_the_caller_sees_the_monte_or_the_discards_before_the_end():
    table = won_auction()
    monte = np.zeros(NUM_CARDS, dtype=np.uint8)
    monte[cards(MONTE_CARDS)] = 1
    checked = 0
    while True:
        state = table.state
        discards = np.array([int(state.hidden.discards[0]) >> c & 1 for c in range(NUM_CARDS)], dtype=np.uint8)
        played = (state.trick_cards[0] >= 0).sum()
        for seat in range(SEATS):
            view = encode(state, np.array([seat]))[0]
            sees = seat == 0 or state.phase[0] == Phase.DONE
            assert np.array_equal(view[SPEC["monte"]], monte * sees), (played, seat)
            assert np.array_equal(view[SPEC["discards"]], discards * sees), (played, seat)
            unplayed = [c for c in cards(MONTE_CARDS) if c not in state.trick_cards[0]]
            assert (view[SPEC["unseen"]][unplayed] == (not sees)).all(), (played, seat)
            checked += 1
        if state.terminated[0]:
            break
        table.act("call Ab" if state.phase[0] == Phase.CALL else f"play {card_str(table.legal[-1] - PLAY_OFFSET)}")
    assert checked == SEATS * (5 + 1 + 35 + 1)  # every step: the discards, the call, the cards, the end


def test_a_void_hand_never_takes_the_monte():
    hands, pile = monte_deal({}, MONTE_CARDS)
    table = Table(MONTE, hands, DEALER, monte=pile).act(*["pass"] * 5)
    assert table.state.terminated[0] and table.payoffs == [0.0] * 5
    assert int(table.state.hidden.discards[0]) == 0 and table.game.discards == set()


def test_the_monte_layout_is_documented_with_its_sizes():
    import briscola_env.observation as observation
    from briscola_env.observation import privileged_spec

    assert f"(``RulesConfig.monte``, {SPEC.size} entries)" in observation.__doc__
    assert f"adds the monte and the discards ({privileged_spec(MONTE).size} entries)" in observation.__doc__
    assert list(SPEC.sections)[18:20] == ["monte", "discards"] and SPEC.sections["phase"].size == 5
    assert SPEC.sections["played_in_trick"].shape == (NUM_CARDS, 7)
