"""Playing and replaying hands in the terminal (``briscola play``, ``briscola replay``).

A person types bids and cards by name: ``pass``, ``75`` (points), ``R`` or
``re`` (a rank), ``A♦``, ``asso denari``, ``ace of coins`` or ``ace of
diamonds``, or a face and a suit letter of the chosen language: Italian
``c d b s`` (coppe, denari, bastoni, spade), English ``h d c s`` (the printed
symbols' hearts, diamonds, clubs, spades), so ``2c`` is the 2♥ in Italian and
the 2♣ in English, never both. ``help`` lists the legal moves and how to write
them; ``quit`` ends the session. A typo or an illegal move is answered with a
message and asked again, so nothing is played by mistake.

``play_in_terminal`` plays a session: it opens with the agent spec at each other
seat and what the face letters stand for (:func:`face_letters_text`); after an
agent's call, the person holding the called card is told he is the secret
partner; after each hand its table (the hands as dealt), whether the person's
side won, and the running totals; then the next hand, the deal passing to the
next seat, until ``quit`` or the end of input.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from agents import AECPolicy, make_agent
from briscola_env.actions import (CALL_OFFSET, MIN_POINTS, MAX_POINTS, PASS, PLAY_OFFSET, POINT_BID_OFFSET,
                                  action_to_text, bid_points, point_bid, rank_bid)
from briscola_env.cards import (FACE_SYMBOLS, FACES_EN, FACES_IT, LANGUAGES, NUM_CARDS, SUIT_LETTERS,
                                SUIT_NAMES_READ, SUIT_SYMBOLS, SUITS_EN, SUITS_IT, SYMBOL_NAMES_EN, TOTAL_POINTS,
                                card_str, card_tables, parse_card)
from briscola_env.game import Game
from briscola_env.pettingzoo_env import raw_env
from briscola_env.records import game_from_record, record_at, validate
from briscola_env.render import render_text
from briscola_env.rules import RulesConfig, resolve_rules

HELP_WORDS = ("help", "?", "aiuto")
QUIT_WORDS = ("quit", "exit", "esci")


class _Quit(Exception):
    """The person typed one of ``QUIT_WORDS``."""


def _card_names() -> dict[str, int]:
    """Every card by its full names, each with one reading whatever the language: Italian, English,
    and English after the printed symbols (the ``ace of hearts`` is the ``ace of cups``)."""
    names = {}
    for card in range(NUM_CARDS):
        suit, face = divmod(card, 10)
        for faces, suits, joins in ((FACES_IT, SUITS_IT, (" di ", " ")), (FACES_EN, SUITS_EN, (" of ", " ")),
                                    (FACES_EN, SYMBOL_NAMES_EN, (" of ", " "))):
            for join in joins:
                names[f"{faces[face]}{join}{suits[suit]}".lower()] = card
        names[card_str(card).lower()] = card
    return names


CARD_NAMES = _card_names()


def suit_letters_text(lang: str) -> str:
    """The suit letters of ``lang`` with the names they stand for: ``h d c s (hearts, diamonds, ...)``."""
    names = ", ".join(name.lower() for name in SUIT_NAMES_READ[lang])
    return f"{' '.join(SUIT_LETTERS[lang])} ({names})"


def face_letters_text() -> str:
    """The faces written as letters, in English, and the Italian names they are the initials of:
    ``A ace, F jack, C knight, R king: the initials of the Italian asso, fante, cavallo, re``."""
    lettered = [face for face, symbol in enumerate(FACE_SYMBOLS) if not symbol.isdigit()]
    english = ", ".join(f"{FACE_SYMBOLS[face]} {FACES_EN[face].lower()}" for face in lettered)
    return f"{english}: the initials of the Italian {', '.join(FACES_IT[face].lower() for face in lettered)}"


def how_to_write_cards(lang: str) -> str:
    """How a card is typed with the suit letters of ``lang``."""
    example = FACE_SYMBOLS[0] + SUIT_LETTERS[lang][0]
    return (f"cards: a face {' '.join(FACE_SYMBOLS)}, then a suit {' '.join(SUIT_SYMBOLS)} or "
            f"{suit_letters_text(lang)}: {example!r} is {card_str(parse_card(example, lang))}; "
            f"also by name: 'ace of hearts', 'asso di coppe'. Faces {face_letters_text()}")


def describe_moves(legal: Sequence[int], ten_card: str) -> str:
    """The legal moves in words, point bids as their range (they are any number above the
    standing bid): ``pass, bid 2, bid a number of points 75..120``."""
    moves = [action_to_text(a, ten_card) for a in legal if not POINT_BID_OFFSET <= a < CALL_OFFSET]
    points = [bid_points(a) for a in legal if POINT_BID_OFFSET <= a < CALL_OFFSET]
    if points and points == list(range(points[0], points[-1] + 1)):
        moves.append(f"bid a number of points {points[0]}..{points[-1]}")
    else:
        moves += [f"bid {p}" for p in points]
    return ", ".join(moves)


def parse_move(text: str, legal: Sequence[int], rules: RulesConfig, lang: str = "it") -> int:
    """The legal action meant by ``text``, suit letters read in ``lang``; ValueError with a message
    otherwise."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
    words = text.strip().lower().replace("bid ", "").replace("play ", "").replace("call ", "")
    if not words:
        raise ValueError("type a move, or 'help'")
    candidates = []
    if words in ("pass", "p", "passo"):
        candidates = [PASS]
    elif words.isdigit() and MIN_POINTS <= int(words) <= MAX_POINTS:
        candidates = [point_bid(int(words))]
    else:
        order = card_tables(rules.ten_card).level_face
        face_names = {**{s.lower(): i + 1 for i, s in enumerate(FACE_SYMBOLS)},
                      **{n.lower(): i + 1 for i, n in enumerate(FACES_IT)},
                      **{n.lower(): i + 1 for i, n in enumerate(FACES_EN)}}
        if words in face_names:
            candidates.append(rank_bid(order.index(face_names[words]) + 1))
        card = CARD_NAMES.get(words)
        if card is None:
            try:
                card = parse_card(text.strip().split()[-1], lang)
            except ValueError:
                card = None
        if card is not None:
            candidates += [CALL_OFFSET + card, PLAY_OFFSET + card]
    chosen = [a for a in candidates if a in legal]
    if chosen:
        return chosen[0]
    if candidates:
        raise ValueError(f"{text.strip()!r} is not allowed now; type 'help' for the legal moves")
    example = FACE_SYMBOLS[0] + SUIT_LETTERS[lang][0]
    raise ValueError(f"cannot read {text.strip()!r}: try 'pass', '75', 'R', a card such as 'A♦' or {example!r} "
                     f"(suit letters {suit_letters_text(lang)}), 'quit' or 'help'")


def _read_move(prompt: str, legal: list[int], rules: RulesConfig, lang: str,
               input_fn: Callable[[str], str], print_fn: Callable[[str], None]) -> int:
    """Ask until ``input_fn`` gives a legal move; ``help`` is answered, ``quit`` raises ``_Quit``."""
    while True:
        text = input_fn(prompt)
        word = text.strip().lower()
        if word in QUIT_WORDS:
            raise _Quit
        if word in HELP_WORDS:
            print_fn(f"{how_to_write_cards(lang)}. 'quit' ends the session.")
            print_fn("legal moves: " + describe_moves(legal, rules.ten_card))
            continue
        try:
            return parse_move(text, legal, rules, lang)
        except ValueError as error:
            print_fn(str(error))


def _play_hand(env, seat: int, policies: dict, lang: str, input_fn: Callable[[str], str],
               print_fn: Callable[[str], None]) -> Game:
    """Play the hand ``env`` was reset to, the person at ``seat``; its finished game."""
    me = env.possible_agents[seat]
    ten = env.rules.ten_card
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if agent != me:
            action = policies[env.possible_agents.index(agent)](observation)
            print_fn(f"{agent}: {action_to_text(action, ten)}")
            env.step(action)
            if CALL_OFFSET <= action < PLAY_OFFSET and env.unwrapped.game.partner == seat:
                print_fn(f"You hold {card_str(action - CALL_OFFSET)}: you are {agent}'s secret partner, on the "
                         "callers' side. Nobody else knows it until you play that card.")
            continue
        print_fn(env.render())
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        env.step(_read_move(f"{me}, your move: ", legal, env.rules, lang, input_fn, print_fn))
    return env.unwrapped.game


def hand_outcome(game: Game, seat: int) -> str:
    """Whether ``seat``'s side won a finished hand, with each side's points."""
    if game.void:
        return "Void hand: everybody passed, nobody scores."
    callers = seat in (game.caller, game.partner)
    mine = game.team_points if callers else TOTAL_POINTS - game.team_points
    won = game.made == callers
    return (f"You {'won' if won else 'lost'} ({game.payoffs[seat]:+g}): the callers "
            f"{'made' if game.made else 'failed'} their contract; your side, the "
            f"{'callers' if callers else 'defenders'}, took {mine} points, the other side {TOTAL_POINTS - mine}.")


def _totals_text(totals: list[float], hands: int, names: list[str], seat: int) -> str:
    return (f"after {hands} hand{'' if hands == 1 else 's'}: your total {totals[seat]:+g} ("
            + " | ".join(f"{name} {total:+g}" for name, total in zip(names, totals)) + ")")


def play_in_terminal(opponents: Sequence[str], seat: int = 0, seed: Optional[int] = None,
                     rules: Optional[RulesConfig] = None, lang: str = "it", hands: Optional[int] = None,
                     input_fn: Optional[Callable[[str], str]] = None,
                     print_fn: Callable[[str], None] = print) -> list[list[float]]:
    """A session with a person at ``seat`` and agents (one spec, or one per other seat: four, three at a
    table of four) at the others: hands
    until ``hands`` are played (default: no limit), the person types ``quit`` or the input ends
    (``EOFError`` from ``input_fn``, default: the terminal). The first deal is drawn from ``seed``
    (as ``raw_env().reset(seed=seed)`` draws it), then the deal passes to the next seat each hand.
    Returns the payoffs of each finished hand, one a seat."""
    seats = resolve_rules(rules).table_shape.seats
    others = seats - 1
    if len(opponents) not in (1, others):
        raise ValueError(f"give one opponent spec (for all {others} other seats) or {others}, in seat order")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise ValueError(f"seat must be 0..{seats - 1}; got {seat!r}")
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
    if hands is not None and (isinstance(hands, bool) or not isinstance(hands, int) or hands < 1):
        raise ValueError(f"hands must be a whole number of at least 1, or None for no limit; got {hands!r}")
    input_fn = input_fn or input
    specs = list(opponents) * others if len(opponents) == 1 else list(opponents)
    seat_specs = dict(zip([s for s in range(seats) if s != seat], specs))
    policies = {s: AECPolicy(make_agent(spec, seed=None if seed is None else seed + s, rules=rules))
                for s, spec in seat_specs.items()}
    env = raw_env(rules=rules, render_view=seat, render_mode="ansi", lang=lang)
    env.reset(seed=seed)
    names = env.possible_agents
    totals, played = [0.0] * seats, []
    print_fn(f"You are {names[seat]}. The agents at the other seats: "
             + ", ".join(f"{names[s]} {spec}" for s, spec in seat_specs.items()) + ".")
    print_fn(f"Faces {face_letters_text()}.")
    print_fn("Type 'help' for your legal moves and how to write them, 'quit' to stop.")
    try:
        while True:
            game = _play_hand(env, seat, policies, lang, input_fn, print_fn)
            played.append(list(game.payoffs))
            totals = [total + payoff for total, payoff in zip(totals, game.payoffs)]
            print_fn(render_text(game, lang=lang, names=names))
            print_fn(hand_outcome(game, seat))
            print_fn("Session so far, " + _totals_text(totals, len(played), names, seat))
            if hands is not None and len(played) == hands:
                return played
            dealer = (game.dealer + 1) % seats
            if input_fn(f"Enter for the next hand ({names[dealer]} deals), 'quit' to stop: "
                        ).strip().lower() in QUIT_WORDS:
                raise _Quit
            env.reset(options={"dealer": dealer})
    except (_Quit, EOFError) as end:
        abandoned = "" if env.unwrapped.game.terminated else "; the hand in play abandoned"
        print_fn(("\n" if isinstance(end, EOFError) else "") + "Session over, "
                 + _totals_text(totals, len(played), names, seat) + abandoned)
    return played

def replay_in_terminal(path, game: int = 0, lang: str = "it", step: bool = False,
                       input_fn: Optional[Callable[[str], str]] = None,
                       print_fn: Callable[[str], None] = print) -> None:
    """Show record number ``game`` (from 0; blank lines are not records) of a JSON Lines file:
    the whole hand, or with ``step`` one action at a time (``input_fn`` waits for Enter; default:
    the terminal). The file is read only up to that record, which is checked against its replay
    first (:func:`briscola_env.records.validate`): other lines, even broken ones, do not matter."""
    input_fn = input_fn or input
    line_number, r = record_at(path, game)
    validate([r], labels=[f"{path}:{line_number} (game {game})"])
    names = [f"player_{s} ({agent})" for s, agent in enumerate(r["agents"])]  # render_text escapes them
    for upto in range(len(r["actions"]) + 1):
        if step or upto == len(r["actions"]):
            print_fn(render_text(game_from_record(r, upto), lang=lang, names=names))
        if step and upto < len(r["actions"]):
            input_fn("Enter for the next action ")
