"""The rules config: one frozen dataclass, one named field per variant of docs/RULES.md (the specification).

Build it directly (``RulesConfig(call_rule="at_least")``), from a dict
(:meth:`RulesConfig.from_dict`, unknown keys are an error), from a named
preset (:func:`preset`) or from a rules string such as ``standard,follow_suit=true,players=4``
(:func:`parse_rules`, what ``--rules`` and a config's ``rules:`` take). :func:`resolve_rules` takes
any of these. Every field is validated on construction; :meth:`RulesConfig.to_dict` is the resolved
record (every field, plain YAML/JSON values) that run folders, checkpoints and results save, and
:func:`rules_text` the short name messages and tables show.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from collections.abc import Mapping
from typing import Any, Optional, Union

import numpy as np

from .actions import MAX_POINTS, MIN_POINTS
from .cards import CARDS_PER_HAND, NUM_CARDS, NUM_SEATS, NUM_TRICKS, TEN_CARD_VARIANTS

BIDDING_MODES = ("rank_then_points", "rank_only", "points_only")
ALL_PASS_RULES = ("void", "last_forced")
CALL_RULES = ("exact", "at_least")
CALL_AFTER_TWO_RULES = ("two", "any")
FIRST_LEADERS = ("after_dealer", "caller")
TARGETS = (61, 60)
CAPPOTTO_MODES = ("points", "tricks", "off")
PARTNER_PAYOFFS = ("half", "equal")

# Points-bid multipliers of RULES.md: (lowest bid of the band, multiplier).
DEFAULT_MULTIPLIER_TABLE = ((61, 1), (71, 2), (81, 3), (91, 4), (101, 5))
MAX_MULTIPLIER = 100  # per band; with a cappotto (at most x10) a hand's multiplier stays well inside int16
# Largest payoff_table entry in absolute value: times the largest hand multiplier (100 x 10) it stays far
# inside float32, the rewards' dtype, so that no reward is ever inf.
MAX_PAYOFF = 1e6


@dataclass(frozen=True)
class TableShape:
    """The table a rules config is played at: the facts every module sizes its arrays by
    (:attr:`RulesConfig.table_shape`)."""

    seats: int = NUM_SEATS  # players, seats 0..seats-1; play and deal go to the next seat
    hand_size: int = CARDS_PER_HAND  # cards dealt to each seat
    tricks: int = NUM_TRICKS  # tricks in a hand, a card of every seat in each
    monte_size: int = 0  # cards dealt face down to the monte (briscola col monte), 0 without one

    def __post_init__(self):
        if self.seats * self.hand_size + self.monte_size != NUM_CARDS or self.tricks != self.hand_size:
            raise ValueError(f"a table deals the {NUM_CARDS} cards, a hand a trick: {self} does not")

    @property
    def cards_in_tricks(self) -> int:
        """Cards played in a whole hand: ``trick_cards`` holds them trick by trick, seat by seat."""
        return self.seats * self.tricks

    @property
    def monte_holder(self) -> int:
        """In a deal (each card's holder), the number standing for the monte: one past the last seat."""
        return self.seats


STANDARD_TABLE = TableShape()
MONTE_SIZE = 5  # cards of the monte (briscola col monte, 001): 7 cards each to five players, 5 face down
MONTE_TABLE = TableShape(hand_size=CARDS_PER_HAND - 1, tricks=NUM_TRICKS - 1, monte_size=MONTE_SIZE)
FOUR_TABLE = TableShape(seats=4, hand_size=NUM_CARDS // 4, tricks=NUM_CARDS // 4)  # 004: 10 cards each, 2 against 2
PLAYERS = (5, 4)


@dataclass(frozen=True)
class PayoffTable:
    """Session points for a *made* contract; a failed one pays the negation."""

    caller: float = 2
    partner: float = 1
    defender: float = -1
    solo_caller: float = 4
    solo_defender: float = -1

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                    or abs(v) > MAX_PAYOFF:
                raise ValueError(f"payoff_table.{f.name} must be a finite number in "
                                 f"-{MAX_PAYOFF:,.0f}..{MAX_PAYOFF:,.0f} (so that rewards stay finite in float32), "
                                 f"got {v!r}")

    @classmethod
    def standard(cls, partner_payoff: str = "half", players: int = NUM_SEATS) -> "PayoffTable":
        """RULES.md's zero-sum table; with ``"equal"`` the partner scores as the
        caller and the three defenders share the cost. For four players, RULES.md's
        table for four (two against two: +1 to caller and partner, -1 to each
        defender; solo +3, -1 each), whatever ``partner_payoff``."""
        if players == FOUR_TABLE.seats:
            return cls(caller=1, partner=1, defender=-1, solo_caller=3, solo_defender=-1)
        if partner_payoff == "equal":
            return cls(caller=2, partner=2, defender=-4 / 3)
        return cls()


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _one_of(name: str, value: Any, allowed: tuple) -> None:
    same_type = _is_int(value) if _is_int(allowed[0]) else isinstance(value, type(allowed[0]))
    if not same_type or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def _int_in(name: str, value: Any, lo: int, hi: int) -> None:
    if not _is_int(value) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an int in {lo}..{hi}; got {value!r}")


def _bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False; got {value!r}")


@dataclass(frozen=True)
class RulesConfig:
    """Every rule variant of RULES.md. Defaults are RULES.md's defaults."""

    bidding: str = "rank_then_points"
    """Auction: 'rank_then_points' (ranks, then points from 62 after the 2), 'rank_only', 'points_only'."""
    min_point_bid: int = 61
    """Lowest opening bid with bidding='points_only' (61, or 70 in some regions)."""
    all_pass: str = "void"
    """If all pass: 'void' (hand scores 0) or 'last_forced' (the last to speak must bid)."""
    call_rule: str = "exact"
    """Rank of the called card: 'exact' (the winning bid's rank) or 'at_least' (that rank or stronger)."""
    call_after_two: str = "two"
    """The call once a rank auction reaches the 2: 'two' (the winning rank is the 2, points bid after it or not:
    under call_rule='exact' a 2 of any suit, or, holding the 2 of a suit, the weakest card of that suit he does
    not hold) or 'any' (the earlier reading: a 2 of any suit at the 2, any card once points were bid).
    No effect on a points-only auction, nor under call_rule='at_least' (any card once the 2 is reached)."""
    allow_self_call: bool = True
    """May the caller call a card in his own hand (and play solo)? If not, a rank bid whose callable
    cards are all in the bidder's hand is illegal, and his own cards cannot be called."""
    first_leader: str = "after_dealer"
    """Who leads the first trick: 'after_dealer' (seat d+1) or 'caller'."""
    follow_suit: bool = False
    """House rule: a player holding the suit led must follow it."""
    follow_suit_last_k: Optional[int] = None
    """With follow_suit: only in the last k tricks (1..8; 1..7 with a monte, 1..10 for four); None = every trick."""
    target: int = 61
    """Points the caller's side needs (or the points bid, if higher): 61, or 60 (a 60-60 tie goes to the caller)."""
    point_multipliers: bool = True
    """Multiply the payoffs of a points contract by multiplier_table."""
    multiplier_table: tuple = DEFAULT_MULTIPLIER_TABLE
    """(lowest bid, multiplier) bands, ascending, the first starting at 61."""
    cappotto: str = "points"
    """Bonus when one side takes everything: 'points' (all 120 points), 'tricks' (all 8 tricks; 7 with a monte,
    10 for four) or 'off'."""
    cappotto_multiplier: int = 2
    """Multiplier applied on a cappotto (2, or 3 in some houses)."""
    ten_card: str = "three"
    """The ten-point card: 'three' (standard) or 'seven' (regional: the 7 takes the 3's place)."""
    partner_payoff: str = "half"
    """Partner's payoff: 'half' the caller's (standard) or 'equal' to it."""
    payoff_table: Optional[PayoffTable] = None
    """Session points for a made contract; None = PayoffTable.standard(partner_payoff, players)."""
    blind_first_trick: bool = False
    """Prima mano al buio: the auction, then a first trick without trump (led as first_leader says), then the
    call; the first trick's winner leads the second. A card played in the first trick may be called (the
    partner is then revealed at once), and the caller's own card there counts as his own for the call."""
    players: int = NUM_SEATS
    """Seats at the table: 5, or 4 (004's version for four: 10 cards each, 10 tricks of 4, the partner called
    among the three others, 2 against 2, RULES.md's zero-sum table for four; no monte, and partner_payoff
    does not apply: the partner scores as the caller)."""
    monte: bool = False
    """Briscola col monte (five players): 7 cards each and 5 face down; the caller takes them after the auction and
    discards 5 (one decision each, the play-card ids), then calls; 7 tricks. The discards' points count for his side; a
    discarded card is his own for the call (a solo; not callable without self-calls, unless every card his
    bid lets him call is his own, which only the monte can bring about: then he calls one of them, solo)."""

    def __post_init__(self):
        for f in fields(self):  # NumPy ints are welcome, but the config holds plain Python ints
            if _is_int(getattr(self, f.name)):
                object.__setattr__(self, f.name, int(getattr(self, f.name)))
        _one_of("bidding", self.bidding, BIDDING_MODES)
        _int_in("min_point_bid", self.min_point_bid, MIN_POINTS, MAX_POINTS)
        if self.bidding != "points_only" and self.min_point_bid != MIN_POINTS:
            raise ValueError(
                "min_point_bid only applies to bidding='points_only' (after the 2 of a rank auction "
                f"points always start at 62); got min_point_bid={self.min_point_bid} with bidding={self.bidding!r}"
            )
        _one_of("all_pass", self.all_pass, ALL_PASS_RULES)
        _one_of("call_rule", self.call_rule, CALL_RULES)
        _one_of("call_after_two", self.call_after_two, CALL_AFTER_TWO_RULES)
        _bool("allow_self_call", self.allow_self_call)
        _one_of("first_leader", self.first_leader, FIRST_LEADERS)
        _bool("follow_suit", self.follow_suit)
        self._check_table()
        if self.follow_suit_last_k is not None:
            _int_in("follow_suit_last_k", self.follow_suit_last_k, 1, self.table_shape.tricks)
            if not self.follow_suit:
                raise ValueError("follow_suit_last_k needs follow_suit=True")
        _one_of("target", self.target, TARGETS)
        _bool("point_multipliers", self.point_multipliers)
        self._check_multiplier_table()
        _one_of("cappotto", self.cappotto, CAPPOTTO_MODES)
        _int_in("cappotto_multiplier", self.cappotto_multiplier, 1, 10)
        _one_of("ten_card", self.ten_card, TEN_CARD_VARIANTS)
        _one_of("partner_payoff", self.partner_payoff, PARTNER_PAYOFFS)
        _bool("blind_first_trick", self.blind_first_trick)
        self._check_payoff_table()

    def _check_table(self) -> None:
        """The fields that shape the table: seats and the monte, and what a monte allows."""
        _one_of("players", self.players, PLAYERS)
        _bool("monte", self.monte)
        if self.monte and self.players != NUM_SEATS:
            raise ValueError(f"monte is a variant for five (001: 7 cards each and 5 in the monte); with "
                             f"players={self.players} the sources give none: use monte=False, or players=5")

    def _check_payoff_table(self) -> None:
        if self.players != NUM_SEATS and self.partner_payoff != "half":
            raise ValueError(f"partner_payoff={self.partner_payoff!r} applies to five players; with players="
                             f"{self.players} the partner always scores as the caller (RULES.md's table for four): "
                             "leave partner_payoff='half'")
        given: object = self.payoff_table  # as passed: a PayoffTable, a dict of its fields or None
        if given is None:
            table = PayoffTable.standard(self.partner_payoff, self.players)
        elif isinstance(given, dict):
            unknown = sorted(set(given) - {f.name for f in fields(PayoffTable)})
            if unknown:
                raise ValueError(f"unknown payoff_table key(s) {unknown}; allowed keys: "
                                 f"{', '.join(f.name for f in fields(PayoffTable))}")
            table = PayoffTable(**given)
        elif isinstance(given, PayoffTable):
            table = given
        else:
            raise ValueError(f"payoff_table must be a PayoffTable, a dict or None; got {given!r}")
        object.__setattr__(self, "payoff_table", table)
        equal = self.partner_payoff == "equal" or self.players != NUM_SEATS
        expected_partner = table.caller if equal else table.caller / 2
        if table.partner != expected_partner:
            rule = f"partner_payoff={self.partner_payoff!r}" if self.players == NUM_SEATS else \
                f"players={self.players}"
            raise ValueError(
                f"{rule} means the partner gets {expected_partner} when the caller "
                f"gets {table.caller}, but payoff_table.partner is {table.partner}; "
                f"use PayoffTable.standard({self.partner_payoff!r}, players={self.players}) or fix the table"
            )

    @property
    def table_shape(self) -> TableShape:
        """Seats, hand size, tricks and monte of the table these rules are played at."""
        if self.players == FOUR_TABLE.seats:
            return FOUR_TABLE
        return MONTE_TABLE if self.monte is True else STANDARD_TABLE

    def _check_multiplier_table(self) -> None:
        table = self.multiplier_table
        ok = isinstance(table, (tuple, list)) and len(table) > 0 and all(
            isinstance(row, (tuple, list)) and len(row) == 2 and all(_is_int(x) for x in row) for row in table
        )
        lows = [row[0] for row in table] if ok else []
        if not ok or lows[0] != MIN_POINTS or lows != sorted(set(lows)) or lows[-1] > MAX_POINTS \
                or any(not 1 <= row[1] <= MAX_MULTIPLIER for row in table):
            raise ValueError(
                "multiplier_table must be (lowest bid, multiplier) pairs of ints, lowest bids strictly "
                f"ascending from 61 up to at most 120, multipliers in 1..{MAX_MULTIPLIER}; got {table!r}"
            )
        object.__setattr__(self, "multiplier_table", tuple((int(low), int(m)) for low, m in table))

    def multiplier_for_points(self, points: int) -> int:
        """Multiplier for a contract at ``points`` (1 when multipliers are off)."""
        if not self.point_multipliers:
            return 1
        return [m for low, m in self.multiplier_table if points >= low][-1]

    @classmethod
    def from_dict(cls, values: dict) -> "RulesConfig":
        """Build from a plain dict (e.g. a YAML section); unknown keys are an error."""
        if not isinstance(values, dict):
            raise ValueError(f"rules must be a mapping of field names to values; got {type(values).__name__}")
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise ValueError(f"unknown rules key(s) {unknown}; allowed keys: {', '.join(known)}")
        values = dict(values)
        if isinstance(values.get("multiplier_table"), list):
            values["multiplier_table"] = tuple(tuple(r) if isinstance(r, list) else r
                                               for r in values["multiplier_table"])
        return cls(**values)

    def to_dict(self) -> dict:
        """Every field, as plain values (lists, not tuples) that YAML and JSON write and
        :meth:`from_dict` reads back."""
        values = asdict(self)
        values["multiplier_table"] = [list(row) for row in self.multiplier_table]
        return values

    def replace(self, **changes) -> "RulesConfig":
        """A copy with some fields changed (validated again)."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise ValueError(f"unknown rules key(s) {unknown}; allowed keys: {', '.join(f.name for f in fields(self))}")
        if "payoff_table" not in changes and ("partner_payoff" in changes or (
                "players" in changes and self.payoff_table == PayoffTable.standard(self.partner_payoff, self.players))):
            changes["payoff_table"] = None  # re-derive the standard table for the new partner rule or table
        return replace(self, **changes)


PRESETS: dict[str, dict] = {
    "standard": {},  # RULES.md defaults: rank auction then points, exact call, free play
    "seven": {"ten_card": "seven"},  # regional deck order: the 7 is the ten-point card
    "rank_only": {"bidding": "rank_only"},  # no points auction: after the 2 only passes
    "points_only": {"bidding": "points_only"},  # auction in points from 61, then call any card
    "points_only_70": {"bidding": "points_only", "min_point_bid": 70},  # regions opening at 70
    "at_least": {"call_rule": "at_least", "first_leader": "caller"},  # call that rank or stronger; caller leads
    "lenient": {"target": 60, "all_pass": "last_forced"},  # 60 is enough; somebody must play every hand
    "follow_suit_endgame": {"follow_suit": True, "follow_suit_last_k": 3},  # house rule in the last tricks
    "equal_partner": {"partner_payoff": "equal", "cappotto_multiplier": 3},  # partner scores as caller; cappotto x3
    "no_self_call": {"allow_self_call": False, "cappotto": "tricks"},  # no solo; cappotto counts tricks
    "call_any_after_points": {"call_after_two": "any"},  # the earlier reading: after points any card is callable
    "al_buio": {"blind_first_trick": True},  # prima mano al buio (001): the first trick without trump, then the call
    "monte": {"monte": True},  # briscola col monte (001, Sicily): 7 cards each, the caller takes 5 and discards 5
    "four_players": {"players": 4},  # 004's version for four: 10 cards each, 2 against 2
}


def preset(name: str, **overrides) -> RulesConfig:
    """A named regional setup, optionally with some fields overridden."""
    if name not in PRESETS:
        raise ValueError(f"unknown rules preset {name!r}; presets: {', '.join(PRESETS)}")
    return RulesConfig.from_dict({**PRESETS[name], **overrides})


BOOL_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
"""How text writes a bool (any case), in a rules string as in an agent spec."""
TABLE_FIELDS = ("multiplier_table", "payoff_table")
"""Fields a rules string cannot write: a ``rules:`` mapping in YAML, or a RulesConfig, sets them."""
RULES_SYNTAX = "PRESET[,field=value,...] or field=value[,...] (from the standard rules)"


def _field_value(name: str, text: str, default: Any) -> Any:
    """The value a rules string writes for field ``name``, typed as its default."""
    if name in TABLE_FIELDS:
        raise ValueError(f"{name} cannot be written in a rules string; set it in a rules: mapping of a YAML config")
    if isinstance(default, bool):
        if text.lower() not in BOOL_WORDS:
            raise ValueError(f"{name} takes true or false; got {text!r}")
        return BOOL_WORDS[text.lower()]
    if isinstance(default, int) or name == "follow_suit_last_k":  # follow_suit_last_k: an int, or none
        if default is None and text.lower() == "none":
            return None
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{name} takes an integer; got {text!r}") from None
    return text


def parse_rules(text: str) -> RulesConfig:
    """The rules a rules string names: a preset, optionally followed by ``field=value`` overrides
    (``standard,follow_suit=true,players=4``), or overrides alone, applied to the standard rules
    (``monte=true``). Values are written as in an agent spec: ``true``/``false``, an integer, ``none``
    (follow_suit_last_k) or text. A ValueError on one line names what is wrong and what is allowed."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a rules string is {RULES_SYNTAX}; got {text!r}")
    items = [item.strip() for item in text.split(",")]
    name = "standard" if "=" in items[0] else items.pop(0)
    if name not in PRESETS:
        raise ValueError(f"rules {text!r}: unknown rules preset {name!r}; presets: {', '.join(PRESETS)}")
    defaults, overrides = RulesConfig(), {}
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key:
            raise ValueError(f"rules {text!r}: {item!r} is not field=value; a rules string is {RULES_SYNTAX}")
        if not hasattr(defaults, key):
            raise ValueError(f"rules {text!r}: unknown field {key!r}; fields: "
                             f"{', '.join(f.name for f in fields(RulesConfig))}")
        if key in overrides:
            raise ValueError(f"rules {text!r}: {key} is given twice")
        try:
            overrides[key] = _field_value(key, value, getattr(defaults, key))
        except ValueError as error:
            raise ValueError(f"rules {text!r}: {error}") from None
    try:
        return preset(name, **overrides)
    except ValueError as error:
        raise ValueError(f"rules {text!r}: {error}") from None


def _written(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def rules_text(rules: RulesConfig) -> str:
    """A short name of ``rules`` for messages and tables: the preset's name when they are one, else
    ``standard`` followed by the fields that differ from it (:func:`parse_rules` reads it back, except
    for custom multiplier or payoff tables, which it names only; :meth:`RulesConfig.to_dict` records them)."""
    named = next((name for name in PRESETS if preset(name) == rules), None)
    if named is not None:
        return named
    standard = RulesConfig(players=rules.players, partner_payoff=rules.partner_payoff)
    changed = [f.name for f in fields(RulesConfig)
               if getattr(rules, f.name) != getattr(RulesConfig(), f.name) and f.name not in TABLE_FIELDS]
    changed += [name for name in TABLE_FIELDS if getattr(rules, name) != getattr(standard, name)]
    return ",".join(["standard"] + [f"{name}={_written(getattr(rules, name))}" if name not in TABLE_FIELDS
                                    else f"{name}=custom" for name in changed])


def resolve_rules(rules: Union[RulesConfig, str, Mapping, None] = None, **overrides) -> RulesConfig:
    """The rules that ``rules`` names: a :class:`RulesConfig`, a rules string (a preset's name, or
    :func:`parse_rules`' syntax), a mapping of fields (a YAML ``rules:`` section; its optional ``preset``
    key names the preset the other fields override) or None (the standard rules); ``overrides``
    (field=value) applied on top. A ValueError otherwise."""
    if isinstance(rules, str):
        rules = parse_rules(rules)
    elif isinstance(rules, Mapping):
        values = dict(rules)
        name = values.pop("preset", "standard")
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"rules: preset must be one of {', '.join(PRESETS)}; got {name!r}")
        rules = RulesConfig.from_dict({**PRESETS[name], **values})
    elif rules is None:
        rules = RulesConfig()
    elif not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig, a rules string ({RULES_SYNTAX}), a mapping of rules "
                         f"fields or None; got {type(rules).__name__}")
    return rules.replace(**overrides) if overrides else rules
