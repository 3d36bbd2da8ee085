"""Paired duplicate evaluation of agents on the same seeded deals. With two specs, A's table edge over B
(every seating of the two at a table) and A's and B's one-against-four edges; with more, every pair.
Prints Markdown tables (edges, per-agent statistics, OpenSkill ratings) and writes them, results.json
and PNG plots into a run folder of its own."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from agents.registry import AGENTS

from .options import add_rules_option, add_work_arguments, agent_specs_help, positive_int

EPILOG = agent_specs_help


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="+",
                        help=f"agent specs: {', '.join(AGENTS)}, ppo:PATH or package.module:Class, with options "
                             "(listed below), such as heuristic:noise=0.5 (an evaluation seeds every agent itself, "
                             "from --seed)")
    parser.add_argument("--deals", type=positive_int, default=2000,
                        help="deals to play (x32 games per pair; x22 with --tables 20; x6 with --one-sided)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    add_rules_option(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder for results.json, results.md and plots/, new or empty: a folder that is not "
                             "empty is refused, so runs never mix (default runs/evaluate-<time>, numbered -2, -3... "
                             "if taken); results.json is written last, so a folder without it is an unfinished run")
    parser.add_argument("--record", action="store_true",
                        help="also write every game into the run folder: the twelve a deal of the one-against-four "
                             "tables (all-B, A alone at each seat, all-A, B alone at each seat) to games.jsonl, and "
                             "the tables with two or three copies of A to mixed_games.jsonl")
    parser.add_argument("--one-sided", action="store_true",
                        help="two specs only: the first's edge alone, from 6 games a deal instead of 32 (for costly "
                             "agents: search); the same outputs, with B's edge marked not measured and B's statistics "
                             "from the all-B games; no table edge (results.json's table_edge is null, with a note), "
                             "so no --tables")
    parser.add_argument("--tables", type=int, default=None,
                        help="mixed tables a deal for the table edge (default: all 30 seatings of A and B with both "
                             "present, k = 1..4 copies of A); 20 for costly agents: all 5 of k = 1 and of k = 4 (the "
                             "one-against-four games, played anyway) and half of k = 2 and of k = 3, 5 each, drawn "
                             "per deal from --seed with A at every seat equally often within each k (no other count "
                             "keeps that balance and edge(A, B) = -edge(B, A)). Fewer tables make each deal's mean "
                             "noisier, so the interval widens; the bootstrap over deals still covers that noise. With "
                             "--rules four_players every evaluation plays all 14 seatings of a table of four "
                             "(k = 1..3), and 20 is refused")
    add_work_arguments(parser)


def run(args: argparse.Namespace) -> None:
    from evaluation.evaluate import evaluate
    from evaluation.report import MIXED_GAMES_FILE, results_markdown

    results, rated, out = evaluate(args.specs, args.deals, args.seed, args.rules,
                                   args.out or Path("runs") / time.strftime("evaluate-%Y%m%d-%H%M%S"),
                                   args.record, args.one_sided, numbered_out=args.out is None,
                                   tables=args.tables, workers=args.workers, chunk=args.chunk)
    if args.record:
        games = sum(r.games.batch_size for r in results)
        mixed = sum(getattr(r, "mixed_games", 0) for r in results)
        print(f"{games} games recorded in {out / 'games.jsonl'}"
              + (f", {mixed} of the mixed tables in {out / MIXED_GAMES_FILE}" if mixed else ""), file=sys.stderr)
    print(f"results in {out}", file=sys.stderr)
    print(results_markdown(results, rated))
