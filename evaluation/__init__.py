"""Evaluating agents: fixed, seeded deals played in duplicate, paired differences
with bootstrap confidence intervals, per-agent statistics and ratings
(:mod:`.report`), how well partners hide (:mod:`.concealment`), multi-hand
sessions (:mod:`.session`) and the ``briscola`` command line (:mod:`.cli`)."""

from agents.play import play_games

from .duplicate import OneSidedResult, PairResult, evaluate_one_sided, evaluate_pair, round_robin

__all__ = ["play_games", "evaluate_pair", "evaluate_one_sided", "round_robin", "PairResult", "OneSidedResult"]
