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

At a table of another shape (the rules' ``table_shape``) the seats, the names and the payoffs are
as many as its seats, and with a monte its cards have the holder one past the last seat in
``deal``, and the record adds ``"discards": ["A♥", ...]`` (the caller's, by card id).

``actions`` alone, with the deal and the rules, replays the hand
(:func:`replay`); the other fields are there for people and other tools, and
:func:`validate` checks that they say what the replay says.

Record ``k`` of a file is its ``k``-th non-blank line, counting from 0
(:func:`record_at` reads only up to it, so one bad line spoils only itself).
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, Iterable, Iterator, Optional, Sequence

import numpy as np

from . import engine
from .actions import NUM_ACTIONS, action_to_text
from .cards import NUM_CARDS, card_str
from .game import Game
from .render import printable
from .rules import PayoffTable, RulesConfig

VERSION = 1
FIELDS = ("version", "rules", "deal", "dealer", "agents", "actions", "auction", "call", "plays", "outcome")
PAYOFF_TOLERANCE = 1e-6  # the engine scores in float32; a record may hold a payoff written in float64
MAX_SHOWN = 80  # characters of a recorded value quoted in an error message


def _outcome(payoffs, caller, partner, team_points, made, multiplier) -> dict:
    return {"payoffs": [float(p) for p in payoffs], "caller": int(caller), "partner": int(partner),
            "team_points": int(team_points), "made": bool(made), "multiplier": int(multiplier)}


def _described(auction, called_card: int, plays, outcome: dict, rules: RulesConfig, discards=()) -> dict:
    """The fields of a record that describe the hand: ``auction`` and ``plays`` are (seat, action id)
    and (seat, card id) pairs in order, ``discards`` card ids (a record has them with a monte only)."""
    described: dict[str, Any] = {
        "auction": [[int(seat), action_to_text(a, rules.ten_card)] for seat, a in auction],
        "call": card_str(int(called_card)) if called_card >= 0 else None,
        "plays": [[int(seat), card_str(int(card))] for seat, card in plays],
        "outcome": outcome}
    if rules.monte:
        described["discards"] = [card_str(int(card)) for card in sorted(discards)]
    return described


def record(rules: RulesConfig, deal: Sequence[int], dealer: int, actions: Sequence[int],
           agents: Sequence[str]) -> dict:
    """The record of a finished hand, built by replaying ``actions`` (which must end it)."""
    game = Game(rules, list(map(int, deal)), int(dealer))
    for a in actions:
        game.step(int(a))
    if not game.terminated:
        raise ValueError(f"the {len(actions)} actions do not finish the hand")
    return {
        "version": VERSION,
        "rules": rules.to_dict(),
        "deal": [int(s) for s in deal],
        "dealer": int(dealer),
        "agents": list(agents),
        "actions": [int(a) for a in actions],
        **_replayed_fields(game.state, 0),
    }


def write(path, records: Iterable[dict]) -> int:
    """Append records to a JSON Lines file; returns how many were written."""
    n = 0
    with open(path, "a", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    return n


# --- reading ------------------------------------------------------------------------------

def lines(path) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of each non-blank line of a file, read lazily (a record per line)."""
    with open(path, "rb") as f:
        for line_number, line in enumerate(f, start=1):
            if line.strip():
                yield line_number, line


def parse(line: bytes, where: str) -> dict:
    """The record on one line; ``where`` ("file:line") names it in errors."""
    where = printable(where)  # a file's name may hold control characters too
    try:
        r = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ValueError(f"{where}: not UTF-8 text (byte {error.start + 1})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{where}: not a JSON record ({error.msg}, column {error.colno}); "
                         "the line may be truncated") from None
    if not isinstance(r, dict):
        raise ValueError(f"{where}: a record is a JSON object; got a {type(r).__name__}")
    if r.get("version") != VERSION:
        raise ValueError(f"{where}: record version {_shown(r.get('version'))}, "
                         f"this version of briscola_env reads version {VERSION}")
    return r


def read(path) -> Iterator[dict]:
    """The records of a JSON Lines file, checked for their version."""
    for line_number, line in lines(path):
        yield parse(line, f"{path}:{line_number}")


def record_at(path, game: int) -> tuple[int, dict]:
    """``(line number, record)`` of record ``game`` (counting from 0, blank lines not counted),
    reading no further than its line: the other lines may be anything."""
    if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or game < 0:
        raise ValueError(f"the game number must be an int, 0 or more; got {game!r}")
    count = 0
    for index, (line_number, line) in enumerate(lines(path)):
        if index == game:
            return line_number, parse(line, f"{path}:{line_number}")
        count = index + 1
    held = f"{count} records (games 0..{count - 1})" if count else "no records"
    raise ValueError(f"{printable(path)} holds {held}; there is no game {game}")


def rules_of(r: dict) -> RulesConfig:
    """The rules a record was played under."""
    values = dict(r["rules"])
    # Records list every rules field; one written before call_after_two existed was played
    # under the earlier reading of the call after the 2, not under today's default.
    values.setdefault("call_after_two", "any")
    table = values.get("payoff_table")
    if isinstance(table, dict):
        known = [f.name for f in fields(PayoffTable)]
        # Named by repr: a key is the record's text, which may hold control characters.
        unknown = sorted((key for key in table if key not in known), key=repr)
        if unknown:
            raise ValueError(f"unknown payoff_table key(s) {', '.join(map(_shown, unknown))}; "
                             f"allowed keys: {', '.join(known)}")
        values["payoff_table"] = PayoffTable(**table)
    return RulesConfig.from_dict(values)


# --- checking records against their replay -----------------------------------------------------

def validate(records: Sequence[dict], labels: Optional[Sequence[str]] = None) -> None:
    """Check every record against its own replay through the engine, under its own rules:
    well-formed fields, every action legal when taken, the hand finished by the last one, and
    the recorded auction, call, plays and outcome equal to the replay's. A ValueError names the
    first faulty record (``labels[i]``, default ``"game i"``) and the field."""
    _replayed_groups(records, labels)


def replay(records: Sequence[dict]) -> engine.State:
    """Engine states of the recorded hands, played to the end, once every record has passed
    :func:`validate`. An engine State holds one set of rules, so all records must share theirs
    (:func:`validate` checks a batch mixing rules, each group under its own)."""
    groups = _replayed_groups(records, None)
    if len(groups) > 1:
        first, other = (index[0] for index, _ in groups[:2])
        raise ValueError(f"game {other} is played under other rules than game {first}, and one engine State "
                         f"holds one set of rules ({len(groups)} sets here); replay each set apart")
    return groups[0][1]


def _replayed_groups(records: Sequence[dict],
                     labels: Optional[Sequence[str]]) -> list[tuple[list[int], engine.State]]:
    """``[(record indices, engine state)]``, one per set of rules, in the order the sets first appear;
    raises on the first faulty record (see :func:`validate`)."""
    if not records:
        raise ValueError("no records given")
    labels = labels or [f"game {i}" for i in range(len(records))]
    if len(labels) != len(records):
        raise ValueError(f"{len(labels)} labels for {len(records)} records")
    faults: dict[int, str] = {}
    groups: dict[RulesConfig, list[int]] = {}
    for i, r in enumerate(records):
        try:
            groups.setdefault(_checked_rules(r), []).append(i)
        except ValueError as error:
            faults[i] = str(error)
    replayed = []
    for rules, index in groups.items():
        group = [records[i] for i in index]
        state, group_faults = _play(rules, group)
        for k, r in enumerate(group):
            fault = group_faults.get(k) or _difference(r, _replayed_fields(state, k))
            if fault:
                faults[index[k]] = fault
        replayed.append((index, state))
    if faults:
        first = min(faults)
        more = f" (and {len(faults) - 1} more faulty records)" if len(faults) > 1 else ""
        # The messages show recorded values by repr already; printable is the guarantee that
        # nothing from a record reaches a terminal as a control character.
        raise ValueError(printable(f"{labels[first]}: {faults[first]}{more}"))
    return replayed


def _shown(value) -> str:
    """A recorded value as it may appear in a message: repr escapes control characters."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 3] + "..."


def _is_int(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _checked_rules(r) -> RulesConfig:
    """The rules of a record whose fields have the right shapes (the replay checks the rest)."""
    if not isinstance(r, dict):
        raise ValueError(f"a record is a dict (a JSON object); got a {type(r).__name__}")
    missing = [name for name in FIELDS if name not in r]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    if r["version"] != VERSION:
        raise ValueError(f"version: {_shown(r['version'])}, this version of briscola_env reads {VERSION}")
    deal, agents, actions = r["deal"], r["agents"], r["actions"]
    shape = _table_shape(r)
    seats, top = shape.seats, shape.monte_holder if shape.monte_size else shape.seats - 1
    wanted = [shape.hand_size] * seats + ([shape.monte_size] if shape.monte_size else [])
    if not (isinstance(deal, list) and len(deal) == NUM_CARDS and all(_is_int(s, 0, top) for s in deal)
            and [deal.count(s) for s in range(top + 1)] == wanted):
        monte = f" ({shape.monte_holder}: the monte, {shape.monte_size} cards)" if shape.monte_size else ""
        raise ValueError(f"deal: expected the seat 0..{seats - 1}{monte} of each of the {NUM_CARDS} cards, "
                         f"{shape.hand_size} cards a seat; got {_shown(deal)}")
    if not _is_int(r["dealer"], 0, seats - 1):
        raise ValueError(f"dealer: expected a seat 0..{seats - 1}; got {_shown(r['dealer'])}")
    if not (isinstance(agents, list) and len(agents) == seats and all(isinstance(a, str) for a in agents)):
        raise ValueError(f"agents: expected {seats} names; got {_shown(agents)}")
    if not (isinstance(actions, list) and all(_is_int(a, 0, NUM_ACTIONS - 1) for a in actions)):
        bad = next((a for a in actions if not _is_int(a, 0, NUM_ACTIONS - 1)), actions) \
            if isinstance(actions, list) else actions
        raise ValueError(f"actions: expected action ids 0..{NUM_ACTIONS - 1}; got {_shown(bad)}")
    if not isinstance(r["rules"], dict):
        raise ValueError(f"rules: expected a mapping of rules fields; got {_shown(r['rules'])}")
    try:
        return rules_of(r)
    except (TypeError, ValueError) as error:
        raise ValueError(f"rules: {error}") from None


def _table_shape(r: dict):
    """The table of a record's rules, to check its deal by; the standard one if its rules do not
    even give that (their fault is then reported on its own, once the fields are checked)."""
    try:
        return rules_of(r).table_shape
    except (TypeError, ValueError, KeyError, AttributeError):
        return RulesConfig().table_shape


def _play(rules: RulesConfig, group: Sequence[dict]) -> tuple[engine.State, dict[int, str]]:
    """The engine state of the recorded hands after their actions, and the faults of those whose
    actions are not a whole legal hand (game k of the group: message); a faulty game stops there."""
    state = engine.init_from_deals(np.array([r["deal"] for r in group]), np.array([r["dealer"] for r in group]),
                                   rules)
    lengths = np.array([len(r["actions"]) for r in group])
    actions = np.zeros((len(group), lengths.max(initial=0)), dtype=np.int64)
    for k, r in enumerate(group):
        actions[k, :lengths[k]] = r["actions"]
    games = np.arange(len(group))
    faults: dict[int, str] = {}
    sound = np.ones(len(group), dtype=bool)
    ten = rules.ten_card
    for t in range(actions.shape[1]):
        acting = sound & (t < lengths)
        late = acting & state.terminated
        illegal = acting & ~state.terminated & ~state.legal_action_mask[games, actions[:, t]]
        for k in np.flatnonzero(late).tolist():
            faults[k] = f"actions[{t}]: {action_to_text(actions[k, t], ten)!r} comes after the end of the hand"
        for k in np.flatnonzero(illegal).tolist():
            legal = ", ".join(action_to_text(a, ten) for a in np.flatnonzero(state.legal_action_mask[k]))
            faults[k] = (f"actions[{t}]: {action_to_text(actions[k, t], ten)!r} is illegal for seat "
                         f"{state.current_player[k]} in phase {engine.PHASE_NAMES[state.phase[k]]!r}; "
                         f"legal: {legal}")
        sound &= ~(late | illegal)
        engine.step_inplace(state, actions[:, t], active=sound & (t < lengths))
    for k in np.flatnonzero(sound & ~state.terminated).tolist():
        faults[k] = (f"actions: the {lengths[k]} actions leave the hand unfinished, in phase "
                     f"{engine.PHASE_NAMES[state.phase[k]]!r}")
    return state, faults


def _replayed_fields(state: engine.State, k: int) -> dict:
    """What the record of the finished game ``k`` of ``state`` says about the hand."""
    length = state.auction_length[k]
    auction = zip(state.auction_seats[k, :length], state.auction_actions[k, :length])
    seats = state.tables.shape.seats
    plays = [((leader + i) % seats, card)
             for leader, cards in zip(state.trick_leaders[k], state.trick_cards[k]) if leader >= 0
             for i, card in enumerate(cards) if card >= 0]
    void = state.caller[k] < 0
    # A void hand is never scored: the engine leaves its multiplier at 0, a record says 1.
    outcome = _outcome(state.rewards[k], state.caller[k], state.hidden.partner[k], state.team_points[k],
                       state.contract_made[k], 1 if void else state.multiplier[k])
    discards = [] if state.hidden.discards is None else \
        [c for c in range(NUM_CARDS) if int(state.hidden.discards[k]) >> c & 1]
    return _described(auction, state.called_card[k], plays, outcome, state.rules, discards)


def _difference(r: dict, replayed: dict) -> Optional[str]:
    """Where the record ``r`` says something else than its replay (``None`` if nowhere)."""
    for name, value in replayed.items():
        recorded = r.get(name)  # (only "discards", of a monte's hand, may be missing: never so recorded)
        if name == "outcome" and isinstance(recorded, dict):
            for key, expected in value.items():
                got = recorded.get(key)
                if not (_same_payoffs(got, expected) if key == "payoffs" else _same(got, expected)):
                    return f"outcome.{key}: recorded {_shown(got)}, the replay gives {_shown(expected)}"
        elif not _same(recorded, value):
            if isinstance(recorded, list) and isinstance(value, list):
                j = next((j for j, (a, b) in enumerate(zip(recorded, value)) if not _same(a, b)), None)
                if j is None:
                    return f"{name}: recorded {len(recorded)} entries, the replay gives {len(value)}"
                return f"{name}[{j}]: recorded {_shown(recorded[j])}, the replay gives {_shown(value[j])}"
            return f"{name}: recorded {_shown(recorded)}, the replay gives {_shown(value)}"
    return None


def _same(recorded, replayed) -> bool:
    """Equal as JSON: ``true`` is not ``1``, nor ``1.0`` ``1`` (Python's == says they are)."""
    return json.dumps(recorded) == json.dumps(replayed)


def _same_payoffs(recorded, replayed: list[float]) -> bool:
    return (isinstance(recorded, list) and len(recorded) == len(replayed)
            and all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in recorded)
            and np.allclose(recorded, replayed, rtol=PAYOFF_TOLERANCE, atol=PAYOFF_TOLERANCE))


def game_from_record(r: dict, upto: int | None = None) -> Game:
    """The hand of record ``r`` after its first ``upto`` actions (all by default)."""
    game = Game(rules_of(r), r["deal"], r["dealer"])
    for a in r["actions"][:upto]:
        game.step(a)
    return game
