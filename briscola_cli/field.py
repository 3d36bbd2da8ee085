"""An agent's table edge over a fixed, documented field of opponents (its worst member is the
headline), with the lone member's gain among four copies of the agent and the agent's auction
alone among four of each member. The field and the figures are described below the options."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import evaluation.field
from evaluation.field import FIELD, SEARCH_TABLES

from .options import add_rules_option, add_work_arguments, positive_int


def field_account() -> str:
    """The help's epilog: :mod:`evaluation.field`'s account of the field, and its members."""
    members = "\n".join(f"  {m.spec}: {m.about}" for m in FIELD)
    return f"{evaluation.field.__doc__}\n\nThe field:\n{members}"


EPILOG = field_account


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", help="the agent measured")
    parser.add_argument("--deals", type=positive_int, default=2000,
                        help="deals against each member that does not search")
    parser.add_argument("--search-deals", type=int, default=300,
                        help=f"deals against the searching member, on {SEARCH_TABLES} tables a deal (0: leave it out)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    add_rules_option(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for field.md and results.json, new or empty (default: print only)")
    add_work_arguments(parser)


def run(args: argparse.Namespace) -> None:
    from tqdm import tqdm

    from briscola_env import __version__
    from briscola_env.files import write_atomically
    from evaluation.field import field_games, field_json, field_markdown, measure_field
    from evaluation.parallel import check_workers
    from evaluation.report import claim_folder

    if args.search_deals < 0:
        raise ValueError(f"--search-deals must be 0 (no search) or more; got {args.search_deals}")
    rules = args.rules
    check_workers(args.workers)
    out = claim_folder(args.out) if args.out is not None else None
    total = field_games(args.spec, args.deals, args.search_deals, rules.table_shape.seats)
    with tqdm(total=total, unit="game", desc="field", file=sys.stderr) as bar:
        rows = measure_field(args.spec, args.deals, args.search_deals, args.seed, rules, args.workers, args.chunk,
                             progress=lambda games: bar.update(games - bar.n))
    table = field_markdown(args.spec, rows)
    if out is not None:
        write_atomically(out / "field.md", table + "\n")
        meta = {"version": __version__, "deals": args.deals, "search_deals": args.search_deals, "seed": args.seed,
                "rules": rules.to_dict()}
        write_atomically(out / "results.json", json.dumps(field_json(args.spec, rows, meta), indent=1) + "\n")
        print(f"results in {out}", file=sys.stderr)
    print(table)
