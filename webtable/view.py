"""One hand as the web page draws it: a JSON-ready dict of plain values, for one viewer.

:func:`table_view` reads a :class:`~briscola_env.game.Game` and shows what its
``viewer`` may see, as :func:`briscola_env.render.render_text` does for the terminal: his own
hand (every hand with ``face_up``, a spectator's choice in watch mode), the partner once
revealed (or to the partner himself), and once the hand is over every hand as dealt, the
sides' points and the payoffs. What a viewer may not see never leaves the server. The page is in
English, and so are the card and suit names sent: the Italian names appear only in the legend
(:func:`suit_names_text`, :func:`evaluation.terminal.face_letters_text`).
:func:`moves_view` describes the legal moves of the seat to act, for the bid buttons, the call
and the playable cards. Cards carry their face, suit symbol and names, so the page computes
nothing about the game.
"""

from __future__ import annotations

from typing import Optional, Sequence

from briscola_env.actions import (CALL_OFFSET, NUM_RANK_LEVELS, PASS, PLAY_OFFSET, POINT_BID_OFFSET,
                                  RANK_BID_OFFSET, action_to_text, bid_points, rank_bid)
from briscola_env.cards import (CARD_SUIT, FACE_SYMBOLS, NUM_FACES, NUM_SEATS, NUM_TRICKS, SUIT_SYMBOLS, SUITS_IT,
                                SYMBOL_NAMES_EN, TOTAL_POINTS, card_name, card_str, card_tables)
from briscola_env.engine import PHASE_NAMES, Phase
from briscola_env.game import Game
from briscola_env.render import hands_as_dealt

RED_SUITS = ("♥", "♦")  # printed red on the French-suited cards; the others black


def suit_names_text() -> str:
    """The suits as the page names them, in English (it is an English page), and their Italian names,
    for the legend only: ``♥ hearts, ♦ diamonds, ♣ clubs, ♠ spades: in Italian coppe, denari, ...``."""
    english = ", ".join(f"{symbol} {name.lower()}" for symbol, name in zip(SUIT_SYMBOLS, SYMBOL_NAMES_EN))
    return f"{english}: in Italian {', '.join(name.lower() for name in SUITS_IT)}"


def card_view(card: int, ten_card: str) -> dict:
    """A card as the page draws it: ``{"id", "text": "A♥", "face": "A", "suit": "♥", "red", "name", "points"}``,
    its name in English as every suit name on the page (the Italian ones in the legend only)."""
    suit = SUIT_SYMBOLS[card // NUM_FACES]
    return {"id": int(card), "text": card_str(card), "face": FACE_SYMBOLS[card % NUM_FACES], "suit": suit,
            "red": suit in RED_SUITS, "name": card_name(card, "en"),
            "points": int(card_tables(ten_card).points[card])}


def sorted_hand(cards, ten_card: str) -> list[dict]:
    """Cards grouped by suit, strongest first within a suit (as the terminal prints a hand)."""
    strength = card_tables(ten_card).strength
    return [card_view(c, ten_card) for c in sorted(cards, key=lambda c: (CARD_SUIT[c], -strength[c]))]


def _hand_shown(game: Game, seat: int, viewer: Optional[int], face_up: bool) -> bool:
    # As render_text: a played hand's cards have all been seen by the end; a void hand's stay hidden.
    return face_up or seat == viewer or (game.terminated and not game.void)


def _partner_known(game: Game, viewer: Optional[int], face_up: bool) -> bool:
    return face_up or game.partner_revealed or (viewer is not None and viewer == game.partner)


def _trick_view(game: Game, index: int) -> dict:
    cards = [{"seat": s, "card": card_view(c, game.rules.ten_card)} for s, c in game.tricks[index]]
    trick = {"number": index + 1, "cards": cards, "winner": None, "points": None}
    if index < len(game.trick_winners):
        trick["winner"] = game.trick_winners[index]
        trick["points"] = sum(game.points(c) for _, c in game.tricks[index])
    return trick


def _call_view(game: Game, viewer: Optional[int], face_up: bool) -> Optional[dict]:
    if game.called_card < 0:
        return None
    known = _partner_known(game, viewer, face_up)
    return {"caller": game.caller, "card": card_view(game.called_card, game.rules.ten_card),
            "trump": SUIT_SYMBOLS[game.trump], "trump_name": SYMBOL_NAMES_EN[game.trump],
            "partner": game.partner if known else None, "solo": known and game.partner == game.caller}


def outcome_view(game: Game, names: Sequence[str], viewer: Optional[int] = None,
                 face_up: bool = False) -> Optional[dict]:
    """The end of a finished hand: every hand as dealt (a void hand's only as :func:`table_view` shows
    them), the sides, their points, the payoffs."""
    if not game.terminated:
        return None
    ten = game.rules.ten_card
    dealt = [sorted_hand(hand, ten) if _hand_shown(game, s, viewer, face_up) else None
             for s, hand in enumerate(hands_as_dealt(game))]
    if game.void:
        return {"void": True, "hands": dealt, "payoffs": [float(p) for p in game.payoffs],
                "summary": "Everybody passed: a void hand, nobody scores."}
    callers = sorted({game.caller, game.partner})
    defenders = [s for s in range(NUM_SEATS) if s not in callers]
    result = "made" if game.made else "failed"
    side = " and ".join(names[s] for s in callers) + (" (alone)" if len(callers) == 1 else "")
    summary = (f"{side} {result} the contract with {game.team_points} points "
               f"against {TOTAL_POINTS - game.team_points}" + (f", x{game.multiplier}" if game.multiplier > 1 else ""))
    return {"void": False, "hands": dealt, "payoffs": [float(p) for p in game.payoffs], "callers": callers,
            "defenders": defenders, "caller_points": game.team_points,
            "defender_points": TOTAL_POINTS - game.team_points, "made": game.made,
            "multiplier": game.multiplier, "summary": summary}


def table_view(game: Game, names: Sequence[str], agents: Sequence[str], viewer: Optional[int] = None,
               face_up: bool = False) -> dict:
    """The table as ``viewer`` (a seat, or None for a spectator) sees it; ``face_up`` shows every hand."""
    ten = game.rules.ten_card
    caller_side = {game.caller, game.partner} if game.terminated and not game.void else set()
    seats = []
    for s in range(NUM_SEATS):
        shown = _hand_shown(game, s, viewer, face_up)
        roles = (["dealer"] if s == game.dealer else []) + (["caller"] if s == game.caller else [])
        if game.called_card >= 0 and s == game.partner and s != game.caller and _partner_known(game, viewer, face_up):
            roles.append("partner")
        seats.append({"seat": s, "name": names[s], "agent": agents[s],
                      "hand": sorted_hand(game.hands[s], ten) if shown else None,
                      "cards_left": len(game.hands[s]), "points": game.captured_points[s],
                      "tricks": game.tricks_won[s], "roles": roles, "caller_side": s in caller_side})
    standing = action_to_text(game.high_bid, ten) if game.high_bid else None
    open_trick = len(game.tricks) > len(game.trick_winners)
    return {
        "phase": PHASE_NAMES[game.phase], "dealer": game.dealer,
        "to_act": game.current_player if game.current_player >= 0 else None, "viewer": viewer,
        "trick_number": min(len(game.trick_winners) + 1, NUM_TRICKS) if game.phase == Phase.PLAY else None,
        "seats": seats,
        "auction": [{"seat": s, "bid": action_to_text(a, ten)} for s, a in game.auction],
        "high_bid": standing, "high_bidder": game.high_bidder if game.high_bidder >= 0 else None,
        "call": _call_view(game, viewer, face_up),
        "trick": _trick_view(game, len(game.tricks) - 1) if open_trick else None,
        "tricks": [_trick_view(game, t) for t in range(len(game.trick_winners))],
        "outcome": outcome_view(game, names, viewer, face_up),
    }


def moves_view(game: Game) -> dict:
    """The legal moves of the seat to act, each with the text the API takes (``"bid R"``, ``"play A♥"``):
    ``pass`` (bool), ``ranks`` (every rank bid from the strongest, legal or not: the buttons), ``points``
    (the lowest and highest point bid allowed, or None), ``calls`` and ``plays`` (the legal cards)."""
    ten = game.rules.ten_card
    legal = game.legal_actions()
    faces = card_tables(ten).level_face  # rank level k names the face faces[k - 1]
    ranks = [{"move": action_to_text(rank_bid(level), ten), "face": FACE_SYMBOLS[faces[level - 1] - 1],
              "legal": rank_bid(level) in legal} for level in range(1, NUM_RANK_LEVELS + 1)]
    points = [bid_points(a) for a in legal if POINT_BID_OFFSET <= a < CALL_OFFSET]
    any_rank = any(RANK_BID_OFFSET <= a < POINT_BID_OFFSET for a in legal)
    return {"pass": PASS in legal,
            "ranks": ranks if game.phase == Phase.AUCTION and (any_rank or not points) else [],
            "points": {"lowest": min(points), "highest": max(points)} if points else None,
            "calls": [{**card_view(a - CALL_OFFSET, ten), "move": action_to_text(a, ten)}
                      for a in legal if CALL_OFFSET <= a < PLAY_OFFSET],
            "plays": [{**card_view(a - PLAY_OFFSET, ten), "move": action_to_text(a, ten)}
                      for a in legal if a >= PLAY_OFFSET]}
