"""Playing and replaying hands in the terminal (``briscola play``, ``briscola replay``).

A person types bids and cards by name: ``pass``, ``75`` (points), ``R`` or
``re`` (a rank), ``A♦``, ``Ad``, ``asso denari``, ``ace of coins``;
``help`` lists the legal moves. A typo or an illegal move is answered with a
message and asked again, so nothing is played by mistake.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from agents import AECPolicy, make_agent
from briscola_env.actions import (CALL_OFFSET, MIN_POINTS, MAX_POINTS, PASS, PLAY_OFFSET, action_to_text,
                                  point_bid, rank_bid)
from briscola_env.cards import (FACE_SYMBOLS, FACES_EN, FACES_IT, NUM_CARDS, NUM_SEATS, SUITS_EN, SUITS_IT,
                                card_str, card_tables, parse_card)
from briscola_env.pettingzoo_env import raw_env
from briscola_env.records import game_from_record, record_at, validate
from briscola_env.render import render_text
from briscola_env.rules import RulesConfig


def _card_names() -> dict[str, int]:
    names = {}
    for card in range(NUM_CARDS):
        suit, face = divmod(card, 10)
        for faces, suits, joins in ((FACES_IT, SUITS_IT, (" di ", " ")), (FACES_EN, SUITS_EN, (" of ", " "))):
            for join in joins:
                names[f"{faces[face]}{join}{suits[suit]}".lower()] = card
        names[card_str(card).lower()] = card
    return names


CARD_NAMES = _card_names()


def parse_move(text: str, legal: Sequence[int], rules: RulesConfig) -> int:
    """The legal action meant by ``text``; ValueError with a message otherwise."""
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
                card = parse_card(text.strip().split()[-1])
            except ValueError:
                card = None
        if card is not None:
            candidates += [CALL_OFFSET + card, PLAY_OFFSET + card]
    chosen = [a for a in candidates if a in legal]
    if chosen:
        return chosen[0]
    if candidates:
        raise ValueError(f"{text.strip()!r} is not allowed now; type 'help' for the legal moves")
    raise ValueError(f"cannot read {text.strip()!r}: try 'pass', '75', 'R', 'A♦', 'asso denari' or 'help'")


def play_in_terminal(opponents: Sequence[str], seat: int = 0, seed: Optional[int] = None,
                     rules: Optional[RulesConfig] = None, lang: str = "it",
                     input_fn: Optional[Callable[[str], str]] = None,
                     print_fn: Callable[[str], None] = print) -> list[float]:
    """One hand with a person at ``seat`` and agents (one spec, or four) at the others.
    Returns the five payoffs. ``input_fn`` reads the person's moves (default: the terminal)."""
    input_fn = input_fn or input
    if len(opponents) not in (1, NUM_SEATS - 1):
        raise ValueError("give one opponent spec (for all four seats) or four, in seat order")
    specs = list(opponents) * (NUM_SEATS - 1) if len(opponents) == 1 else list(opponents)
    others = [s for s in range(NUM_SEATS) if s != seat]
    policies = {s: AECPolicy(make_agent(spec, seed=None if seed is None else seed + s, rules=rules))
                for s, spec in zip(others, specs)}
    env = raw_env(rules=rules, render_view=seat, render_mode="ansi", lang=lang)
    env.reset(seed=seed)
    me = env.possible_agents[seat]
    ten = env.rules.ten_card
    print_fn(f"You are {me}. Type 'help' for your legal moves.")
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if agent != me:
            action = policies[env.possible_agents.index(agent)](observation)
            print_fn(f"{agent}: {action_to_text(action, ten)}")
            env.step(action)
            continue
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        print_fn(env.render())
        while True:
            text = input_fn(f"{me}, your move: ")
            if text.strip().lower() in ("help", "?", "aiuto"):
                print_fn("legal moves: " + ", ".join(action_to_text(a, ten) for a in legal))
                continue
            try:
                action = parse_move(text, legal, env.rules)
                break
            except ValueError as error:
                print_fn(str(error))
        env.step(action)
    game = env.unwrapped.game
    print_fn(render_text(game, lang=lang, names=env.possible_agents))
    return list(game.payoffs)


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
