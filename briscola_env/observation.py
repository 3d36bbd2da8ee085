"""Observations: each player's view of a batch of games, seen from his seat.

Seats in a view are *relative*: 0 is the observer, 1 the next player (who
plays after him), 2, 3, 4 the ones after that. So one policy can play every
seat. :data:`SPEC` fixes the layout (networks read their input size from it);
:func:`encode` fills it for a whole batch at once, with no loop over games.

The view holds what a player at the table knows and nothing more. Its first
part is the state of play; the last part, :data:`HISTORY`, is the history of
the hand, which only grows, so the batched environment keeps it up to date an
action at a time instead of rebuilding it. It is
``uint8`` (a quarter of the bytes of float32, which matters at a million
observations a second): flags and one-hot blocks are 0/1, and the two count
sections hold raw counts; ``SPEC.scale`` brings every entry into ``[0, 1]``
(:meth:`ObservationSpec.scaled`: ``obs * SPEC.scale`` as float32, what the
environments give with ``obs_dtype="float32"``). One-hot blocks are all zero while the fact is not
known yet (no caller before the auction ends, and so on).

=================  =========  ========  ===============================================================
section            indices    shape     meaning
=================  =========  ========  ===============================================================
hand               0-39       40        1 if I hold card c (index = card id)
unseen             40-79      40        cards neither in my hand nor played: somewhere in the others' hands
phase              80-83      4         one-hot: auction, call, play, done
dealer             84-88      5         one-hot relative seat of the dealer (my position follows from it)
to_act             89-93      5         one-hot relative seat of the player to act; 0 once done
high_bid           94-164     71        one-hot standing bid id (0: no bid yet)
high_bidder        165-169    5         one-hot relative seat holding the standing bid
caller             170-174    5         one-hot relative seat of the caller, once the auction is won
called_card        175-214    40        one-hot called card
trump              215-218    4         one-hot trump suit
i_hold_called      219        1         I hold the called card: I am the partner (or the caller, playing solo)
current_trick      220-379    4 x 40    [i, c]: card c is the i-th card on the table in the current trick
trick_leader       380-384    5         one-hot relative seat that led the current trick (in play)
trick_index        385-393    9         one-hot current trick 0..7, 8 once all are played (in play or done)
captured_points    394-398    5         per relative seat, card points taken so far (0..120)
tricks_won         399-403    5         per relative seat, tricks taken so far (0..8)
partner_revealed   404        1         the called card has been played
partner            405-409    5         one-hot relative seat of the partner once revealed (the caller if solo)
auction_bids       410-759    70 x 5    [a-1, r]: bid a (ids 1..70: ranks, then 61..120) was made by relative seat r
auction_passes     760-1114   5 x 71    [r, h]: relative seat r passed while the standing bid was id h (0: none)
played_by          1115-1314  40 x 5    [c, r]: card c was played by relative seat r
played_in_trick    1315-1634  40 x 8    [c, t]: card c was played in trick t
=================  =========  ========  ===============================================================

**Prima mano al buio** (``RulesConfig.blind_first_trick``): the same layout. The first trick is
played in phase ``play`` before any call, so ``called_card``, ``trump`` and ``i_hold_called`` are
all zero through it; then ``phase`` reads ``call`` (the trick's cards stay in ``played_by`` and
``played_in_trick``, its points in ``captured_points``), and after the call ``play`` again from
trick 1. A card called from the first trick sets ``partner_revealed`` and ``partner`` at once.

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
from .engine.codes import PHASE_NAMES, Phase
from .engine.state import partner_revealed

NUM_BIDS = CALL_OFFSET - 1  # bid ids 1..70
NUM_PHASES = len(PHASE_NAMES)
# The environments' obs_dtype choices: the raw views, or the views scaled to [0, 1]
# (some libraries' default models take float inputs only).
OBS_DTYPES = ("uint8", "float32")


def check_obs_dtype(obs_dtype) -> np.dtype:
    """``obs_dtype`` (a name or a NumPy dtype) as a dtype if it is one of :data:`OBS_DTYPES`,
    else a ValueError listing them."""
    try:
        dtype = np.dtype(obs_dtype) if obs_dtype is not None else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.name not in OBS_DTYPES:
        raise ValueError(f"obs_dtype must be one of {', '.join(map(repr, OBS_DTYPES))}; got {obs_dtype!r}")
    return dtype


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

    def scaled(self, obs: np.ndarray) -> np.ndarray:
        """Observations ``(..., size)`` as float32 in ``[0, 1]``: ``obs * self.scale``, the same
        product the PPO network (``agents.ppo``) takes of a raw view, so either form gives it one input."""
        return np.multiply(obs, self.scale, dtype=np.float32)

    def in_dtype(self, obs: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """Raw observations ``obs`` in ``dtype`` (from :func:`check_obs_dtype`): themselves
        for the raw dtype, :meth:`scaled` for float32."""
        return obs if dtype == self.dtype else self.scaled(obs)

    def __getitem__(self, name: str) -> slice:
        s = self.sections[name]
        return slice(s.start, s.stop)

    def view(self, obs: np.ndarray, name: str, offset: int = 0) -> np.ndarray:
        """Section ``name`` of observations ``(..., size)`` (or of a slice of them starting at
        index ``offset``), in the section's own shape."""
        s = self.sections[name]
        return obs[..., s.start - offset:s.stop - offset].reshape(obs.shape[:-1] + s.shape)

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
    # The state of play, rewritten whole at every step.
    ("hand", (NUM_CARDS,), "1 if I hold card c (index = card id)"),
    ("unseen", (NUM_CARDS,), "cards neither in my hand nor played: somewhere in the others' hands"),
    ("phase", (NUM_PHASES,), "one-hot: auction, call, play, done"),
    ("dealer", (NUM_SEATS,), "one-hot relative seat of the dealer (my position follows from it)"),
    ("to_act", (NUM_SEATS,), "one-hot relative seat of the player to act; 0 once done"),
    ("high_bid", (NUM_BIDS + 1,), "one-hot standing bid id (0: no bid yet)"),
    ("high_bidder", (NUM_SEATS,), "one-hot relative seat holding the standing bid"),
    ("caller", (NUM_SEATS,), "one-hot relative seat of the caller, once the auction is won"),
    ("called_card", (NUM_CARDS,), "one-hot called card"),
    ("trump", (NUM_SUITS,), "one-hot trump suit"),
    ("i_hold_called", (1,), "I hold the called card: I am the partner (or the caller, playing solo)"),
    ("current_trick", (NUM_SEATS - 1, NUM_CARDS), "[i, c]: card c is the i-th card on the table in the current trick"),
    ("trick_leader", (NUM_SEATS,), "one-hot relative seat that led the current trick (in play)"),
    ("trick_index", (NUM_TRICKS + 1,), "one-hot current trick 0..7, 8 once all are played (in play or done)"),
    ("captured_points", (NUM_SEATS,), "per relative seat, card points taken so far (0..120)"),
    ("tricks_won", (NUM_SEATS,), "per relative seat, tricks taken so far (0..8)"),
    ("partner_revealed", (1,), "the called card has been played"),
    ("partner", (NUM_SEATS,), "one-hot relative seat of the partner once revealed (the caller if solo)"),
    # The history of the hand: entries are only ever added, one action at a time.
    ("auction_bids", (NUM_BIDS, NUM_SEATS),
     "[a-1, r]: bid a (ids 1..70: ranks, then 61..120) was made by relative seat r"),
    ("auction_passes", (NUM_SEATS, NUM_BIDS + 1),
     "[r, h]: relative seat r passed while the standing bid was id h (0: none)"),
    ("played_by", (NUM_CARDS, NUM_SEATS), "[c, r]: card c was played by relative seat r"),
    ("played_in_trick", (NUM_CARDS, NUM_TRICKS), "[c, t]: card c was played in trick t"),
], scale={"captured_points": 1 / TOTAL_POINTS, "tricks_won": 1 / NUM_TRICKS})
HISTORY = slice(SPEC.sections["auction_bids"].start, SPEC.size)  # the history sections, contiguous

PRIVILEGED_SPEC = ObservationSpec([
    ("hands", (NUM_SEATS, NUM_CARDS), "[r, c]: relative seat r holds card c"),
    ("partner", (NUM_SEATS,), "one-hot relative seat of the partner (the caller if solo), once the call is made"),
])


# RELATIVE_SEAT[me, seat + 1]: seat as the views show it to me (0 = me, 1 = next, ...); seat -1 (nobody)
# -> NUM_SEATS, the index one-hot encoding writes as all zeros.
RELATIVE_SEAT = np.array([[NUM_SEATS] + [(seat - me) % NUM_SEATS for seat in range(NUM_SEATS)]
                      for me in range(NUM_SEATS)], dtype=np.int64)
_AROUND = (np.arange(NUM_SEATS)[:, None] + np.arange(NUM_SEATS)) % NUM_SEATS  # [me, r]: absolute seat


def _relative(seat: np.ndarray, me: np.ndarray) -> np.ndarray:
    """Seats (any shape, -1 = nobody) as seen from ``me`` (``(B,)``, broadcast over trailing axes)."""
    me = me.reshape(me.shape + (1,) * (seat.ndim - me.ndim))
    return RELATIVE_SEAT.reshape(-1)[me * (NUM_SEATS + 1) + seat + 1]


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
    table = np.full((B, width + 1), empty, dtype=np.int64)  # the extra column takes the invalid entries
    at = np.arange(B)[:, None] * (width + 1) + np.where(valid, index, width)
    table.reshape(-1)[at] = value
    return table[:, :width]


def encode(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, SPEC.size)`` uint8: the view of game ``b`` from seat ``seats[b]``.

    Reads only what that seat may know: its own hand and the public history.
    ``out``, if given, is filled in place (and returned). Every section is
    written whole, so nothing needs zeroing first.
    """
    me, out = _check(state, seats, out, SPEC)
    out[:, :HISTORY.start] = encode_state_of_play(state, me)
    encode_history(state, me, out[:, HISTORY])
    return out


assert (SPEC.sections["hand"].start, SPEC.sections["unseen"].start) == (0, NUM_CARDS)


def encode_state_of_play(state: State, me: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, HISTORY.start)`` uint8: the sections before :data:`HISTORY` for seats ``me``.

    Mostly single ones in a zeroed block: they are scattered by flat index,
    which costs far less than writing short one-hot rows. ``out``, if given, is
    a C-contiguous ``(B, n >= HISTORY.start)`` array whose first
    ``HISTORY.start`` columns are zero: the sections are written there (and
    that block of ``out`` is returned), saving a copy."""
    B = state.batch_size
    games = np.arange(B)
    if out is None:
        out = np.zeros((B, HISTORY.start), dtype=SPEC.dtype)
    flat = out.reshape(-1)
    row = games * out.shape[1]

    singles = []  # (section, value, known): one-hot entries, written together at the end

    def one(name: str, value: np.ndarray, known: np.ndarray | None = None) -> None:
        singles.append((name, value, known))

    my_hand = state.hidden.hand_bits.reshape(-1)[games * NUM_SEATS + me]  # the one hidden fact he may see
    # The union of the hands is public: the 40 cards less those played. Less mine: unseen.
    in_hands = state.hidden.held
    words = np.empty((B, 2, 1), dtype=np.uint64)
    words[:, 0, 0], words[:, 1, 0] = my_hand, in_hands & ~my_hand
    cards = to_bool(words, NUM_CARDS)  # (B, 2, 40)
    out[:, :2 * NUM_CARDS] = cards.reshape(B, -1)
    one("phase", state.phase)
    one("dealer", _relative(state.dealer, me))
    player = state.current_player
    one("to_act", _relative(player, me), player >= 0)
    one("high_bid", state.high_bid)
    one("high_bidder", _relative(state.high_bidder, me), state.high_bidder >= 0)

    called = state.called_card.astype(np.int64)
    known = called >= 0
    one("caller", _relative(state.caller, me), known)
    one("called_card", called, known)
    one("trump", state.trump, known)
    out[:, SPEC["i_hold_called"].start] = known & ((my_hand & CARD_BIT[np.maximum(called, 0)]) != 0)

    in_play = state.phase == Phase.PLAY
    trick = state.trick_index.astype(np.int64)
    at_trick = games * NUM_TRICKS + np.minimum(trick, NUM_TRICKS - 1)  # flat index of the current trick
    current = state.trick_cards.reshape(-1)[at_trick[:, None] * NUM_SEATS + np.arange(NUM_SEATS - 1)]
    on_table = in_play[:, None] & (current >= 0)
    flat[row[:, None] + SPEC.sections["current_trick"].start + np.arange(NUM_SEATS - 1) * NUM_CARDS
         + current * on_table] = on_table  # a place with no card writes a 0 over its own row
    one("trick_leader", _relative(state.trick_leaders.reshape(-1)[at_trick], me), in_play)
    one("trick_index", trick, state.phase >= Phase.PLAY)

    around = games[:, None] * NUM_SEATS + _AROUND[me]  # flat index of each relative seat's entry
    out[:, SPEC["captured_points"]] = state.captured_points.reshape(-1)[around]
    out[:, SPEC["tricks_won"]] = state.tricks_won.reshape(-1)[around]

    revealed = partner_revealed(called, in_hands)
    out[:, SPEC["partner_revealed"].start] = revealed
    one("partner", _relative(state.hidden.partner, me), revealed)

    # One scatter for all the one-hot entries: each row's writes then land close together.
    # An unknown value writes a 0 over its section's first entry, which has no other one to hold.
    at = np.empty((B, len(singles)), dtype=np.int64)
    written = np.ones((B, len(singles)), dtype=SPEC.dtype)
    for j, (name, value, known) in enumerate(singles):
        at[:, j] = value
        if known is not None:
            at[:, j] *= known
            written[:, j] = known
    at += row[:, None] + np.array([SPEC.sections[name].start for name, _, _ in singles])
    flat[at] = written
    return out[:, :HISTORY.start]


def encode_history(state: State, me: np.ndarray, out: np.ndarray) -> None:
    """Write the :data:`HISTORY` sections (``out`` is ``(B, HISTORY size)``) for seats ``me``."""
    B = state.batch_size
    view = lambda name: SPEC.view(out, name, HISTORY.start)  # noqa: E731

    # The auction: who made each bid, and over which standing bid each seat passed.
    length = int(state.auction_length.max(initial=0))
    acts = state.auction_actions[:, :length].astype(np.int64)
    who = _relative(state.auction_seats[:, :length], me)
    _one_hot(view("auction_bids"), _table(NUM_BIDS + 1, acts, who, acts > 0, NUM_SEATS)[:, 1:], NUM_SEATS)
    standing = np.maximum.accumulate(np.maximum(acts, 0), axis=1)
    standing_before = np.concatenate([np.zeros((B, 1), np.int64), standing], axis=1)[:, :length]
    passes = _table(NUM_SEATS, who, standing_before, acts == 0, NUM_BIDS + 1)
    _one_hot(view("auction_passes"), passes, NUM_BIDS + 1)

    # Cards played: by whom and in which trick.
    cards = state.trick_cards.reshape(B, -1).astype(np.int64)  # (B, 40): trick t, place i at 5t + i
    played = cards >= 0
    seat_of = _AROUND.reshape(-1)[state.trick_leaders.astype(np.int64)[:, :, None] * NUM_SEATS
                                  + np.arange(NUM_SEATS)].reshape(B, -1)
    _one_hot(view("played_by"), _table(NUM_CARDS, cards, _relative(seat_of, me), played, NUM_SEATS), NUM_SEATS)
    trick_of = np.broadcast_to(np.arange(NUM_CARDS) // NUM_SEATS, (B, NUM_CARDS))
    _one_hot(view("played_in_trick"), _table(NUM_CARDS, cards, trick_of, played, NUM_TRICKS), NUM_TRICKS)


def encode_privileged(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, PRIVILEGED_SPEC.size)`` uint8: every hand and the partner, relative to ``seats``."""
    me, out = _check(state, seats, out, PRIVILEGED_SPEC)
    hands = np.take_along_axis(state.hidden.hand_bits, _AROUND[me], 1)
    PRIVILEGED_SPEC.view(out, "hands")[:] = to_bool(hands[:, :, None], NUM_CARDS)
    _one_hot(PRIVILEGED_SPEC.view(out, "partner"), _relative(state.hidden.partner, me), NUM_SEATS)
    return out


assert SPEC.size == 1635 and NUM_ACTIONS == 151
