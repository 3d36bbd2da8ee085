"""Reports of an evaluation: Markdown tables, ratings, JSON and PNG plots, in a run folder.

A run folder holds one run: :func:`claim_folder` refuses one that is not empty
(and checks it can be written before the work starts), and :func:`write`
writes ``results.json`` last and atomically, so a folder with a
``results.json`` is complete and one without it is an interrupted run.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from briscola_env import records
from briscola_env.actions import POINT_BID_OFFSET, action_to_text
from briscola_env.files import write_atomically
from briscola_env.rules import RulesConfig

from .duplicate import DuplicateResult, Edge, TableResult
from .stats import ROLES
from .table_edge import copies

MAX_RATED_GAMES = 20_000  # duels per pair: ratings settle long before, and rating is a Python loop
MIXED_GAMES_FILE = "mixed_games.jsonl"  # the recorded games of the tables with two or three copies of A


NO_INTERVAL = "no CI: 1 deal"
"""What a report says in place of a 95% CI over a single deal: the bootstrap resamples that deal alone, so its
interval is the point itself, which would read as certainty."""


def interval_cell(mean: float, ci: tuple, deals: Optional[int] = None) -> str:
    """``mean`` and its 95% CI ``ci``, over ``deals`` deals (if given): :data:`NO_INTERVAL` for a single deal."""
    if deals is not None and deals < 2:
        return f"{mean:+.3f} ({NO_INTERVAL})"
    return f"{mean:+.3f} ({ci[0]:+.3f}, {ci[1]:+.3f})"


def _edge_cell(edge: Edge, deals: int) -> str:
    return interval_cell(edge.mean, edge.ci, deals)


def edges_table(results: Sequence[DuplicateResult]) -> str:
    """The edges, one row a pair. With a table edge (:class:`.duplicate.TableResult`) it leads, and the
    one-against-four edges follow as its slices k = 1 and k = 4 (each from its lone agent's point of
    view); without (:func:`.duplicate.evaluate_pair`, one-sided), the one-against-four edges alone.
    Over a single deal, a cell says that it has no interval (:data:`NO_INTERVAL`)."""
    if any(isinstance(r, TableResult) for r in results):
        return table_edges_table(results)
    rows = ["| A | B | deals | A's edge per hand (95% CI) | B's edge per hand (95% CI) |",
            "|---|---|---:|---|---|"]
    for r in results:
        cells = [_edge_cell(edge, r.deals) for edge in r.edges()]
        if r.one_sided:
            cells.append(r.NOT_MEASURED)
        rows.append(f"| {r.a} | {r.b} | {r.deals} | {' | '.join(cells)} |")
    return "\n".join(rows)


def _seats(results: Sequence[DuplicateResult]) -> int:
    """The seats of the table the results were played at (one table for a whole report)."""
    return results[0].seats


def table_edges_table(results: Sequence[DuplicateResult]) -> str:
    """A's table edge, the headline, then the one-against-four edges as the slices k = 1 (A alone among
    4 B's) and k = 4 (B alone among 4 A's, B's point of view); a row without a table edge says so. At a
    table of four, among 3 and k = 3."""
    others = _seats(results) - 1
    rows = ["| A | B | deals | tables per deal | A's table edge per hand (95% CI) "
            f"| k = 1: A's edge alone among {others} B's (95% CI) "
            f"| k = {others}: B's edge alone among {others} A's (95% CI) |",
            "|---|---|---:|---:|---|---|---|"]
    for r in results:
        if isinstance(r, TableResult):
            headline = [str(r.table.tables), interval_cell(r.table_edge, r.table_edge_ci, r.deals)]
        else:
            headline = ["-", r.TABLE_EDGE_NOTE]
        cells = [_edge_cell(edge, r.deals) for edge in r.edges()] + ([r.NOT_MEASURED] if r.one_sided else [])
        rows.append(f"| {r.a} | {r.b} | {r.deals} | {' | '.join(headline + cells)} |")
    return "\n".join(rows)


def table_edge_by_k_table(results: Sequence[DuplicateResult]) -> str:
    """A's table edge over the tables with k copies of A, k = 1..4 (the headline's units; the
    headline is their mean weighted 5, 10, 10, 5 by the tables of each k; at four seats k = 1..3,
    weighted 4, 6, 4)."""
    seats = _seats(results)
    slices = [f"k = {k}: {k} A + {seats - k} B" for k in copies(seats)]
    rows = [f"| A | B | A's table edge at {slices[0]} (95% CI) | " + " | ".join(slices[1:]) + " |",
            "|---|---|" + "---|" * len(slices)]
    for r in results:
        if isinstance(r, TableResult):
            cells = [interval_cell(s.edge, s.edge_ci, r.deals) for s in r.table_edge_by_k]
            rows.append(f"| {r.a} | {r.b} | {' | '.join(cells)} |")
    return "\n".join(rows)


def _fmt(value, spec: str = "+.2f") -> str:
    return "-" if value is None else format(value, spec)


STATS_HEADER = ["| agent | among | payoff/hand (95% CI) | as caller | as partner | as defender | solo | wins auction "
                "| contracts made | solo rate | points bids | mean points bid | captured points | cappotto "
                "| bid vs hand value (r) |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def _stats_row(name: str, other: str, s, deals: int) -> str:
    role = [_fmt(s.role_payoff[x]) for x in ROLES]
    return (f"| {name} | {other} | {interval_cell(s.mean_payoff, s.mean_payoff_ci, deals)} | {' | '.join(role)} | "
            f"{s.auction_win_rate:.1%} | {_fmt(s.success_rate, '.1%')} | {_fmt(s.solo_rate, '.1%')} | "
            f"{_fmt(s.points_bid_rate, '.1%')} | {_fmt(s.mean_point_contract, '.1f')} | "
            f"{s.mean_captured_points:.1f} | {s.cappotto_rate:.1%} | {_fmt(s.bid_strength_correlation, '+.2f')} |")


def stats_table(results: Sequence[DuplicateResult]) -> str:
    """Each agent's statistics; one-sided, B's are those of the all-B games (B among B's)."""
    rows = list(STATS_HEADER)
    for r in results:
        rows += [_stats_row(hands.agent, hands.among, hands.stats, r.deals) for hands in r.hands()]
    return "\n".join(rows)


def ratings(results: Sequence[DuplicateResult]) -> dict[str, dict]:
    """OpenSkill (Plackett-Luce) ratings from paired duels: on each deal and
    seat, an agent alone among the other's copies *duels* the other agent
    holding the same cards in the same place at an all-other table; the one
    with the higher payoff wins (equal payoffs draw). Team results would
    credit the lone agent's copies-of-the-opponent teammates as much as him.
    A one-sided evaluation has only A's duels."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {}
    for r in results:
        for name in (r.a, r.b):
            rating.setdefault(name, model.rating(name=name))
        sides = r.edges()
        edges = np.stack([side.per_seat for side in sides], axis=1).reshape(-1)  # deal-major, then side, seat
        side_of = np.tile(np.repeat(np.arange(len(sides)), r.seats), r.deals)
        step = max(1, edges.size // MAX_RATED_GAMES)
        for edge, side in zip(edges[::step], side_of[::step]):
            lone, other = sides[side].agent, sides[side].among
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


def plot(results: Sequence[DuplicateResult], folder: Path) -> list[Path]:
    """PNG plots: edges with 95% CI (table edges first); contract level vs success rate; payoff by role."""
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (a notebook's) is left alone

    folder.mkdir(parents=True, exist_ok=True)
    paths = []

    with_table = sum(isinstance(r, TableResult) for r in results)
    fig = Figure(figsize=(max(4, 2 * len(results) + with_table + 2), 3.5))
    ax = fig.subplots()
    labels, values, low, high = [], [], [], []
    for r in results:
        if isinstance(r, TableResult):
            labels.append(f"{_short(r.a)}\nover {_short(r.b)}\n(table edge)")
            values.append(r.table_edge)
            low.append(r.table_edge - r.table_edge_ci[0])
            high.append(r.table_edge_ci[1] - r.table_edge)
    for edge in (edge for r in results for edge in r.edges()):  # a one-sided result has no bar for B
        labels.append(f"{_short(edge.agent)}\namong {_short(edge.among)}")
        values.append(edge.mean)
        low.append(edge.mean - edge.ci[0])
        high.append(edge.ci[1] - edge.mean)
    colours = ["tab:orange"] * with_table + ["tab:blue"] * (len(labels) - with_table)
    ax.bar(labels, values, yerr=[low, high], capsize=4, color=colours)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("paired edge, payoff per hand (95% CI)")
    fig.tight_layout()
    paths.append(folder / "edges.png")
    fig.savefig(paths[-1], dpi=100)

    fig = Figure(figsize=(8, 3.5))
    ax = fig.subplots()
    order = [_contract_label(b) for b in range(1, POINT_BID_OFFSET)] + ["61+", "71+", "81+", "91+", "101+"]
    for r in results:
        for hands in r.hands():
            g = hands.game
            mine = r.games.caller[g] == hands.seat
            bids, made = r.games.high_bid[g][mine], r.games.contract_made[g][mine]
            labels = np.array([_contract_label(int(b)) for b in bids])
            rates = [made[labels == c].mean() if (labels == c).any() else np.nan for c in order]
            ax.plot(range(len(order)), rates, marker="o", label=f"{_short(hands.agent)} among {_short(hands.among)}")
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
    entries = [(f"{_short(hands.agent)} among {_short(hands.among)}", hands.stats)
               for r in results for hands in r.hands()]
    width = 0.8 / len(entries)
    for k, (label, s) in enumerate(entries):
        values = [s.role_payoff[x] if s.role_payoff[x] is not None else 0.0 for x in ROLES]
        ax.bar(np.arange(len(ROLES)) + k * width, values, width, label=label)
    ax.set_xticks(np.arange(len(ROLES)) + 0.4 - width / 2, list(ROLES))
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_ylabel("mean payoff per hand")
    ax.legend(fontsize=8)
    fig.tight_layout()
    paths.append(folder / "roles.png")
    fig.savefig(paths[-1], dpi=100)
    return paths


def writable_folder(folder: Path, exist_ok: bool = True) -> Path:
    """Create ``folder`` (and its parents) and check that files can be written in it; an
    existing ``folder`` raises FileExistsError unless ``exist_ok``, any other failure ValueError."""
    try:
        folder.mkdir(parents=True, exist_ok=exist_ok)
        tempfile.TemporaryFile(dir=folder).close()
    except FileExistsError:
        if not exist_ok:
            raise
        raise ValueError(f"{folder} is a file, not a folder") from None
    except OSError as error:
        raise ValueError(f"cannot write into {folder}: {error.strerror or error}") from None
    return folder


def writable_file(path: Path, overwrite: bool = False) -> Path:
    """Check, creating nothing, that a file can be written at ``path`` as the checkpoint writers
    do it (creating the folders it lacks): ``path`` is not a folder, not an existing file unless
    ``overwrite`` (a run's checkpoint is never replaced by accident), and its nearest existing
    ancestor is a folder that takes new files; else a ValueError."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; give the name of the file to write")
    if path.exists() and not overwrite:
        raise ValueError(f"{path} exists: give a new file name, or --overwrite to replace it")
    if any(folder.exists() and not folder.is_dir() for folder in path.absolute().parents):
        raise ValueError(f"{path}: a parent of it is a file, not a folder")
    writable_folder(next(folder for folder in path.absolute().parents if folder.exists()))
    return path


def claim_folder(folder: Path, numbered: bool = False) -> Path:
    """Create the run folder ``folder``, or take it if it is empty, and check that it can be
    written: before any work, so that a run never fails at its end for want of a place to write.
    A folder that is not empty is refused, so runs never mix; with ``numbered`` (a default name:
    two runs may start in the same second), the first of ``folder``, ``folder-2``, ``folder-3``...
    that does not exist yet is created instead. Returns the folder claimed."""
    folder = Path(folder)
    if numbered:
        for k in itertools.count(1):
            try:
                return writable_folder(folder if k == 1 else folder.with_name(f"{folder.name}-{k}"), exist_ok=False)
            except FileExistsError:  # an earlier run's, or another run took it a moment ago
                continue
    if folder.is_dir() and any(folder.iterdir()):
        raise ValueError(f"{folder} is not empty: each run writes a folder of its own; choose a new or empty "
                         f"folder (or remove this one)")
    return writable_folder(folder)


def results_markdown(results: Sequence[DuplicateResult], rated: dict) -> str:
    """The edges (with a table edge, then its slices by k), statistics and ratings tables, as
    printed and as written to ``results.md``."""
    tables = [edges_table(results)]
    if any(isinstance(r, TableResult) for r in results):
        tables.append(table_edge_by_k_table(results))
    return "\n\n".join(tables + [stats_table(results), ratings_table(rated)])


def write(results: Sequence[DuplicateResult], rated: dict, folder: Path, meta: dict,
          record_rules: Optional[RulesConfig] = None) -> None:
    """Write the run folder (one :func:`claim_folder` gave): if ``record_rules`` are given, every
    game under them, the twelve (six one-sided) a deal of :func:`.duplicate.duplicate_layout` in
    ``games.jsonl``, and the tables with two or three copies of A of a table edge in
    ``mixed_games.jsonl``; then ``plots/``, ``results.md``, and ``results.json``, last and
    atomically, so that it is there only once everything else is."""
    folder.mkdir(parents=True, exist_ok=True)
    if record_rules is not None:
        for r in results:
            records.write(folder / "games.jsonl", r.records(record_rules))
        for r in results:
            if isinstance(r, TableResult):
                records.write(folder / MIXED_GAMES_FILE, r.mixed_records(record_rules))
    plot(results, folder / "plots")
    write_atomically(folder / "results.md", results_markdown(results, rated) + "\n")
    record = {**meta, "pairs": [r.as_dict() for r in results], "ratings": rated}
    write_atomically(folder / "results.json", json.dumps(record, indent=2))
