"""The ``briscola`` command line.

    briscola evaluate random random --deals 2000 --seed 0 --out runs/eval
    briscola evaluate SPEC SPEC [SPEC ...] [--rules PRESET] [--deals N] [--seed S] [--out DIR]

Agent specs are those of :func:`agents.make_agent`. With two specs, A's and
B's paired edges (see :mod:`evaluation.duplicate`); with more, every pair on
the same deals. Prints Markdown tables (edges, per-agent statistics,
OpenSkill ratings) and writes them, ``results.json`` and PNG plots into
``--out``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from tqdm import tqdm

from agents import make_agent
from briscola_env import __version__, preset
from briscola_env.rules import PRESETS

from .duplicate import PairResult, round_robin
from .report import edges_table, ratings, ratings_table, stats_table, write


def evaluate(specs: list[str], deals: int, seed: int, rules_name: str,
             out: Optional[Path]) -> tuple[list[PairResult], dict]:
    """The Python API behind ``briscola evaluate``: the pair results and the ratings."""
    if len(specs) < 2:
        raise ValueError("evaluate needs at least two agent specs")
    agents = [make_agent(spec, seed=seed + i) for i, spec in enumerate(specs)]
    names = [spec if specs.count(spec) == 1 else f"{spec}#{i}" for i, spec in enumerate(specs)]
    pairs = len(specs) * (len(specs) - 1) // 2
    with tqdm(total=deals * pairs, unit="deal", desc="evaluate", file=sys.stderr) as bar:
        done = [0]

        def progress(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n if n < deals else 0

        results = round_robin(agents, names, deals, seed, preset(rules_name), progress=progress)
    rated = ratings(results)
    if out is not None:
        write(results, rated, out, {"version": __version__, "specs": specs, "deals": deals, "seed": seed,
                                    "rules": rules_name})
    return results, rated


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="briscola", description="Briscola Chiamata toolkit")
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser("evaluate", help="paired duplicate evaluation of agents")
    ev.add_argument("specs", nargs="+", help="agent specs: random, random:seed=3, package.module:Class")
    ev.add_argument("--deals", type=int, default=2000, help="deals to play (x12 games per pair)")
    ev.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    ev.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    ev.add_argument("--out", type=Path, default=None, help="folder for results.json and results.md")
    args = parser.parse_args(argv)
    try:
        results, rated = evaluate(args.specs, args.deals, args.seed, args.rules, args.out)
    except ValueError as error:
        parser.error(str(error))
    print("\n\n".join([edges_table(results), stats_table(results), ratings_table(rated)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
