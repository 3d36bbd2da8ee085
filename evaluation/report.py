"""Reports of an evaluation: Markdown tables, ratings, JSON and PNG plots."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from briscola_env.actions import POINT_BID_OFFSET, action_to_text
from briscola_env.cards import NUM_SEATS

from .duplicate import GAMES_PER_DEAL, OneSidedResult, PairResult
from .stats import ROLES

MAX_RATED_GAMES = 20_000  # duels per pair: ratings settle long before, and rating is a Python loop


def edges_table(results: list[PairResult]) -> str:
    rows = ["| A | B | deals | A's edge per hand (95% CI) | B's edge per hand (95% CI) |",
            "|---|---|---:|---|---|"]
    for r in results:
        rows.append(f"| {r.a} | {r.b} | {r.deals} | {r.edge_a:+.3f} ({r.edge_a_ci[0]:+.3f}, {r.edge_a_ci[1]:+.3f}) "
                    f"| {r.edge_b:+.3f} ({r.edge_b_ci[0]:+.3f}, {r.edge_b_ci[1]:+.3f}) |")
    return "\n".join(rows)


def _fmt(value, spec: str = "+.2f") -> str:
    return "-" if value is None else format(value, spec)


STATS_HEADER = ["| agent | among | payoff/hand (95% CI) | as caller | as partner | as defender | solo | wins auction "
                "| contracts made | solo rate | points bids | mean points bid | captured points | cappotto "
                "| bid vs hand value (r) |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def _stats_row(name: str, other: str, s) -> str:
    role = [_fmt(s.role_payoff[x]) for x in ROLES]
    ci = s.mean_payoff_ci
    return (f"| {name} | {other} | {s.mean_payoff:+.3f} ({ci[0]:+.3f}, {ci[1]:+.3f}) | {' | '.join(role)} | "
            f"{s.auction_win_rate:.1%} | {_fmt(s.success_rate, '.1%')} | {_fmt(s.solo_rate, '.1%')} | "
            f"{_fmt(s.points_bid_rate, '.1%')} | {_fmt(s.mean_point_contract, '.1f')} | "
            f"{s.mean_captured_points:.1f} | {s.cappotto_rate:.1%} | {_fmt(s.bid_strength_correlation, '+.2f')} |")


def stats_table(results: list[PairResult]) -> str:
    rows = list(STATS_HEADER)
    for r in results:
        rows += [_stats_row(r.a, r.b, r.stats_a), _stats_row(r.b, r.a, r.stats_b)]
    return "\n".join(rows)


def one_sided_table(r: OneSidedResult) -> str:
    """A's edge and A's statistics among B's, as Markdown."""
    return "\n".join(["| A | B | deals | A's edge per hand (95% CI) |", "|---|---|---:|---|",
                      f"| {r.a} | {r.b} | {r.deals} | {r.edge_a:+.3f} ({r.edge_a_ci[0]:+.3f}, {r.edge_a_ci[1]:+.3f}) |",
                      "", *STATS_HEADER, _stats_row(r.a, r.b, r.stats_a)])


def ratings(results: list[PairResult]) -> dict[str, dict]:
    """OpenSkill (Plackett-Luce) ratings from paired duels: on each deal and
    seat, an agent alone among the other's copies *duels* the other agent
    holding the same cards in the same place at an all-other table; the one
    with the higher payoff wins (equal payoffs draw). Team results would
    credit the lone agent's copies-of-the-opponent teammates as much as him."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {}
    for r in results:
        for name in (r.a, r.b):
            rating.setdefault(name, model.rating(name=name))
        edges = np.stack([r.per_seat_a, r.per_seat_b], axis=1).reshape(-1, 2 * NUM_SEATS)  # deal-major
        step = max(1, edges.size // MAX_RATED_GAMES)
        for k, edge in enumerate(edges.reshape(-1)[::step]):
            lone, other = (r.a, r.b) if (k * step) % (2 * NUM_SEATS) < NUM_SEATS else (r.b, r.a)
            ranks = [0, 0] if edge == 0 else ([0, 1] if edge > 0 else [1, 0])
            [[rating[lone]], [rating[other]]] = model.rate([[rating[lone]], [rating[other]]], ranks=ranks)
    return {name: {"mu": p.mu, "sigma": p.sigma, "ordinal": p.ordinal()} for name, p in rating.items()}


def ratings_table(rated: dict[str, dict]) -> str:
    rows = ["| agent | rating (mu - 3 sigma) | mu | sigma |", "|---|---:|---:|---:|"]
    for name, r in sorted(rated.items(), key=lambda item: -item[1]["ordinal"]):
        rows.append(f"| {name} | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} |")
    return "\n".join(rows)


def _contract_label(bid: int) -> str:
    if bid < POINT_BID_OFFSET:
        return action_to_text(bid).split()[1]
    points = bid - POINT_BID_OFFSET + 61
    low = 61 if points <= 70 else (points - 1) // 10 * 10 + 1
    return f"{low}+"


def _short(name: str, width: int = 24) -> str:
    return name if len(name) <= width else "…" + name[-(width - 1):]


def plot(results: list[PairResult], folder: Path) -> list[Path]:
    """PNG plots: edges with 95% CI; contract level vs success rate; payoff by role."""
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (a notebook's) is left alone

    folder.mkdir(parents=True, exist_ok=True)
    paths = []

    fig = Figure(figsize=(max(4, 2 * len(results) + 2), 3.5))
    ax = fig.subplots()
    labels, values, low, high = [], [], [], []
    for r in results:
        for name, other, edge, ci in ((r.a, r.b, r.edge_a, r.edge_a_ci), (r.b, r.a, r.edge_b, r.edge_b_ci)):
            labels.append(f"{_short(name)}\namong {_short(other)}")
            values.append(edge)
            low.append(edge - ci[0])
            high.append(ci[1] - edge)
    ax.bar(labels, values, yerr=[low, high], capsize=4, color="tab:blue")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("paired edge, payoff per hand (95% CI)")
    fig.tight_layout()
    paths.append(folder / "edges.png")
    fig.savefig(paths[-1], dpi=100)

    fig = Figure(figsize=(8, 3.5))
    ax = fig.subplots()
    order = [_contract_label(b) for b in range(1, POINT_BID_OFFSET)] + ["61+", "71+", "81+", "91+", "101+"]
    for r in results:
        for name, alone in ((r.a, 0), (r.b, 1)):
            games = np.arange(r.deals)[:, None] * GAMES_PER_DEAL + alone * (1 + NUM_SEATS) + 1 + np.arange(NUM_SEATS)
            seat = np.tile(np.arange(NUM_SEATS), r.deals)
            g = games.ravel()
            mine = r.games.caller[g] == seat
            bids, made = r.games.high_bid[g][mine], r.games.contract_made[g][mine]
            labels = np.array([_contract_label(int(b)) for b in bids])
            rates = [made[labels == c].mean() if (labels == c).any() else np.nan for c in order]
            ax.plot(range(len(order)), rates, marker="o", label=f"{_short(name)} among {_short((r.b, r.a)[alone])}")
    ax.set_xticks(range(len(order)), order)
    ax.set_xlabel("contract (rank bid, or points bid band)")
    ax.set_ylabel("contracts made")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(folder / "contracts.png")
    fig.savefig(paths[-1], dpi=100)

    fig = Figure(figsize=(8, 3.5))
    ax = fig.subplots()
    entries = ([(f"{_short(r.a)} among {_short(r.b)}", r.stats_a) for r in results]
               + [(f"{_short(r.b)} among {_short(r.a)}", r.stats_b) for r in results])
    width = 0.8 / len(entries)
    for k, (label, s) in enumerate(entries):
        values = [s.role_payoff[x] if s.role_payoff[x] is not None else 0.0 for x in ROLES]
        ax.bar(np.arange(len(ROLES)) + k * width, values, width, label=label)
    ax.set_xticks(np.arange(len(ROLES)) + 0.4 - width / 2, ROLES)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("mean payoff per hand")
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(folder / "roles.png")
    fig.savefig(paths[-1], dpi=100)
    return paths


def write(results: list[PairResult], rated: dict, folder: Path, meta: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    record = {**meta, "pairs": [r.as_dict() for r in results], "ratings": rated}
    (folder / "results.json").write_text(json.dumps(record, indent=2))
    (folder / "results.md").write_text("\n\n".join([edges_table(results), stats_table(results),
                                                    ratings_table(rated)]) + "\n")
    plot(results, folder / "plots")
