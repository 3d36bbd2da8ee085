"""Evaluating agents: fixed, seeded deals played in duplicate, paired differences
with bootstrap confidence intervals, and the ``briscola`` command line."""

from .duplicate import PairResult, evaluate_pair, round_robin
from .play import play_games

__all__ = ["play_games", "evaluate_pair", "round_robin", "PairResult"]
