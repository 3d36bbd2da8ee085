"""Prima mano al buio (``RulesConfig.blind_first_trick``, preset ``al_buio``): the auction, a
first trick without trump, then the call. One test per rule of RULES.md's reading, each played
through the engine and the reference at once (support.Table)."""

import numpy as np

from briscola_env import engine
from briscola_env.actions import CALL_OFFSET, PLAY_OFFSET
from briscola_env.cards import NUM_SEATS
from briscola_env.engine import Phase
from briscola_env.observation import SPEC, encode
from briscola_env.rules import preset
from support import Table, deal_with

BLIND = preset("al_buio")
DEALER = 4  # seat 0 speaks first and leads the first trick
# Seat 0 wins the auction on the Asso; in the blind first trick seat 2 throws the Asso di Coppe on a
# Denari lead: with Coppe trump it would take the trick, without trump the 3 di Denari (seat 3) does.
FIRST_TRICK = {0: "5d", 1: "Rd", 2: "Ac", 3: "3d", 4: "7d"}
AUCTION = ("bid A", "pass", "pass", "pass", "pass")


def blind_table(rules=BLIND, played=None) -> Table:
    played = {**FIRST_TRICK, **(played or {})}
    table = Table(rules, deal_with(played), DEALER).act(*AUCTION)
    return table.act(*(f"play {played[s]}" for s in range(NUM_SEATS)))


def test_the_auction_is_followed_by_the_first_trick_not_by_the_call():
    table = Table(BLIND, deal_with(FIRST_TRICK), DEALER).act(*AUCTION)
    assert table.state.phase[0] == Phase.PLAY and table.state.current_player[0] == 0
    assert table.state.trump[0] == -1 and table.state.called_card[0] == -1
    assert all(PLAY_OFFSET <= a for a in table.legal)


def test_the_first_trick_has_no_trump():
    table = blind_table()
    assert table.state.trick_winners[0, 0] == 3  # the 3 di Denari, not the Asso di Coppe
    assert table.game.trick_winners == [3]
    table.act("call Ac")  # Coppe trump now: the trick stays won by the Denari
    assert table.state.trump[0] == 0 and table.state.trick_winners[0, 0] == 3
    assert table.state.captured_points[0, 3] == 11 + 10 + 4  # Asso, 3 and Re: its points went to seat 3


def test_the_call_comes_after_the_first_trick_and_fixes_trump():
    table = blind_table()
    assert table.state.phase[0] == Phase.CALL and table.state.current_player[0] == 0
    assert all(CALL_OFFSET <= a < PLAY_OFFSET for a in table.legal)
    table.act("call Ab")
    assert table.state.trump[0] == 2 and table.state.called_card[0] == 20


def test_the_first_tricks_winner_leads_the_second():
    table = blind_table().act("call Ab")
    assert table.state.phase[0] == Phase.PLAY
    assert table.state.current_player[0] == 3 and table.state.trick_leaders[0, 1] == 3


def test_calling_a_card_seen_in_the_first_trick_reveals_the_partner_at_once():
    table = blind_table()
    assert CALL_OFFSET + 0 in table.legal  # the Asso di Coppe, already played by seat 2
    table.act("call Ac")
    assert table.state.hidden.partner[0] == 2 and table.game.partner == 2
    assert table.state.partner_revealed[0] and table.game.partner_revealed
    for seat in range(NUM_SEATS):
        view = encode(table.state, np.array([seat]))[0]
        assert view[SPEC["partner_revealed"]][0] == 1
        assert SPEC.view(view, "partner").argmax() == (2 - seat) % NUM_SEATS


def test_a_card_called_from_the_others_hands_stays_secret():
    table = blind_table().act("call Ab")
    partner = table.state.hidden.partner[0]
    assert partner not in (0, -1) and not table.state.partner_revealed[0]
    view = encode(table.state, np.array([0]))[0]
    assert not view[SPEC["partner"]].any()


def test_calling_his_own_first_trick_card_is_a_solo():
    table = blind_table(played={0: "Ad"})  # the caller leads the Asso di Denari and takes the trick
    assert table.state.trick_winners[0, 0] == 0
    table.act("call Ad")
    assert table.state.hidden.partner[0] == 0 and table.game.partner == 0


def test_without_self_calls_his_own_first_trick_card_cannot_be_called():
    table = blind_table(rules=BLIND.replace(allow_self_call=False), played={0: "Ad"})
    assert CALL_OFFSET + 10 not in table.legal  # the Asso di Denari he played
    assert CALL_OFFSET + 0 in table.legal  # seat 2's Asso di Coppe


def test_random_blind_hands_go_auction_play_call_play():
    """The phase sequence of whole random hands: never a call before the first trick is over."""
    rng = np.random.default_rng(5)
    state = engine.init(np.arange(300), BLIND)
    while not state.terminated.all():
        calling = state.phase == Phase.CALL
        assert (state.trick_winners[calling, 0] >= 0).all() and (state.trick_winners[calling, 1] < 0).all()
        in_play = state.phase == Phase.PLAY
        assert ((state.trump[in_play] >= 0) == (state.trick_winners[in_play, 0] >= 0)).all()
        state = engine.step(state, engine.random_actions(state, rng))
    assert (state.called_card[state.caller >= 0] >= 0).all()
