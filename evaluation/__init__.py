"""Evaluating agents: fixed, seeded deals played in duplicate, paired differences
with bootstrap confidence intervals (:mod:`.evaluate`, a run folder of them), the mixed-table
edge (:mod:`.table_edge`), per-agent statistics and ratings (:mod:`.report`), tournaments of a
population (:mod:`.tournament`), aggregates over training seeds (:mod:`.sweep`), how well
partners hide (:mod:`.concealment`), multi-hand sessions (:mod:`.session`), work
spread over Ray tasks (:mod:`.parallel`); the ``briscola`` command line is :mod:`briscola_cli`."""

from agents.play import play_games

from .duplicate import (OneSidedResult, PairResult, TableResult, evaluate_one_sided, evaluate_pair, evaluate_table,
                        round_robin)

__all__ = ["play_games", "evaluate_pair", "evaluate_one_sided", "evaluate_table", "round_robin", "PairResult",
           "OneSidedResult", "TableResult"]
