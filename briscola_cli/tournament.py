"""Plays the agents on mixed tables (several seatings of the population on each deal) and rates
each one by its contribution to a seat's payoff over the heuristic's (the first agent's
without it), the luck of the cards cancelled; plus OpenSkill ratings from the same games."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .options import add_rules_option, add_work_arguments, agent_specs_help, positive_int

EPILOG = agent_specs_help


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="+", help="two agent specs or more (the same spec twice is two agents)")
    parser.add_argument("--deals", type=positive_int, default=1000, help="deals to play")
    parser.add_argument("--tables-per-deal", type=positive_int, default=None,
                        help="tables (seatings) played on each deal, at least 2 (default: as many as agents, so "
                             "that each deal seats every agent at every seat)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals, the seatings and the agents")
    add_rules_option(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder for results.json, results.md and plots/, new or empty: a folder that is "
                             "not empty is refused (default runs/tournament-<time>, numbered -2, -3... if taken); "
                             "results.json is written last")
    add_work_arguments(parser)


def run(args: argparse.Namespace) -> None:
    from evaluation.tournament import results_markdown, tournament

    start = time.perf_counter()
    result, out = tournament(args.specs, args.deals, args.tables_per_deal, args.seed, args.rules,
                             args.out or Path("runs") / time.strftime("tournament-%Y%m%d-%H%M%S"),
                             numbered_out=args.out is None, workers=args.workers, chunk=args.chunk)
    print(f"results in {out} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    print(results_markdown(result))
