"""A readable text table of one hand: hands, auction, call, tricks and score.

``render_text(game, viewer=None)`` shows every hand (an omniscient view);
with a ``viewer`` seat only that seat's hand, and the partner only once
revealed (or if the viewer is the partner). Cards appear in the compact form
with suit symbols (``A♦``); the call also by name, in Italian or English.
Player names are printed through :func:`printable`, since they may come from
a file (a game record) and a terminal obeys the control characters it prints.
"""

from __future__ import annotations

from typing import Optional

from .actions import action_to_text
from .cards import CARD_SUIT, NUM_SEATS, SUITS_EN, SUITS_IT, card_name, card_str, card_tables
from .reference import ReferenceGame


def printable(text: str) -> str:
    """``text`` with every non-printable character (escape, carriage return, bidi control...)
    written as its Python escape: ``"\\x1b[2J"`` shows as ``\\x1b[2J`` and clears no screen."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def _hand_text(cards, ten_card: str) -> str:
    strength = card_tables(ten_card).strength
    ordered = sorted(cards, key=lambda c: (CARD_SUIT[c], -strength[c]))
    return " ".join(card_str(c) for c in ordered) or "-"


def render_text(game: ReferenceGame, viewer: Optional[int] = None, lang: str = "it",
                names: Optional[list[str]] = None) -> str:
    names = [printable(name) for name in names] if names else [f"player_{s}" for s in range(NUM_SEATS)]
    ten = game.rules.ten_card
    suits = SUITS_IT if lang == "it" else SUITS_EN
    lines = [f"Briscola Chiamata | dealer {names[game.dealer]} | phase {game.phase}"
             + (f" | trick {min(len(game.trick_winners) + 1, 8)}/8" if game.phase == "play" else "")
             + (f" | {names[game.current_player]} to act" if game.current_player >= 0 else "")]

    lines.append("Hands:")
    for s in range(NUM_SEATS):
        shown = viewer is None or viewer == s
        hand = _hand_text(game.hands[s], ten) if shown else f"({len(game.hands[s])} cards)"
        lines.append(f"  {names[s]:<10} {hand}")

    bids = [f"{names[s]} {action_to_text(a, ten)}" for s, a in game.auction]
    lines.append("Auction: " + (", ".join(bids) if bids else "-"))

    if game.called_card >= 0:
        partner_known = viewer is None or game.partner_revealed or viewer == game.partner
        partner = names[game.partner] if partner_known else "secret"
        if partner_known and game.partner == game.caller:
            partner += " (solo)"
        lines.append(f"Call: {names[game.caller]} calls {card_str(game.called_card)} "
                     f"({card_name(game.called_card, lang)}); trump {suits[game.trump]}; partner {partner}")
    elif game.void:
        lines.append("Call: none, everybody passed (void hand)")

    for t, trick in enumerate(game.tricks):
        cards = ", ".join(f"{names[s]} {card_str(c)}" for s, c in trick)
        if t < len(game.trick_winners):
            winner = game.trick_winners[t]
            points = sum(game.points(c) for _, c in trick)
            lines.append(f"Trick {t + 1}: {cards} -> {names[winner]} takes {points}")
        else:
            lines.append(f"Trick {t + 1} (on the table): {cards}")

    lines.append("Points: " + " | ".join(f"{names[s]} {game.captured_points[s]}" for s in range(NUM_SEATS)))
    if game.terminated and not game.void:
        result = "made" if game.made else "failed"
        lines.append(f"Result: contract {result} with {game.team_points} points, multiplier x{game.multiplier}; "
                     "payoffs " + " | ".join(f"{names[s]} {game.payoffs[s]:+g}" for s in range(NUM_SEATS)))
    return "\n".join(lines)
