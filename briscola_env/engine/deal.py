"""Dealing: shuffles from a per-game seed, and checks of given deals.

A deal is a ``(B, 40)`` array giving the seat (0..4) that holds each card; at a table of
another shape (``RulesConfig.table_shape``) the seats are ``0..seats-1``, and a card of the
monte has the holder ``seats`` (``TableShape.monte_holder``).
Seeded deals come from a counter-based hash (SplitMix64) of the game's own
seed, so a game's cards depend on its seed alone, never on the batch it is
dealt in or on any generator's history, and a whole batch is dealt without a
Python loop.
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_CARDS
from ..rules import STANDARD_TABLE, RulesConfig, TableShape
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


_NUMBER_WORDS = {4: "four", 5: "five"}  # seats at a table, as messages say them


def _shape(rules: RulesConfig | None) -> TableShape:
    return STANDARD_TABLE if rules is None else rules.table_shape


def _shuffle(seeds, shape: TableShape) -> tuple[np.ndarray, np.ndarray]:
    """``(order (B, 40), dealers (B,))``: cards ``order[b, hs:hs+h]`` go to seat ``s`` (``h`` the hand
    size), and the last ``shape.monte_size`` to the monte."""
    seeds = as_seeds(seeds)
    # 41 hashes per seed, of seed * 64 + i: one for the dealer, one key per card.
    keys = splitmix64((seeds << np.uint64(6))[:, None] + np.arange(NUM_CARDS + 1, dtype=np.uint64))
    dealers = (keys[:, 0] % np.uint64(shape.seats)).astype(np.int8)
    # Sorting iid random keys gives a uniform permutation of the deck.
    return np.argsort(keys[:, 1:], axis=1), dealers


def seeded_hands(seeds, shape: TableShape = STANDARD_TABLE) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``(hand_bits (B, seats) uint64, monte (B,) uint64, dealers (B,) int8)``, one uniform deal per
    seed at a table of ``shape`` (the monte None without one)."""
    order, dealers = _shuffle(seeds, shape)
    if not shape.monte_size:  # (re-dealing is on the training loop's path: nothing more than needed)
        hands = CARD_BIT[order].reshape(-1, shape.seats, shape.hand_size)
        return hands.sum(axis=2, dtype=np.uint64), None, dealers  # distinct bits: the sum is their union
    dealt = shape.seats * shape.hand_size
    hands = CARD_BIT[order[:, :dealt]].reshape(-1, shape.seats, shape.hand_size)
    monte = CARD_BIT[order[:, dealt:]].sum(axis=1, dtype=np.uint64)
    return hands.sum(axis=2, dtype=np.uint64), monte, dealers


def deal_from_seeds(seeds, rules: RulesConfig | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(deals (B, 40) int8, dealers (B,) int8)``: the deal of each seed as each card's holder, at the
    table of ``rules`` (default: the standard one)."""
    shape = _shape(rules)
    order, dealers = _shuffle(seeds, shape)
    deals = np.empty(order.shape, dtype=np.int8)
    holder_of_position = np.minimum(np.arange(NUM_CARDS) // shape.hand_size, shape.monte_holder).astype(np.int8)
    np.put_along_axis(deals, order, holder_of_position[None, :], axis=1)
    return deals, dealers


def check_deals(deals, dealers, shape: TableShape = STANDARD_TABLE) -> tuple[np.ndarray, np.ndarray]:
    """Validate given deals and dealers for a table of ``shape``; return them as int8 arrays."""
    seats, hand = shape.seats, shape.hand_size
    holders = f"0..{seats - 1}" + (f" (or {shape.monte_holder}, the monte)" if shape.monte_size else "")
    requirement = f"deals must be an int array of shape (B, 40) giving each card's holder, a seat {holders}"
    deals = int_array(deals, requirement)
    if deals.ndim != 2 or deals.shape[1] != NUM_CARDS:
        raise ValueError(f"{requirement}; got shape {deals.shape}")
    requirement = f"dealers must be an int array of shape ({deals.shape[0]},)"
    dealers = int_array(dealers, requirement)
    if dealers.shape != (deals.shape[0],):
        raise ValueError(f"{requirement}; got shape {dealers.shape}")
    top = shape.monte_holder if shape.monte_size else seats - 1
    bad = np.flatnonzero(((deals < 0) | (deals > top)).any(axis=1))
    if bad.size:
        raise ValueError(f"deal of game {bad[0]} names a seat outside {holders}: {deals[bad[0]].tolist()}")
    counts = (deals[:, :, None] == np.arange(seats + 1)).sum(axis=1)  # the last column: the monte
    wanted = [hand] * seats + [shape.monte_size]
    bad = np.flatnonzero((counts != wanted).any(axis=1))
    if bad.size:
        monte = f" and the monte {counts[bad[0], seats]}" if shape.monte_size else ""
        needs = f" and the monte {shape.monte_size}" if shape.monte_size else ""
        raise ValueError(f"deal of game {bad[0]} gives the seats {counts[bad[0], :seats].tolist()} cards{monte}; "
                         f"each needs {hand}{needs}")
    bad = np.flatnonzero((dealers < 0) | (dealers >= seats))
    if bad.size:
        raise ValueError(f"dealer of game {bad[0]} is {dealers[bad[0]]}; a dealer is a seat 0..{seats - 1}")
    return deals.astype(np.int8), dealers.astype(np.int8)


def hand_bits(deals: np.ndarray, seats: int = STANDARD_TABLE.seats) -> np.ndarray:
    """``(B, seats) uint64`` card sets from ``(B, 40)`` deals."""
    held = deals[:, None, :] == np.arange(seats, dtype=deals.dtype)[None, :, None]  # (B, seats, 40)
    return (held * CARD_BIT).sum(axis=2, dtype=np.uint64)  # distinct bits: the sum is their union


def monte_bits(deals: np.ndarray, shape: TableShape) -> np.ndarray:
    """``(B,) uint64``: the monte's cards of ``(B, 40)`` deals (empty without a monte)."""
    return ((deals == shape.monte_holder) * CARD_BIT).sum(axis=1, dtype=np.uint64) if shape.monte_size \
        else np.zeros(len(deals), dtype=np.uint64)


def hands_to_deal(hands, monte=None, rules: RulesConfig | None = None) -> np.ndarray:
    """``(40,)`` deal from lists of card ids, seat by seat (five of 8 at the standard table; at the table
    of ``rules``, one per seat of its hand size) and, with a monte, ``monte``: the list of its cards."""
    shape = _shape(rules)
    expected = f"expected {_NUMBER_WORDS[shape.seats]} hands (lists of card ids), one per seat"
    if isinstance(hands, (str, bytes)) or not _is_collection(hands):
        raise ValueError(f"{expected}; got {hands!r}")
    if len(hands) != shape.seats:
        raise ValueError(f"{expected}; got {len(hands)}")
    if (monte is not None) != bool(shape.monte_size):
        raise ValueError("a monte is dealt with RulesConfig(monte=True), and only then: "
                         + ("give its cards" if shape.monte_size else f"these rules have none, got {monte!r}"))
    deal = np.full(NUM_CARDS, -1, dtype=np.int8)
    piles = list(hands) + ([monte] if shape.monte_size else [])
    for seat, hand in enumerate(piles):
        who = "the monte" if seat == shape.monte_holder else f"seat {seat}"
        if isinstance(hand, (str, bytes)) or not _is_collection(hand):
            raise ValueError(f"{who}: a hand is a list of card ids 0..39; got {hand!r}")
        for card in hand:
            if isinstance(card, (bool, np.bool_)) or not isinstance(card, (int, np.integer)) \
                    or not 0 <= card < NUM_CARDS:
                raise ValueError(f"{who}: {card!r} is not a card id 0..39 (an int)")
            card = int(card)
            if deal[card] != -1:
                raise ValueError(f"card {card} is dealt twice (seats {deal[card]} and {seat})")
            deal[card] = seat
    if (deal == -1).any():
        raise ValueError(f"cards {np.flatnonzero(deal == -1).tolist()} are dealt to nobody")
    check_deals(deal[None], np.zeros(1, dtype=np.int8), shape)
    return deal


def _is_collection(value) -> bool:
    try:
        len(value)
        iter(value)
    except TypeError:
        return False
    return True
