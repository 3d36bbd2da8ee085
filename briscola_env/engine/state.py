"""The batched game state: a dataclass of arrays, batch axis ``B`` first.

Public fields are what everyone at the table sees. Hidden facts (the hands and
the partner's seat) live in :class:`Hidden`, under ``state.hidden``, so that
code building a player's view has to reach for them explicitly. Fields whose
name starts with ``_`` are engine bookkeeping, derivable from the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..actions import NUM_ACTIONS, NUM_POINT_BIDS, NUM_RANK_LEVELS
from ..cards import NUM_CARDS, NUM_SEATS, NUM_TRICKS
from ..rules import RulesConfig
from .bits import CARD_BIT, NUM_WORDS, to_bool

# Phases, in the order a hand goes through them.
AUCTION, CALL, PLAY, DONE = 0, 1, 2, 3
PHASE_NAMES = ("auction", "call", "play", "done")

# Longest possible auction: every rank, every point bid, then five passes.
MAX_AUCTION_LENGTH = NUM_RANK_LEVELS + NUM_POINT_BIDS + NUM_SEATS


@dataclass
class Hidden:
    """What no single player sees in full."""

    hand_bits: np.ndarray  # (B, 5) uint64, bit c set while seat s still holds card c
    partner: np.ndarray  # (B,) int8, seat holding the called card (== caller for a solo), -1 before the call

    @property
    def hands(self) -> np.ndarray:
        """``(B, 5, 40)`` bool: ``hands[b, s, c]`` while seat ``s`` holds card ``c``."""
        return (self.hand_bits[..., None] & CARD_BIT) != 0


@dataclass
class State:
    rules: RulesConfig  # the rules every game of the batch is played by
    phase: np.ndarray  # (B,) int8, AUCTION / CALL / PLAY / DONE
    current_player: np.ndarray  # (B,) int8, seat to act, -1 once done
    dealer: np.ndarray  # (B,) int8
    terminated: np.ndarray  # (B,) bool
    rewards: np.ndarray  # (B, 5) float32, the hand's payoffs on the step that ends it, else 0
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
    partner_revealed: np.ndarray  # (B,) bool, the called card has been played
    # play
    trick_cards: np.ndarray  # (B, 8, 5) int8, cards of each trick in play order, -1 = not yet
    trick_leaders: np.ndarray  # (B, 8) int8, seat that led each trick (the i-th card is seat leader+i), -1
    trick_winners: np.ndarray  # (B, 8) int8, -1 = not finished
    trick_index: np.ndarray  # (B,) int8, current trick 0..7 (8 once all are played)
    trick_size: np.ndarray  # (B,) int8, cards on the table in the current trick
    captured_points: np.ndarray  # (B, 5) int16, card points in each seat's tricks
    tricks_won: np.ndarray  # (B, 5) int8
    # result, set when the hand ends
    team_points: np.ndarray  # (B,) int16, caller side's points, -1 until scored
    contract_made: np.ndarray  # (B,) bool
    multiplier: np.ndarray  # (B,) int16, bid multiplier times cappotto multiplier, 0 until scored
    hidden: Hidden
    # bookkeeping
    _passed_bits: np.ndarray  # (B,) uint8, bit s set once seat s has passed
    _legal: np.ndarray  # (B, 3) uint64, legal action set of the current player (bits.py layout)
    _best_seat: np.ndarray  # (B,) int8, seat winning the current trick so far, -1 = empty trick
    _best_card: np.ndarray  # (B,) int8, card winning the current trick so far, -1 = empty trick
    _trick_points: np.ndarray  # (B,) int16, points on the table

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    @property
    def legal_action_mask(self) -> np.ndarray:
        """``(B, 151)`` bool, the current player's legal actions (all False once done)."""
        return to_bool(self._legal, NUM_ACTIONS)

    @property
    def passed(self) -> np.ndarray:
        """``(B, 5)`` bool, seats that have passed in the auction."""
        return (self._passed_bits[:, None] >> np.arange(NUM_SEATS, dtype=np.uint8)) & 1 != 0

    def copy(self) -> "State":
        return _map(self, np.copy)

    def take(self, index) -> "State":
        """The games at ``index`` (an index array or mask) as a new, smaller state."""
        return _map(self, lambda a: a[index])

    def put(self, index, other: "State") -> None:
        """Overwrite the games at ``index`` with those of ``other``, in place."""
        if other.rules != self.rules:
            raise ValueError("cannot put games played under other rules into this state")
        for (_, dst), (_, src) in zip(_arrays(self), _arrays(other)):
            dst[index] = src


def _arrays(state: State):
    for f in fields(State):
        value = getattr(state, f.name)
        if isinstance(value, RulesConfig):
            continue
        if isinstance(value, Hidden):
            for h in fields(Hidden):
                yield ("hidden", h.name), getattr(value, h.name)
        else:
            yield (f.name,), value


def _map(state: State, fn) -> State:
    values = {f.name: fn(getattr(state, f.name)) for f in fields(State) if f.name not in ("hidden", "rules")}
    hidden = Hidden(**{h.name: fn(getattr(state.hidden, h.name)) for h in fields(Hidden)})
    return State(rules=state.rules, hidden=hidden, **values)


def empty_state(rules: RulesConfig, batch_size: int) -> State:
    """A batch of games with every field at its 'nothing happened yet' value."""
    B = batch_size

    def full(shape, value, dtype):
        return np.full((B,) + shape, value, dtype=dtype)

    return State(
        rules=rules,
        phase=full((), AUCTION, np.int8),
        current_player=full((), -1, np.int8),
        dealer=full((), -1, np.int8),
        terminated=full((), False, bool),
        rewards=full((NUM_SEATS,), 0, np.float32),
        auction_actions=full((MAX_AUCTION_LENGTH,), -1, np.int16),
        auction_seats=full((MAX_AUCTION_LENGTH,), -1, np.int8),
        auction_length=full((), 0, np.int16),
        high_bid=full((), 0, np.int16),
        high_bidder=full((), -1, np.int8),
        caller=full((), -1, np.int8),
        called_card=full((), -1, np.int8),
        trump=full((), -1, np.int8),
        partner_revealed=full((), False, bool),
        trick_cards=full((NUM_TRICKS, NUM_SEATS), -1, np.int8),
        trick_leaders=full((NUM_TRICKS,), -1, np.int8),
        trick_winners=full((NUM_TRICKS,), -1, np.int8),
        trick_index=full((), 0, np.int8),
        trick_size=full((), 0, np.int8),
        captured_points=full((NUM_SEATS,), 0, np.int16),
        tricks_won=full((NUM_SEATS,), 0, np.int8),
        team_points=full((), -1, np.int16),
        contract_made=full((), False, bool),
        multiplier=full((), 0, np.int16),
        hidden=Hidden(hand_bits=full((NUM_SEATS,), 0, np.uint64), partner=full((), -1, np.int8)),
        _passed_bits=full((), 0, np.uint8),
        _legal=full((NUM_WORDS,), 0, np.uint64),
        _best_seat=full((), -1, np.int8),
        _best_card=full((), -1, np.int8),
        _trick_points=full((), 0, np.int16),
    )


assert NUM_CARDS == NUM_TRICKS * NUM_SEATS
