"""Game records: finished hands as JSON Lines, one hand per line.

Schema (``"version": 1``)::

    {"version": 1,
     "rules": {...RulesConfig fields...},
     "deal": [40 seats, the holder of each card id], "dealer": 0..4,
     "agents": [5 names, seat by seat],
     "actions": [every action id, in order],
     "auction": [[seat, "bid A"], [seat, "pass"], ...],
     "call": "A♥" or null,
     "plays": [[seat, "A♥"], ...],                  # every card with its seat, in order
     "outcome": {"payoffs": [5 numbers], "caller": seat or -1, "partner": seat or -1,
                 "team_points": int, "made": bool, "multiplier": int}}

``actions`` alone, with the deal and the rules, replays the hand
(:func:`replay`); the other fields are there for people and other tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from . import engine
from .actions import action_to_text
from .cards import card_str
from .reference import ReferenceGame
from .rules import PayoffTable, RulesConfig

VERSION = 1


def record(rules: RulesConfig, deal: Sequence[int], dealer: int, actions: Sequence[int],
           agents: Sequence[str]) -> dict:
    """The record of a finished hand, built by replaying ``actions`` (which must end it)."""
    game = ReferenceGame(rules, list(map(int, deal)), int(dealer))
    for a in actions:
        game.step(int(a))
    if not game.terminated:
        raise ValueError(f"the {len(actions)} actions do not finish the hand")
    ten = rules.ten_card
    return {
        "version": VERSION,
        "rules": rules.to_dict(),
        "deal": [int(s) for s in deal],
        "dealer": int(dealer),
        "agents": list(agents),
        "actions": [int(a) for a in actions],
        "auction": [[seat, action_to_text(a, ten)] for seat, a in game.auction],
        "call": card_str(game.called_card) if game.called_card >= 0 else None,
        "plays": [[seat, card_str(card)] for trick in game.tricks for seat, card in trick],
        "outcome": {"payoffs": list(game.payoffs), "caller": game.caller, "partner": game.partner,
                    "team_points": game.team_points, "made": game.made, "multiplier": game.multiplier},
    }


def write(path, records: Iterable[dict]) -> int:
    """Append records to a JSON Lines file; returns how many were written."""
    n = 0
    with open(path, "a", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    return n


def read(path) -> Iterator[dict]:
    """The records of a JSON Lines file, checked for their version."""
    with open(path, encoding="utf-8") as f:
        for line_number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            r = json.loads(line)
            if r.get("version") != VERSION:
                raise ValueError(f"{Path(path).name}:{line_number}: record version {r.get('version')!r}, "
                                 f"this version of briscola_env reads version {VERSION}")
            yield r


def rules_of(r: dict) -> RulesConfig:
    values = dict(r["rules"])
    if isinstance(values.get("payoff_table"), dict):
        values["payoff_table"] = PayoffTable(**values["payoff_table"])
    return RulesConfig.from_dict(values)


def replay(records: Sequence[dict]) -> engine.State:
    """Engine states of the recorded hands (all under the same rules), played to the end."""
    rules = rules_of(records[0])
    state = engine.init_from_deals(np.array([r["deal"] for r in records]),
                                   np.array([r["dealer"] for r in records]), rules)
    longest = max(len(r["actions"]) for r in records)
    actions = np.full((len(records), longest), -1, dtype=np.int64)
    for i, r in enumerate(records):
        actions[i, :len(r["actions"])] = r["actions"]
    for t in range(longest):
        engine.step_inplace(state, actions[:, t], active=actions[:, t] >= 0)
    return state


def game_from_record(r: dict, upto: int | None = None) -> ReferenceGame:
    """The hand of record ``r`` after its first ``upto`` actions (all by default)."""
    game = ReferenceGame(rules_of(r), r["deal"], r["dealer"])
    for a in r["actions"][:upto]:
        game.step(a)
    return game


