"""Contracts at an agent's own table: five copies of it on the same deals.

    python -m benchmarks.own_table ppo:checkpoints/imitation.pt \
        "hybrid:auction=ppo:checkpoints/imitation.pt,play=ppo:checkpoints/imitation.pt,defend=ppo:checkpoints/held_defence.pt"

For each agent, the share of hands with a contract, the share of those contracts made, the caller's side's mean
points, and the mean payoff of the caller and of a defender in those hands, each with a 95% bootstrap interval
over deals (what a seat gives up when it passes a hand it could call). How often contracts are made at a table
is set by the auction (how high and how often it bids) and by the card play of both sides: a hybrid whose
``defend`` part differs from its ``play`` part (:mod:`agents.hybrid`) moves the defence alone, the auction
and the caller's side fixed, which tells a miscalibrated auction from a strong defence. ``briscola field``
prints the first two figures for the agent it measures ("at its own table").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents import make_agent
from agents.play import play_games
from briscola_env.engine import MAX_SEED
from evaluation.bootstrap import bootstrap_ci


def measure(spec: str, deals: int, seed: int) -> dict:
    """Five copies of ``spec`` on ``deals`` deals drawn from ``seed`` (the deals ``briscola evaluate
    --seed`` plays): contract rate, contracts made, the caller's side's points, the caller's and a defender's payoff
    in the hands with a contract, each with its interval."""
    deal_seeds = np.random.default_rng(seed).integers(0, MAX_SEED, deals)
    state, _ = play_games([make_agent(spec, seed=seed)], np.zeros((deals, 5), dtype=np.int64), deal_seeds)
    called = state.caller >= 0
    if not called.any():
        return {"agent": spec, "deals": deals, "contract": 0.0, "contract_ci": [0.0, 0.0]}
    rng = np.random.default_rng(seed)
    made = state.contract_made[called].astype(float)
    points = state.team_points[called].astype(float)
    games = np.flatnonzero(called)
    caller, partner = state.caller[games], state.hidden.partner[games]
    defends = np.ones((len(games), state.rewards.shape[1]), dtype=bool)
    defends[np.arange(len(games)), caller] = defends[np.arange(len(games)), partner] = False
    payoffs = state.rewards[games].astype(float)
    caller_payoff = payoffs[np.arange(len(games)), caller]
    defender_payoff = (payoffs * defends).sum(axis=1) / defends.sum(axis=1)
    return {"agent": spec, "deals": deals,
            "contract": float(called.mean()), "contract_ci": list(bootstrap_ci(called.astype(float), rng)),
            "made": float(made.mean()), "made_ci": list(bootstrap_ci(made, rng)),
            "points": float(points.mean()), "points_ci": list(bootstrap_ci(points, rng)),
            "caller_payoff": float(caller_payoff.mean()), "caller_payoff_ci": list(bootstrap_ci(caller_payoff, rng)),
            "defender_payoff": float(defender_payoff.mean()),
            "defender_payoff_ci": list(bootstrap_ci(defender_payoff, rng))}


COLUMNS = (("contract", ".0%"), ("made", ".0%"), ("points", ".1f"), ("caller_payoff", "+.3f"),
           ("defender_payoff", "+.3f"))


def _cell(row: dict, key: str, form: str) -> str:
    if key not in row:
        return "-"
    low, high = row[f"{key}_ci"]
    return f"{row[key]:{form}} ({low:{form}}, {high:{form}})"


def markdown(rows: list[dict]) -> str:
    lines = ["| agent (five copies) | deals | hands with a contract | contracts made | caller's side's points "
             "| caller's payoff | a defender's payoff |", "|---|---:|---|---|---|---|---|"]
    for row in rows:
        cells = [_cell(row, key, form) for key, form in COLUMNS]
        lines.append(f"| {row['agent']} | {row['deals']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="+", help="the agents measured, each at a table of five copies of itself")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    parser.add_argument("--out", type=Path, default=None, help="a JSON file for the figures")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error(f"--deals must be at least 2 (an interval needs two deals); got {args.deals}")
    rows = []
    for spec in tqdm(args.specs, desc="own tables", unit="agent", file=sys.stderr):
        rows.append(measure(spec, args.deals, args.seed))
        print(markdown(rows[-1:]).splitlines()[-1], flush=True)
        if args.out is not None:  # each row as it is done: a long run leaves what it measured
            args.out.write_text(json.dumps({"deals": args.deals, "seed": args.seed, "rows": rows}, indent=1) + "\n")
    print(markdown(rows))


if __name__ == "__main__":
    main()
