"""Sessions: the deal passes each hand, 6 and 7 at the table sit out in turn,
and a session stops at its number of hands or its target score."""

import numpy as np
import pytest

from agents import RandomAgent
from briscola_env.cards import NUM_SEATS
from briscola_cli.main import main
from evaluation.session import play_sessions, seat_players


@pytest.mark.parametrize("players", [5, 6, 7])
def test_the_five_after_the_dealer_play_and_the_first_of_them_speaks_first(players):
    dealer = np.arange(players)
    for engine_dealer in range(NUM_SEATS):
        seats = seat_players(dealer, np.full(players, engine_dealer), players)
        for d, row in zip(dealer, seats):
            assert sorted(row.tolist()) == sorted((d + 1 + k) % players for k in range(NUM_SEATS))
            assert row[(engine_dealer + 1) % NUM_SEATS] == (d + 1) % players
        if players == 5:
            assert all(d in row for d, row in zip(dealer, seats))  # at five, the dealer plays


@pytest.mark.parametrize("players", [6, 7])
def test_who_sits_out_scores_nothing_that_hand(players):
    result = play_sessions([RandomAgent(seed=0)], np.zeros((300, players), int), hands=1, seed=3)
    sat_out = (result.totals == 0).sum(axis=1)
    assert (sat_out >= players - NUM_SEATS).all()
    assert np.allclose(result.totals.sum(axis=1), 0)  # the default payoffs are zero-sum


def test_a_session_ends_at_its_hands_or_its_target():
    fixed = play_sessions([RandomAgent(seed=1)], np.zeros((50, 5), int), hands=4, seed=1)
    assert (fixed.hands == 4).all()
    to_target = play_sessions([RandomAgent(seed=1)], np.zeros((200, 5), int), target=15, seed=2)
    assert (to_target.totals.max(axis=1) >= 15).all()
    assert len(set(to_target.hands.tolist())) > 1  # sessions stop at different hands
    assert (to_target.winners.sum(axis=1) >= 1).all()
    with pytest.raises(ValueError, match="an end"):
        play_sessions([RandomAgent()], np.zeros((2, 5), int))
    with pytest.raises(ValueError, match="5, 6 or 7"):
        play_sessions([RandomAgent()], np.zeros((2, 4), int), hands=1)


def test_briscola_session_command(capsys):
    assert main(["session", "heuristic", "random", "random", "random", "random", "random", "random",
                 "--hands", "3", "--sessions", "20"]) == 0
    printed = capsys.readouterr().out
    assert "20 sessions of 7 players" in printed and "| 0 | heuristic |" in printed
