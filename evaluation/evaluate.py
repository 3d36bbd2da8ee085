"""Paired duplicate evaluation of two agents or more on the same seeded deals, with a run folder:
the Python API behind ``briscola evaluate``.

With two specs, A's table edge over B (:mod:`.table_edge`) and A's and B's one-against-four paired
edges (:mod:`.duplicate`); with more, every pair on the same deals. The run folder
(:mod:`.report`) holds the Markdown tables (edges, per-agent statistics, OpenSkill ratings),
``results.json`` and PNG plots: one that is not empty is refused, and ``results.json``, written
last, is there only when the run finished.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Union

from tqdm import tqdm

from agents import make_agent
from briscola_env import __version__
from briscola_env.rules import RulesConfig, resolve_rules

from .duplicate import DuplicateResult, evaluate_one_sided, games_per_deal, lone_games, round_robin
from .parallel import check_workers, chunk_size
from .report import claim_folder, ratings, write
from .table_edge import check_tables


def check_evaluation(specs: list[str], record: bool, one_sided: bool, tables: Optional[int],
                     out: Optional[Path]) -> None:
    """A ValueError if the options do not go together (before anything is built or played)."""
    if one_sided and len(specs) != 2:
        raise ValueError("--one-sided evaluates exactly two agent specs: the first against the second")
    if one_sided and tables is not None:
        raise ValueError("--tables chooses the mixed tables of the table edge, and --one-sided plays none (only A "
                         "alone among four B's), so it has no table edge: drop one of them")
    if len(specs) < 2:
        raise ValueError("evaluate needs at least two agent specs")
    if record and out is None:
        raise ValueError("recording games needs a run folder to write them into")


def evaluate(specs: list[str], deals: int, seed: int, rules: Union[RulesConfig, str], out: Optional[Path],
             record: bool = False, one_sided: bool = False, numbered_out: bool = False,
             tables: Optional[int] = None, workers: int = 0,
             chunk: Optional[int] = None) -> tuple[list[DuplicateResult], dict, Optional[Path]]:
    """The pair results (:class:`.duplicate.TableResult`, with each pair's table edge), the ratings, and
    the run folder written (none if ``out`` is None; see :func:`.report.claim_folder` for ``numbered_out``).
    ``tables``: the mixed tables a deal of :func:`.duplicate.evaluate_table`, 30 (None) or 20. One-sided,
    exactly two specs: the first's edge alone, among four of the second (an :class:`.duplicate.OneSidedResult`:
    no table edge, so no ``tables``). ``workers``: 0 plays in this process, N > 0 as Ray tasks on N CPUs
    (:mod:`.parallel`), with the same results; ``chunk``: deals a piece of work (default:
    :func:`.parallel.chunk_size`'s). Progress goes to stderr."""
    check_evaluation(specs, record, one_sided, tables, out)
    rules = resolve_rules(rules)  # a RulesConfig, or a rules string (briscola_env.rules.parse_rules)
    seats = rules.table_shape.seats
    if not one_sided:
        tables = check_tables(tables, seats)
    workers = check_workers(workers)
    chunk = chunk_size(deals, chunk)  # checked, and as resolved: it decides the games of agents that draw
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    names = [spec if specs.count(spec) == 1 else f"{spec}#{i}" for i, spec in enumerate(specs)]
    if out is not None:
        out = claim_folder(out, numbered_out)
    pairs = len(specs) * (len(specs) - 1) // 2
    per_pair = deals * (lone_games(seats) if one_sided else games_per_deal(tables, seats))
    with tqdm(total=per_pair * pairs, unit="game", desc="evaluate", file=sys.stderr) as bar:
        done = [0]

        def progress(n: int) -> None:  # n: this pair's games so far
            bar.update(n - done[0])
            done[0] = n if n < per_pair else 0

        if one_sided:
            results = [evaluate_one_sided(*agents, deals, seed, rules, chunk, names=tuple(names),
                                          progress=lambda n: progress(n * lone_games(seats)), workers=workers)]
        else:
            results = round_robin(agents, names, deals, seed, rules, tables, workers, chunk=chunk, progress=progress)
    rated = ratings(results)
    if out is not None:
        write(results, rated, out, {"version": __version__, "specs": specs, "deals": deals, "seed": seed,
                                    "rules": rules.to_dict(), "one_sided": one_sided, "tables": tables,
                                    "chunk": chunk, "recorded": record},
              record_rules=rules if record else None)
    return results, rated, out
