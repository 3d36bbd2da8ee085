"""An agent against a fixed field of opponents (``briscola field SPEC``): is it strong against any
kind of player, not just the one it trained against?

The field (:data:`FIELD`) is documented and fixed, so that figures from different agents and
versions compare:

- the heuristic at five auction levels (``heuristic:bid=-1`` most cautious to ``bid=1`` most
  aggressive; 0 is the plain heuristic): auctions from a defence-first player to an overbidder;
- hybrids of the heuristic's auction with a network's card play (:mod:`agents.hybrid`): learned
  play behind a cautious, rule-based auction, the style the shipped networks lost to;
- every shipped network (``checkpoints/``);
- search, ``pimc:worlds=32``, on fewer deals and 20 tables a deal (it costs about a thousand
  times a network's decision).

For each member, the agent's table edge over it (:mod:`.table_edge`: every seating of the two,
95% bootstrap interval over deals), the lone member's gain among four copies of the agent (the
one-against-four edge of the member at the agent's own table: a positive figure is a player the
agent's table feeds), and the agent's auction when alone among four of the member: auctions won,
contracts made, solo calls and its mean payoff as solo caller. The minimum edge over the field is
the headline: an agent is robust when even its worst opponent's interval lies below its edge.

A member that is the agent itself is left out (its edge is 0 by construction): the same spec, or a
network in a file of the same bytes (``checkpoints/best.pt`` and the shipped file it copies)."""

from __future__ import annotations

import filecmp
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from agents import make_agent
from briscola_env.rules import RulesConfig, resolve_rules

import numpy as np

from .duplicate import TableResult, duplicate_layout, evaluate_table, games_per_deal
from .parallel import ray_for
from .report import interval_cell

SEARCH_TABLES = 20  # mixed tables a deal for a member that searches (all 30 for the others)
CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"  # the shipped networks the members name


def resolved(spec: str) -> str:
    """A member's spec with its ``checkpoints/`` networks found in the repository, wherever the command runs."""
    return spec.replace("ppo:checkpoints/", f"ppo:{CHECKPOINTS}/")


@dataclass(frozen=True)
class Member:
    """One opponent of the field: its agent spec, what it stands for, and whether it searches (then it
    plays ``search_deals`` deals on :data:`SEARCH_TABLES` tables a deal)."""

    spec: str
    about: str
    search: bool = False


SHIPPED = ("held_defence.pt", "imitation.pt", "field.pt", "league_exploiter.pt", "strong.pt", "league.pt", "no_demo.pt",
           "distilled.pt")
"""The shipped networks in ``checkpoints/`` the field holds, by the names that never change meaning (best.pt is
a copy of the headline one among them, so it is not played twice)."""

FIELD: tuple[Member, ...] = (
    Member("heuristic:bid=-1", "the heuristic, most cautious auction"),
    Member("heuristic:bid=-0.5", "the heuristic, cautious auction"),
    Member("heuristic", "the heuristic"),
    Member("heuristic:bid=0.5", "the heuristic, bold auction"),
    Member("heuristic:bid=1", "the heuristic, most aggressive auction"),
    Member("hybrid:auction=heuristic,play=ppo:checkpoints/league_exploiter.pt",
           "the heuristic's auction, league_exploiter.pt's card play"),
    Member("hybrid:auction=heuristic,play=ppo:checkpoints/strong.pt", "the heuristic's auction, strong.pt's card play"),
    Member("hybrid:auction=heuristic,play=ppo:checkpoints/imitation.pt",
           "the heuristic's auction, imitation.pt's card play"),
    *(Member(f"ppo:checkpoints/{name}", f"shipped network {name}") for name in SHIPPED),
    Member("pimc:worlds=32", "search: perfect-information Monte Carlo, 32 worlds, heuristic rollouts", search=True),
)


@dataclass
class FieldRow:
    """The agent against one member: the member, the deals and tables a deal played, the result."""

    member: Member
    deals: int
    tables: Optional[int]
    result: TableResult


def same_agent(spec: str, other: str) -> bool:
    """Whether two specs are the same agent: the same text, or ``ppo:`` networks in files of the same bytes
    (best.pt and the shipped file it copies)."""
    if spec == other:
        return True
    files = [Path(s[len("ppo:"):]) for s in (spec, other) if s.startswith("ppo:") and "," not in s]
    return len(files) == 2 and all(f.is_file() for f in files) and filecmp.cmp(*files, shallow=False)


def field_members(spec: str, search_deals: int) -> list[Member]:
    """The members ``spec`` plays: the field but itself, and without search when ``search_deals`` is 0."""
    return [m for m in FIELD if not same_agent(spec, resolved(m.spec)) and (search_deals or not m.search)]


def measure_field(spec: str, deals: int = 2000, search_deals: int = 300, seed: int = 0,
                  rules: Optional[RulesConfig] = None, workers: int = 0, chunk: Optional[int] = None,
                  progress: Optional[Callable[[int], None]] = None) -> list[FieldRow]:
    """``spec``'s table edge over every member of :data:`FIELD` (but itself), each on ``deals`` deals
    (``search_deals`` on :data:`SEARCH_TABLES` tables for a member that searches; 0 leaves search out),
    every pair on the same deals from ``seed``. Every agent is built before any game is played, so a bad
    spec or a missing network fails at once. ``progress(games)`` after each chunk, with the games played
    so far over the whole field; ``workers`` and ``chunk`` as for :func:`.duplicate.evaluate_table`."""
    if deals < 1 or search_deals < 0:
        raise ValueError(f"the field needs deals >= 1 and search_deals >= 0; got {deals} and {search_deals}")
    rules = resolve_rules(rules)
    members = field_members(spec, search_deals)
    agent = make_agent(spec, seed=seed, rules=rules)
    opponents = []
    for i, member in enumerate(members):
        try:
            opponents.append(make_agent(resolved(member.spec), seed=seed + 1 + i, rules=rules))
        except ValueError as error:
            raise ValueError(f"field member {member.spec!r} cannot be built: {error}") from None
    rows, done = [], 0
    with ray_for(workers):
        for member, opponent in zip(members, opponents):
            n, tables = (search_deals, SEARCH_TABLES) if member.search else (deals, None)
            before = done
            result = evaluate_table(agent, opponent, n, seed, rules, tables, names=(spec, member.spec), workers=workers,
                                    chunk=chunk,
                                    progress=progress and (lambda games, start=before: progress(start + games)))
            done = before + n * games_per_deal(tables, rules.table_shape.seats)
            rows.append(FieldRow(member, n, tables, result))
    return rows


def field_games(spec: str, deals: int, search_deals: int, seats: int) -> int:
    """The games :func:`measure_field` plays (for a progress bar)."""
    return sum(search_deals * games_per_deal(SEARCH_TABLES, seats) if m.search else deals * games_per_deal(None, seats)
               for m in field_members(spec, search_deals))


def own_table(result: TableResult) -> dict:
    """The agent's own table, five copies of it (the all-A games of ``result``, one a deal): the share of
    hands with a contract, and of those contracts the share made."""
    all_a = np.flatnonzero((duplicate_layout(result.deals, seats=result.seats) == 0).all(axis=1))
    games = result.games.take(all_a)
    called = games.caller >= 0
    return {"hands": int(len(all_a)), "contract_rate": float(called.mean()),
            "contracts_made": float(games.contract_made[called].mean()) if called.any() else None}


def _rate(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.0%}"


def _payoff(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:+.2f}"


def field_markdown(spec: str, rows: list[FieldRow]) -> str:
    """The field's table (one row a member), then its minimum edge, in Markdown."""
    lines = [f"{spec} against the field (table edge: every seating of the two; lone member: one copy of the member "
             "among four of the agent; the agent's auction: one copy of it among four of the member)", "",
             "| member | deals | table edge (95% CI) | lone member's gain (95% CI) | agent wins auction | "
             "its contracts made | its solo calls | its solo payoff |",
             "|---|---:|---|---|---:|---:|---:|---:|"]
    for row in rows:
        r, stats = row.result, row.result.stats_a
        deals = f"{row.deals}" + (f", {row.tables} tables" if row.tables else "")
        lines.append(f"| {row.member.spec} | {deals} | {interval_cell(r.table_edge, r.table_edge_ci, row.deals)} | "
                     f"{interval_cell(r.edge_b, r.edge_b_ci, row.deals)} | {_rate(stats.auction_win_rate)} | "
                     f"{_rate(stats.success_rate)} | {_rate(stats.solo_rate)} | "
                     f"{_payoff(stats.role_payoff.get('solo'))} |")
    worst = min(rows, key=lambda row: row.result.table_edge).result
    every = "yes" if all(row.result.table_edge_ci[0] > 0 for row in rows) else "no"
    own = own_table(rows[0].result)
    lines += ["", f"at its own table (five copies, {own['hands']} deals): a contract in {_rate(own['contract_rate'])} "
                  f"of the hands, {_rate(own['contracts_made'])} of them made"]
    minimum = interval_cell(worst.table_edge, worst.table_edge_ci, worst.deals)
    lines += ["", f"minimum table edge over the field: {minimum} "
                  f"against {worst.b}; every interval above 0: {every}"]
    return "\n".join(lines)


def field_json(spec: str, rows: list[FieldRow], meta: dict) -> dict:
    """What ``results.json`` of ``briscola field --out`` holds: the settings, each member's figures."""
    return {**meta, "spec": spec, "members": [
        {"spec": row.member.spec, "about": row.member.about, "deals": row.deals, "tables": row.tables or 30,
         "table_edge": row.result.table_edge, "table_edge_ci": list(row.result.table_edge_ci),
         "lone_member_gain": row.result.edge_b, "lone_member_gain_ci": list(row.result.edge_b_ci),
         "agent_alone": row.result.stats_a.as_dict()} for row in rows],
        "minimum_table_edge": min(row.result.table_edge for row in rows), "own_table": own_table(rows[0].result)}
