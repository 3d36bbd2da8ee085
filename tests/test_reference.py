"""Tests of the scalar reference implementation on its own."""

import random

import pytest

from briscola_env.actions import PASS, call, play, point_bid, rank_bid
from briscola_env.cards import parse_cards
from briscola_env.engine import Phase
from briscola_env.reference import ReferenceGame
from briscola_env.rules import PRESETS, RulesConfig, preset


def deal_from_hands(hands):
    """deal[c] = seat, from five strings of eight compact cards."""
    deal = [-1] * 40
    for seat, text in enumerate(hands):
        for card in parse_cards(text):
            deal[card] = seat
    return deal


def random_deal(rng, rules=None):
    """A uniform deal at the table of ``rules`` (standard by default): each card's holder, the
    monte's cards (with one) the holder one past the last seat."""
    shape = (rules or RulesConfig()).table_shape
    cards = list(range(40))
    rng.shuffle(cards)
    deal = [0] * 40
    for i, card in enumerate(cards):
        deal[card] = min(i // shape.hand_size, shape.monte_holder)
    return deal


# The RULES.md example, written trick by trick: column s is seat s's card.
# Trump is Denari (♦): seat 0 calls the A♦, held by seat 1.
EXAMPLE_TRICKS = [
    # seat 0  seat 1  seat 2  seat 3  seat 4     winner, points
    "3♦ A♦ 2♥ 4♥ 5♥",  # 1: highest trump            21
    "R♦ C♦ 6♥ 7♥ 2♣",  # 0: R♦ beats C♦               7
    "A♥ 3♥ R♥ C♥ F♥",  # 0: no trump, A♥ leads ♥     30
    "4♣ 5♣ A♣ 3♣ R♣",  # 2: A♣ in the suit led       25
    "F♦ 7♦ C♣ F♣ 6♣",  # 0: F♦ beats 7♦ (both trump)  7
    "A♠ F♠ 2♠ 4♠ 5♠",  # 0                           13
    "6♠ 7♠ 3♠ C♠ R♠",  # 2: 3♠                       17
    "7♣ 2♦ 6♦ 5♦ 4♦",  # 2: 6♦ highest trump          0
]
EXAMPLE_WINNERS = [1, 0, 0, 2, 0, 0, 2, 2]


def test_rules_md_example_points_bid_made():
    rows = [parse_cards(row) for row in EXAMPLE_TRICKS]
    deal = [-1] * 40
    for row in rows:
        for seat, card in enumerate(row):
            deal[card] = seat
    game = ReferenceGame(RulesConfig(call_after_two="any"), deal, dealer=4)  # it calls the Asso after points

    # Auction from seat 0: A, 3, then the 2; points after the 2 start at 62.
    for action in (rank_bid(1), rank_bid(2), rank_bid(10)):
        game.step(action)
    assert game.current_player == 3
    assert game.legal_actions() == [PASS] + [point_bid(p) for p in range(62, 121)]
    for action in (PASS, PASS, point_bid(75), PASS, PASS):
        game.step(action)
    assert (game.phase, game.caller, game.current_player) == (Phase.CALL, 0, 0)
    assert game.legal_actions() == [call(c) for c in range(40)]

    game.step(call(parse_cards("A♦")[0]))
    assert (game.trump, game.partner, game.partner_revealed) == (1, 1, False)
    assert game.current_player == 0  # d+1 leads

    leader = 0
    for t, row in enumerate(rows):
        for i in range(5):
            seat = (leader + i) % 5
            assert game.current_player == seat
            game.step(play(row[seat]))
        leader = EXAMPLE_WINNERS[t]
        if t == 0:
            assert game.partner_revealed
    assert game.trick_winners == EXAMPLE_WINNERS
    assert game.captured_points == [57, 21, 42, 0, 0]
    assert (game.team_points, game.made, game.multiplier) == (78, True, 2)
    assert game.payoffs == [4.0, 2.0, -2.0, -2.0, -2.0]
    assert game.terminated and game.phase == Phase.DONE and game.current_player == -1
    assert game.legal_actions() == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_games_play_every_card_once(name):
    rules = preset(name)
    rng = random.Random(name)
    shape = rules.table_shape
    for _ in range(100):
        deal = random_deal(rng, rules)
        game = ReferenceGame(rules, deal, dealer=rng.randrange(shape.seats))
        while not game.terminated:
            game.step(rng.choice(game.legal_actions()))
        assert sum(game.payoffs) == pytest.approx(0.0)
        if game.void:
            assert game.payoffs == [0.0] * shape.seats and game.team_points == -1
            continue
        played = [card for trick in game.tricks for _, card in trick]
        assert sorted(played + list(game.discards)) == list(range(40))  # the caller's discards are never played
        taken = {card for card in range(40) if deal[card] == shape.monte_holder}  # the monte, to the caller
        assert all(seat == deal[card] or (seat == game.caller and card in taken)
                   for trick in game.tricks for seat, card in trick)
        assert game.hands == [set()] * shape.seats
        discarded = sum(game.points(c) for c in game.discards)
        assert sum(game.captured_points) == 120 - discarded and sum(game.tricks_won) == shape.tricks
        if game.called_card in game.discards:  # a solo nobody sees: the card is never played
            assert game.partner == game.caller and not game.partner_revealed
        else:
            holder = game.caller if game.called_card in taken else deal[game.called_card]
            assert game.partner_revealed and game.partner == holder


# Each seat holds two whole ranks: seat 0 all the Assi and 3s, seat 1 the Re and Cavalli...
BY_RANK = deal_from_hands([
    "A♥ A♦ A♣ A♠ 3♥ 3♦ 3♣ 3♠",
    "R♥ R♦ R♣ R♠ C♥ C♦ C♣ C♠",
    "F♥ F♦ F♣ F♠ 7♥ 7♦ 7♣ 7♠",
    "6♥ 6♦ 6♣ 6♠ 5♥ 5♦ 5♣ 5♠",
    "4♥ 4♦ 4♣ 4♠ 2♥ 2♦ 2♣ 2♠",
])
KINGS = parse_cards("R♥ R♦ R♣ R♠")


@pytest.mark.parametrize("call_rule", ["exact", "at_least"])
def test_no_self_call_blocks_rank_bids_and_own_cards(call_rule):
    game = ReferenceGame(RulesConfig(allow_self_call=False, call_rule=call_rule), BY_RANK, dealer=4)
    # Seat 0 holds every A and 3: bidding either would leave him nothing to call.
    assert game.legal_actions() == [PASS] + [rank_bid(k) for k in range(3, 11)]
    game.step(rank_bid(3))  # the Re
    # Seat 1 holds every Re and Cavallo; "at_least" on the Cavallo also lets him call an A, 3 or Re.
    blocked = {rank_bid(4)} if call_rule == "exact" else set()
    assert game.legal_actions() == [PASS] + [rank_bid(k) for k in range(4, 11) if rank_bid(k) not in blocked]
    for _ in range(4):
        game.step(PASS)
    assert (game.phase, game.caller) == (Phase.CALL, 0)
    assert game.legal_actions() == [call(c) for c in sorted(KINGS)]  # his own A and 3 are out


def test_follow_suit_only_in_the_last_tricks():
    game = ReferenceGame(RulesConfig(follow_suit=True, follow_suit_last_k=3), BY_RANK, dealer=4)
    for action in (rank_bid(3), PASS, PASS, PASS, PASS, call(KINGS[0])):
        game.step(action)
    game.step(play(parse_cards("A♥")[0]))
    assert len(game.legal_actions()) == 8  # trick 1 of 8: free play

    game = ReferenceGame(RulesConfig(follow_suit=True), BY_RANK, dealer=4)
    for action in (rank_bid(3), PASS, PASS, PASS, PASS, call(KINGS[0])):
        game.step(action)
    game.step(play(parse_cards("A♥")[0]))
    assert game.legal_actions() == sorted(play(c) for c in parse_cards("R♥ C♥"))


def test_all_pass_voids_the_hand():
    rng = random.Random(1)
    game = ReferenceGame(RulesConfig(), random_deal(rng), dealer=2)
    for seat in (3, 4, 0, 1, 2):
        assert game.current_player == seat
        game.step(PASS)
    assert game.void and game.terminated and game.phase == Phase.DONE
    assert game.payoffs == [0.0] * 5 and game.multiplier == 1 and not game.made
    assert game.legal_actions() == []


def test_last_forced_must_bid():
    game = ReferenceGame(RulesConfig(all_pass="last_forced"), random_deal(random.Random(2)), dealer=0)
    for _ in range(4):
        game.step(PASS)
    assert game.current_player == 0
    assert game.legal_actions() == [rank_bid(k) for k in range(1, 11)]
    game.step(rank_bid(4))
    assert (game.phase, game.caller) == (Phase.CALL, 0)


def test_illegal_action_raises():
    game = ReferenceGame(RulesConfig(), random_deal(random.Random(3)), dealer=0)
    with pytest.raises(ValueError, match="bid 75"):
        game.step(point_bid(75))  # no point bid before the 2
    game.step(rank_bid(5))
    with pytest.raises(ValueError, match="bid 3"):
        game.step(rank_bid(2))  # a stronger rank than the standing one
    with pytest.raises(ValueError):
        game.step(play(0))


def test_bad_deal_or_dealer_raises():
    deal = random_deal(random.Random(4))
    with pytest.raises(ValueError, match="dealer"):
        ReferenceGame(RulesConfig(), deal, dealer=5)
    with pytest.raises(ValueError, match="8 cards"):
        ReferenceGame(RulesConfig(), [0] * 40, dealer=0)
    with pytest.raises(ValueError, match="40"):
        ReferenceGame(RulesConfig(), deal[:39], dealer=0)
