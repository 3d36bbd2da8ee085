"""The flat action space: 151 ids, fixed (saved games and other tools rely on it).

=========  ===========================================================
id         meaning
=========  ===========================================================
0          pass (in the auction)
1..10      rank bid by strength level: 1 = strongest rank (Asso),
           10 = weakest (the 2); see ``cards.FACE_ORDER`` for the
           ``ten_card`` variant in force
11..70     point bid 61..120 (id = 11 + points - 61)
71..110    call card id 0..39 (id = 71 + card)
111..150   play card id 0..39 (id = 111 + card); with a monte, in the
           discard phase, discard that card
=========  ===========================================================

Bids are ordered so that a later bid must always have a *larger* id than the
standing one: a weaker rank, then more points.
"""

from __future__ import annotations

from typing import SupportsInt

from .cards import FACE_SYMBOLS, NUM_CARDS, NUM_FACES, card_str, card_tables, parse_card

PASS = 0
RANK_BID_OFFSET = 1  # rank level k is action RANK_BID_OFFSET + k - 1
NUM_RANK_LEVELS = NUM_FACES
POINT_BID_OFFSET = RANK_BID_OFFSET + NUM_RANK_LEVELS  # 11: point bid p is action POINT_BID_OFFSET + p - MIN_POINTS
MIN_POINTS = 61
MAX_POINTS = 120
NUM_POINT_BIDS = MAX_POINTS - MIN_POINTS + 1
CALL_OFFSET = POINT_BID_OFFSET + NUM_POINT_BIDS  # 71: call card c is CALL_OFFSET + c
PLAY_OFFSET = CALL_OFFSET + NUM_CARDS  # 111: play card c is PLAY_OFFSET + c
NUM_ACTIONS = PLAY_OFFSET + NUM_CARDS  # 151
assert (POINT_BID_OFFSET, CALL_OFFSET, PLAY_OFFSET, NUM_ACTIONS) == (11, 71, 111, 151)



def rank_bid(level: int) -> int:
    """Action id of a rank bid at strength level 1 (strongest) .. 10 (weakest)."""
    if not 1 <= level <= NUM_RANK_LEVELS:
        raise ValueError(f"rank level must be in 1..10, got {level!r}")
    return RANK_BID_OFFSET + level - 1


def point_bid(points: int) -> int:
    """Action id of a bid of ``points`` (61..120)."""
    if not MIN_POINTS <= points <= MAX_POINTS:
        raise ValueError(f"a point bid must be in {MIN_POINTS}..{MAX_POINTS}, got {points!r}")
    return POINT_BID_OFFSET + points - MIN_POINTS


def call(card: int) -> int:
    """Action id of calling card ``card``."""
    return CALL_OFFSET + _card(card)


def play(card: int) -> int:
    """Action id of playing card ``card``."""
    return PLAY_OFFSET + _card(card)


def _card(card: int) -> int:
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be in 0..39, got {card!r}")
    return int(card)


def bid_points(action: int) -> int:
    """Points named by a point-bid action id."""
    return int(action) - POINT_BID_OFFSET + MIN_POINTS


def action_to_text(action: SupportsInt, ten_card: str = "three") -> str:
    """``pass``, ``bid A`` (rank bid, face symbol), ``bid 75``, ``call A♦``, ``play 3♠``, for an action id as an int
    or a NumPy integer."""
    a = int(action)
    if a == PASS:
        return "pass"
    if RANK_BID_OFFSET <= a < POINT_BID_OFFSET:
        face = card_tables(ten_card).level_face[a - RANK_BID_OFFSET]
        return f"bid {FACE_SYMBOLS[face - 1]}"
    if POINT_BID_OFFSET <= a < CALL_OFFSET:
        return f"bid {bid_points(a)}"
    if CALL_OFFSET <= a < PLAY_OFFSET:
        return f"call {card_str(a - CALL_OFFSET)}"
    if PLAY_OFFSET <= a < NUM_ACTIONS:
        return f"play {card_str(a - PLAY_OFFSET)}"
    raise ValueError(f"action id must be in 0..{NUM_ACTIONS - 1}, got {action!r}")


def text_to_action(text: str, ten_card: str = "three") -> int:
    """Inverse of :func:`action_to_text`."""
    words = text.split()
    if words == ["pass"]:
        return PASS
    if len(words) == 2 and words[0] == "bid":
        if words[1].isdigit() and int(words[1]) >= MIN_POINTS:
            return point_bid(int(words[1]))
        if words[1] in FACE_SYMBOLS:
            face = FACE_SYMBOLS.index(words[1]) + 1
            return rank_bid(card_tables(ten_card).level_face.index(face) + 1)
    if len(words) == 2 and words[0] in ("call", "play", "discard"):
        card = parse_card(words[1])
        return call(card) if words[0] == "call" else play(card)  # a monte's discards take the play ids
    raise ValueError(
        f"cannot parse action {text!r}: expected 'pass', 'bid <face A 2..7 F C R>', "
        f"'bid <{MIN_POINTS}..{MAX_POINTS}>', 'call <card>', 'play <card>' or 'discard <card>' "
        "(cards like 'A♦' or 'Ad')"
    )
