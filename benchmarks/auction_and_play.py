"""An agent's auction and its card play measured apart, each against the heuristic.

    python -m benchmarks.auction_and_play ppo:checkpoints/best.pt ppo:checkpoints/strong.pt --deals 2000 --seed 2027

For each agent X, two hybrids (:mod:`agents.hybrid`) play the heuristic, each on the same deals:

- **card play**: ``hybrid:auction=heuristic,play=X``, X's card play (and a monte's discards) behind the
  heuristic's auction and call: what X's play is worth with an auction that is not its own;
- **auction**: ``hybrid:auction=X,play=heuristic``, X's bids and call with the heuristic's card play.

and X itself, whole. Each figure is the table edge over the heuristic (every seating of the two, 95%
bootstrap interval over deals). The two parts do not add up to the whole: an auction is worth what the
play behind it makes of its contracts. Prints a Markdown table; ``--out FILE`` also writes it as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from tqdm import tqdm

from agents import make_agent
from evaluation import evaluate_table
from evaluation.report import interval_cell

PARTS = {"card play": "hybrid:auction=heuristic,play=[{}]", "auction": "hybrid:auction=[{}],play=heuristic",
         "whole": "{}"}


def measure(specs: list[str], deals: int, seed: int, done: Callable[[dict], None] = lambda row: None) -> list[dict]:
    """Each spec's table edge over the heuristic, by part (:data:`PARTS`), on the same deals; ``done(row)``
    after each spec's row."""
    rows = []
    with tqdm(total=len(specs) * len(PARTS), desc="auction and play", unit="pair", file=sys.stderr) as bar:
        for spec in specs:
            row = {"agent": spec}
            for part, form in PARTS.items():
                hybrid = form.format(spec)
                result = evaluate_table(make_agent(hybrid, seed=seed), make_agent("heuristic", seed=seed + 1), deals,
                                        seed, names=(hybrid, "heuristic"))
                row[part] = {"spec": hybrid, "table_edge": result.table_edge, "ci": list(result.table_edge_ci)}
                bar.update(1)
            rows.append(row)
            done(row)
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| agent | card play: its play, the heuristic's auction | auction: its auction, the heuristic's play "
             "| whole |", "|---|---|---|---|"]
    lines += [f"| {row['agent']} | " + " | ".join(interval_cell(row[part]["table_edge"], row[part]["ci"])
                                                    for part in PARTS) + " |" for row in rows]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", help="the agents measured")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="a JSON file for the figures")
    args = parser.parse_args(argv)
    def save(row: dict) -> None:  # each row as it is done: a long run leaves what it measured
        print(markdown([row]).splitlines()[-1], flush=True)
        if args.out is not None:
            rows.append(row)
            args.out.write_text(json.dumps({"deals": args.deals, "seed": args.seed, "rows": rows}, indent=1) + "\n")

    rows: list[dict] = []
    print(markdown(measure(args.specs, args.deals, args.seed, save)))


if __name__ == "__main__":
    main()
