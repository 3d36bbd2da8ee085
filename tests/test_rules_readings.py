"""One test per reading of RULES.md's "Readings of the variants the sources leave open", on rigged deals.
Every position is played through the engine and the reference at once (support.Table); the whole-suit
positions, where the reference once looked for a weakest missing card that does not exist, also through
the PettingZoo env."""

import numpy as np
import pytest

from briscola_env import raw_env
from briscola_env.actions import CALL_OFFSET, PLAY_OFFSET, text_to_action
from briscola_env.cards import NUM_CARDS, card_str
from briscola_env.engine import Phase
from briscola_env.observation import encode, observation_spec
from briscola_env.rules import RulesConfig, preset
from support import Table, cards

MONTE = preset("monte")
FOUR = preset("four_players")
MONTE_AL_BUIO = MONTE.replace(blind_first_trick=True)


def rigged(rules: RulesConfig, dealt: dict[int, str], monte: str = "") -> tuple[list[list[int]], list[int] | None]:
    """The hands of the table of ``rules`` and its monte (None without one): the cards given per seat and to
    the monte, the rest of the deck in card-id order into the seats with room left."""
    shape = rules.table_shape
    hands = [cards(dealt.get(seat, "")) for seat in range(shape.seats)]
    pile = cards(monte)
    rest = [c for c in range(NUM_CARDS) if all(c not in h for h in hands) and c not in pile]
    for hand in hands:
        while len(hand) < shape.hand_size:
            hand.append(rest.pop(0))
    return hands, pile if shape.monte_size else None


def table(rules: RulesConfig, dealt: dict[int, str], monte: str = "") -> Table:
    """A Table with seat 0 first to speak and to lead (the dealer is the last seat)."""
    hands, pile = rigged(rules, dealt, monte)
    return Table(rules, hands, rules.table_shape.seats - 1, monte=pile)


def all_pass(rules: RulesConfig) -> tuple[str, ...]:
    """The passes that leave seat 0, who bid first, the caller."""
    return ("pass",) * (rules.table_shape.seats - 1)


def called(t: Table) -> set[int]:
    assert t.state.phase[0] == Phase.CALL
    return {a - CALL_OFFSET for a in t.legal}


def discard(t: Table, texts: str) -> Table:
    return t.act(*(f"discard {card_str(c)}" for c in cards(texts)))


def play_lowest(t: Table, cards_to_play: int) -> Table:
    """Every player plays his lowest legal card, ``cards_to_play`` times."""
    for _ in range(cards_to_play):
        t.act(f"play {card_str(t.legal[0] - PLAY_OFFSET)}")
    return t


# --- A card is the caller's own -------------------------------------------------------------------------------

@pytest.mark.parametrize("allow_self_call", [True, False])
def test_a_card_is_the_callers_own_in_his_hand_among_his_discards_or_played_by_him_in_the_blind_first_trick(
        allow_self_call):
    rules = MONTE_AL_BUIO.replace(allow_self_call=allow_self_call)
    t = table(rules, {0: "Ac Ab 4d 5d 6d 7d 4b"}, monte="Ad 5b 6b 7b Fb").act("bid A", *all_pass(rules))
    discard(t, "Ad 5b 6b 7b Fb")  # the Asso di Denari from the monte, discarded
    t.act("play Ab")  # the Asso di Bastoni, played by him in the blind first trick
    play_lowest(t, 4)
    if not allow_self_call:
        assert called(t) == set(cards("As"))  # the Asso he holds, discarded and played are all his own
        return
    assert called(t) == set(cards("Ac Ad Ab As"))
    for own in ("Ac", "Ad", "Ab"):  # calling any of his own is a solo
        solo = table(rules, {0: "Ac Ab 4d 5d 6d 7d 4b"}, monte="Ad 5b 6b 7b Fb").act("bid A", *all_pass(rules))
        play_lowest(discard(solo, "Ad 5b 6b 7b Fb").act("play Ab"), 4).act(f"call {own}")
        assert solo.state.hidden.partner[0] == 0 and solo.game.partner == 0


@pytest.mark.parametrize("rules, hand, monte, legal", [
    (RulesConfig(), "Ac Ad Ab As", "", False),
    (FOUR, "Ac Ad Ab As", "", False),
    (MONTE, "Ac Ad Ab As", "2c 2d 2b 2s 4c", False),
    (MONTE, "Ac Ad Ab", "As 2c 2d 2b 2s", True),  # the monte is not his when he bids: an Asso is left to call
])
def test_without_self_calls_a_rank_bid_is_illegal_when_his_hand_at_bid_time_holds_every_card_it_lets_him_call(
        rules, hand, monte, legal):
    t = table(rules.replace(allow_self_call=False), {0: hand}, monte=monte)
    assert (text_to_action("bid A") in t.legal) == legal
    assert text_to_action("bid 3") in t.legal


def test_without_self_calls_a_monte_that_holds_every_card_his_bid_lets_him_call_leaves_him_one_of_them_solo():
    rules = MONTE.replace(allow_self_call=False)
    t = table(rules, {0: "Rc Rd Ac 3c Cc Fc 7c"}, monte="Rb Rs 4d 5d 6d").act("bid R", *all_pass(rules))
    discard(t, "Rb 4d 5d 6d Fc")
    assert called(t) == set(cards("Rc Rd Rb Rs"))  # no other legal call
    t.act("call Rb")
    assert t.state.hidden.partner[0] == 0 and t.game.partner == 0


# --- The weakest missing card after the 2 ---------------------------------------------------------------------

@pytest.mark.parametrize("allow_self_call", [True, False])
def test_the_weakest_missing_card_after_the_2_counts_the_monte_and_the_discards_as_his(allow_self_call):
    rules = MONTE.replace(allow_self_call=allow_self_call)
    t = table(rules, {0: "2c 4c Ad 3d Rd Cb Fb"}, monte="5c 6c 2d 7s 6s").act("bid 2", *all_pass(rules))
    discard(t, "5c 2d 7s 6s Fb")
    # Coppe: 2, 4, 5 (discarded), 6 (from the monte) are his, so the 7; Denari: the discarded 2 is his, so the 4.
    expected = set(cards("2b 2s 7c 4d")) | (set(cards("2c 2d")) if allow_self_call else set())
    assert called(t) == expected


def test_the_weakest_missing_card_after_the_2_counts_his_blind_first_trick_card_as_his():
    rules = preset("al_buio")
    t = table(rules, {0: "2c 4c Ad 3d Rd Cb Fb 7s", 1: "5c"}).act("bid 2", *all_pass(rules))
    t.act("play 4c", "play 5c")  # his 4 di Coppe is his own; seat 1's 5 is not
    play_lowest(t, 3)
    assert called(t) == set(cards("2c 2d 2b 2s 5c"))
    t.act("call 5c")  # played already: its player is the partner, revealed at once
    assert t.state.hidden.partner[0] == 1 and t.state.partner_revealed[0] and t.game.partner_revealed


WHOLE_COPPE = "Ac 2c 3c 4c 5c 6c 7c Fc Cc Rc"
AT_THE_TWO_AT_FOUR = ("bid 2", "pass", "pass", "pass")
POINTS_AFTER_THE_TWO_AT_FOUR = ("bid A", "bid 2", "pass", "pass", "bid 70", "pass")


@pytest.mark.parametrize("allow_self_call", [True, False])
@pytest.mark.parametrize("auction", [AT_THE_TWO_AT_FOUR, POINTS_AFTER_THE_TWO_AT_FOUR])
def test_a_whole_suit_offers_no_weakest_missing_card_at_four(allow_self_call, auction):
    rules = FOUR.replace(allow_self_call=allow_self_call)
    t = table(rules, {0: WHOLE_COPPE}).act(*auction)
    assert t.state.caller[0] == 0
    # The 2s of the other suits stay callable; his own 2 is a solo call where self-calls are allowed.
    assert called(t) == set(cards("2d 2b 2s")) | (set(cards("2c")) if allow_self_call else set())
    t.act("call 2d")
    assert t.state.trump[0] == 1 and t.state.hidden.partner[0] == t.game.partner != 0


@pytest.mark.parametrize("allow_self_call", [True, False])
def test_a_whole_suit_offers_no_weakest_missing_card_under_monte(allow_self_call):
    rules = MONTE.replace(allow_self_call=allow_self_call)
    t = table(rules, {0: "Ac 3c Rc Cc Fc 7c 6c"}, monte="5c 4c 2c 2d Ad").act("bid 2", *all_pass(rules))
    discard(t, "2c 4c 5c 2d Ad")
    # His twelve: every Coppe, the 2 and the Asso di Denari. Coppe offer no weakest missing card; Denari the 4.
    assert called(t) == set(cards("2b 2s 4d")) | (set(cards("2c 2d")) if allow_self_call else set())
    if allow_self_call:
        t.act("call 2c")  # his own (discarded) 2: a solo
        assert t.state.hidden.partner[0] == 0 and t.game.partner == 0


WHOLE_SUIT_HANDS = {
    "four, at the 2": (FOUR, {0: WHOLE_COPPE}, "", AT_THE_TWO_AT_FOUR, "", "call 2d"),
    "four, points after the 2": (FOUR, {0: WHOLE_COPPE}, "", POINTS_AFTER_THE_TWO_AT_FOUR, "", "call 2b"),
    "monte, at the 2": (MONTE, {0: "Ac 3c Rc Cc Fc 7c 6c"}, "5c 4c 2c 2d Ad", ("bid 2",) + ("pass",) * 4,
                        "2c 4c 5c 2d Ad", "call 2s"),
}


@pytest.mark.parametrize("allow_self_call", [True, False])
@pytest.mark.parametrize("name", list(WHOLE_SUIT_HANDS))
def test_a_whole_suit_at_the_2_plays_through_the_pettingzoo_env_as_through_the_engine(name, allow_self_call):
    rules, dealt, monte, auction, discards, call = WHOLE_SUIT_HANDS[name]
    rules = rules.replace(allow_self_call=allow_self_call)
    hands, pile = rigged(rules, dealt, monte)
    env = raw_env(rules)
    env.reset(options={"hands": hands, "dealer": rules.table_shape.seats - 1}
              | ({"monte": pile} if pile is not None else {}))
    t = Table(rules, hands, rules.table_shape.seats - 1, monte=pile)
    moves = [*auction, *(f"discard {card_str(c)}" for c in cards(discards)), call]
    while env.agents and not env.terminations[env.agent_selection]:
        mask = env.observe(env.agent_selection)["action_mask"]
        assert np.flatnonzero(mask).tolist() == t.legal, (name, moves)
        move = moves.pop(0) if moves else f"play {card_str(t.legal[0] - PLAY_OFFSET)}"
        env.step(text_to_action(move))
        t.act(move)
    assert not moves and t.state.terminated[0]
    assert env.infos["player_0"]["payoffs"].tolist() == t.payoffs
    assert env.game.partner == t.state.hidden.partner[0] != 0


# --- Monte and al buio together -------------------------------------------------------------------------------

def test_monte_and_al_buio_go_auction_discards_blind_first_trick_then_the_call():
    t = table(MONTE_AL_BUIO, {0: "Ac 3c Rc Cc Fc 7c 6c"}, monte="Ad 3d Rd Cd Fd").act("bid A")
    assert t.state.phase[0] == Phase.AUCTION
    t.act(*all_pass(MONTE_AL_BUIO))
    assert t.state.phase[0] == Phase.DISCARD and len(t.legal) == 12
    discard(t, "Ad 3d Rd Cd Fd")
    assert t.state.phase[0] == Phase.PLAY and t.state.trump[0] == -1 and t.state.current_player[0] == 0
    play_lowest(t, 5)
    assert t.state.phase[0] == Phase.CALL and t.state.current_player[0] == 0
    t.act("call Ab")
    assert t.state.phase[0] == Phase.PLAY and t.state.current_player[0] == t.state.trick_winners[0, 0]


# --- Discards -------------------------------------------------------------------------------------------------

def test_discards_are_unrestricted_any_five_of_the_twelve_aces_and_future_trumps_included():
    t = table(MONTE, {0: "Ac 3c Rc 2d 4d 5d 6d"}, monte="Ad 2c 4c 5c 6c").act("bid 2", *all_pass(MONTE))
    twelve = set(cards("Ac 3c Rc 2d 4d 5d 6d Ad 2c 4c 5c 6c"))
    for card in cards("Ac 3c Ad Rc 2c"):  # both Assi and the three highest Coppe, then trump Coppe
        assert {a - PLAY_OFFSET for a in t.legal} == twelve
        t.act(f"discard {card_str(card)}")
        twelve.remove(card)
    t.act("call 2c")  # the discarded 2 di Coppe: Coppe are trump, and he plays alone
    assert t.state.trump[0] == 0 and t.state.hidden.partner[0] == 0


# Seat 0 wins on the 2, discards five cards including his own 2 di Coppe and calls it: alone, Coppe trump,
# holding none. Seat 1 (seven Coppe) plays a trump in every trick: the defenders take all seven.
WEAK_CALLER = "2c 4d 5d 6d 7d 4b 5b"
WEAK_MONTE = "Ad 6b 2d 2b 2s"


@pytest.mark.parametrize("cappotto", ["points", "tricks"])
@pytest.mark.parametrize("discards, kept", [("2c Ad 2d 2b 2s", "4d 5d 6d 7d 4b 5b 6b"),
                                            ("2c 6b 2d 2b 2s", "Ad 4d 5d 6d 7d 4b 5b")])
def test_under_monte_the_defenders_points_cappotto_is_impossible_when_the_discards_hold_points(
        cappotto, discards, kept):
    rules = MONTE.replace(cappotto=cappotto)
    t = table(rules, {0: WEAK_CALLER}, monte=WEAK_MONTE).act("bid 2", *all_pass(rules))
    discard(t, discards).act("call 2c")
    own = cards(kept)
    while not t.state.terminated[0]:
        seat = t.state.current_player[0]
        t.act(f"play {card_str(own.pop(0) if seat == 0 else t.legal[0] - PLAY_OFFSET)}")
    assert t.state.tricks_won[0, 0] == 0 and t.state.hidden.partner[0] == 0
    discarded_points = t.state.team_points[0]
    assert discarded_points == (11 if "Ad" in discards else 0)
    # A tricks cappotto is all 7 tricks; a points one needs all 120, which the discards' points deny.
    doubled = cappotto == "tricks" or discarded_points == 0
    assert t.payoffs == [m * (2 if doubled else 1) for m in (-4, 1, 1, 1, 1)]


# --- The blind first trick ------------------------------------------------------------------------------------

# Of the standard table's 8 tricks, the first is among the last 8, not among the last 7.
@pytest.mark.parametrize("last_k, must_follow", [(None, True), (8, True), (7, False)])
def test_the_blind_first_trick_follows_follow_suit_like_any_other_trick(last_k, must_follow):
    rules = preset("al_buio", follow_suit=True, follow_suit_last_k=last_k)
    t = table(rules, {0: "5d Ac", 1: "Rd 3d Ab As 2b 4b 5s 6s"}).act("bid A", *all_pass(rules), "play 5d")
    assert t.state.phase[0] == Phase.PLAY and t.state.trump[0] == -1
    expected = cards("Rd 3d") if must_follow else cards("Rd 3d Ab As 2b 4b 5s 6s")
    assert {a - PLAY_OFFSET for a in t.legal} == set(expected)


# --- At the end of the hand -----------------------------------------------------------------------------------

def test_at_the_end_of_the_hand_the_monte_and_the_discards_are_shown_to_everyone():
    spec = observation_spec(MONTE)
    hands, pile = rigged(MONTE, {0: "Ac 3c Rc Cc Fc 7c 6c"}, "Ad 3d Rd Cd Fd")
    env = raw_env(MONTE)
    env.reset(options={"hands": hands, "monte": pile, "dealer": 4})
    t = Table(MONTE, hands, 4, monte=pile)
    moves = ["bid A", "pass", "pass", "pass", "pass", "discard Ad", "discard 3d", "discard Rd", "discard Cd",
             "discard 6c", "call Ab"]
    while not env.terminations[env.agent_selection]:
        move = moves.pop(0) if moves else f"play {card_str(t.legal[0] - PLAY_OFFSET)}"
        env.step(text_to_action(move))
        t.act(move)
    discards = cards("Ad 3d Rd Cd 6c")
    for seat, agent in enumerate(env.possible_agents):
        view = env.observe(agent)["observation"]
        assert np.flatnonzero(view[spec["monte"]]).tolist() == sorted(pile), agent
        assert np.flatnonzero(view[spec["discards"]]).tolist() == sorted(discards), agent
        assert np.array_equal(view, encode(t.state, np.array([seat]))[0]), agent
