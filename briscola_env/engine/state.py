"""The batched game state: a dataclass of arrays, batch axis ``B`` first.

Public fields are what everyone at the table sees. Hidden facts (the hands and
the partner's seat) live in :class:`Hidden`, under ``state.hidden``, so that
code building a player's view has to reach for them explicitly. Fields whose
name starts with ``_`` are engine bookkeeping, derivable from the rest, read and
written by the engine alone. :data:`LAYOUT` names every array field, and
:meth:`State.to_arrays` and :meth:`State.from_arrays` carry them all, for code
that saves and restores whole states.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Optional

import numpy as np

from ..actions import NUM_POINT_BIDS, NUM_RANK_LEVELS
from ..cards import NUM_CARDS, NUM_SEATS, NUM_TRICKS
from ..rules import STANDARD_TABLE, RulesConfig, TableShape
from .bits import CARD_BIT, legal_mask
from .codes import Phase
from .tables import RuleTables, rule_tables

# Longest possible auction: every rank, every point bid, then a pass from each of the (at most five) seats.
MAX_AUCTION_LENGTH = NUM_RANK_LEVELS + NUM_POINT_BIDS + NUM_SEATS


@dataclass
class Hidden:
    """What no single player sees in full. ``seats`` below is ``rules.table_shape.seats``."""

    hand_bits: np.ndarray  # (B, seats) uint64, bit c set while seat s still holds card c
    partner: np.ndarray  # (B,) int8, seat holding the called card (== caller for a solo), -1 before the call
    # With a monte (RulesConfig.monte) only, else None:
    monte: Optional[np.ndarray] = None  # (B,) uint64, the monte's cards as dealt (the caller's once the auction is won)
    discards: Optional[np.ndarray] = None  # (B,) uint64, the cards the caller has discarded so far

    @property
    def hands(self) -> np.ndarray:
        """``(B, seats, 40)`` bool: ``hands[b, s, c]`` while seat ``s`` holds card ``c``."""
        return (self.hand_bits[..., None] & CARD_BIT) != 0

    @property
    def held(self) -> np.ndarray:
        """``(B,)`` uint64, the union of the hands and of the discards: the cards not played yet, a public
        fact (but for the monte before the auction is won, which :func:`not_played` adds)."""
        hands = self.hand_bits
        held = hands[:, 0] | hands[:, 1] | hands[:, 2] | hands[:, 3]  # (a reduce costs 6x more)
        if hands.shape[1] > 4:
            held = held | hands[:, 4]
        if self.discards is not None:
            held = held | self.discards
        return held


@dataclass
class State:
    """A batch of games under one set of rules; ``seats`` and ``tricks`` below are those of
    ``rules.table_shape`` (5 and 8 in the standard game)."""

    rules: RulesConfig  # the rules every game of the batch is played by
    phase: np.ndarray  # (B,) int8, a Phase code
    current_player: np.ndarray  # (B,) int8, seat to act, -1 once done
    dealer: np.ndarray  # (B,) int8
    terminated: np.ndarray  # (B,) bool
    rewards: np.ndarray  # (B, seats) float32, the hand's payoffs on the step that ends it, else 0
    # auction
    auction_actions: np.ndarray  # (B, 75) int16, action ids in order, passes included, -1 = not yet
    auction_seats: np.ndarray  # (B, 75) int8, who spoke, -1 = not yet
    auction_length: np.ndarray  # (B,) int16
    high_bid: np.ndarray  # (B,) int16, action id of the standing bid, 0 = no bid yet
    high_bidder: np.ndarray  # (B,) int8, -1 = nobody
    # call
    caller: np.ndarray  # (B,) int8, -1 = not yet (or void hand)
    called_card: np.ndarray  # (B,) int8, -1 = not yet
    trump: np.ndarray  # (B,) int8, suit of the called card, -1 = not yet
    # play
    trick_cards: np.ndarray  # (B, tricks, seats) int8, cards of each trick in play order, -1 = not yet
    trick_leaders: np.ndarray  # (B, tricks) int8, seat that led each trick (the i-th card is seat leader+i), -1
    trick_winners: np.ndarray  # (B, tricks) int8, -1 = not finished
    captured_points: np.ndarray  # (B, seats) int16, card points in each seat's tricks
    tricks_won: np.ndarray  # (B, seats) int8
    # result, set when the hand ends
    team_points: np.ndarray  # (B,) int16, caller side's points (the discards' with a monte), -1 until scored
    contract_made: np.ndarray  # (B,) bool
    multiplier: np.ndarray  # (B,) int16, bid multiplier times cappotto multiplier, 0 until scored
    hidden: Hidden
    # bookkeeping
    _cards_played: np.ndarray  # (B,) int8, 0..seats*tricks: trick_cards.reshape(B, -1)[:, :_cards_played] are filled
    _passed_bits: np.ndarray  # (B,) uint8, bit s set once seat s has passed
    _legal_bits: np.ndarray  # (B,) uint64, the current player's legal actions: bit j = action _legal_base + j
    _legal_base: np.ndarray  # (B,) int64, action id of bit 0 of _legal_bits
    _pass_ok: np.ndarray  # (B,) bool, the pass is legal
    _best_seat: np.ndarray  # (B,) int8, seat winning the current trick so far, -1 = empty trick
    _best_card: np.ndarray  # (B,) int8, card winning the current trick so far, -1 = empty trick
    _trick_points: np.ndarray  # (B,) int16, points on the table
    tables: RuleTables = field(init=False, repr=False, compare=False)  # lookup tables of the rules

    def __post_init__(self):
        self.tables = rule_tables(self.rules)

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    @property
    def legal_action_mask(self) -> np.ndarray:
        """``(B, 151)`` bool, the current player's legal actions (all False once done)."""
        return legal_mask(self._legal_bits, self._legal_base, self._pass_ok)

    @property
    def cards_played(self) -> np.ndarray:
        """``(B,)`` the cards played so far in the hand, 0..seats*tricks (the array itself: not to be written)."""
        return self._cards_played

    @property
    def trick_index(self) -> np.ndarray:
        """``(B,)`` the current trick, 0..tricks-1 (tricks once all are played)."""
        return self._cards_played // self.tables.shape.seats

    @property
    def partner_revealed(self) -> np.ndarray:
        """``(B,)`` bool, the called card has been played (a public fact): see :func:`partner_revealed`."""
        return partner_revealed(self.called_card, self.hidden.held)

    @property
    def passed(self) -> np.ndarray:
        """``(B, seats)`` bool, seats that have passed in the auction."""
        seats = np.arange(self.tables.shape.seats, dtype=np.uint8)
        return (self._passed_bits[:, None] >> seats) & 1 != 0

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Every array field by its name in :func:`layout` (``"hidden.partner"`` for a hidden one):
        the arrays themselves, not copies."""
        hidden = self.hidden
        return {name: getattr(hidden, attr) if in_hidden else getattr(self, attr)
                for name, attr, in_hidden in _fields(self.tables.shape)}

    @classmethod
    def from_arrays(cls, rules: RulesConfig, arrays: dict[str, np.ndarray]) -> "State":
        """The state of games played under ``rules`` whose fields are ``arrays``, keyed as
        :meth:`to_arrays` gives them (taken as they are, not copied)."""
        every = _fields(rules.table_shape)
        hidden = Hidden(**{attr: arrays[name] for name, attr, in_hidden in every if in_hidden})
        public = {attr: arrays[name] for name, attr, in_hidden in every if not in_hidden}
        return cls(rules=rules, hidden=hidden, **public)

    def copy(self) -> "State":
        return State.from_arrays(self.rules, {name: array.copy() for name, array in self.to_arrays().items()})

    def take(self, index) -> "State":
        """The games at ``index`` (an index array or mask) as a new, smaller state."""
        return State.from_arrays(self.rules, {name: array[index] for name, array in self.to_arrays().items()})

    def put(self, index, other: "State") -> None:
        """Overwrite the games at ``index`` (an index array or mask picking ``other.batch_size``
        games) with those of ``other``, in place; nothing is written unless all of it can be."""
        if not isinstance(other, State):
            raise ValueError(f"can only put the games of a State; got {type(other).__name__}")
        if other.rules != self.rules:
            raise ValueError("cannot put games played under other rules into this state")
        try:
            games = np.arange(self.batch_size)[index]
        except IndexError as error:
            raise ValueError(f"index must pick games of this batch (0..{self.batch_size - 1}, or a bool mask "
                             f"of length {self.batch_size}): {error}") from None
        if np.shape(games) != (other.batch_size,):
            raise ValueError(f"index picks {np.size(games)} games but other holds {other.batch_size}")
        sources = other.to_arrays()
        for name, destination in self.to_arrays().items():
            destination[games] = sources[name]


def partner_revealed(called_card: np.ndarray, held: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: the called card has been played, which shows who held it, the partner; that is,
    it has been called (``called_card >= 0``) and is in none of the hands (``held``, their union as
    uint64 card sets: :attr:`Hidden.held`). A discarded card called (a solo) is never played."""
    return (called_card >= 0) & ((held & CARD_BIT[np.maximum(called_card, 0)]) == 0)


def not_played(state: State) -> np.ndarray:
    """``(B,)`` uint64, the cards not played yet, a public fact: :attr:`Hidden.held`, and the monte
    while nobody has taken it (the auction goes on, or everybody passed)."""
    held = state.hidden.held
    if state.hidden.monte is not None:
        held = held | np.where(state.caller < 0, state.hidden.monte, np.uint64(0))
    return held


def concatenate(states: list[State]) -> State:
    """One state holding the games of ``states`` in order (all under the same rules)."""
    if len({st.rules for st in states}) != 1:
        raise ValueError("can only concatenate states played under the same rules")
    every = [st.to_arrays() for st in states]
    return State.from_arrays(states[0].rules, {name: np.concatenate([arrays[name] for arrays in every])
                                               for name in every[0]})


HIDDEN = "hidden."  # the prefix of a hidden field's name in a layout


@lru_cache(maxsize=None)
def layout(shape: TableShape = STANDARD_TABLE) -> dict:
    """Shape (after the batch axis), dtype and starting value of every array field of a state at a
    table of ``shape``, by name: a State's own field, or "hidden." and a field of its Hidden."""
    seats, tricks = shape.seats, shape.tricks
    fields_ = {
        "phase": ((), np.int8, Phase.AUCTION),
        "current_player": ((), np.int8, -1),
        "dealer": ((), np.int8, -1),
        "terminated": ((), bool, False),
        "rewards": ((seats,), np.float32, 0),
        "auction_actions": ((MAX_AUCTION_LENGTH,), np.int16, -1),
        "auction_seats": ((MAX_AUCTION_LENGTH,), np.int8, -1),
        "auction_length": ((), np.int16, 0),
        "high_bid": ((), np.int16, 0),
        "high_bidder": ((), np.int8, -1),
        "caller": ((), np.int8, -1),
        "called_card": ((), np.int8, -1),
        "trump": ((), np.int8, -1),
        "trick_cards": ((tricks, seats), np.int8, -1),
        "trick_leaders": ((tricks,), np.int8, -1),
        "trick_winners": ((tricks,), np.int8, -1),
        "captured_points": ((seats,), np.int16, 0),
        "tricks_won": ((seats,), np.int8, 0),
        "team_points": ((), np.int16, -1),
        "contract_made": ((), bool, False),
        "multiplier": ((), np.int16, 0),
        "hidden.hand_bits": ((seats,), np.uint64, 0),
        "hidden.partner": ((), np.int8, -1),
        "_cards_played": ((), np.int8, 0),
        "_passed_bits": ((), np.uint8, 0),
        "_legal_bits": ((), np.uint64, 0),
        "_legal_base": ((), np.int64, 0),
        "_pass_ok": ((), bool, False),
        "_best_seat": ((), np.int8, -1),
        "_best_card": ((), np.int8, -1),
        "_trick_points": ((), np.int16, 0),
    }
    if shape.monte_size:
        fields_["hidden.monte"] = ((), np.uint64, 0)
        fields_["hidden.discards"] = ((), np.uint64, 0)
    return fields_


LAYOUT = layout(STANDARD_TABLE)  # the standard game's


@lru_cache(maxsize=None)
def _fields(shape: TableShape) -> tuple:
    """(name in the layout, attribute, whether it is an attribute of state.hidden) of every array field."""
    return tuple((name, name.removeprefix(HIDDEN), name.startswith(HIDDEN)) for name in layout(shape))


def empty_state(rules: RulesConfig, batch_size: int) -> State:
    """A batch of games with every field at its starting value (and no cards dealt)."""
    return State.from_arrays(rules, {name: np.full((batch_size,) + shape, value, dtype=dtype)
                                     for name, (shape, dtype, value) in layout(rules.table_shape).items()})


def clear_games(state: State, g: np.ndarray) -> None:
    """Set every field of the games ``g`` back to its starting value, in place."""
    starting = layout(state.tables.shape)
    for name, array in state.to_arrays().items():
        array[g] = starting[name][2]


assert NUM_CARDS == NUM_TRICKS * NUM_SEATS
assert {attr for _, attr, in_hidden in _fields(STANDARD_TABLE) if not in_hidden} == \
    {f.name for f in fields(State)} - {"rules", "hidden", "tables"}
assert {attr for _, attr, in_hidden in _fields(TableShape(hand_size=7, tricks=7, monte_size=5)) if in_hidden} == \
    {f.name for f in fields(Hidden)}
