"""The secret-partner ablation measured: how well each arm's partners hide, and what it costs or gains at the table.

    python -m benchmarks.secret_partner --runs runs/secret_partner --seeds 1,2,3 --out benchmarks/results/secret_partner

For each arm (``--arms``: the run names of ``configs/secret_partner.yaml``'s arms, the first the control) and
seed, the run's final network X (``RUNS/ARM-SEED/checkpoint.pt``):

1. **A fresh observer.** A partner-belief model (:mod:`agents.belief`) fitted on ``--belief-games`` games of X at
   every seat (deals of the ``"belief-train"`` stream: none of the run's training deals, which come from
   ``"train-env"``, nor of the measurement's), as ``briscola belief`` fits one; saved in ``RUNS/beliefs/``.
2. **Concealment.** On ``--games`` held-out hands of X at every seat (the ``"concealment"`` stream of ``--seed``),
   that model's accuracy at naming the partner from the defenders' views before the reveal, by trick
   (:mod:`evaluation.concealment`: a uniform guess among the three other non-callers scores 1/3); the headline is
   its mean over tricks 1-4, weighted by views.
3. **The table.** X's table edge over the heuristic and over the control arm's network of the same seed, and
   X's mean payoff by role alone among four heuristics, on ``--deals`` deals (every seating, seed ``--seed``).

Each figure per seed, then per arm the mean over seeds and, against control, the mean paired difference (seed
by seed: the same seed gives both arms the same deals and the same start) with a Student-t 95% interval over the
seeds (3 seeds: 2 degrees of freedom; a bootstrap over three values would understate the spread). Each (arm,
seed) is saved as it finishes (``OUT/parts/``, with the settings it was measured with), so a rerun with the same
settings continues where it stopped (one with others is refused); ``--aggregate-only`` summarises saved parts
alone (arms measured at different times, under the same settings). Writes ``OUT/results.json`` and
``OUT/results.md``.

With ``--auction SPEC`` every network (the control's too) is measured behind that auction: X is
``hybrid:auction=[SPEC],play=[X]``, SPEC bidding and calling, X playing the cards. It tells an arm's card play,
where the partner hides, from its auction, which a stage can change too.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats
from tqdm import tqdm

from agents import make_agent
from agents.belief import BeliefModel
from briscola_env.rules import preset
from evaluation import evaluate_table
from evaluation.concealment import concealment
from evaluation.report import interval_cell
from training.belief_model import train_belief_model

ARMS = ("sp_control", "sp_inference", "sp_concealment", "sp_both")
EARLY_TRICKS = 4
"""The headline's tricks: 1 to 4, where the partner still has most of his hand to hide behind."""
ROLES = ("caller", "partner", "defender")
OBSERVER_SEED = 100
"""The fresh observer of training seed S is fitted on the games of seed OBSERVER_SEED + S (of the
``"belief-train"`` stream): each network its own games, none the measurement's."""


def network(runs: Path, arm: str, seed: int) -> str:
    path = runs / f"{arm}-{seed}" / "checkpoint.pt"
    if not (runs / f"{arm}-{seed}" / "summary.md").exists():  # written when a run ends
        raise FileNotFoundError(f"{path}: no finished run of arm {arm}, seed {seed} (train it first: "
                                f"configs/secret_partner.yaml)")
    return f"ppo:{path}"


def measured_agent(network_spec: str, auction: str | None) -> str:
    """The agent measured for a run's network: the network, or its card play behind ``auction``."""
    return network_spec if auction is None else f"hybrid:auction=[{auction}],play=[{network_spec}]"


def measure_part(runs: Path, arm: str, control: str, seed: int, args) -> dict:
    """Steps 1-3 of the module's docstring for one arm and seed."""
    spec, rules = measured_agent(network(runs, arm, seed), args.auction), preset("standard")
    belief_path = runs / "beliefs" / f"{arm}-{seed}.pt"  # beside the runs: models, not results
    train_belief_model([spec], args.belief_games, seed=OBSERVER_SEED + seed, rules=rules, out=belief_path, epochs=4)
    result = concealment(BeliefModel.load(belief_path), make_agent(spec, seed=args.seed, rules=rules), arm,
                         args.games, seed=args.seed)
    accuracy = np.array([a if a is not None else np.nan for a in result.accuracy["defender"]], dtype=float)
    views = np.array(result.views["defender"], dtype=float)
    early = slice(0, EARLY_TRICKS)
    part = {"arm": arm, "seed": seed, "network": spec, "measured_with": measured_with(args, control),
            "defender_accuracy_by_trick": result.accuracy["defender"],
            "defender_views_by_trick": result.views["defender"],
            "defender_accuracy_tricks_1_4": float(np.nansum(accuracy[early] * views[early]) / views[early].sum()),
            "contracts_made_own_table": result.contracts_made}
    heuristic = evaluate_table(make_agent(spec, seed=args.seed), make_agent("heuristic", seed=args.seed + 1),
                               args.deals, args.seed, names=(spec, "heuristic"))
    part["edge_over_heuristic"] = [heuristic.table_edge, list(heuristic.table_edge_ci)]
    part["role_payoff_among_heuristics"] = {role: heuristic.stats_a.role_payoff.get(role) for role in ROLES}
    if arm != control:
        other = measured_agent(network(runs, control, seed), args.auction)
        versus = evaluate_table(make_agent(spec, seed=args.seed), make_agent(other, seed=args.seed + 1),
                                args.deals, args.seed, names=(spec, other))
        part["edge_over_control"] = [versus.table_edge, list(versus.table_edge_ci)]
    return part


def measured_with(args, control: str) -> dict:
    """The settings a part's figures depend on: a saved part is reused only under the same."""
    settings = {"control": control, "belief_games": args.belief_games, "games": args.games, "deals": args.deals,
                "seed": args.seed}
    return settings if args.auction is None else settings | {"auction": args.auction}


def saved_part(path: Path, args, control: str) -> dict:
    """The part saved at ``path``, if it was measured with these settings; otherwise an error naming the
    difference (reusing it would mix measurements)."""
    part = json.loads(path.read_text())
    wanted = measured_with(args, control)
    if part.get("measured_with") != wanted:
        raise SystemExit(f"{path} was measured with {part.get('measured_with')}, not {wanted}: give another --out, "
                         "or delete it to measure it again")
    return part


def t_interval(values) -> tuple[float, list]:
    """The mean of ``values`` (one per seed) and its Student-t 95% interval."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if len(values) < 2:
        return mean, [mean, mean]
    half = float(scipy_stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)))
    return mean, [mean - half, mean + half]


def figures_of(rows: list[dict]) -> dict:
    """Each figure of one arm, seed by seed."""
    return {"defender_accuracy_tricks_1_4": [r["defender_accuracy_tricks_1_4"] for r in rows],
            "edge_over_heuristic": [r["edge_over_heuristic"][0] for r in rows],
            **{f"{role}_payoff": [r["role_payoff_among_heuristics"][role] for r in rows] for role in ROLES},
            **({"edge_over_control": [r["edge_over_control"][0] for r in rows]} if "edge_over_control" in rows[0]
               else {})}


def summarise(parts: list[dict], arms: list[str], seeds: list[int]) -> dict:
    """Per arm: each figure's mean over seeds with its t-interval, and against control (``arms[0]``) the paired
    differences of the defenders' accuracy and of the payoff as defender."""
    by = {(p["arm"], p["seed"]): p for p in parts}
    control = figures_of([by[arms[0], s] for s in seeds])
    summary = {}
    for arm in arms:
        figures = figures_of([by[arm, s] for s in seeds])
        entry = {name: {"per_seed": values, "mean_ci": t_interval(values)} for name, values in figures.items()}
        if arm != arms[0]:
            for name in ("defender_accuracy_tricks_1_4", "defender_payoff"):
                difference = [a - c for a, c in zip(figures[name], control[name])]
                entry[f"{name}_minus_control"] = {"per_seed": difference, "mean_ci": t_interval(difference)}
        summary[arm] = entry
    return summary


def markdown(summary: dict, arms: list[str]) -> str:
    def cell(entry):
        mean, ci = entry["mean_ci"]
        return interval_cell(mean, ci)

    lines = ["| arm | defenders' accuracy, tricks 1-4 | minus control | edge over heuristic | edge over control "
             "| payoff as defender | minus control | as caller | as partner |", "|---|" + "---|" * 8]
    for arm in arms:
        s, empty = summary[arm], "-"
        lines.append(f"| {arm} | {cell(s['defender_accuracy_tricks_1_4'])} | "
                     f"{cell(s['defender_accuracy_tricks_1_4_minus_control']) if arm != arms[0] else empty} | "
                     f"{cell(s['edge_over_heuristic'])} | "
                     f"{cell(s['edge_over_control']) if arm != arms[0] else empty} | {cell(s['defender_payoff'])} | "
                     f"{cell(s['defender_payoff_minus_control']) if arm != arms[0] else empty} | "
                     f"{cell(s['caller_payoff'])} | {cell(s['partner_payoff'])} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, help="the folder holding the arms' run folders")
    parser.add_argument("--aggregate-only", action="store_true",
                        help="measure nothing: summarise the parts already in OUT/parts (refused if one is missing)")
    parser.add_argument("--arms", default=",".join(ARMS), help="run names, the control first (default: %(default)s)")
    parser.add_argument("--seeds", default="1,2,3", help="training seeds (default: %(default)s)")
    parser.add_argument("--belief-games", type=int, default=5000, help="games each fresh observer is fitted on")
    parser.add_argument("--games", type=int, default=2000, help="held-out hands of the concealment measurement")
    parser.add_argument("--deals", type=int, default=300, help="deals of each table edge (every seating)")
    parser.add_argument("--seed", type=int, default=2027, help="seeds the measurement's deals and agents")
    parser.add_argument("--auction", metavar="SPEC",
                        help="measure each network's card play behind this agent's auction and call")
    parser.add_argument("--out", type=Path, required=True, help="folder for parts/, results.json and results.md")
    args = parser.parse_args(argv)
    arms, seeds = args.arms.split(","), [int(s) for s in args.seeds.split(",")]
    if len(arms) < 2:
        parser.error("--arms: name the control and at least one arm")
    folder = args.out / "parts"
    if args.aggregate_only:
        missing = [f"{arm}-{seed}" for arm in arms for seed in seeds if not (folder / f"{arm}-{seed}.json").exists()]
        if missing:
            parser.error(f"--aggregate-only: no saved part in {folder} for {', '.join(missing)}")
    elif args.runs is None:
        parser.error("--runs is required, unless --aggregate-only")
    else:
        if args.auction is not None:
            try:
                make_agent(args.auction)
            except ValueError as error:
                parser.error(f"--auction: {error}")
        for arm in arms:
            for seed in seeds:
                network(args.runs, arm, seed)  # every run finished, before anything is measured
    folder.mkdir(parents=True, exist_ok=True)
    parts = []
    with tqdm(total=len(arms) * len(seeds), desc="secret partner", unit="run", file=sys.stderr) as bar:
        for arm in arms:
            for seed in seeds:
                saved = folder / f"{arm}-{seed}.json"
                if not saved.exists():
                    part = measure_part(args.runs, arm, arms[0], seed, args)
                    saved.write_text(json.dumps(part, indent=1))
                parts.append(saved_part(saved, args, arms[0]))
                bar.update(1)
    summary = summarise(parts, arms, seeds)
    (args.out / "results.json").write_text(json.dumps({"settings": {k: str(v) for k, v in vars(args).items()},
                                                       "parts": parts, "summary": summary}, indent=1))
    table = markdown(summary, arms)
    (args.out / "results.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
