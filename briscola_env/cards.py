"""Card tables: ids, suits, faces, points, trick strength and names.

A card id is ``suit * 10 + (face - 1)`` (docs/RULES.md), so ``0`` is the Asso di
Coppe and ``39`` the Re di Spade. Suits: 0 Coppe/Cups, 1 Denari/Coins,
2 Bastoni/Clubs, 3 Spade/Swords, printed ♥ ♦ ♣ ♠ and typed ``c d b s`` in Italian,
``h d c s`` (hearts, diamonds, clubs, spades) in English. Faces: 1 Asso .. 7,
8 Fante, 9 Cavallo, 10 Re.

Points and strength depend on the ``ten_card`` variant: in ``"three"`` (the
standard) the 3 is the ten-point card, second only to the Asso; in ``"seven"``
the 7 takes its place and the 3 drops to a plain card above the 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

NUM_SEATS = 5
NUM_SUITS = 4
NUM_FACES = 10
NUM_CARDS = NUM_SUITS * NUM_FACES
CARDS_PER_HAND = 8
NUM_TRICKS = 8
TOTAL_POINTS = 120

SUITS_IT = ("Coppe", "Denari", "Bastoni", "Spade")
SUITS_EN = ("Cups", "Coins", "Clubs", "Swords")
SUIT_SYMBOLS = ("♥", "♦", "♣", "♠")  # the French-suited equivalents printed on many Italian decks
SYMBOL_NAMES_EN = ("Hearts", "Diamonds", "Clubs", "Spades")  # what an English reader calls those symbols

# The suit names a reader of each language knows the printed cards by: Coppe Denari Bastoni Spade in
# Italian; in English the symbols' names, not Cups Coins Clubs Swords (three of them a 'c').
SUIT_NAMES_READ = {"it": SUITS_IT, "en": SYMBOL_NAMES_EN}
LANGUAGES = tuple(SUIT_NAMES_READ)  # of the card names and the letters typed
# The ASCII suit letters typed for the symbols, per language: those names' initials. 'c' is Coppe in one
# and Bastoni (clubs) in the other, so a letter is read in one language only.
SUIT_LETTERS = {lang: tuple(name[0].lower() for name in names) for lang, names in SUIT_NAMES_READ.items()}
assert SUIT_LETTERS == {"it": ("c", "d", "b", "s"), "en": ("h", "d", "c", "s")}

# Index = face - 1.
FACES_IT = ("Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re")
FACES_EN = ("Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Jack", "Knight", "King")
FACE_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R")

TEN_CARD_VARIANTS = ("three", "seven")

# Faces from strongest to weakest, per ten_card variant. Rank level k (1..10)
# used by rank bids is the face at position k-1 of this order.
FACE_ORDER = {
    "three": (1, 3, 10, 9, 8, 7, 6, 5, 4, 2),
    "seven": (1, 7, 10, 9, 8, 6, 5, 4, 3, 2),
}

# Points per face, per ten_card variant (faces not listed are worth 0).
FACE_POINTS = {
    "three": {1: 11, 3: 10, 10: 4, 9: 3, 8: 2},
    "seven": {1: 11, 7: 10, 10: 4, 9: 3, 8: 2},
}

CARD_SUIT = np.arange(NUM_CARDS, dtype=np.int8) // NUM_FACES  # suit of each card id
CARD_FACE = np.arange(NUM_CARDS, dtype=np.int8) % NUM_FACES + 1  # face 1..10 of each card id


@dataclass(frozen=True)
class CardTables:
    """Per-card arrays for one ``ten_card`` variant (all indexed by card id)."""

    points: np.ndarray  # int16, card points (sum 120)
    strength: np.ndarray  # int8, 9 = strongest face of a suit .. 0 = weakest
    level: np.ndarray  # int8, rank level 1 (strongest) .. 10 (weakest), as bid in the auction
    level_face: tuple[int, ...]  # face named by rank level k at index k-1


@lru_cache(maxsize=None)
def card_tables(ten_card: str = "three") -> CardTables:
    """The point, strength and rank-level tables for a ``ten_card`` variant."""
    if ten_card not in FACE_ORDER:
        raise ValueError(f"ten_card must be one of {TEN_CARD_VARIANTS}, got {ten_card!r}")
    order = FACE_ORDER[ten_card]
    level_of_face = {face: k + 1 for k, face in enumerate(order)}
    faces = CARD_FACE.tolist()
    points = np.array([FACE_POINTS[ten_card].get(f, 0) for f in faces], dtype=np.int16)
    level = np.array([level_of_face[f] for f in faces], dtype=np.int8)
    strength = (NUM_FACES - level).astype(np.int8)
    assert points.sum() == TOTAL_POINTS
    for arr in (points, level, strength):
        arr.setflags(write=False)
    return CardTables(points=points, strength=strength, level=level, level_face=order)


CARD_POINTS = card_tables("three").points  # standard points per card id
assert CARD_POINTS.sum() == TOTAL_POINTS


def card_id(suit: int, face: int) -> int:
    """The id of the card of ``suit`` (0..3) and ``face`` (1..10)."""
    if not (0 <= suit < NUM_SUITS and 1 <= face <= NUM_FACES):
        raise ValueError(f"no card with suit {suit} (0..3) and face {face} (1..10)")
    return suit * NUM_FACES + face - 1


def _check_card(card: int) -> int:
    if not isinstance(card, (int, np.integer)) or isinstance(card, (bool, np.bool_)) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be an int in 0..39, got {card!r}")
    return int(card)


def card_str(card: int) -> str:
    """Compact form, face symbol then suit symbol: ``A♦`` is the Asso di Denari."""
    card = _check_card(card)
    return FACE_SYMBOLS[card % NUM_FACES] + SUIT_SYMBOLS[card // NUM_FACES]


def card_name(card: int, lang: str = "it") -> str:
    """Full name: ``Asso di Denari`` (``lang="it"``) or ``Ace of Diamonds`` (``"en"``: the suit by the
    name an English reader gives its symbol, as he types it)."""
    card = _check_card(card)
    suit, face_index = divmod(card, NUM_FACES)
    if lang == "it":
        return f"{FACES_IT[face_index]} di {SUITS_IT[suit]}"
    if lang == "en":
        return f"{FACES_EN[face_index]} of {SYMBOL_NAMES_EN[suit]}"
    raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")


def parse_card(text: str, lang: str = "it") -> int:
    """Card id from the compact form: a face symbol (``A 2..7 F C R``) then a suit, as a symbol
    (``♥ ♦ ♣ ♠``) or a letter of ``lang`` (``SUIT_LETTERS``: ``c d b s`` in Italian, ``h d c s`` in
    English): ``A♦``, ``Rs``; ``2c`` is the 2 of Coppe (♥) in Italian, of Bastoni (♣) in English."""
    if lang not in SUIT_LETTERS:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    letters = SUIT_LETTERS[lang]
    s = text.strip() if isinstance(text, str) else None
    if not s or len(s) != 2 or s[0] not in FACE_SYMBOLS:
        raise ValueError(
            f"cannot parse card {text!r}: expected a face in {' '.join(FACE_SYMBOLS)} followed by a suit "
            f"in {' '.join(SUIT_SYMBOLS)} or {' '.join(letters)}, e.g. 'A♦' or 'A{letters[1]}'"
        )
    face = FACE_SYMBOLS.index(s[0]) + 1
    if s[1] in SUIT_SYMBOLS:
        suit = SUIT_SYMBOLS.index(s[1])
    elif s[1] in letters:
        suit = letters.index(s[1])
    else:
        raise ValueError(f"cannot parse card {text!r}: unknown suit {s[1]!r}, expected one of "
                         f"{' '.join(SUIT_SYMBOLS)} or {' '.join(letters)}")
    return card_id(suit, face)


def parse_cards(text: str, lang: str = "it") -> list[int]:
    """Card ids from a space-separated list of compact forms: ``"A♦ 3♦ Rs"``."""
    return [parse_card(tok, lang) for tok in text.split()]
