"""Train a partner-belief model (which seat is the caller's partner, from a player's view) on games
of agents, and measure it on held-out games: the model briscola concealment measures partners against."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_rules_option, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="+", help="agent specs; each seat of each game is drawn from them")
    parser.add_argument("--games", type=positive_int, default=20_000,
                        help="games to fit the model on (a tenth more are held out to measure it)")
    parser.add_argument("--epochs", type=positive_int, default=4, help="passes of the fit over the games' views")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals, the agents and the fit")
    add_rules_option(parser)
    parser.add_argument("--out", type=Path, default=Path("runs/belief.pt"), help="where to save the model")


def run(args: argparse.Namespace) -> None:
    from training.belief_model import train_belief_model

    print(train_belief_model(args.specs, args.games, args.seed, args.rules, args.out, args.epochs))
