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

**The layout depends on the rules' table** (:func:`observation_spec`: :data:`SPEC` for the
standard rules, whose constants, :data:`HISTORY` and :data:`PRIVILEGED_SPEC` among them, stay
those of the standard game). Seat sections are as wide as the table has seats, ``current_trick``
holds ``seats - 1`` places, and the trick sections are as wide as a hand has tricks.

**Briscola col monte** (``RulesConfig.monte``, 1675 entries): 7 tricks, so ``trick_index`` is 8
wide, ``tricks_won`` counts up to 7 and ``played_in_trick`` is 40 x 7; ``phase`` has a fifth
entry, ``discard`` (the caller's five discards, phase code 4), and two sections follow
``partner``: ``monte`` (40, the monte's cards: the caller's view once he takes it) and
``discards`` (40, the caller's discards as he makes them); both are shown to everyone once the
hand is done, and to nobody else before. ``unseen`` is then what the player cannot place: the
others' hands, the monte before the auction is won, the discards (but for the caller). The
privileged view adds the monte and the discards (285 entries).

**Four players** (``RulesConfig(players=4)``, 1488 entries): every seat section 4 wide,
``current_trick`` 3 x 40, ``trick_index`` 11 wide, ``tricks_won`` up to 10, ``auction_bids``
70 x 4, ``auction_passes`` 4 x 71, ``played_by`` 40 x 4, ``played_in_trick`` 40 x 10; the
privileged view is 164 entries.

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
from typing import Optional

import numpy as np

from .actions import CALL_OFFSET, NUM_ACTIONS
from .cards import NUM_CARDS, NUM_SUITS, TOTAL_POINTS
from .engine import State
from .engine.bits import CARD_BIT, to_bool
from .engine.codes import PHASE_NAMES, Phase
from .engine.state import not_played, partner_revealed
from .rules import STANDARD_TABLE, RulesConfig, TableShape

NUM_BIDS = CALL_OFFSET - 1  # bid ids 1..70
STANDARD_PHASES = 4  # auction, call, play, done: the phase codes of a hand without a monte
NUM_PHASES = STANDARD_PHASES  # the standard view's phase section
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
    """Layout of a flat observation vector: named sections, in order. ``table_shape`` is the table
    whose views it lays out (seats, tricks, monte)."""

    def __init__(self, sections: list[tuple[str, tuple, str]], scale: dict[str, float] | None = None,
                 dtype=np.uint8, table_shape: TableShape = STANDARD_TABLE):
        self.sections: dict[str, Section] = {}
        start = 0
        for name, shape, meaning in sections:
            self.sections[name] = Section(name, start, shape, meaning)
            start += self.sections[name].size
        self.size = start
        self.shape = (start,)
        self.dtype = np.dtype(dtype)
        self.table_shape = table_shape
        # Multiply an observation by this to bring every entry into [0, 1] (counts are stored raw).
        self.scale = np.ones(start, dtype=np.float32)
        for name, factor in (scale or {}).items():
            self.scale[self[name]] = factor
        self.high = (1 / self.scale).round().astype(self.dtype)  # largest value of each entry

    @property
    def history(self) -> slice:
        """The history sections (from ``auction_bids`` on, to the end), contiguous: :data:`HISTORY`
        of this layout."""
        return slice(self.sections["auction_bids"].start, self.size)

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


def _phase_names(shape: TableShape) -> str:
    return ", ".join(PHASE_NAMES[:STANDARD_PHASES + (1 if shape.monte_size else 0)])


@lru_cache(maxsize=None)
def spec_for_table(shape: TableShape) -> ObservationSpec:
    """The view's layout at a table of ``shape`` (:func:`observation_spec` of rules played there)."""
    seats, tricks = shape.seats, shape.tricks
    phases = STANDARD_PHASES + (1 if shape.monte_size else 0)
    monte = [
        ("monte", (NUM_CARDS,), "the monte's cards: seen by the caller once he takes it, by all once done"),
        ("discards", (NUM_CARDS,), "the caller's discards: seen by him, by all once the hand is done"),
    ] if shape.monte_size else []
    unseen = ("cards neither in my hand nor played: somewhere in the others' hands" if not shape.monte_size else
              "cards I cannot place: in the others' hands, the monte or discards I do not see")
    return ObservationSpec([
        # The state of play, rewritten whole at every step.
        ("hand", (NUM_CARDS,), "1 if I hold card c (index = card id)"),
        ("unseen", (NUM_CARDS,), unseen),
        ("phase", (phases,), f"one-hot: {_phase_names(shape)}"),
        ("dealer", (seats,), "one-hot relative seat of the dealer (my position follows from it)"),
        ("to_act", (seats,), "one-hot relative seat of the player to act; 0 once done"),
        ("high_bid", (NUM_BIDS + 1,), "one-hot standing bid id (0: no bid yet)"),
        ("high_bidder", (seats,), "one-hot relative seat holding the standing bid"),
        ("caller", (seats,), "one-hot relative seat of the caller, once the auction is won"),
        ("called_card", (NUM_CARDS,), "one-hot called card"),
        ("trump", (NUM_SUITS,), "one-hot trump suit"),
        ("i_hold_called", (1,), "I hold the called card: I am the partner (or the caller, playing solo)"),
        ("current_trick", (seats - 1, NUM_CARDS),
         "[i, c]: card c is the i-th card on the table in the current trick"),
        ("trick_leader", (seats,), "one-hot relative seat that led the current trick (in play)"),
        ("trick_index", (tricks + 1,),
         f"one-hot current trick 0..{tricks - 1}, {tricks} once all are played (in play or done)"),
        ("captured_points", (seats,), f"per relative seat, card points taken so far (0..{TOTAL_POINTS})"),
        ("tricks_won", (seats,), f"per relative seat, tricks taken so far (0..{tricks})"),
        ("partner_revealed", (1,), "the called card has been played"),
        ("partner", (seats,), "one-hot relative seat of the partner once revealed (the caller if solo)"),
        *monte,
        # The history of the hand: entries are only ever added, one action at a time.
        ("auction_bids", (NUM_BIDS, seats),
         "[a-1, r]: bid a (ids 1..70: ranks, then 61..120) was made by relative seat r"),
        ("auction_passes", (seats, NUM_BIDS + 1),
         "[r, h]: relative seat r passed while the standing bid was id h (0: none)"),
        ("played_by", (NUM_CARDS, seats), "[c, r]: card c was played by relative seat r"),
        ("played_in_trick", (NUM_CARDS, tricks), "[c, t]: card c was played in trick t"),
    ], scale={"captured_points": 1 / TOTAL_POINTS, "tricks_won": 1 / tricks}, table_shape=shape)


@lru_cache(maxsize=None)
def privileged_spec_for_table(shape: TableShape) -> ObservationSpec:
    """The privileged view's layout at a table of ``shape``."""
    monte = [("monte", (NUM_CARDS,), "the monte's cards"),
             ("discards", (NUM_CARDS,), "the caller's discards so far")] if shape.monte_size else []
    return ObservationSpec([
        ("hands", (shape.seats, NUM_CARDS), "[r, c]: relative seat r holds card c"),
        ("partner", (shape.seats,), "one-hot relative seat of the partner (the caller if solo), once the call is made"),
        *monte,
    ], table_shape=shape)


def observation_spec(rules: Optional[RulesConfig] = None) -> ObservationSpec:
    """The layout of a player's view under ``rules`` (default: the standard rules, :data:`SPEC`): its
    sections are sized by the table (seats, tricks) and a monte adds its own."""
    return spec_for_table(STANDARD_TABLE if rules is None else rules.table_shape)


def privileged_spec(rules: Optional[RulesConfig] = None) -> ObservationSpec:
    """The layout of the privileged view under ``rules`` (default: :data:`PRIVILEGED_SPEC`)."""
    return privileged_spec_for_table(STANDARD_TABLE if rules is None else rules.table_shape)


SPEC = observation_spec()  # the standard game's layout
HISTORY = SPEC.history  # its history sections
PRIVILEGED_SPEC = privileged_spec()


@lru_cache(maxsize=None)
def seat_frames(seats: int) -> tuple[np.ndarray, np.ndarray]:
    """``(relative, around)`` at a table of ``seats``: ``relative[me, seat + 1]``, the seat as the views
    show it to me (0 = me, 1 = next, ...; seat -1, nobody, -> ``seats``, the index one-hot encoding
    writes as all zeros); ``around[me, r]``, the absolute seat of my relative seat r."""
    relative = np.array([[seats] + [(seat - me) % seats for seat in range(seats)] for me in range(seats)],
                        dtype=np.int64)
    around = (np.arange(seats)[:, None] + np.arange(seats)) % seats
    for table in (relative, around):
        table.setflags(write=False)
    return relative, around


RELATIVE_SEAT, _AROUND = seat_frames(STANDARD_TABLE.seats)  # the standard table's


def relative_seats(seat: np.ndarray, me: np.ndarray, seats: int = STANDARD_TABLE.seats) -> np.ndarray:
    """Seats (any shape, -1 = nobody) as seen from ``me`` (``(B,)``, broadcast over trailing axes), at a
    table of ``seats``; nobody is ``seats``."""
    relative = seat_frames(seats)[0]
    me = me.reshape(me.shape + (1,) * (seat.ndim - me.ndim))
    return relative.reshape(-1)[me * (seats + 1) + seat + 1]


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
    top = state.tables.shape.seats - 1
    if seats.shape != (state.batch_size,) or seats.dtype.kind not in "iu" or (seats < 0).any() \
            or (seats > top).any():
        raise ValueError(f"seats must be an int array of shape ({state.batch_size},) with values 0..{top}; "
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
    """``(B, spec.size)`` uint8 (``spec``: :func:`observation_spec` of ``state.rules``, :data:`SPEC` for
    the standard rules): the view of game ``b`` from seat ``seats[b]``.

    Reads only what that seat may know: its own hand and the public history.
    ``out``, if given, is filled in place (and returned). Every section is
    written whole, so nothing needs zeroing first.
    """
    spec = spec_for_table(state.tables.shape)
    me, out = _check(state, seats, out, spec)
    history = spec.history
    out[:, :history.start] = encode_state_of_play(state, me)
    encode_history(state, me, out[:, history])
    return out


assert (SPEC.sections["hand"].start, SPEC.sections["unseen"].start) == (0, NUM_CARDS)


def encode_state_of_play(state: State, me: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, spec.history.start)`` uint8: the sections before the history for seats ``me``.

    Mostly single ones in a zeroed block: they are scattered by flat index,
    which costs far less than writing short one-hot rows. ``out``, if given, is
    a C-contiguous ``(B, n >= spec.history.start)`` array whose first
    ``spec.history.start`` columns are zero: the sections are written there (and
    that block of ``out`` is returned), saving a copy."""
    shape = state.tables.shape
    spec = spec_for_table(shape)
    seats, start = shape.seats, spec.history.start
    B = state.batch_size
    games = np.arange(B)
    if out is None:
        out = np.zeros((B, start), dtype=spec.dtype)
    flat = out.reshape(-1)
    row = games * out.shape[1]

    # (section, value, known): the one-hot entries, written together at the end
    singles: list[tuple[str, np.ndarray, np.ndarray | None]] = []

    def one(name: str, value: np.ndarray, known: np.ndarray | None = None) -> None:
        singles.append((name, value, known))

    def relative(seat: np.ndarray) -> np.ndarray:
        return relative_seats(seat, me, seats)

    my_hand = state.hidden.hand_bits.reshape(-1)[games * seats + me]  # the one hidden fact he may see
    # The cards not played are public: the 40 less those played. Less mine (and what else I see): unseen.
    in_hands = not_played(state)
    seen = my_hand
    if shape.monte_size:
        seen = seen | _write_monte(state, me, out, spec)
    words = np.empty((B, 2, 1), dtype=np.uint64)
    words[:, 0, 0], words[:, 1, 0] = my_hand, in_hands & ~seen
    cards = to_bool(words, NUM_CARDS)  # (B, 2, 40)
    out[:, :2 * NUM_CARDS] = cards.reshape(B, -1)
    one("phase", state.phase)
    one("dealer", relative(state.dealer))
    player = state.current_player
    one("to_act", relative(player), player >= 0)
    one("high_bid", state.high_bid)
    one("high_bidder", relative(state.high_bidder), state.high_bidder >= 0)

    called = state.called_card.astype(np.int64)
    known = called >= 0
    one("caller", relative(state.caller), known)
    one("called_card", called, known)
    one("trump", state.trump, known)
    out[:, spec["i_hold_called"].start] = known & ((my_hand & CARD_BIT[np.maximum(called, 0)]) != 0)

    in_play = state.phase == Phase.PLAY
    trick = state.trick_index.astype(np.int64)
    tricks = shape.tricks
    at_trick = games * tricks + np.minimum(trick, tricks - 1)  # flat index of the current trick
    current = state.trick_cards.reshape(-1)[at_trick[:, None] * seats + np.arange(seats - 1)]
    on_table = in_play[:, None] & (current >= 0)
    flat[row[:, None] + spec.sections["current_trick"].start + np.arange(seats - 1) * NUM_CARDS
         + current * on_table] = on_table  # a place with no card writes a 0 over its own row
    one("trick_leader", relative(state.trick_leaders.reshape(-1)[at_trick]), in_play)
    one("trick_index", trick, in_play | (state.phase == Phase.DONE))

    around = games[:, None] * seats + seat_frames(seats)[1][me]  # flat index of each relative seat's entry
    out[:, spec["captured_points"]] = state.captured_points.reshape(-1)[around]
    out[:, spec["tricks_won"]] = state.tricks_won.reshape(-1)[around]

    revealed = partner_revealed(called, in_hands)
    out[:, spec["partner_revealed"].start] = revealed
    one("partner", relative(state.hidden.partner), revealed)

    _scatter_one_hots(flat, row, spec, singles)
    return out[:, :start]


def _scatter_one_hots(flat: np.ndarray, row: np.ndarray, spec: ObservationSpec,
                      singles: list[tuple[str, np.ndarray, np.ndarray | None]]) -> None:
    """Write every ``(section, value, known)`` one-hot entry of :func:`encode_state_of_play` in one scatter
    into ``flat`` (rows starting at ``row``): each row's writes then land close together. An unknown value
    writes a 0 over its section's first entry, which has no other one to hold."""
    at = np.empty((len(row), len(singles)), dtype=np.int64)
    written = np.ones((len(row), len(singles)), dtype=spec.dtype)
    for j, (name, value, value_known) in enumerate(singles):
        at[:, j] = value
        if value_known is not None:
            at[:, j] *= value_known
            written[:, j] = value_known
    at += row[:, None] + np.array([spec.sections[name].start for name, _, _ in singles])
    flat[at] = written


def _write_monte(state: State, me: np.ndarray, out: np.ndarray, spec: ObservationSpec) -> np.ndarray:
    """Write the ``monte`` and ``discards`` sections for seats ``me``; return the cards they show.

    The caller sees the monte once he has taken it (the auction won) and his discards as he makes
    them; everyone sees both once the hand is done."""
    hidden_monte, hidden_discards = state.hidden.monte, state.hidden.discards
    assert hidden_monte is not None and hidden_discards is not None, "called for games with a monte only"
    done = state.phase == Phase.DONE
    caller = state.caller
    monte_seen = ((caller == me) & (caller >= 0)) | done
    monte = np.where(monte_seen, hidden_monte, np.uint64(0))
    discards = np.where((caller == me) | done, hidden_discards, np.uint64(0))
    words = np.stack([monte, discards], axis=1)[:, :, None]
    out[:, spec["monte"].start:spec["discards"].stop] = to_bool(words, NUM_CARDS).reshape(len(me), -1)
    return monte | discards


def encode_history(state: State, me: np.ndarray, out: np.ndarray) -> None:
    """Write the history sections (``out`` is ``(B, history size)``) for seats ``me``."""
    B = state.batch_size
    shape = state.tables.shape
    seats, tricks = shape.seats, shape.tricks
    spec = spec_for_table(shape)
    view = lambda name: spec.view(out, name, spec.history.start)  # noqa: E731

    # The auction: who made each bid, and over which standing bid each seat passed.
    length = int(state.auction_length.max(initial=0))
    acts = state.auction_actions[:, :length].astype(np.int64)
    who = relative_seats(state.auction_seats[:, :length], me, seats)
    _one_hot(view("auction_bids"), _table(NUM_BIDS + 1, acts, who, acts > 0, seats)[:, 1:], seats)
    standing = np.maximum.accumulate(np.maximum(acts, 0), axis=1)
    standing_before = np.concatenate([np.zeros((B, 1), np.int64), standing], axis=1)[:, :length]
    passes = _table(seats, who, standing_before, acts == 0, NUM_BIDS + 1)
    _one_hot(view("auction_passes"), passes, NUM_BIDS + 1)

    # Cards played: by whom and in which trick.
    cards = state.trick_cards.reshape(B, -1).astype(np.int64)  # (B, tricks * seats): trick t, place i at t*seats + i
    played = cards >= 0
    around = seat_frames(seats)[1]
    seat_of = around.reshape(-1)[state.trick_leaders.astype(np.int64)[:, :, None] * seats
                                 + np.arange(seats)].reshape(B, -1)
    _one_hot(view("played_by"), _table(NUM_CARDS, cards, relative_seats(seat_of, me, seats), played, seats), seats)
    trick_of = np.broadcast_to(np.arange(shape.cards_in_tricks) // seats, cards.shape)
    _one_hot(view("played_in_trick"), _table(NUM_CARDS, cards, trick_of, played, tricks), tricks)


def encode_privileged(state: State, seats, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, spec.size)`` uint8 (``spec``: :func:`privileged_spec` of ``state.rules``): every hand and the
    partner, relative to ``seats`` (and with a monte, the monte and the discards)."""
    shape = state.tables.shape
    spec = privileged_spec_for_table(shape)
    me, out = _check(state, seats, out, spec)
    hands = np.take_along_axis(state.hidden.hand_bits, seat_frames(shape.seats)[1][me], 1)
    spec.view(out, "hands")[:] = to_bool(hands[:, :, None], NUM_CARDS)
    _one_hot(spec.view(out, "partner"), relative_seats(state.hidden.partner, me, shape.seats), shape.seats)
    if shape.monte_size:
        monte, discards = state.hidden.monte, state.hidden.discards
        assert monte is not None and discards is not None, "a table with a monte keeps both"
        words = np.stack([monte, discards], axis=1)[:, :, None]
        out[:, spec["monte"].start:spec["discards"].stop] = to_bool(words, NUM_CARDS).reshape(len(me), -1)
    return out


assert SPEC.size == 1635 and NUM_ACTIONS == 151
