"""Sets of cards and of legal actions as bit masks in ``uint64`` words.

A set of cards is one ``uint64`` with bit ``c`` for card ``c``.

The legal actions of a game are stored as ``(bits, base, pass_ok)``: bit ``j``
of ``bits`` stands for action ``base + j``, and ``pass_ok`` says whether the
pass (action 0) is legal. One word is enough because the legal actions other
than the pass always lie within 64 consecutive ids: the bids still open (at
most the 60 point bids), the cards that may be called, or the cards that may
be played. Building, testing and sampling legal sets then takes a few
whole-batch integer operations; the ``(B, 151)`` boolean mask is only built
when asked for, as it costs more than a whole engine step at large batches.
"""

from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS, PASS
from ..cards import NUM_CARDS, NUM_FACES, NUM_SUITS

WORD = 64
ONE = np.uint64(1)

CARD_BIT = ONE << np.arange(NUM_CARDS, dtype=np.uint64)  # bit of each card id
CARD_OUT = ~CARD_BIT  # every bit but each card's: a set less that card is set & CARD_OUT[card]
SUIT_BITS = np.array([((1 << NUM_FACES) - 1) << (NUM_FACES * s) for s in range(NUM_SUITS)],
                     dtype=np.uint64)  # the 10 cards of each suit
ALL_CARDS = np.uint64((1 << NUM_CARDS) - 1)
LOW_BITS = np.array([(1 << n) - 1 for n in range(WORD + 1)], dtype=np.uint64)  # LOW_BITS[n]: bits 0..n-1


def to_bool(words: np.ndarray, width: int) -> np.ndarray:
    """Unpack ``(..., W)`` uint64 words into a ``(..., width)`` bool array, bit i -> index i."""
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=width, bitorder="little").view(bool)


def legal_mask(bits: np.ndarray, base: np.ndarray, pass_ok: np.ndarray) -> np.ndarray:
    """The ``(N, 151)`` bool mask of legal sets ``(bits, base, pass_ok)``."""
    # Shift each word to its place in a 192-bit row of three words, then unpack.
    n = len(bits)
    rows = np.zeros((n, 3), dtype=np.uint64)
    word, shift = np.divmod(base.astype(np.int64), WORD)
    shift = shift.astype(np.uint64)
    flat = rows.reshape(-1)
    at = np.arange(n) * 3 + word
    flat[at] = bits << shift
    flat[at + 1] |= bits >> (np.uint64(WORD) - shift)  # a shift by 64 gives 0 in NumPy
    flat[np.arange(n) * 3] |= pass_ok.astype(np.uint64) << np.uint64(PASS)
    return to_bool(rows, NUM_ACTIONS)


def contains(bits: np.ndarray, base: np.ndarray, pass_ok: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Whether each action (int64, any value) is in its legal set."""
    j = actions - base
    in_word = (j >= 0) & (j < WORD)
    bit = (bits >> np.where(in_word, j, 0).astype(np.uint64)) & ONE
    return np.where(actions == PASS, pass_ok, in_word & (bit != 0))


def select_bit(word: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Position of the ``k``-th (0-based) set bit of each word: a binary search on popcounts."""
    pos = np.zeros(word.shape, dtype=np.uint64)
    k = k.astype(np.uint8)
    for width in (32, 16, 8, 4, 2, 1):
        below = np.bitwise_count(word & np.uint64((1 << width) - 1))
        right = k >= below
        k -= below * right
        shift = right.astype(np.uint64) * np.uint64(width)
        pos += shift
        word = word >> shift
    return pos.astype(np.int64)


def sample(bits: np.ndarray, base: np.ndarray, pass_ok: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """One action per game, uniform over its legal set (-1 if it is empty).

    ``uniform`` holds one U[0, 1) draw per game. The pass, when legal, is
    taken as the last element of the set.
    """
    in_word = np.bitwise_count(bits).astype(np.int64)
    total = in_word + pass_ok
    k = np.minimum((uniform * total).astype(np.int64), total - 1)  # u * total can round up to total
    actions = base + select_bit(bits, k)
    actions = np.where(k >= in_word, PASS, actions)
    return np.where(total > 0, actions, -1)
