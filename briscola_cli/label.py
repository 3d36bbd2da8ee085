"""Labels for distillation (training.labelling): games of a mix of agents, and at a sampled share of
the decisions a search's values of the legal actions (or a teacher's action), written in chunk files.
Run it again with the same options to go on where it stopped."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from training.labelling import DEFAULT_SEARCH

from .options import add_rules_option, positive_int


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                        help="agent specs; each seat of each game is one of them, drawn uniformly (strong agents for "
                             "the positions good play reaches, random for coverage)")
    labeller = parser.add_mutually_exclusive_group()
    labeller.add_argument("--search",
                          help=f"the labeller, an agent that values actions (default: {DEFAULT_SEARCH})")
    labeller.add_argument("--teacher", metavar="SPEC",
                          help="label with this agent's actions instead (imitation: any agent, a hybrid say)")
    parser.add_argument("--deals", type=positive_int, default=2000, help="deals to play")
    parser.add_argument("--share", type=float, default=0.25,
                        help="share of the decisions with more than one legal action that are labelled")
    parser.add_argument("--chunk", type=positive_int, default=100, help="deals a chunk file (and a Ray task)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals, the seating and the agents")
    add_rules_option(parser)
    parser.add_argument("--workers", type=int, default=0,
                        help="0: label in this process; N: chunks as Ray tasks on a local Ray of N CPUs, or on the "
                             "cluster at RAY_ADDRESS (--out on a file system every node shares); the same files")
    parser.add_argument("--out", type=Path, required=True,
                        help="the labels' folder: new, empty, or this plan's to go on")


def run(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    from briscola_env.rules import rules_text
    from evaluation.parallel import check_workers
    from training.labelling import LabelPlan, label

    check_workers(args.workers)
    plan = LabelPlan(players=tuple(args.players), search=args.search, teacher=args.teacher, deals=args.deals,
                     share=args.share, chunk=args.chunk, seed=args.seed, rules=rules_text(args.rules))
    with tqdm(total=plan.chunks, desc="label", unit="chunk", file=sys.stderr) as bar:
        labelled = label(plan, args.out, args.workers, progress=lambda done: bar.update(done - bar.n))
    print(f"{labelled:,} labelled decisions from {plan.deals:,} deals in {args.out}")
