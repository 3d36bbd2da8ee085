"""Evaluating agents: fixed, seeded deals played in duplicate, paired differences
with bootstrap confidence intervals, per-agent statistics and ratings
(:mod:`.report`), how well partners hide (:mod:`.concealment`), multi-hand
sessions (:mod:`.session`) and the ``briscola`` command line (:mod:`.cli`)."""

from .duplicate import OneSidedResult, PairResult, evaluate_one_sided, evaluate_pair, round_robin
from .play import play_games

__all__ = ["play_games", "evaluate_pair", "evaluate_one_sided", "round_robin", "PairResult", "OneSidedResult"]
