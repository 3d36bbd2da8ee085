"""Multi-hand sessions at a table of 5, 6 or 7 players (five play each hand, the deal passing on),
all played at once: each player's mean total and share of wins."""

from __future__ import annotations

import argparse

from .options import add_rules_option, positive_int, positive_score


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="+", help="one agent spec per player, in seat order (5, 6 or 7)")
    parser.add_argument("--sessions", type=positive_int, default=200, help="sessions played (all at once)")
    parser.add_argument("--hands", type=positive_int, default=None,
                        help="hands per session (give --hands, --target or both)")
    parser.add_argument("--target", type=positive_score, default=None,
                        help="end a session when a player reaches this score")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    add_rules_option(parser)


def run(args: argparse.Namespace) -> None:
    from evaluation.session import session_report

    print(session_report(args.specs, args.sessions, args.hands, args.target, args.seed, args.rules))
