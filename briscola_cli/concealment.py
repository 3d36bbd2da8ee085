"""How well each population's partners hide from a belief model (briscola belief): for each spec,
that agent at every seat, and the belief's accuracy and log-loss on the partner by trick and viewer,
on deals of their own stream (a model trained on any of them is refused)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_rules_option, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="+", help="one population per spec (that agent at every seat)")
    parser.add_argument("--belief", type=Path, required=True, help="a model from: briscola belief ...")
    parser.add_argument("--games", type=positive_int, default=2000, help="games per population")
    parser.add_argument("--seed", type=int, default=0,
                        help="seeds the deals (from their own stream, never the belief model's) and the agents")
    add_rules_option(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for concealment.md, .json and .png, new or empty (one that is not empty is "
                             "refused)")


def run(args: argparse.Namespace) -> None:
    from evaluation.concealment import concealment_report

    print(concealment_report(args.specs, args.belief, args.games, args.seed, args.rules, args.out))
