"""Observations: each player's view of a batch of games, seen from his seat.

Seats in a view are *relative*: 0 is the observer, 1 the next player (who
plays after him), 2, 3, 4 the ones after that. So one policy can play every
seat. :data:`SPEC` fixes the layout (networks read their input size from it);
:func:`encode` fills it for a whole batch at once, with no loop over games.

The view holds what a player at the table knows and nothing more. It is
``uint8`` (a quarter of the bytes of float32, which matters at a million
observations a second): flags and one-hot blocks are 0/1, and the two count
sections hold raw counts; ``SPEC.scale`` brings every entry into ``[0, 1]``
(``obs * SPEC.scale``). One-hot blocks are all zero while the fact is not
known yet (no caller before the auction ends, and so on).

=================  =========  ========  ===============================================================
section            indices    shape     meaning
=================  =========  ========  ===============================================================
hand               0-39       40        1 if I hold card c (index = card id)
phase              40-43      4         one-hot: auction, call, play, done
dealer             44-48      5         one-hot relative seat of the dealer (my position follows from it)
to_act             49-53      5         one-hot relative seat of the player to act; 0 once done
auction_bids       54-403     5 x 70    [r, a-1]: relative seat r made bid a (ids 1..70: ranks, then 61..120)
auction_passes     404-758    5 x 71    [r, h]: relative seat r passed while the standing bid was id h (0: none)
high_bid           759-829    71        one-hot standing bid id (0: no bid yet)
high_bidder        830-834    5         one-hot relative seat holding the standing bid
caller             835-839    5         one-hot relative seat of the caller, once the auction is won
called_card        840-879    40        one-hot called card
trump              880-883    4         one-hot trump suit
i_hold_called      884        1         I hold the called card: I am the partner (or the caller, playing solo)
played_by          885-1084   5 x 40    [r, c]: relative seat r played card c
played_in_trick    1085-1404  8 x 40    [t, c]: card c was played in trick t
current_trick      1405-1564  4 x 40    [i, c]: card c is the i-th card on the table in the current trick
trick_leader       1565-1569  5         one-hot relative seat that led the current trick (in play)
trick_index        1570-1578  9         one-hot current trick 0..7, 8 once all are played (in play or done)
captured_points    1579-1583  5         per relative seat, card points taken so far (0..120)
tricks_won         1584-1588  5         per relative seat, tricks taken so far (0..8)
partner_revealed   1589       1         the called card has been played
partner            1590-1594  5         one-hot relative seat of the partner once revealed (the caller if solo)
unseen             1595-1634  40        cards neither in my hand nor played: somewhere in the others' hands
=================  =========  ========  ===============================================================

The **privileged view** (:func:`encode_privileged`, :data:`PRIVILEGED_SPEC`)
adds what no player sees: every hand (``[r, c]``, 5 x 40) and the partner's
relative seat (5, one-hot, once the call is made). It is for centralized
critics and belief probes, never for an acting policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .actions import CALL_OFFSET, NUM_ACTIONS
from .cards import NUM_CARDS, NUM_SEATS, NUM_SUITS, NUM_TRICKS, TOTAL_POINTS
from .engine import State
from .engine.bits import CARD_BIT, to_bool
from .engine.state import MAX_AUCTION_LENGTH, PLAY

NUM_BIDS = CALL_OFFSET - 1  # bid ids 1..70
NUM_PHASES = 4


@dataclass(frozen=True)
class Section:
    name: str
    start: int
    shape: tuple
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationSpec:
    """Layout of a flat observation vector: named sections, in order."""

    def __init__(self, sections: list[tuple[str, tuple, str]], scale: dict[str, float] | None = None,
                 dtype=np.uint8):
        self.sections: dict[str, Section] = {}
        start = 0
        for name, shape, meaning in sections:
            self.sections[name] = Section(name, start, shape, meaning)
            start += self.sections[name].size
        self.size = start
        self.shape = (start,)
        self.dtype = np.dtype(dtype)
        # Multiply an observation by this to bring every entry into [0, 1] (counts are stored raw).
        self.scale = np.ones(start, dtype=np.float32)
        for name, factor in (scale or {}).items():
            self.scale[self[name]] = factor
        self.high = (1 / self.scale).round().astype(self.dtype)  # largest value of each entry

    def __getitem__(self, name: str) -> slice:
        s = self.sections[name]
        return slice(s.start, s.stop)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """Section ``name`` of observations ``(..., size)``, in its own shape."""
        s = self.sections[name]
        return obs[..., s.start:s.stop].reshape(obs.shape[:-1] + s.shape)

    def table(self) -> str:
        """The layout as the reStructuredText table of the module docstring."""
        rule = "=" * 17 + "  " + "=" * 9 + "  " + "=" * 8 + "  " + "=" * 63
        rows = [rule, f"{'section':<17}  {'indices':<9}  {'shape':<8}  meaning", rule]
        for s in self.sections.values():
            span = f"{s.start}" if s.size == 1 else f"{s.start}-{s.stop - 1}"
            shape = " x ".join(map(str, s.shape))
            rows.append(f"{s.name:<17}  {span:<9}  {shape:<8}  {s.meaning}".rstrip())
        return "\n".join(rows + [rule])


SPEC = ObservationSpec([
    ("hand", (NUM_CARDS,), "1 if I hold card c (index = card id)"),
    ("phase", (NUM_PHASES,), "one-hot: auction, call, play, done"),
    ("dealer", (NUM_SEATS,), "one-hot relative seat of the dealer (my position follows from it)"),
    ("to_act", (NUM_SEATS,), "one-hot relative seat of the player to act; 0 once done"),
    ("auction_bids", (NUM_BIDS, NUM_SEATS),
     "[a-1, r]: bid a (ids 1..70: ranks, then 61..120) was made by relative seat r"),
    ("auction_passes", (NUM_SEATS, NUM_BIDS + 1),
     "[r, h]: relative seat r passed while the standing bid was id h (0: none)"),
    ("high_bid", (NUM_BIDS + 1,), "one-hot standing bid id (0: no bid yet)"),
    ("high_bidder", (NUM_SEATS,), "one-hot relative seat holding the standing bid"),
    ("caller", (NUM_SEATS,), "one-hot relative seat of the caller, once the auction is won"),
    ("called_card", (NUM_CARDS,), "one-hot called card"),
    ("trump", (NUM_SUITS,), "one-hot trump suit"),
    ("i_hold_called", (1,), "I hold the called card: I am the partner (or the caller, playing solo)"),
    ("played_by", (NUM_CARDS, NUM_SEATS), "[c, r]: card c was played by relative seat r"),
    ("played_in_trick", (NUM_CARDS, NUM_TRICKS), "[c, t]: card c was played in trick t"),
    ("current_trick", (NUM_SEATS - 1, NUM_CARDS), "[i, c]: card c is the i-th card on the table in the current trick"),
    ("trick_leader", (NUM_SEATS,), "one-hot relative seat that led the current trick (in play)"),
    ("trick_index", (NUM_TRICKS + 1,), "one-hot current trick 0..7, 8 once all are played (in play or done)"),
    ("captured_points", (NUM_SEATS,), "per relative seat, card points taken so far (0..120)"),
    ("tricks_won", (NUM_SEATS,), "per relative seat, tricks taken so far (0..8)"),
    ("partner_revealed", (1,), "the called card has been played"),
    ("partner", (NUM_SEATS,), "one-hot relative seat of the partner once revealed (the caller if solo)"),
    ("unseen", (NUM_CARDS,), "cards neither in my hand nor played: somewhere in the others' hands"),
], scale={"captured_points": 1 / TOTAL_POINTS, "tricks_won": 1 / NUM_TRICKS})

PRIVILEGED_SPEC = ObservationSpec([
    ("hands", (NUM_SEATS, NUM_CARDS), "[r, c]: relative seat r holds card c"),
    ("partner", (NUM_SEATS,), "one-hot relative seat of the partner (the caller if solo), once the call is made"),
])


# _RELATIVE[me, seat + 1]: seat as seen from me (0 = me, 1 = next, ...); seat -1 (nobody) -> NUM_SEATS.
_RELATIVE = np.array([[NUM_SEATS] + [(seat - me) % NUM_SEATS for seat in range(NUM_SEATS)]
                      for me in range(NUM_SEATS)], dtype=np.int64)
_AROUND = (np.arange(NUM_SEATS)[:, None] + np.arange(NUM_SEATS)) % NUM_SEATS  # [me, r]: absolute seat


def _relative(seat: np.ndarray, me: np.ndarray) -> np.ndarray:
    """Seats (any shape, -1 = nobody) as seen from ``me`` (``(B,)``, broadcast over trailing axes)."""
    me = me.reshape(me.shape + (1,) * (seat.ndim - me.ndim))
    return _RELATIVE.reshape(-1)[me * (NUM_SEATS + 1) + seat + 1]


@lru_cache(maxsize=None)
def _eye(width: int) -> np.ndarray:
    """One-hot rows for values 0..width-1, plus an all-zero row for any value >= width (or -1)."""
    return np.vstack([np.eye(width, dtype=np.uint8), np.zeros((1, width), np.uint8)])


_BYTE = np.uint64(8)


def _one_hot(out: np.ndarray, value: np.ndarray, width: int) -> None:
    """``out[..., :] = one-hot of value[...]``; a value of -1 or >= width writes zeros."""
    value = np.where((value >= 0) & (value < width), value, width)
    if width <= 8:
        # Many short rows: build each as the bytes of one uint64 (a shift by 64 gives 0).
        words = np.left_shift(np.uint64(1), value.astype(np.uint64) * _BYTE)
        out[...] = words.view(np.uint8).reshape(value.shape + (8,))[..., :width]
    else:
        out[...] = _eye(width)[value]


def _check(state: State, seats, out: np.ndarray | None, spec: "ObservationSpec") -> tuple[np.ndarray, np.ndarray]:
    seats = np.asarray(seats)
    if seats.shape != (state.batch_size,) or seats.dtype.kind not in "iu" or (seats < 0).any() \
            or (seats >= NUM_SEATS).any():
        raise ValueError(f"seats must be an int array of shape ({state.batch_size},) with values 0..4; "
                         f"got {seats!r}")
    shape = (state.batch_size, spec.size)
    if out is None:
        out = np.empty(shape, dtype=spec.dtype)
    elif out.shape != shape or out.dtype != spec.dtype or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous {spec.dtype} array of shape {shape}")
    return seats.astype(np.int64), out


def _table(width: int, index: np.ndarray, value: np.ndarray, valid: np.ndarray, empty: int) -> np.ndarray:
    """``(B, width)`` int64 filled with ``empty``, then ``[b, index[b, i]] = value[b, i]`` where valid."""
    B = len(index)
    table = np.full((B, width + 1), empty, dtype=np.int64)  # the extra column takes the invalid records
    at = np.arange(B)[:, None] * (width + 1) + np.where(valid, index, width)
    table.reshape(-1)[at] = value
    return table[:, :width]


def encode(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, SPEC.size)`` uint8: the view of game ``b`` from seat ``seats[b]``.

    Reads only what that seat may know: its own hand and the public record.
    ``out``, if given, is filled in place (and returned). Every section is
    written whole, from small per-game tables, so nothing needs zeroing first.
    """
    me, out = _check(state, seats, out, SPEC)
    B = state.batch_size
    games = np.arange(B)
    view = lambda name: SPEC.view(out, name)  # noqa: E731

    my_hand = state.hidden.hand_bits[games, me]  # the only hidden fact read here
    hand = to_bool(my_hand[:, None], NUM_CARDS)
    view("hand")[:] = hand
    _one_hot(view("phase"), state.phase, NUM_PHASES)
    _one_hot(view("dealer"), _relative(state.dealer, me), NUM_SEATS)
    _one_hot(view("to_act"), _relative(state.current_player, me), NUM_SEATS)

    # The auction: who made each bid, and over which standing bid each seat passed.
    length = int(state.auction_length.max(initial=0))
    acts = state.auction_actions[:, :length].astype(np.int64)
    spoken = acts >= 0
    who = _relative(state.auction_seats[:, :length], me)
    _one_hot(view("auction_bids"), _table(NUM_BIDS + 1, acts, who, acts > 0, NUM_SEATS)[:, 1:], NUM_SEATS)
    standing_before = np.maximum.accumulate(np.maximum(acts, 0), axis=1) if length else acts
    standing_before = np.concatenate([np.zeros((B, 1), np.int64), standing_before[:, :-1]], axis=1)[:, :length]
    passes = _table(NUM_SEATS, who, standing_before, spoken & (acts == 0), NUM_BIDS + 1)
    _one_hot(view("auction_passes"), passes, NUM_BIDS + 1)
    _one_hot(view("high_bid"), state.high_bid, NUM_BIDS + 1)
    _one_hot(view("high_bidder"), _relative(state.high_bidder, me), NUM_SEATS)

    called = state.called_card.astype(np.int64)
    _one_hot(view("caller"), _relative(state.caller, me), NUM_SEATS)
    _one_hot(view("called_card"), called, NUM_CARDS)
    _one_hot(view("trump"), state.trump, NUM_SUITS)
    view("i_hold_called")[:, 0] = (called >= 0) & ((my_hand & CARD_BIT[np.maximum(called, 0)]) != 0)

    # Cards played: by whom and in which trick, per card; the current trick in order.
    cards = state.trick_cards.reshape(B, -1).astype(np.int64)  # (B, 40): trick t, position i at 5t + i
    played = cards >= 0
    seat_of = _AROUND.reshape(-1)[state.trick_leaders.astype(np.int64)[:, :, None] * NUM_SEATS
                                  + np.arange(NUM_SEATS)].reshape(B, -1)
    played_by = _table(NUM_CARDS, cards, _relative(seat_of, me), played, NUM_SEATS)
    _one_hot(view("played_by"), played_by, NUM_SEATS)
    trick_of = np.broadcast_to(np.arange(NUM_CARDS) // NUM_SEATS, (B, NUM_CARDS))
    _one_hot(view("played_in_trick"), _table(NUM_CARDS, cards, trick_of, played, NUM_TRICKS), NUM_TRICKS)

    in_play = state.phase == PLAY
    trick = state.trick_index.astype(np.int64)
    last = np.minimum(trick, NUM_TRICKS - 1)
    current = state.trick_cards[games, last, :NUM_SEATS - 1]
    _one_hot(view("current_trick"), np.where(in_play[:, None], current, -1), NUM_CARDS)
    leader = np.where(in_play, state.trick_leaders[games, last], -1)
    _one_hot(view("trick_leader"), _relative(leader, me), NUM_SEATS)
    _one_hot(view("trick_index"), np.where(state.phase >= PLAY, trick, -1), NUM_TRICKS + 1)

    around = _AROUND[me]  # absolute seat of each relative seat
    view("captured_points")[:] = np.take_along_axis(state.captured_points, around, 1)
    view("tricks_won")[:] = np.take_along_axis(state.tricks_won, around, 1)

    # The partner is public once the called card is on the table: its player.
    partner = np.where(called >= 0, played_by[games, np.maximum(called, 0)], NUM_SEATS)
    view("partner_revealed")[:, 0] = partner < NUM_SEATS
    _one_hot(view("partner"), partner, NUM_SEATS)
    view("unseen")[:] = ~hand & (played_by == NUM_SEATS)
    return out


def encode_privileged(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, PRIVILEGED_SPEC.size)`` uint8: every hand and the partner, relative to ``seats``."""
    me, out = _check(state, seats, out, PRIVILEGED_SPEC)
    hands = np.take_along_axis(state.hidden.hand_bits, _AROUND[me], 1)
    PRIVILEGED_SPEC.view(out, "hands")[:] = to_bool(hands[:, :, None], NUM_CARDS)
    _one_hot(PRIVILEGED_SPEC.view(out, "partner"), _relative(state.hidden.partner, me), NUM_SEATS)
    return out


assert SPEC.size == 1635 and NUM_ACTIONS == 151
