"""Terminal play for English players and the help texts (issue 14, items 8 and 9, and "what it must
show" 5): suit letters read in the chosen language only, help, quit, points bids as a range, sessions,
the hands as dealt at the end of a hand (also in ``briscola replay``), and help texts listing every
agent spec and the defaults of play's and belief's options."""

import inspect
import re

import pytest

from agents.heuristic import HeuristicAgent
from agents.pimc import PIMCAgent
from briscola_env import records
from briscola_env.actions import PASS, point_bid, text_to_action
from briscola_env.cards import NUM_SEATS, parse_card
from briscola_env.pettingzoo_env import raw_env
from briscola_env.rules import RulesConfig
from evaluation import terminal
from briscola_cli.main import main

# What an English reader calls the printed symbols, written out here on purpose: the test states
# what the English letters must mean, rather than reading it from the code under test.
ENGLISH_LETTER = {"♥": "h", "♦": "d", "♣": "c", "♠": "s"}
SEED = 4  # a deal where the person (seat 0) faces point bids and plays clubs and hearts (checked below)


def test_english_suit_letters_are_read_as_the_english_display_maps_them():
    rules = RulesConfig()
    plays = [text_to_action(f"play {card}") for card in ("2♥", "2♦", "2♣", "2♠")]
    for letter, card in zip("hdcs", ("2♥", "2♦", "2♣", "2♠")):
        assert terminal.parse_move(f"2{letter}", plays, rules, lang="en") == text_to_action(f"play {card}")
    for letter, card in zip("cdbs", ("2♥", "2♦", "2♣", "2♠")):
        assert terminal.parse_move(f"2{letter}", plays, rules, lang="it") == text_to_action(f"play {card}")
    assert terminal.parse_move("ace of hearts", [text_to_action("call A♥")], rules, lang="en") \
        == text_to_action("call A♥")


def test_a_letter_of_the_other_language_is_never_guessed():
    rules = RulesConfig()
    # In English 'c' is clubs only: with the 2♥ (Coppe) the one legal card, '2c' is refused, not played.
    with pytest.raises(ValueError, match="not allowed now"):
        terminal.parse_move("2c", [text_to_action("play 2♥")], rules, lang="en")
    # An Italian letter that English does not have is unreadable there, and the message lists the letters.
    with pytest.raises(ValueError, match=r"cannot read '2b'.*h d c s") as info:
        terminal.parse_move("2b", [text_to_action("play 2♣")], rules, lang="en")
    assert "hearts" in str(info.value)
    with pytest.raises(ValueError, match=r"cannot read '2h'.*c d b s"):
        terminal.parse_move("2h", [text_to_action("play 2♥")], rules, lang="it")
    with pytest.raises(ValueError, match="lang"):
        terminal.parse_move("2c", [text_to_action("play 2♥")], rules, lang="fr")


def test_help_gives_point_bids_as_a_range_not_a_list():
    legal = [PASS] + [point_bid(p) for p in range(75, 121)]
    assert terminal.describe_moves(legal, "three") == "pass, bid a number of points 75..120"


class EnglishPlayer:
    """The person's keyboard as an English player uses it: 'help' before each move, then the first
    legal move listed, a card typed as its face and English suit letter ('2c' for the 2♣), a rank bid
    of the 2 when one is legal (to reach point bids); 'quit' when the next hand is offered. It reads
    what was printed through ``capsys``, and after ``limit`` answers gives up (EOF)."""

    def __init__(self, capsys, limit=300):
        self.capsys, self.limit = capsys, limit
        self.printed, self.typed, self.cards = [], [], []  # cards: (verb, card) typed by letter

    def __call__(self, prompt):
        self.printed.append(self.capsys.readouterr().out)
        if len(self.typed) >= self.limit:
            raise EOFError
        lines = self.printed[-1].strip().splitlines()
        if prompt.startswith("Enter for the next hand"):
            answer = "quit"
        elif lines and lines[-1].startswith("legal moves: "):
            moves = lines[-1][len("legal moves: "):].split(", ")
            answer = "2" if "bid 2" in moves else moves[0]
            if moves[0].startswith(("play ", "call ")):
                verb, card = moves[0].split()
                answer = card[0] + ENGLISH_LETTER[card[1]]
                self.cards.append((verb, card))
        else:
            answer = "help"
        self.typed.append(answer)
        return answer

    def text(self):
        return "".join(self.printed) + self.capsys.readouterr().out


def dealt_hands(text):
    """The hands listed under 'Hands as dealt:' at the end of ``text``, by seat (after each name,
    which may have spaces: 'player_0 (random)')."""
    block = text[text.rindex("Hands as dealt:"):].splitlines()[1:NUM_SEATS + 1]
    return [{parse_card(word) for word in line.split() if re.fullmatch("[A2-7FCR][♥♦♣♠]", word)}
            for line in block]


def test_a_scripted_english_hand_through_briscola_play(capsys, monkeypatch):
    player = EnglishPlayer(capsys)
    monkeypatch.setattr("builtins.input", player)
    assert main(["play", "--lang", "en", "--seed", str(SEED), "--opponents", "random"]) == 0
    text = player.text()
    # The scripted deal exercises what it should: point bids, and both letters an Italian reads otherwise.
    assert "legal moves: pass, bid a number of points" in text
    assert not [line for line in text.splitlines() if line.startswith("legal moves: ") and line.count(",") > 12]
    assert "h d c s (hearts, diamonds, clubs, spades)" in text  # help says which letters
    typed_letters = {card[1] for _, card in player.cards}
    assert {"♣", "♥"} <= typed_letters, player.cards
    # Every card typed with an English letter is the card played (or called).
    for verb, card in player.cards:
        assert (f"player_0 {card}" if verb == "play" else f"player_0 calls {card}") in text
    # The end of the hand: the hands as dealt, equal to the engine's deal for the seed.
    env = raw_env()
    env.reset(seed=SEED)
    assert dealt_hands(text) == env.unwrapped.game.hands
    assert all(len(hand) == 8 for hand in dealt_hands(text))
    sides = re.search(r"^Sides: callers .* (\d+) \| defenders .* (\d+)$", text, re.M)
    outcome = re.search(r"^You (won|lost) \([+-]\d+\): .*took (\d+) points, the other side (\d+)\.$", text, re.M)
    if "Void hand" not in text:
        assert sides and int(sides[1]) + int(sides[2]) == 120
        assert outcome and int(outcome[2]) + int(outcome[3]) == 120
    # Suits are named as the letters read them: never Cups, Coins or Swords (Cups would read as 'c', clubs).
    assert not re.search(r"\b(Cups|Coins|Swords)\b", text)
    # The session: its running total, the next hand offered, then quit ends it in one line.
    assert "Session so far, after 1 hand: your total" in text
    assert player.typed[-1] == "quit"
    assert text.rstrip().splitlines()[-1].startswith("Session over, after 1 hand: your total")


def test_quit_ends_the_session_in_one_line():
    printed = []
    answers = iter(["help", "quit"])
    played = terminal.play_in_terminal(["random"], seed=1, lang="en", input_fn=lambda prompt: next(answers),
                                       print_fn=printed.append)
    assert played == []
    assert printed[-1].startswith("Session over, after 0 hands") and "abandoned" in printed[-1]
    assert "\n" not in printed[-1].strip()


def test_the_end_of_input_ends_the_session_with_its_total(capsys, monkeypatch):
    def no_more_input(prompt):
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more_input)
    assert main(["play", "--seed", "1", "--opponents", "random"]) == 0
    assert "Session over, after 0 hands" in capsys.readouterr().out


def test_a_session_passes_the_deal_to_the_next_seat_and_keeps_a_running_total():
    printed = []

    def first_legal_move(prompt):  # Enter when the next hand is offered
        if prompt.startswith("Enter"):
            return ""
        if printed[-1].startswith("legal moves: "):
            return printed[-1][len("legal moves: "):].split(", ")[0]
        return "help"

    played = terminal.play_in_terminal(["heuristic"], seat=3, seed=2, hands=3, input_fn=first_legal_move,
                                       print_fn=printed.append)
    assert len(played) == 3
    dealers = [int(m) for m in re.findall(r"^Briscola Chiamata \| dealer player_(\d) \| phase done",
                                          "\n".join(printed), re.M)]
    assert len(dealers) == 3 and all((b - a) % NUM_SEATS == 1 for a, b in zip(dealers, dealers[1:]))
    total = sum(hand[3] for hand in played)
    assert f"Session so far, after 3 hands: your total {total:+g} (" in printed[-1]


def test_replay_without_step_shows_the_hands_as_dealt(tmp_path, capsys):
    assert main(["evaluate", "random", "random", "--deals", "1", "--record", "--out", str(tmp_path)]) == 0
    record = next(iter(records.read(tmp_path / "games.jsonl")))
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "games.jsonl"), "--game", "0", "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert dealt_hands(text) == [{card for card, seat in enumerate(record["deal"]) if seat == s}
                                 for s in range(NUM_SEATS)]


def test_evaluate_help_lists_every_agent_spec_with_its_options(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = capsys.readouterr().out
    for form in ("random", "heuristic", "pimc", "ppo:PATH", "package.module:Class", "rollout=[ppo:"):
        assert form in text
    for cls in (HeuristicAgent, PIMCAgent):  # every option a spec can write, with its default
        for name, parameter in inspect.signature(cls).parameters.items():
            if name not in ("rules", "belief"):  # passed by the caller, not written in a spec
                default = "none" if parameter.default is None else str(parameter.default)
                assert f"{name}={default} (" in text, name
    assert "greedy=false (true or false)" in text


@pytest.mark.parametrize("command, lines", [
    ("play", {"--seat": "(default: 0)", "--seed": "(default: new hands each time)", "--lang": "(default: it)"}),
    ("belief", {"--games": "(default: 20000)", "--epochs": "(default: 4)"}),
])
def test_play_and_belief_options_have_help_with_defaults(capsys, command, lines):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines where it likes
    for option, default in lines.items():
        assert re.search(rf"{option} \S+ \w[^-]*{re.escape(default)}", text), (option, text)
    if command == "play":
        assert "en h d c s (hearts, diamonds, clubs, spades)" in text
