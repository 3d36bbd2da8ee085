"""Sets of cards and of actions as bit masks in ``uint64`` words.

A set of cards is one ``uint64`` with bit ``c`` for card ``c``. A set of
actions (151 ids) is three words, ``(..., 3) uint64``, bit ``a % 64`` of word
``a // 64``. Bit masks let the engine build and test legal sets with a few
whole-batch integer operations instead of ``(B, 151)`` boolean arrays, which
dominate the cost of a step at large batch sizes.
"""

from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS
from ..cards import NUM_CARDS, NUM_FACES, NUM_SUITS

WORD = 64
NUM_WORDS = (NUM_ACTIONS + WORD - 1) // WORD  # 3
ONE = np.uint64(1)

CARD_BIT = ONE << np.arange(NUM_CARDS, dtype=np.uint64)  # bit of each card id
SUIT_BITS = np.array([((1 << NUM_FACES) - 1) << (NUM_FACES * s) for s in range(NUM_SUITS)],
                     dtype=np.uint64)  # the 10 cards of each suit
ALL_CARDS = np.uint64((1 << NUM_CARDS) - 1)


def _prefix_words() -> np.ndarray:
    """PREFIX[n] = action set {0, .., n-1}, as words, for n in 0..151."""
    out = np.zeros((NUM_ACTIONS + 1, NUM_WORDS), dtype=np.uint64)
    for n in range(NUM_ACTIONS + 1):
        for w in range(NUM_WORDS):
            k = min(max(n - WORD * w, 0), WORD)
            out[n, w] = (1 << k) - 1
    return out


ACTION_PREFIX = _prefix_words()


def action_range(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Action sets {lo, .., hi-1} as ``(N, 3)`` words (empty when ``lo >= hi``)."""
    return ACTION_PREFIX[hi] & ~ACTION_PREFIX[np.minimum(lo, hi)]


def put_card_actions(legal: np.ndarray, g: np.ndarray, cards: np.ndarray, offset: int) -> None:
    """Set the action sets ``legal[g]`` (``(B, 3)`` words) to the ids ``offset + c``
    for the cards ``c`` of ``cards``, clearing every other action."""
    flat = legal.reshape(-1)  # flat indices: 2-D fancy indexing is several times slower
    base = g * NUM_WORDS
    word, shift = divmod(offset, WORD)
    for w in range(NUM_WORDS):
        if w == word:
            flat[base + w] = cards << np.uint64(shift)  # bits past 64 fall off here ...
        elif w == word + 1 and shift + NUM_CARDS > WORD:
            flat[base + w] = cards >> np.uint64(WORD - shift)  # ... and land here
        else:
            flat[base + w] = 0




def to_bool(words: np.ndarray, width: int) -> np.ndarray:
    """Unpack ``(..., W)`` uint64 words into a ``(..., width)`` bool array, bit i -> index i."""
    as_bytes = np.ascontiguousarray(words, dtype="<u8").view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=width, bitorder="little").view(bool)


def from_bool(mask: np.ndarray) -> np.ndarray:
    """Inverse of :func:`to_bool`: ``(..., n)`` bool -> ``(..., ceil(n/64))`` uint64 words."""
    n = mask.shape[-1]
    nwords = (n + WORD - 1) // WORD
    padded = np.zeros(mask.shape[:-1] + (nwords * WORD,), dtype=bool)
    padded[..., :n] = mask
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8").astype(np.uint64)


def popcount(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words)


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


def sample_actions(words: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """One action per row, uniform over the set bits of ``(N, 3)`` action words.

    ``uniform`` holds one U[0, 1) draw per row. Rows with an empty set get -1.
    """
    counts = [np.bitwise_count(words[:, j]).astype(np.int64) for j in range(NUM_WORDS)]
    total = sum(counts)
    k = np.minimum((uniform * total).astype(np.int64), np.maximum(total - 1, 0))
    w = np.zeros(len(words), dtype=np.int64)
    for j in range(NUM_WORDS - 1):  # move on to word j+1 while k is past word j
        past = (k >= counts[j]) & (w == j)
        k -= counts[j] * past
        w += past
    chosen = words.reshape(-1)[np.arange(len(words)) * NUM_WORDS + w]
    actions = w * WORD + select_bit(chosen, k)
    return np.where(total > 0, actions, -1)
