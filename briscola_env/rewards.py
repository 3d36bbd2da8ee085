"""What a finished hand pays each seat, under the reward options of the
environments: ``"payoff"`` (session points, the default), ``"points"``
(the card points of one's side, over 120) or ``"win_loss"`` (+1 for the
winning side, -1 for the losing one)."""

from __future__ import annotations

import numpy as np

from .cards import TOTAL_POINTS
from .engine import State

REWARD_MODES = ("payoff", "points", "win_loss")


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}; got {mode!r}")
    return mode


def rewards_for(mode: str, payoffs: np.ndarray, caller: np.ndarray, partner: np.ndarray,
                team_points: np.ndarray, made: np.ndarray) -> np.ndarray:
    """``(n, seats)`` float32 rewards of n finished hands under ``mode`` (0 for a void hand,
    whose caller is -1). ``payoffs`` ``(n, seats)`` are the session points the rules give."""
    if mode == "payoff":
        return np.asarray(payoffs, dtype=np.float32)
    caller, partner = np.asarray(caller), np.asarray(partner)
    seats = np.arange(np.shape(payoffs)[1])
    with_caller = (seats == caller[:, None]) | (seats == partner[:, None])
    played = (caller >= 0)[:, None]
    if mode == "points":
        team = np.asarray(team_points, dtype=np.float32)[:, None]
        return (np.where(with_caller, team, TOTAL_POINTS - team) * played / TOTAL_POINTS).astype(np.float32)
    won = np.where(np.asarray(made), 1.0, -1.0)[:, None]
    return (np.where(with_caller, won, -won) * played).astype(np.float32)


def hand_rewards(state: State, g: np.ndarray, mode: str) -> np.ndarray:
    """``(len(g), seats)`` float32 rewards of the finished games ``g`` of an engine state."""
    return rewards_for(mode, state.rewards[g], state.caller[g], state.hidden.partner[g],
                       state.team_points[g], state.contract_made[g])
