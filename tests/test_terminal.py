"""Playing a hand in the terminal against agents, replaying recorded games,
and the game records' round trip."""

import re

import numpy as np
import pytest

from briscola_env import records
from briscola_env.actions import PASS, point_bid, rank_bid, text_to_action
from briscola_env.rules import RulesConfig
from briscola_cli.main import main
from evaluation.terminal import parse_move, play_in_terminal

ALL = list(range(151))


def test_moves_are_read_by_name():
    rules = RulesConfig()
    assert parse_move("pass", ALL, rules) == PASS
    assert parse_move(" 75 ", ALL, rules) == point_bid(75)
    for text in ("R", "re", "King", "bid R"):
        assert parse_move(text, ALL, rules) == rank_bid(3)
    legal_calls = [text_to_action("call A♦")]
    for text in ("A♦", "Ad", "asso denari", "Asso di Denari", "ace of coins", "call A♦"):
        assert parse_move(text, legal_calls, rules) == text_to_action("call A♦")
    assert parse_move("play 3♠", [text_to_action("play 3♠")], rules) == text_to_action("play 3♠")
    with pytest.raises(ValueError, match="not allowed now"):
        parse_move("A♦", [PASS], rules)
    with pytest.raises(ValueError, match="cannot read"):
        parse_move("xyzzy", ALL, rules)


class Script:
    """Plays the person's turns: a typo first, then 'help', then the first legal move listed."""

    def __init__(self):
        self.printed, self.typos = [], 0

    def print(self, text):
        self.printed.append(text)

    def input(self, prompt):
        if self.typos == 0:
            self.typos += 1
            return "xyzzy"
        last = self.printed[-1]
        if not last.startswith("legal moves: "):
            return "help"
        return last[len("legal moves: "):].split(", ")[0]


def test_a_scripted_hand_through_briscola_play():
    script = Script()
    [payoffs] = play_in_terminal(["heuristic"], seat=2, seed=5, hands=1, input_fn=script.input,
                                 print_fn=script.print)
    assert len(payoffs) == 5 and abs(sum(payoffs)) < 1e-9
    text = "\n".join(script.printed)
    assert "cannot read 'xyzzy'" in text  # the typo is answered, then asked again
    assert "You are player_2" in text
    assert "Result:" in text or "void hand" in text
    assert "player_0: " in text  # the opponents' moves are shown


def test_the_session_names_each_seat_s_agent_and_explains_the_face_letters():
    script = Script()
    play_in_terminal(["heuristic", "random", "heuristic", "random"], seat=2, seed=5, hands=1, input_fn=script.input,
                     print_fn=script.print)
    opening = "\n".join(script.printed[:3])
    assert ("You are player_2. The agents at the other seats: player_0 heuristic, player_1 random, "
            "player_3 heuristic, player_4 random.") in opening
    faces = "A ace, F jack, C knight, R king: the initials of the Italian asso, fante, cavallo, re"
    assert f"Faces {faces}." in opening
    assert [line for line in script.printed if line.startswith("cards: ") and faces in line]  # and in the help


def called(text: str) -> tuple[str, str, str]:
    """From the table printed: the caller, the card he called and the partner as the person is shown him."""
    match = re.search(r"^Call: (player_\d) calls (\S+) .*; partner (\S+)$", text, re.M)
    assert match, text
    return match[1], match[2], match[3]


@pytest.mark.parametrize("seed, partner", [(0, True), (5, False)])  # seat 2 holds the called card on seed 0 only
def test_the_holder_of_the_called_card_is_told_he_is_the_secret_partner(seed, partner):
    script = Script()  # the person passes: an agent calls
    play_in_terminal(["heuristic"], seat=2, seed=seed, hands=1, input_fn=script.input, print_fn=script.print)
    text = "\n".join(script.printed)
    caller, card, shown_partner = called(text)
    assert caller != "player_2" and (shown_partner == "player_2") == partner
    told = f"You hold {card}: you are {caller}'s secret partner, on the callers' side."
    assert (told in text) == partner and ("secret partner" in text) == partner
    if partner:  # told once, and the next table printed shows the card in the person's hand
        assert text.count(told) == 1
        assert re.search(rf"^  player_2 .*{card}", text[text.index(told):], re.M)


def test_briscola_play_rejects_a_wrong_number_of_opponents():
    with pytest.raises(SystemExit):
        main(["play", "--opponents", "random", "random"])


def test_records_round_trip_through_the_engine(tmp_path, capsys):
    assert main(["evaluate", "heuristic", "random", "--deals", "5", "--record", "--out", str(tmp_path)]) == 0
    games = list(records.read(tmp_path / "games.jsonl"))
    assert len(games) == 5 * 12 and games[0]["version"] == records.VERSION
    state = records.replay(games)
    assert state.terminated.all()
    assert np.allclose(state.rewards, [g["outcome"]["payoffs"] for g in games])
    assert {a for g in games for a in g["agents"]} == {"heuristic", "random"}
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "games.jsonl"), "--game", "3", "--lang", "en"]) == 0
    assert "Auction:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["replay", str(tmp_path / "games.jsonl"), "--game", "99"])


def test_records_refuse_another_version(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text('{"version": 0}\n')
    with pytest.raises(ValueError, match="version"):
        list(records.read(path))
