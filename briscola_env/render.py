"""A readable text table of one hand: hands, auction, call, tricks and score.

``render_text(game, viewer=None)`` shows every hand (an omniscient view);
with a ``viewer`` seat only that seat's hand, and the partner only once
revealed (or if the viewer is the partner), and a monte and the discards only to
the caller. Once the hand is over the hands are
shown as dealt (every card of a played hand has been seen; a void hand's stay
hidden from a viewer), with each side's points. Cards appear in the compact form
with suit symbols (``A♦``); the call also by name, in Italian or English.
Player names are printed through :func:`printable`, since they may come from
a file (a game record) and a terminal obeys the control characters it prints.
"""

from __future__ import annotations

from typing import Optional

from .actions import action_to_text
from .cards import CARD_SUIT, SUIT_NAMES_READ, TOTAL_POINTS, card_name, card_str, card_tables
from .engine.codes import PHASE_NAMES, Phase
from .game import Game


def printable(text: str) -> str:
    """``text`` with every non-printable character (escape, carriage return, bidi control...)
    written as its Python escape: ``"\\x1b[2J"`` shows as ``\\x1b[2J`` and clears no screen."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def hands_as_dealt(game: Game) -> list[set[int]]:
    """Each seat's cards as dealt (eight in the standard game; before the caller takes a monte)."""
    return [set(hand) for hand in game.dealt]


def _hand_text(cards, ten_card: str) -> str:
    strength = card_tables(ten_card).strength
    ordered = sorted(cards, key=lambda c: (CARD_SUIT[c], -strength[c]))
    return " ".join(card_str(c) for c in ordered) or "-"


def render_text(game: Game, viewer: Optional[int] = None, lang: str = "it",
                names: Optional[list[str]] = None) -> str:
    seats, tricks = game.seats, game.num_tricks
    names = [printable(name) for name in names] if names else [f"player_{s}" for s in range(seats)]
    ten = game.rules.ten_card
    suits = SUIT_NAMES_READ[lang]  # as the reader knows the printed suits, and types their letters
    lines = [f"Briscola Chiamata | dealer {names[game.dealer]} | phase {PHASE_NAMES[game.phase]}"
             + (f" | trick {min(len(game.trick_winners) + 1, tricks)}/{tricks}" if game.phase == Phase.PLAY else "")
             + (f" | {names[game.current_player]} to act" if game.current_player >= 0 else "")]

    hands = hands_as_dealt(game) if game.terminated else game.hands
    lines.append("Hands as dealt:" if game.terminated else "Hands:")
    for s in range(seats):
        shown = viewer is None or viewer == s or (game.terminated and not game.void)
        hand = _hand_text(hands[s], ten) if shown else f"({len(hands[s])} cards)"
        lines.append(f"  {names[s]:<10} {hand}")
    if game.monte:
        # Face down: the caller sees the monte once he takes it and his discards; everyone at the end.
        sees = viewer is None or game.terminated or viewer == game.caller
        lines.append(f"  {'monte':<10} {_hand_text(game.monte, ten) if sees else '(5 cards, face down)'}")
        if game.caller >= 0:
            discards = _hand_text(game.discards, ten) if sees else f"({len(game.discards)} cards, face down)"
            lines.append(f"  {'discards':<10} {discards}")

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

    lines.append("Points: " + " | ".join(f"{names[s]} {game.captured_points[s]}" for s in range(seats)))
    if game.terminated and not game.void:
        callers = sorted({game.caller, game.partner})
        defenders = [s for s in range(seats) if s not in callers]
        lines.append(f"Sides: callers {', '.join(names[s] for s in callers)} {game.team_points} | "
                     f"defenders {', '.join(names[s] for s in defenders)} {TOTAL_POINTS - game.team_points}")
        result = "made" if game.made else "failed"
        lines.append(f"Result: contract {result} with {game.team_points} points, multiplier x{game.multiplier}; "
                     "payoffs " + " | ".join(f"{names[s]} {game.payoffs[s]:+g}" for s in range(seats)))
    return "\n".join(lines)
