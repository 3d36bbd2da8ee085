"""Tournaments: a population of agents rated on mixed tables.

**Design.** On each deal, ``tables_per_deal`` tables are played, each a seating of five agents
(four under four-player rules: every seat below is one of the rules' table) of the population
(an agent may hold several seats of a table). For each seat, the agents of
successive tables come from a fresh random permutation of the population per cycle of
``lcm(tables_per_deal, agents)`` tables, taken in turn: so every agent sits at every seat
equally often (to within one table), and the tables of one deal put different agents in the
same seat (all of them when there are no more agents than tables). Each seat's agents of a deal
are then dealt out to its tables in a random order of their own: the seats being drawn apart,
the tables mix the population and every agent meets every other.

**Rating.** Least-squares ratings with the cards' luck cancelled, bootstrap intervals over deals,
and OpenSkill from the same tables: :mod:`.ratings`.

**Playing.** The deals are played in chunks (:func:`.parallel.deal_chunks`), every table of a
chunk in one batch, each chunk a piece of work computed from its own inputs alone, with every
agent reseeded from the run seed, the chunk's index and the agent's place in the population: the
same results in this process and as Ray tasks (``--workers``), whatever their number.

``briscola tournament SPEC SPEC ...`` (:mod:`briscola_cli.tournament`, through :func:`tournament`)
prints the table and writes ``results.md``, ``plots/ratings.png`` and, last, ``results.json``
into a run folder of its own (:mod:`evaluation.report`).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

import numpy as np
from tqdm import tqdm

from agents import Agent, make_agent
from agents.play import play_games
from briscola_env import __version__
from briscola_env.cards import NUM_SEATS
from briscola_env.files import write_atomically
from briscola_env.rules import RulesConfig, resolve_rules
from briscola_env.seeds import deal_seeds as purpose_deal_seeds

from .bootstrap import SAMPLES as BOOTSTRAP_SAMPLES
from .bootstrap import percentile_interval
from .parallel import check_workers, chunk_size, deal_chunks, piece_seed, run_pieces
from .ratings import bootstrap_ratings, check_identified, fit_ratings, openskill_ratings
from .report import claim_folder, interval_cell

DEAL_PURPOSE = "tournament"  # the deal stream of briscola_env.seeds: disjoint from the training deals
PINNED_AGENT = "heuristic"  # pinned at rating 0 when in the population
_AGENT_STREAM = "tournament-agents"  # the agents' seeds per chunk, keyed apart from the deals' and seating's draws


# --- the design ---------------------------------------------------------------------------------

def seating_design(agents: int, deals: int, tables_per_deal: int, rng: np.random.Generator,
                   seats: int = NUM_SEATS) -> np.ndarray:
    """``(deals, tables_per_deal, seats)``: the agent (an index below ``agents``) at each seat of each
    table of each deal, as the module docstring describes."""
    if agents < 1 or deals < 1 or tables_per_deal < 1:
        raise ValueError(f"a design needs at least one agent, deal and table; got {agents}, {deals}, "
                         f"{tables_per_deal}")
    slots = deals * tables_per_deal  # per seat, table by table, deal-major
    cycle = math.lcm(tables_per_deal, agents)  # whole deals and whole permutations: no deal straddles two cycles
    cycles = -(-slots // cycle)
    orders = rng.permuted(np.tile(np.arange(agents), (seats, cycles, 1)), axis=2)  # [seat, cycle, k]
    slot = np.arange(slots)
    seated = orders[:, slot // cycle, slot % agents].T.reshape(deals, tables_per_deal, seats)
    # Which table of a deal gets which of a seat's agents is free: drawn for each (deal, seat), so that
    # the tables of a cycle are not the same few seatings over and over.
    return rng.permuted(seated, axis=1)


def seat_counts(seating: np.ndarray, agents: int) -> np.ndarray:
    """``(agents, seats)``: how many tables had each agent at each seat."""
    return np.stack([np.bincount(seating[..., s].ravel(), minlength=agents) for s in range(seating.shape[-1])],
                    axis=1)


def meetings(seating: np.ndarray, agents: int) -> np.ndarray:
    """``(agents, agents)``: at how many tables each pair of agents sat together (an agent with
    itself: the tables where it held two seats or more)."""
    seats = seating.shape[-1]
    tables = seating.reshape(-1, seats)
    present = np.zeros((len(tables), agents), dtype=np.int64)
    np.add.at(present, (np.repeat(np.arange(len(tables)), seats), tables.ravel()), 1)
    together = (present > 0).astype(np.int64)
    met = together.T @ together
    np.fill_diagonal(met, (present > 1).sum(axis=0))
    return met


# --- playing and the result -------------------------------------------------------------------

@dataclass
class TournamentResult:
    """What a tournament measured; ratings per hand over the pinned agent's, with 95% intervals."""

    names: list
    specs: list
    deals: int
    tables_per_deal: int
    pinned: int  # the agent whose rating is 0
    ratings: np.ndarray  # (agents,)
    ratings_ci: np.ndarray  # (agents, 2)
    openskill: dict  # name -> mu, sigma, ordinal
    bootstrap_left_out: int  # resamples that did not identify the ratings
    deal_seeds: np.ndarray = field(repr=False)
    seating: np.ndarray = field(repr=False)  # (deals, tables, seats) agent indices
    payoffs: np.ndarray = field(repr=False)  # (deals, tables, seats)
    bootstrap: np.ndarray = field(repr=False)  # (kept samples, agents) refitted ratings

    @property
    def order(self) -> list[int]:
        """The agents, highest rating first."""
        return sorted(range(len(self.names)), key=lambda k: -self.ratings[k])

    def difference(self, a: int, b: int) -> tuple[float, tuple[float, float]]:
        """Agent ``a``'s rating minus ``b``'s, with its 95% interval (from the same resamples)."""
        return float(self.ratings[a] - self.ratings[b]), \
            percentile_interval(self.bootstrap[:, a] - self.bootstrap[:, b])

    def mean_payoffs(self) -> np.ndarray:
        """Each agent's raw mean payoff per seat held (luck included)."""
        agents = len(self.names)
        held = np.bincount(self.seating.ravel(), minlength=agents)
        return np.bincount(self.seating.ravel(), self.payoffs.ravel(), minlength=agents) / np.maximum(held, 1)

    def as_dict(self) -> dict:
        agents = len(self.names)
        counts, mean = seat_counts(self.seating, agents), self.mean_payoffs()
        return {"deals": self.deals, "tables_per_deal": self.tables_per_deal, "pinned": self.names[self.pinned],
                "agents": [{"name": self.names[k], "spec": self.specs[k], "rating": float(self.ratings[k]),
                            "rating_ci": [float(x) for x in self.ratings_ci[k]], "openskill": self.openskill[
                                self.names[k]], "seats": int(counts[k].sum()), "mean_payoff": float(mean[k])}
                           for k in self.order],
                "differences": [{"a": self.names[a], "b": self.names[b], "difference": d, "ci": list(ci)}
                                for a, b in combinations(self.order, 2) for d, ci in [self.difference(a, b)]],
                "design": {"seat_counts": counts.tolist(), "meetings": meetings(self.seating, agents).tolist()},
                "bootstrap": {"samples": BOOTSTRAP_SAMPLES, "left_out": self.bootstrap_left_out}}


def _pinned_index(names: Sequence[str], pin: Optional[str]) -> int:
    if pin is not None:
        if pin not in names:
            raise ValueError(f"the agent to pin at 0, {pin!r}, is not in the population: {', '.join(names)}")
        return list(names).index(pin)
    return list(names).index(PINNED_AGENT) if PINNED_AGENT in names else 0


@dataclass
class TournamentPlan:
    """What a tournament will play, drawn before anything is: the deals, the seating, the pinned agent."""

    seed: int
    tables_per_deal: int
    pinned: int
    deal_seeds: np.ndarray  # (deals,)
    seating: np.ndarray  # (deals, tables, seats) agent indices


def plan_tournament(agents: Sequence[Agent], names: Sequence[str], deals: int, tables_per_deal: Optional[int] = None,
                    seed: int = 0, pin: Optional[str] = None, seats: int = NUM_SEATS) -> TournamentPlan:
    """Check a tournament's arguments and draw its deals (the ``"tournament"`` stream of ``seed``)
    and seating (:func:`seating_design`, from ``seed``) at tables of ``seats`` (those of the rules to be
    played: :func:`play_planned` refuses a plan of another table); ``tables_per_deal``
    defaults to as many as agents, so that every deal seats every agent at every seat. ``pin``
    names the agent rated 0 (default: ``heuristic`` if in the population, else the first)."""
    if len(agents) < 2 or len(names) != len(agents):
        raise ValueError(f"a tournament needs at least two agents, each with a name; got {len(agents)} agents "
                         f"and {len(names)} names")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a whole number of at least 1; got {deals!r}")
    tables = len(agents) if tables_per_deal is None else tables_per_deal
    if isinstance(tables, bool) or not isinstance(tables, (int, np.integer)) or tables < 2:
        raise ValueError("tables per deal must be a whole number of at least 2: with one, no two agents ever hold "
                         f"the same cards, and the ratings are not identified; got {tables!r}")
    pinned = _pinned_index(names, pin)
    seeds = purpose_deal_seeds(DEAL_PURPOSE, seed, int(deals))
    seating = seating_design(len(agents), int(deals), int(tables), np.random.default_rng(seed), seats)
    check_identified(seating, len(agents), pinned)
    return TournamentPlan(seed, int(tables), pinned, seeds, seating)


@dataclass(frozen=True)
class _Chunk:
    """One piece of a tournament (:func:`_play_chunk`): all it is played from."""

    agents: tuple
    rules: Optional[RulesConfig]
    seed: int  # the run's
    index: int  # the chunk's, from 0
    deal_seeds: np.ndarray  # (n,)
    seating: np.ndarray  # (n, tables, seats)


def _play_chunk(chunk: _Chunk) -> np.ndarray:
    """A chunk's payoffs ``(n, tables, seats)``, from the chunk alone (so the same in this process and in
    a Ray worker): every agent reseeded from the run seed, the chunk's index and its own."""
    for k, agent in enumerate(chunk.agents):
        agent.reset(piece_seed(chunk.seed, _AGENT_STREAM, chunk.index, k))
    n, tables, seats = chunk.seating.shape
    state, _ = play_games(chunk.agents, chunk.seating.reshape(-1, seats), np.repeat(chunk.deal_seeds, tables),
                          chunk.rules)
    return state.rewards.reshape(n, tables, seats).astype(np.float64)


def play_planned(plan: TournamentPlan, agents: Sequence[Agent], names: Sequence[str],
                 rules: Optional[RulesConfig] = None, chunk: Optional[int] = None,
                 specs: Optional[Sequence[str]] = None, progress: Optional[Callable[[int], None]] = None,
                 workers: int = 0) -> TournamentResult:
    """Play ``plan``'s tables, every table of ``chunk`` deals in one batch (None:
    :func:`.parallel.chunk_size`'s default), each batch a piece of work, in this process
    (``workers=0``) or as Ray tasks on ``workers`` CPUs (the agents pickled to them: :mod:`.parallel`),
    with the same results; ``progress(n)`` after each, with the deals done. Then rate the agents:
    least squares with its bootstrap, and OpenSkill. The agents are reseeded for each batch from
    the plan's seed and the batch's index: the same plan and chunk, the same games, whatever the
    workers."""
    workers = check_workers(workers)
    seats = resolve_rules(rules).table_shape.seats
    if plan.seating.shape[-1] != seats:
        raise ValueError(f"the plan seats {plan.seating.shape[-1]} a table and these rules {seats}: plan it with "
                         f"plan_tournament(..., seats={seats})")
    cuts = deal_chunks(len(plan.deal_seeds), chunk)
    pieces = [_Chunk(tuple(agents), rules, plan.seed, index, plan.deal_seeds[cut], plan.seating[cut])
              for index, cut in enumerate(cuts)]
    payoffs = np.concatenate(run_pieces(_play_chunk, pieces, workers,
                                        progress and (lambda done: progress(cuts[done - 1].stop))))
    deals, tables = plan.seating.shape[:2]
    agent_count = len(agents)
    ratings = fit_ratings(plan.seating, payoffs, agent_count, plan.pinned)
    # The intervals draw from a generator of their own, as evaluation.duplicate's (seed + 1).
    resampled, left_out = bootstrap_ratings(plan.seating, payoffs, agent_count, plan.pinned,
                                            np.random.default_rng(plan.seed + 1))
    return TournamentResult(list(names), list(specs or names), deals, tables, plan.pinned, ratings,
                            np.array([percentile_interval(resampled[:, k]) for k in range(agent_count)]),
                            openskill_ratings(plan.seating, payoffs, names), left_out, plan.deal_seeds, plan.seating,
                            payoffs, resampled)


def play_tournament(agents: Sequence[Agent], names: Sequence[str], deals: int, tables_per_deal: Optional[int] = None,
                    seed: int = 0, rules: Optional[RulesConfig] = None, chunk: Optional[int] = None,
                    pin: Optional[str] = None, specs: Optional[Sequence[str]] = None,
                    progress: Optional[Callable[[int], None]] = None, workers: int = 0) -> TournamentResult:
    """Rate ``agents`` (named ``names``; ``specs`` for the record) on ``deals`` deals:
    :func:`plan_tournament`, then :func:`play_planned`."""
    check_workers(workers)
    plan = plan_tournament(agents, names, deals, tables_per_deal, seed, pin, resolve_rules(rules).table_shape.seats)
    return play_planned(plan, agents, names, rules, chunk, specs, progress, workers)


# --- reports ------------------------------------------------------------------------------------



def results_markdown(result: TournamentResult) -> str:
    """The ratings table and the pairwise differences, as printed and written to ``results.md``."""
    counts, mean = seat_counts(result.seating, len(result.names)), result.mean_payoffs()
    pinned = result.names[result.pinned]
    how = "" if pinned == PINNED_AGENT else f" ({PINNED_AGENT} is not in the population: the first agent is pinned)"
    lines = [f"{result.deals} deals x {result.tables_per_deal} tables; ratings per hand over {pinned}'s, "
             f"luck of the cards cancelled (95% CI, bootstrap over deals){how}", "",
             "| rank | agent | rating (95% CI) | OpenSkill (mu - 3 sigma) | mu | sigma | seats | raw payoff/seat |",
             "|---:|---|---|---:|---:|---:|---:|---:|"]
    for rank, k in enumerate(result.order, 1):
        skill = result.openskill[result.names[k]]
        ci = "pinned at 0" if k == result.pinned else \
            interval_cell(result.ratings[k], result.ratings_ci[k], result.deals)
        lines.append(f"| {rank} | {result.names[k]} | {ci} | {skill['ordinal']:.2f} | {skill['mu']:.2f} | "
                     f"{skill['sigma']:.2f} | {counts[k].sum()} | {mean[k]:+.3f} |")
    lines += ["", "| A | B | A's rating - B's (95% CI) |", "|---|---|---|"]
    for a, b in combinations(result.order, 2):
        difference = interval_cell(*result.difference(a, b), result.deals)
        lines.append(f"| {result.names[a]} | {result.names[b]} | {difference} |")
    if result.bootstrap_left_out:
        lines += ["", f"{result.bootstrap_left_out} of {BOOTSTRAP_SAMPLES} bootstrap resamples left out: their deals "
                      "did not identify the ratings"]
    return "\n".join(lines)


def plot(result: TournamentResult, folder: Path) -> Path:
    """``ratings.png``: each agent's rating with its 95% CI, beside its OpenSkill ordinal."""
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (a notebook's) is left alone

    folder.mkdir(parents=True, exist_ok=True)
    order = result.order[::-1]  # the best at the top
    labels = [result.names[k] for k in order]
    fig = Figure(figsize=(9, 1.2 + 0.5 * len(order)))
    left, right = fig.subplots(1, 2, sharey=True)
    values = result.ratings[order]
    errors = np.abs(result.ratings_ci[order].T - values)
    left.barh(labels, values, xerr=errors, capsize=4, color="tab:blue")
    left.axvline(0, color="black", linewidth=0.8)
    left.set_xlabel(f"rating: payoff per hand over {result.names[result.pinned]} (95% CI)")
    right.barh(labels, [result.openskill[name]["ordinal"] for name in labels], color="tab:orange")
    right.set_xlabel("OpenSkill (mu - 3 sigma)")
    fig.tight_layout()
    path = folder / "ratings.png"
    fig.savefig(path, dpi=100)
    return path


def write(result: TournamentResult, folder: Path, meta: dict) -> None:
    """Write the run folder (one :func:`.report.claim_folder` gave): ``plots/ratings.png``,
    ``results.md``, then ``results.json``, last and atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    plot(result, folder / "plots")
    write_atomically(folder / "results.md", results_markdown(result) + "\n")
    write_atomically(folder / "results.json", json.dumps({**meta, **result.as_dict()}, indent=2))


def tournament(specs: list[str], deals: int, tables_per_deal: Optional[int], seed: int, rules: Union[RulesConfig, str],
               out: Optional[Path], numbered_out: bool = False, workers: int = 0,
               chunk: Optional[int] = None) -> tuple[TournamentResult, Optional[Path]]:
    """The Python API behind ``briscola tournament``: the result and the run folder written (none
    if ``out`` is None; see :func:`.report.claim_folder` for ``numbered_out``). Every argument is
    checked, and the plan drawn, before the folder is claimed; the folder before anything is played.
    ``workers`` and ``chunk`` as for :func:`play_planned` (``chunk`` recorded in ``results.json``)."""
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least two agent specs; got {len(specs)}")
    workers = check_workers(workers)
    purpose_deal_seeds(DEAL_PURPOSE, seed, 0)  # a bad seed said as such, before the agents are seeded with it
    rules = resolve_rules(rules)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    names = [spec if specs.count(spec) == 1 else f"{spec}#{i}" for i, spec in enumerate(specs)]
    plan = plan_tournament(agents, names, deals, tables_per_deal, seed, seats=rules.table_shape.seats)
    chunk = chunk_size(deals, chunk)  # checked, and as resolved: it decides the games of agents that draw
    if out is not None:
        out = claim_folder(out, numbered_out)
    with tqdm(total=deals, unit="deal", desc="tournament", file=sys.stderr) as bar:
        result = play_planned(plan, agents, names, rules, chunk, specs, lambda n: bar.update(n - bar.n), workers)
    if out is not None:
        write(result, out, {"version": __version__, "specs": specs, "seed": seed, "rules": rules.to_dict(),
                            "chunk": chunk})
    return result, out

