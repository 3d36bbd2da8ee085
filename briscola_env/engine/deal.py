"""Dealing: shuffles from a per-game seed, and checks of given deals.

A deal is a ``(B, 40)`` array giving the seat (0..4) that holds each card.
Seeded deals come from a counter-based hash (SplitMix64) of the game's own
seed, so a game's cards depend on its seed alone, never on the batch it is
dealt in or on any generator's history, and a whole batch is dealt without a
Python loop.
"""

from __future__ import annotations

import numpy as np

from ..cards import CARDS_PER_HAND, NUM_CARDS, NUM_SEATS
from .bits import CARD_BIT

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's output function: a well-mixed 64-bit hash of each element
    (array arithmetic on uint64 wraps silently, as the hash wants)."""
    z = x.astype(np.uint64) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


MAX_SEED = 2**57  # (seed << 6) + card index, the hash input, stays below 2**63
SEED_RANGE = f"0 .. 2**{MAX_SEED.bit_length() - 1} - 1"  # the seeds allowed, as messages state them


def int_array(values, requirement: str) -> np.ndarray:
    """``values`` as a NumPy int array, else a ValueError stating ``requirement`` and what came:
    floats, strings and bools are refused, also bools among the ints of a list (which NumPy
    would silently turn into 0 and 1)."""
    array = np.asarray(values)
    bools = array.dtype.kind == "b"
    if not isinstance(values, np.ndarray) and array.dtype.kind in "iu" and array.size:
        bools = any(isinstance(x, (bool, np.bool_)) for x in np.asarray(values, dtype=object).reshape(-1))
    if bools or array.dtype.kind not in "iu":
        found = "bool values" if bools else f"dtype {array.dtype}"
        raise ValueError(f"{requirement}; got shape {array.shape}, {found}")
    return array


def seeds_out_of_range(seeds: np.ndarray) -> np.ndarray:
    """The indices of the int ``seeds`` that are no engine seed (outside :data:`SEED_RANGE`)."""
    return np.flatnonzero((seeds < 0) | (seeds >= MAX_SEED))


def as_seeds(seeds) -> np.ndarray:
    requirement = "seeds must be a 1-D array of ints (one per game)"
    seeds = int_array(seeds, requirement)
    if seeds.ndim != 1:
        raise ValueError(f"{requirement}; got shape {seeds.shape}")
    bad = seeds_out_of_range(seeds)
    if bad.size:
        raise ValueError(f"seeds must be in {SEED_RANGE}; got {seeds[bad[0]]}")
    return seeds.astype(np.uint64)


def _shuffle(seeds) -> tuple[np.ndarray, np.ndarray]:
    """``(order (B, 40), dealers (B,))``: cards ``order[b, 8s:8s+8]`` go to seat ``s``."""
    seeds = as_seeds(seeds)
    # 41 hashes per seed, of seed * 64 + i: one for the dealer, one key per card.
    keys = splitmix64((seeds << np.uint64(6))[:, None] + np.arange(NUM_CARDS + 1, dtype=np.uint64))
    dealers = (keys[:, 0] % np.uint64(NUM_SEATS)).astype(np.int8)
    # Sorting iid random keys gives a uniform permutation of the deck.
    return np.argsort(keys[:, 1:], axis=1), dealers


def seeded_hands(seeds) -> tuple[np.ndarray, np.ndarray]:
    """``(hand_bits (B, 5) uint64, dealers (B,) int8)``, one uniform deal per seed."""
    order, dealers = _shuffle(seeds)
    hands = CARD_BIT[order].reshape(-1, NUM_SEATS, CARDS_PER_HAND)
    return hands.sum(axis=2, dtype=np.uint64), dealers  # distinct bits: the sum is their union


def deal_from_seeds(seeds) -> tuple[np.ndarray, np.ndarray]:
    """``(deals (B, 40) int8, dealers (B,) int8)``: the deal of each seed as each card's seat."""
    order, dealers = _shuffle(seeds)
    deals = np.empty(order.shape, dtype=np.int8)
    seat_of_position = (np.arange(NUM_CARDS) // CARDS_PER_HAND).astype(np.int8)
    np.put_along_axis(deals, order, seat_of_position[None, :], axis=1)
    return deals, dealers


def check_deals(deals, dealers) -> tuple[np.ndarray, np.ndarray]:
    """Validate given deals and dealers; return them as int8 arrays."""
    requirement = "deals must be an int array of shape (B, 40) giving each card's seat"
    deals = int_array(deals, requirement)
    if deals.ndim != 2 or deals.shape[1] != NUM_CARDS:
        raise ValueError(f"{requirement}; got shape {deals.shape}")
    requirement = f"dealers must be an int array of shape ({deals.shape[0]},)"
    dealers = int_array(dealers, requirement)
    if dealers.shape != (deals.shape[0],):
        raise ValueError(f"{requirement}; got shape {dealers.shape}")
    bad = np.flatnonzero(((deals < 0) | (deals >= NUM_SEATS)).any(axis=1))
    if bad.size:
        raise ValueError(f"deal of game {bad[0]} names a seat outside 0..4: {deals[bad[0]].tolist()}")
    counts = (deals[:, :, None] == np.arange(NUM_SEATS)).sum(axis=1)
    bad = np.flatnonzero((counts != CARDS_PER_HAND).any(axis=1))
    if bad.size:
        raise ValueError(f"deal of game {bad[0]} gives the seats {counts[bad[0]].tolist()} cards; each needs 8")
    bad = np.flatnonzero((dealers < 0) | (dealers >= NUM_SEATS))
    if bad.size:
        raise ValueError(f"dealer of game {bad[0]} is {dealers[bad[0]]}; a dealer is a seat 0..4")
    return deals.astype(np.int8), dealers.astype(np.int8)


def hand_bits(deals: np.ndarray) -> np.ndarray:
    """``(B, 5) uint64`` card sets from ``(B, 40)`` deals."""
    held = deals[:, None, :] == np.arange(NUM_SEATS, dtype=deals.dtype)[None, :, None]  # (B, 5, 40)
    return (held * CARD_BIT).sum(axis=2, dtype=np.uint64)  # distinct bits: the sum is their union


def hands_to_deal(hands) -> np.ndarray:
    """``(40,)`` deal from five lists of 8 card ids, seat by seat."""
    expected = "expected five hands (lists of card ids), one per seat"
    if isinstance(hands, (str, bytes)) or not _is_collection(hands):
        raise ValueError(f"{expected}; got {hands!r}")
    if len(hands) != NUM_SEATS:
        raise ValueError(f"{expected}; got {len(hands)}")
    deal = np.full(NUM_CARDS, -1, dtype=np.int8)
    for seat, hand in enumerate(hands):
        if isinstance(hand, (str, bytes)) or not _is_collection(hand):
            raise ValueError(f"seat {seat}: a hand is a list of card ids 0..39; got {hand!r}")
        for card in hand:
            if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) \
                    or not 0 <= card < NUM_CARDS:
                raise ValueError(f"seat {seat}: {card!r} is not a card id 0..39 (an int)")
            card = int(card)
            if deal[card] != -1:
                raise ValueError(f"card {card} is dealt twice (seats {deal[card]} and {seat})")
            deal[card] = seat
    if (deal == -1).any():
        raise ValueError(f"cards {np.flatnonzero(deal == -1).tolist()} are dealt to nobody")
    check_deals(deal[None], np.zeros(1, dtype=np.int8))
    return deal


def _is_collection(value) -> bool:
    try:
        len(value)
        iter(value)
    except TypeError:
        return False
    return True
