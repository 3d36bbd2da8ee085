"""Play hands against agents in the terminal, hand after hand, until you type quit: bids, the call
and the cards are typed in Italian or English, the session's totals shown at the end."""

from __future__ import annotations

import argparse

from briscola_env.cards import LANGUAGES, NUM_SEATS
from evaluation.terminal import suit_letters_text

from .options import add_rules_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponents", nargs="+", default=["heuristic"],
                        help="one agent spec (for the four other seats), or four in seat order (three with --rules "
                             "four_players); the specs of briscola evaluate --help")
    parser.add_argument("--seat", type=int, default=0, choices=range(NUM_SEATS), help="your seat")
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds the deals and the agents, to play the same hands again "
                             "(default: new hands each time)")
    add_rules_option(parser)
    parser.add_argument("--lang", default="it", choices=LANGUAGES,
                        help="card names and the suit letters you type: "
                             + ", ".join(f"{lang} {suit_letters_text(lang)}" for lang in LANGUAGES)
                             + "; the symbols ♥ ♦ ♣ ♠ in both")


def run(args: argparse.Namespace) -> int:
    from evaluation.terminal import play_in_terminal

    try:
        play_in_terminal(args.opponents, args.seat, args.seed, args.rules, args.lang)
    except KeyboardInterrupt:  # quit and the end of input end the session inside, with its totals
        print("\nsession interrupted")
        return 1
    return 0
